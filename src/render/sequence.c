// sequence: the whole step sequence, for machines without a display (`ttrace demo` there
// writes it as numbered PNGs), for handouts and for `ttrace export-html` (as SVGs).
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "render.h"

// Calls fn for one step (k) at layer vs->layer, and for the grid of all heads after softmax.
static tt_status visit(const tt_trace *tr, tt_view_state *vs, int k, int *count, tt_sequence_fn fn, void *ctx,
                       tt_error *err) {
  const tt_step *s = tt_step_get(tr, k);
  tt_view_goto_step(vs, tr, k);
  char name[160];
  if (s->in_block)
    snprintf(name, sizeof name, "%03d-L%d-%s", ++*count, vs->layer, s->id);
  else
    snprintf(name, sizeof name, "%03d-%s", ++*count, s->id);
  tt_status st = fn(ctx, vs, name, err);
  if (!st && strcmp(s->id, "softmax") == 0) {
    vs->view = TT_VIEW_GRID;
    snprintf(name, sizeof name, "%03d-L%d-softmax-heads", ++*count, vs->layer);
    st = fn(ctx, vs, name, err);
  }
  return st;
}

tt_status tt_render_each_step(const tt_trace *tr, tt_lang lang, tt_theme theme, tt_sequence_fn fn, void *ctx, int *n,
                              tt_error *err) {
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
  tt_status st = TT_OK;
  for (int i = 0; i < tt_step_count() && !st; i++) {
    const tt_step *s = tt_step_get(tr, i);
    if (s->in_block && blocks_done) continue;
    int first = i, last = i;
    if (s->in_block) {  // the run of block steps, repeated per layer
      while (last + 1 < tt_step_count() && tt_step_get(tr, last + 1)->in_block) last++;
      blocks_done = true;
    }
    for (int li = 0; li < (s->in_block ? nl : 1) && !st; li++)
      for (int k = first; k <= last && !st; k++) {
        vs.layer = s->in_block ? layers[li] : 0;
        st = visit(tr, &vs, k, &count, fn, ctx, err);
      }
  }
  *n = count;
  return st;
}

typedef struct {
  tt_render *rc;
  const tt_trace *tr;
  const char *dir;
  int w, h;
  float font_scale;
} png_job;

static tt_status write_png(void *ctx, const tt_view_state *vs, const char *name, tt_error *err) {
  png_job *j = ctx;
  char path[4200];
  snprintf(path, sizeof path, "%s/%s.png", j->dir, name);
  tt_view_state scaled = *vs;
  scaled.font_scale = j->font_scale > 0 ? j->font_scale : 1;
  return tt_render_png(j->rc, j->tr, &scaled, j->w, j->h, path, err);
}

tt_status tt_render_write_sequence(const tt_trace *tr, const tt_render_extras *ex, const char *dir, int w, int h,
                                   tt_lang lang, tt_theme theme, float font_scale, int *n, tt_error *err) {
  *n = 0;
  if (mkdir(dir, 0755) != 0 && errno != EEXIST)
    return tt_fail(err, TT_ERR_IO, "cannot create folder %s: %s", dir, strerror(errno));
  tt_render *rc = NULL;
  tt_status st = tt_render_create(&rc, err);
  if (st) return st;
  tt_render_set_extras(rc, ex);
  png_job j = {rc, tr, dir, w, h, font_scale};
  st = tt_render_each_step(tr, lang, theme, write_png, &j, n, err);
  tt_render_destroy(rc);
  return st;
}
