// inspect_int: the inspector's line writer, shared by inspect.c (the cell, attention
// scores and weights) and explain.c (the arithmetic of every other step).
#ifndef TT_INSPECT_INT_H
#define TT_INSPECT_INT_H

#include "render_int.h"

typedef struct {
  tt_paint *p;
  SDL_Rect r;
  int y, px;
  char nums[12][48];  // numbers formatted for the line being written (tt_insp_num)
  int n_nums;
} tt_insp_writer;

// v formatted by fmt with real minus signs, valid until the line is written.
const char *tt_insp_num(tt_insp_writer *w, const char *fmt, double v);
// Writes one line; note says what it is (the SVG's data-tt), "" for none. false when
// there is no room left.
bool tt_insp_put(tt_insp_writer *w, const char *note, tt_font_kind k, tt_rgba c, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
// Lines of room left below the writer's position.
int tt_insp_room(const tt_insp_writer *w);
// The arithmetic behind cell (i, j) of slice `head` of the pinned hook, for every step
// but the attention scores and weights; false when the hook has none to show.
bool tt_explain_cell(tt_insp_writer *w, const char *hook, int head, int i, int j);

#endif
