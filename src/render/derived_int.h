// derived_int: what the compare, norms and lesson-page painters share inside the render
// module: the derived tensors they keep (tt_derived) and their painters.
#ifndef TT_DERIVED_INT_H
#define TT_DERIVED_INT_H

#include "render_int.h"

// Brings d up to date for a view of a (compared with b; norms of the layers la / lb when
// n_layers > 0) and drops rc's textures and scales when something was remade. Call it
// before drawing a frame (the canvas must not be in use).
bool tt_derived_update(tt_derived *d, tt_render *rc, const tt_trace *a, const tt_trace *b, const tt_view_state *st,
                       const tt_tensor *const *la, const tt_tensor *const *lb, int n_layers);

// Vector lengths: out (T, L) F32, out[t, l] = ‖layers[l][t, :]‖ (data malloc'd; free it).
// false when the layers disagree in T or are not (T, C) / (T,).
bool tt_norms_compute(const tt_tensor *const *layers, int n, tt_tensor *out);
// The (T, L) lengths as a table of coloured cells: tokens down, layers across.
// Returns the panel index (or -1).
int tt_paint_norms(tt_paint *p, SDL_Rect r, const tt_tensor *t, const tt_scale *s);

// The comparison of p->tr with cmp->b for p->st's view (or, with n_layers > 0, of the
// vector lengths of layers / layers_b) inside r, with its header line; token row `row`
// outlined (-1: none) and the hovered cell shown in all three panels.
void tt_paint_compare(tt_paint *p, SDL_Rect r, const tt_compare *cmp, tt_derived *d, const tt_tensor *const *layers,
                      const tt_tensor *const *layers_b, int n_layers, int row);
// The label over one side of a comparison: "A  weather “prompt”", "B ...", "A − B ...".
void tt_paint_compare_label(tt_paint *p, SDL_Rect r, int side, const tt_compare *cmp, const tt_trace *tr);
// The matrices t[0..n) (a, b and maybe a − b, one shape; head st->head) laid out together
// with shared labels and legends; groups receives each side's panel index range. false
// when they cannot be drawn that way (the caller then draws each side on its own).
bool tt_paint_matrix_trio(tt_paint *p, SDL_Rect r, const tt_compare *cmp, const tt_tensor *const *t,
                          const tt_trace *const *trs, const tt_scale *sc, int n, bool table, int groups[3][2]);
// The title of a comparison (tensor, layer, head; step, the two sides; or the vector
// lengths of layers when n_layers > 0); returns its height.
int tt_paint_compare_title(tt_paint *p, SDL_Rect r, const tt_compare *cmp, const tt_tensor *const *layers,
                           int n_layers);
// The hovered cell of any panel: outlined, with its value and labels (d->info.hover).
void tt_paint_cell_hover(tt_paint *p, SDL_Rect area, tt_derived *d);
// Vector lengths of one trace (kept in d) drawn in r with a title; the lesson page's "norms".
void tt_paint_norms_view(tt_paint *p, SDL_Rect r, tt_derived *d, const tt_tensor *const *layers, int n_layers);

// Outlines token row `row` in every panel from index `first` on whose rows are tokens.
void tt_paint_row_marks(tt_paint *p, int row, int first);

#endif
