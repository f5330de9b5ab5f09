// fuzz_render: any bytes as a trace file; a trace that loads is drawn headless at every
// pipeline step (the step's own view, framed), and each tensor of the first few in every
// view, with the pointer over a cell and a cell pinned. Nothing may crash; a view that
// cannot be drawn says so in one line.
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "render/render.h"

static tt_render *rc;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  tt_error err = {0};
  if (tt_render_create(&rc, &err)) fuzz_fail(err.msg);
  return 0;
}

static void draw(const tt_trace *tr, const tt_view_state *vs) {
  SDL_Surface *s = NULL;
  tt_layout *lay = malloc(sizeof *lay);
  tt_error err = {0};
  tt_status st = tt_render_surface(rc, tr, vs, 320, 200, &s, lay, &err);
  if (st)
    fuzz_check_error(st, &err);
  else
    SDL_FreeSurface(s);
  tt_pick pk;
  if (!st) tt_render_pick(lay, tr, 160, 100, &pk);
  free(lay);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_write("in.safetensors", data, size);
  tt_trace *tr = NULL;
  tt_error err = {0};
  tt_status st = tt_trace_load(path, &tr, &err);
  if (st) {
    fuzz_check_error(st, &err);
    return 0;
  }
  tt_view_state vs;
  for (int i = 0; i < tt_step_count(); i++) {
    tt_view_state_init(&vs);
    tt_view_goto_step(&vs, tr, i);
    vs.frame = i & 1;
    vs.mouse_x = 150, vs.mouse_y = 90;
    draw(tr, &vs);
  }
  for (size_t t = 0; t < tt_trace_count(tr) && t < 3; t++)
    for (int v = 0; v < TT_VIEW_COUNT; v++) {
      tt_view_state_init(&vs);
      snprintf(vs.hook, sizeof vs.hook, "%s", tt_trace_get(tr, t)->name);
      vs.view = (tt_view_kind)v;
      vs.pin_row = 1, vs.pin_col = 1;
      vs.hover_row = (int)t, vs.hover_col = 2;  // a figure's --hover (tt_layout_point_at)
      vs.head = (int)t;
      draw(tr, &vs);
    }
  tt_trace_destroy(tr);
  return 0;
}
