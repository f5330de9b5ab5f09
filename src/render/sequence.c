// sequence: the whole step sequence as numbered PNGs, for machines without a display
// (`ttrace demo` there) and for handouts.
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "render.h"

tt_status tt_render_write_sequence(const tt_trace *tr, const tt_render_extras *ex, const char *dir, int w, int h,
                                   tt_lang lang, tt_theme theme, int *n, tt_error *err) {
  *n = 0;
  if (mkdir(dir, 0755) != 0 && errno != EEXIST)
    return tt_fail(err, TT_ERR_IO, "cannot create folder %s: %s", dir, strerror(errno));
  tt_render *rc = NULL;
  tt_status st = tt_render_create(&rc, err);
  if (st) return st;
  tt_render_set_extras(rc, ex);
  tt_config cfg;
  int L = tt_trace_config(tr, &cfg) ? cfg.n_layer : 1;
  // Which layers get their block steps.
  int layers[4], nl = 0;
  if (L <= 4) {
    for (int l = 0; l < L; l++) layers[nl++] = l;
  } else {
    layers[nl++] = 0;
    layers[nl++] = L - 1;
  }
  tt_view_state vs;
  tt_view_state_init(&vs);
  vs.frame = true;
  vs.lang = lang;
  vs.theme = theme;
  int count = 0;
  bool blocks_done = false;
  for (int i = 0; i < tt_step_count() && !st; i++) {
    const tt_step *s = tt_step_get(tr, i);
    if (s->in_block && blocks_done) continue;
    int first = i, last = i;
    if (s->in_block) {  // the run of block steps, repeated per layer
      while (last + 1 < tt_step_count() && tt_step_get(tr, last + 1)->in_block) last++;
      blocks_done = true;
    }
    for (int li = 0; li < (s->in_block ? nl : 1) && !st; li++) {
      for (int k = first; k <= last && !st; k++) {
        vs.layer = s->in_block ? layers[li] : 0;
        tt_view_goto_step(&vs, tr, k);
        char path[4200];
        if (s->in_block)
          snprintf(path, sizeof path, "%s/%03d-L%d-%s.png", dir, ++count, vs.layer, tt_step_get(tr, k)->id);
        else
          snprintf(path, sizeof path, "%s/%03d-%s.png", dir, ++count, tt_step_get(tr, k)->id);
        st = tt_render_png(rc, tr, &vs, w, h, path, err);
        // The attention steps also get the grid of all heads.
        if (!st && strcmp(tt_step_get(tr, k)->id, "softmax") == 0) {
          vs.view = TT_VIEW_GRID;
          snprintf(path, sizeof path, "%s/%03d-L%d-softmax-heads.png", dir, ++count, vs.layer);
          st = tt_render_png(rc, tr, &vs, w, h, path, err);
        }
      }
    }
  }
  tt_render_destroy(rc);
  *n = count;
  return st;
}
