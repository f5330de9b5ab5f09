// compare: two traces side by side and their difference. The view of the state is drawn
// from trace a and from trace b; when the shown tensor has one shape in both, a third
// panel shows a − b with a diverging colour map (red: a is larger). a and b share one
// colour scale, so equal colours mean equal numbers. The differences live in a small
// trace of their own (same hook names, a's tokens) inside tt_derived, so the ordinary
// painters draw them and the layout's panels can point at them between frames.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "derived_int.h"

enum { M_HEAT, M_GRID, M_OVERVIEW, M_NORMS, M_OTHER };

struct tt_derived {
  bool valid;
  const tt_trace *a, *b;
  char key[160];           // mode and hook the difference was made for
  const void *nkey[2][2];  // first and last layer tensor of the norms inputs
  int nkey_n[2];
  tt_trace *diff;      // a − b (F32), same names; tokens and config of a
  tt_tensor norms[2];  // (T, L) vector lengths of a and b
  bool has_norms[2];
  tt_scale joint;  // one scale for a and b
  bool has_joint;
  tt_compare_info info;
  int groups[3][2];  // panel index ranges of the last drawing: A, B, A − B
};

tt_status tt_derived_create(tt_derived **out, tt_error *err) {
  tt_derived *d = calloc(1, sizeof *d);
  if (!d) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  d->info.max_at = -1;
  *out = d;
  return TT_OK;
}

void tt_derived_reset(tt_derived *d) {
  if (!d) return;
  tt_trace_destroy(d->diff);
  for (int i = 0; i < 2; i++) free(d->norms[i].data);
  memset(d, 0, sizeof *d);
  d->info.max_at = -1;
}

void tt_derived_destroy(tt_derived *d) {
  tt_derived_reset(d);
  free(d);
}

void tt_derived_info(const tt_derived *d, tt_compare_info *out) {
  *out = d->info;
}

// ---- helpers ------------------------------------------------------------------------------
static tt_view_kind kind_of(const tt_trace *tr, const tt_view_state *st) {
  if (st->view != TT_VIEW_AUTO) return st->view;
  int s = tt_step_find(tr, st->hook, NULL);
  if (s >= 0) return tt_step_get(tr, s)->view == TT_VIEW_QKV ? TT_VIEW_HEATMAP : tt_step_get(tr, s)->view;
  return strcmp(st->hook, "tokens") == 0 ? TT_VIEW_TOKENS : TT_VIEW_HEATMAP;
}

static int mode_of(tt_view_kind k, int n_layers) {
  if (n_layers > 0) return M_NORMS;
  switch (k) {
  case TT_VIEW_HEATMAP:
  case TT_VIEW_TABLE:
  case TT_VIEW_AUTO:
    return M_HEAT;
  case TT_VIEW_GRID:
    return M_GRID;
  case TT_VIEW_OVERVIEW:
    return M_OVERVIEW;
  default:
    return M_OTHER;
  }
}

static bool same_shape(const tt_tensor *a, const tt_tensor *b) {
  if (!a || !b || a->ndim != b->ndim) return false;
  for (int i = 0; i < a->ndim; i++)
    if (a->shape[i] != b->shape[i]) return false;
  return true;
}

// Puts s into the render context's scale cache for t, so the painters use it.
static void scale_put(tt_render *rc, const tt_tensor *t, const tt_scale *s) {
  if (!t || !t->data) return;
  int64_t n = tt_tensor_numel(t);
  tt_scale_entry *e = NULL;
  for (int i = 0; i < TT_SCALE_CACHE && !e; i++)
    if (rc->scales[i].data == t->data && rc->scales[i].numel == n) e = &rc->scales[i];
  if (!e) {
    e = &rc->scales[rc->next_scale];
    rc->next_scale = (rc->next_scale + 1) % TT_SCALE_CACHE;
  }
  e->data = t->data;
  e->numel = n;
  e->s = *s;
}

static tt_scale joint_scale(const tt_tensor *a, const tt_tensor *b, const char *hook) {
  tt_scale sa, sb, j;
  tt_scale_of(a, hook, &sa);
  tt_scale_of(b, hook, &sb);
  j = sa;
  j.has_masked = sa.has_masked || sb.has_masked;
  j.clipped = sa.clipped || sb.clipped;
  if (sa.diverging || sb.diverging) {
    float lim = fmaxf(fmaxf(fabsf(sa.lo), fabsf(sa.hi)), fmaxf(fabsf(sb.lo), fabsf(sb.hi)));
    j.diverging = true;
    j.lo = -lim;
    j.hi = lim;
  } else {
    j.lo = fminf(sa.lo, sb.lo);
    j.hi = fmaxf(sa.hi, sb.hi);
  }
  return j;
}

// Vector lengths of one side, remade when the layers change; true when remade.
static bool norms_of(tt_derived *d, int side, const tt_tensor *const *layers, int n) {
  if (!layers || n <= 0) return false;
  const void *k0 = layers[0], *k1 = layers[n - 1];
  if (d->has_norms[side] && d->nkey[side][0] == k0 && d->nkey[side][1] == k1 && d->nkey_n[side] == n) return false;
  free(d->norms[side].data);
  d->has_norms[side] = tt_norms_compute(layers, n, &d->norms[side]);
  d->nkey[side][0] = k0;
  d->nkey[side][1] = k1;
  d->nkey_n[side] = n;
  d->valid = false;  // the difference follows
  return true;
}

// Adds a − b to the difference trace; updates the statistics.
static void add_diff(tt_derived *d, const tt_tensor *ta, const tt_tensor *tb) {
  int64_t n = tt_tensor_numel(ta);
  float *v = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
  if (!v) return;
  tt_compare_info *in = &d->info;
  for (int64_t i = 0; i < n; i++) {
    float x = tt_tensor_at(ta, i), y = tt_tensor_at(tb, i);
    v[i] = x - y;  // −∞ − −∞ is NaN: drawn as masked, as in both traces
    if (isfinite(x) && isfinite(y)) {
      float a = fabsf(v[i]);
      if (a > in->max_abs || in->max_at < 0) {
        in->max_abs = a;
        in->max_at = i;
        snprintf(in->hook, sizeof in->hook, "%s", ta->name);
      }
    } else if (isfinite(x) != isfinite(y)) {
      in->n_one_sided++;
    }
  }
  tt_tensor t = {.name = ta->name, .dtype = TT_F32, .ndim = ta->ndim, .data = v};
  memcpy(t.shape, ta->shape, sizeof t.shape);
  tt_error err;
  if (tt_trace_add(d->diff, &t, &err) == TT_OK) {
    in->diff = true;
    in->numel += n;
  }
  free(v);
}

// Makes (or keeps) the difference and the vector lengths for this view. Returns true when
// something was remade: the textures and scales drawn from the old ones must then be
// dropped (tt_derived_update), which only may happen before a frame is drawn.
static bool prepare(tt_derived *d, const tt_trace *a, const tt_trace *b, const tt_view_state *st,
                    const tt_tensor *const *la, const tt_tensor *const *lb, int n_layers) {
  int mode = mode_of(kind_of(a, st), n_layers);
  bool remade = false;
  if (mode == M_NORMS) {
    remade |= norms_of(d, 0, la, n_layers);
    if (b) remade |= norms_of(d, 1, lb, n_layers);
  }
  char key[160];
  snprintf(key, sizeof key, "%d|%s", mode, mode == M_OVERVIEW ? tt_hook_suffix(st->hook) : st->hook);
  if (d->valid && d->a == a && d->b == b && strcmp(d->key, key) == 0) return remade;
  tt_trace_destroy(d->diff);
  d->diff = tt_trace_create();
  d->a = a;
  d->b = b;
  snprintf(d->key, sizeof d->key, "%s", key);
  memset(&d->info, 0, sizeof d->info);
  d->info.max_at = -1;
  d->has_joint = false;
  d->valid = true;
  if (!d->diff || !b) return true;
  // Tokens and config of a, so labels and the overview read as a's; where b has another
  // token at a position the label says both ("␣dog≠␣man").
  int T = tt_trace_n_tokens(a), Tb = tt_trace_n_tokens(b);
  int32_t *ids = malloc(sizeof(int32_t) * (size_t)(T > 0 ? T : 1));
  const char **strs = malloc(sizeof(char *) * (size_t)(T > 0 ? T : 1));
  char(*both)[160] = malloc(sizeof *both * (size_t)(T > 0 ? T : 1));
  if (ids && strs && both) {
    for (int i = 0; i < T; i++) {
      ids[i] = tt_trace_token_id(a, i);
      strs[i] = tt_trace_token(a, i);
      const char *tb = i < Tb ? tt_trace_token(b, i) : NULL;
      if (tb && strs[i] && strcmp(tb, strs[i]) != 0) {
        snprintf(both[i], sizeof both[i], "%.70s\xE2\x89\xA0%.70s", strs[i], tb);
        strs[i] = both[i];
      }
    }
    tt_error err;
    tt_trace_set_tokens(d->diff, ids, strs, T, &err);
  }
  free(ids);
  free(strs);
  free(both);
  const char *cfg = tt_trace_meta(a, "config");
  if (cfg) tt_trace_set_meta(d->diff, "config", cfg);
  tt_trace_set_meta(d->diff, "prompt", "A \xE2\x88\x92 B");

  if (mode == M_NORMS) {
    if (d->has_norms[0] && d->has_norms[1] && same_shape(&d->norms[0], &d->norms[1]))
      add_diff(d, &d->norms[0], &d->norms[1]);
    if (d->has_norms[0] && d->has_norms[1]) {
      d->joint = joint_scale(&d->norms[0], &d->norms[1], "norms");
      d->has_joint = true;
    }
  } else if (mode == M_OVERVIEW) {
    char name[160];
    for (int l = 0;; l++) {
      const char *hook = tt_hook_relayer(st->hook, l, name, sizeof name);
      const tt_tensor *ta = hook ? tt_trace_find(a, hook) : NULL, *tb = hook ? tt_trace_find(b, hook) : NULL;
      if (!ta) break;
      if (same_shape(ta, tb)) add_diff(d, ta, tb);
    }
  } else {
    const tt_tensor *ta = tt_trace_find(a, st->hook), *tb = tt_trace_find(b, st->hook);
    if (same_shape(ta, tb)) add_diff(d, ta, tb);
    if (ta && tb) {
      d->joint = joint_scale(ta, tb, st->hook);
      d->has_joint = true;
    }
  }
  if (d->info.max_at < 0) snprintf(d->info.hook, sizeof d->info.hook, "%s", mode == M_NORMS ? "norms" : st->hook);
  return true;
}

bool tt_derived_update(tt_derived *d, tt_render *rc, const tt_trace *a, const tt_trace *b, const tt_view_state *st,
                       const tt_tensor *const *la, const tt_tensor *const *lb, int n_layers) {
  if (!prepare(d, a, b, st, la, lb, n_layers)) return false;
  tt_render_forget(rc);
  return true;
}

// The scales every frame (the cache is shared with other views and may have dropped them).
static void put_scales(tt_derived *d, tt_render *rc, const tt_trace *a, const tt_trace *b, const char *hook, int mode) {
  if (d->has_joint) {
    if (mode == M_NORMS) {
      scale_put(rc, &d->norms[0], &d->joint);
      scale_put(rc, &d->norms[1], &d->joint);
    } else {
      scale_put(rc, tt_trace_find(a, hook), &d->joint);
      if (b) scale_put(rc, tt_trace_find(b, hook), &d->joint);
    }
  }
  if (!d->diff) return;
  float lim = d->info.max_abs > 0 ? d->info.max_abs : 1;
  tt_scale s = {.diverging = true, .lo = -lim, .hi = lim, .qty = TT_S_QTY_DIFFERENCE};
  for (size_t i = 0; i < tt_trace_count(d->diff); i++) {
    const tt_tensor *t = tt_trace_get(d->diff, i);
    s.has_masked = false;
    int64_t n = tt_tensor_numel(t);
    for (int64_t k = 0; k < n && !s.has_masked; k++) s.has_masked = !isfinite(tt_tensor_at(t, k));
    scale_put(rc, t, &s);
  }
}

// ---- drawing ---------------------------------------------------------------------------------
static const tt_tensor *side_tensor(tt_derived *d, const tt_trace *tr, int side, int mode, const char *name) {
  if (mode == M_NORMS) {
    if (side == 2) return d->diff ? tt_trace_find(d->diff, "norms") : NULL;
    return d->has_norms[side] ? &d->norms[side] : NULL;
  }
  return tr ? tt_trace_find(tr, name) : NULL;
}

// One side's picture in r (below its label line).
static void paint_side(tt_paint *p, SDL_Rect r, int side, int mode, tt_view_kind kind, const tt_tensor *t,
                       tt_derived *d) {
  const tt_view_state *st = p->st;
  if (!t && mode != M_OVERVIEW && !(mode == M_OTHER && side < 2)) {
    tt_draw_para(p->cv, r.x, r.y + p->unit / 2, r.w, tt_str(st->lang, TT_S_NOT_RECORDED), p->unit, TT_FONT_SANS,
                 p->pal->warn);
    return;
  }
  switch (mode) {
  case M_HEAT:
    tt_paint_heatmap(p, r, t, st->head, kind == TT_VIEW_TABLE);
    break;
  case M_GRID:
    if (t->ndim == 3)
      tt_paint_grid(p, r, t);
    else
      tt_paint_heatmap(p, r, t, st->head, false);
    break;
  case M_OVERVIEW:
    tt_paint_overview(p, r, tt_hook_suffix(st->hook));
    break;
  case M_NORMS: {
    tt_scale s;
    if (side < 2 && d->has_joint)
      s = d->joint;
    else
      tt_scale_get(p, t, "norms", &s);
    tt_paint_norms(p, r, t, &s);
    break;
  }
  default:
    if (side < 2)
      tt_paint_view(p, r);
    else
      tt_paint_heatmap(p, r, t, st->head, false);
    break;
  }
}

// Where the panels go: n panels (3 with the difference) in a row, in a column, or 2 × 2
// (a and b on top, the difference and the info box below), whichever draws the content
// largest for its aspect (width / height).
typedef struct {
  SDL_Rect box[4];
  int n_boxes;  // 4: the last one is the info box
} arrangement;

static float fit_side(int w, int h, float aspect, int u) {
  float cw = (float)w - (float)u * 10, ch = (float)h - (float)u * 6;
  if (cw < 1 || ch < 1) return 0;
  return fminf(cw / aspect, ch);
}

static arrangement arrange(SDL_Rect r, int n, float aspect, int u) {
  arrangement a;
  memset(&a, 0, sizeof a);
  int gap = u;
  float row = fit_side((r.w - gap * (n - 1)) / n, r.h, aspect, u);
  float col = fit_side(r.w, (r.h - gap * (n - 1)) / n, aspect, u);
  float quad = n == 3 ? fit_side((r.w - gap) / 2, (r.h - gap) / 2, aspect, u) : -1;
  if (quad >= row && quad >= col) {
    int w = (r.w - gap) / 2, h = (r.h - gap) / 2;
    a.box[0] = (SDL_Rect){r.x, r.y, w, h};
    a.box[1] = (SDL_Rect){r.x + w + gap, r.y, w, h};
    a.box[2] = (SDL_Rect){r.x, r.y + h + gap, w, h};
    a.box[3] = (SDL_Rect){r.x + w + gap, r.y + h + gap, w, h};
    a.n_boxes = 4;
  } else if (row >= col) {
    int w = (r.w - gap * (n - 1)) / n;
    for (int i = 0; i < n; i++) a.box[i] = (SDL_Rect){r.x + i * (w + gap), r.y, w, r.h};
    a.n_boxes = n;
  } else {
    int h = (r.h - gap * (n - 1)) / n;
    for (int i = 0; i < n; i++) a.box[i] = (SDL_Rect){r.x, r.y + i * (h + gap), r.w, h};
    a.n_boxes = n;
  }
  return a;
}

// Two plots (the activation's curves) side by side over the full height, or, with the
// difference, over 65% of it and the difference across the whole width below.
static arrangement arrange_plots(SDL_Rect r, int n, int u) {
  arrangement a;
  memset(&a, 0, sizeof a);
  int gap = u, w = (r.w - gap) / 2, h = n == 3 ? (r.h - gap) * 65 / 100 : r.h;
  a.box[0] = (SDL_Rect){r.x, r.y, w, h};
  a.box[1] = (SDL_Rect){r.x + w + gap, r.y, w, h};
  if (n == 3) a.box[2] = (SDL_Rect){r.x, r.y + h + gap, r.w, r.h - h - gap};
  a.n_boxes = n;
  return a;
}

// A step's own view (tokens, LayerNorm, a sum, bars, ...) side by side needs about this much
// room, in units of its type: less, and its labels run into each other.
#define OWN_VIEW_MIN_W 24
#define OWN_VIEW_MIN_H 14
static bool fits_own_views(const arrangement *ar, int n, int u) {
  for (int i = 0; i < n; i++)
    if (ar->box[i].w < OWN_VIEW_MIN_W * u || ar->box[i].h < OWN_VIEW_MIN_H * u) return false;
  return true;
}

// The two traces hold the same numbers for the shown tensor (the header says they agree).
static bool traces_agree(const tt_derived *d) {
  const tt_compare_info *in = &d->info;
  return in->diff && in->max_at >= 0 && in->max_abs == 0 && in->n_one_sided == 0;
}

static float content_aspect(const tt_paint *p, int mode, const tt_tensor *t, tt_derived *d) {
  float asp = 1.2f;
  if (mode == M_NORMS && d->has_norms[0]) {
    asp = (float)d->norms[0].shape[1] * 3.0f / (float)d->norms[0].shape[0];
  } else if ((mode == M_HEAT) && t) {
    tt_mat m;
    if (tt_mat_of(p->tr, t, 0, &m) && m.rows > 0) asp = (float)m.cols / (float)m.rows;
  } else if (mode == M_GRID) {
    asp = 1.6f;
  }
  return fminf(fmaxf(asp, 0.3f), 8.0f);
}

// "row 3 ␣nice" style label of one index.
static void index_text(const tt_paint *p, const tt_panel *pn, int row, int col, char *buf, size_t len) {
  char rl[96], cl[96];
  tt_axis_label(p->tr, p->ex, pn->row_axis, row, rl, sizeof rl);
  tt_axis_label(p->tr, p->ex, pn->col_axis, col, cl, sizeof cl);
  int n = 0;
  if (pn->head >= 0 && pn->t->ndim == 3) n = snprintf(buf, len, "%s %d, ", tt_str(p->st->lang, TT_S_HEAD), pn->head);
  if (n < 0 || (size_t)n >= len) return;
  if (pn->row_axis == 'T' && pn->col_axis == 'C' && strcmp(pn->t->name, "norms") == 0)
    snprintf(buf + n, len - (size_t)n, tt_str(p->st->lang, TT_S_CMP_NORMS_INDEX_FMT), tt_str(p->st->lang, TT_S_ROW),
             row, rl, col);
  else
    snprintf(buf + n, len - (size_t)n, "%s %d %s, %s %d%s%s", tt_str(p->st->lang, TT_S_ROW), row, rl,
             tt_str(p->st->lang, TT_S_COLUMN), col, pn->col_axis == 'T' || pn->col_axis == 'V' ? " " : "",
             pn->col_axis == 'T' || pn->col_axis == 'V' ? cl : "");
}

// "head 0, row 3 ␣nice, column 1 ␣weather" for flat index i of t (norms: "…, block 2").
static void where_text(const tt_paint *p, const tt_tensor *t, int64_t i, bool with_head, char *buf, size_t len) {
  int64_t idx[8] = {0}, rest = i;
  for (int k = t->ndim - 1; k >= 0; k--) {
    idx[k] = rest % t->shape[k];
    rest /= t->shape[k];
  }
  char axes[8];
  tt_hook_axes(p->tr, t, axes, sizeof axes);
  bool norms = strcmp(t->name, "norms") == 0;
  int n = 0, k0 = 0;
  buf[0] = 0;
  if (tt_hook_block(t->name) >= 0 && with_head && t->ndim == 3)
    n += snprintf(buf + n, len - (size_t)n, "%s %d, ", tt_str(p->st->lang, TT_S_LAYER), tt_hook_block(t->name));
  if (t->ndim == 3) {
    if (with_head) n += snprintf(buf + n, len - (size_t)n, "%s %d, ", tt_str(p->st->lang, TT_S_HEAD), (int)idx[0]);
    k0 = 1;
  }
  char lab[96];
  for (int k = k0; k < t->ndim && n < (int)len; k++) {
    int ax = norms ? (k == 0 ? 'T' : 'B') : axes[k];
    const char *what = k == k0 ? tt_str(p->st->lang, TT_S_ROW) : tt_str(p->st->lang, TT_S_COLUMN);
    if (ax == 'B') what = tt_str(p->st->lang, TT_S_BLOCK);
    bool text = ax == 'T' || ax == 'V' || ax == 'L';
    n += snprintf(buf + n, len - (size_t)n, "%s%s %d%s%s", k > k0 ? ", " : "", what, (int)idx[k], text ? " " : "",
                  text ? tt_axis_label(p->tr, p->ex, ax, (int)idx[k], lab, sizeof lab) : "");
  }
}

// The header line: the largest difference and where it is, or why there is none. For one
// head of a head-major tensor, the largest difference in that head first.
static int header_line(tt_paint *p, SDL_Rect r, tt_derived *d, const tt_compare *cmp, int mode) {
  tt_canvas *cv = p->cv;
  int u = p->unit;
  const tt_type type = tt_type_for(u);
  char buf[600], tail[600] = "", where[300];
  const tt_compare_info *in = &d->info;
  if (in->diff && in->max_at >= 0) {
    const tt_tensor *t = mode == M_NORMS ? side_tensor(d, NULL, 2, mode, "norms") : tt_trace_find(d->diff, in->hook);
    bool one_head = mode == M_HEAT && t && t->ndim == 3;
    if (one_head) {
      int h = p->st->head < 0 ? 0 : p->st->head >= t->shape[0] ? (int)t->shape[0] - 1 : p->st->head;
      int64_t sz = t->shape[1] * t->shape[2], at = -1;
      float mx = 0;
      for (int64_t i = h * sz; i < (h + 1) * sz; i++) {
        float v = fabsf(tt_tensor_at(t, i));
        if (isfinite(v) && (at < 0 || v > mx)) {
          mx = v;
          at = i;
        }
      }
      snprintf(buf, sizeof buf, tt_str(p->st->lang, TT_S_CMP_MAX_HEAD_FMT), (double)mx, h);
      if (at >= 0 && mx > 0) {
        where_text(p, t, at, false, where, sizeof where);
        snprintf(tail, sizeof tail, tt_str(p->st->lang, TT_S_CMP_AT_ALL_HEADS_FMT), where, (double)in->max_abs);
      } else {
        snprintf(tail, sizeof tail, tt_str(p->st->lang, TT_S_CMP_ALL_HEADS_FMT), (double)in->max_abs);
      }
      if (in->max_abs > mx) {
        where_text(p, t, in->max_at, true, where, sizeof where);
        size_t l = strlen(tail);
        snprintf(tail + l, sizeof tail - l, " (%s)", where);
      }
    } else if (in->max_abs == 0) {
      snprintf(buf, sizeof buf, "%s", tt_str(p->st->lang, TT_S_CMP_EQUAL));
    } else {
      snprintf(buf, sizeof buf, "max |A \xE2\x88\x92 B| = %.4g", (double)in->max_abs);
      if (t) {
        where_text(p, t, in->max_at, true, where, sizeof where);
        snprintf(tail, sizeof tail, tt_str(p->st->lang, TT_S_CMP_AT_FMT), where);
      }
    }
    if (in->n_one_sided > 0) {
      size_t l = strlen(tail);
      snprintf(tail + l, sizeof tail - l, tt_str(p->st->lang, TT_S_CMP_ONE_SIDED_FMT), (long long)in->n_one_sided);
    }
  } else if (!cmp->b) {
    snprintf(buf, sizeof buf, "%s", tt_str(p->st->lang, TT_S_CMP_NO_B));
  } else {
    const tt_tensor *ta = side_tensor(d, p->tr, 0, mode, p->st->hook),
                    *tb = side_tensor(d, cmp->b, 1, mode, p->st->hook);
    char sa[64] = "", sb[64] = "";
    if (ta) tt_shape_str(ta->shape, ta->ndim, sa, sizeof sa);
    if (tb) tt_shape_str(tb->shape, tb->ndim, sb, sizeof sb);
    if (ta && tb)
      snprintf(buf, sizeof buf, tt_str(p->st->lang, TT_S_CMP_SHAPES_DIFFER_FMT), sa, sb);
    else if (mode == M_OTHER || mode == M_OVERVIEW)
      snprintf(buf, sizeof buf, "%s", tt_str(p->st->lang, TT_S_CMP_NO_DIFF_VIEW));
    else
      snprintf(buf, sizeof buf, tt_str(p->st->lang, TT_S_CMP_LACKS_FMT), ta ? "B" : "A");
  }
  tt_minus_signs(buf, sizeof buf);  // "5.7e−06", not "5.7e-06"
  tt_minus_signs(tail, sizeof tail);
  // Smaller type before a cut: "in head 1" says what the number is.
  int px = tt_text_px_fit(cv->fonts, buf, TT_FONT_BOLD, type.heading, u, r.w);
  char fit[600];
  tt_text_fit(cv->fonts, buf, px, TT_FONT_BOLD, r.w, fit, sizeof fit);
  tt_note_scope(cv, "panel=compare_header hook=%s head=%d mode=%d", in->hook[0] ? in->hook : "-",
                p->st->head < 0 ? 0 : p->st->head, mode);
  tt_note(cv, "compare_max");
  tt_draw_text(cv, r.x, r.y, fit, px, TT_FONT_BOLD, in->diff ? p->pal->fg : p->pal->warn, TT_ALIGN_LEFT);
  int x = r.x + tt_text_width(cv->fonts, fit, px, TT_FONT_BOLD) + u;
  if (tail[0] && x < r.x + r.w - u * 4) {
    tt_text_fit(cv->fonts, tail, u, TT_FONT_SANS, r.x + r.w - x, fit, sizeof fit);
    tt_note(cv, "compare_where");
    tt_draw_text(cv, x, r.y + (px - u) / 2 + u / 8, fit, u, TT_FONT_SANS, p->pal->dim, TT_ALIGN_LEFT);
  }
  return px * 3 / 2;
}

// The hovered cell (under the pointer, or a figure's --hover cell): outlined in every panel
// that shows it, and a box with its value (with a comparison: a, b and a − b there).
// Without cmp every panel counts as side A.
static void hover(tt_paint *p, SDL_Rect area, tt_derived *d, const tt_compare *cmp, int mode) {
  tt_compare_info *in = &d->info;
  in->hover = false;
  tt_pick pk;
  int mx, my;
  if (!tt_hover_pick(p, &pk, &mx, &my)) return;
  int side = -1;
  for (int s = 0; s < 3 && cmp; s++)
    if (pk.panel >= d->groups[s][0] && pk.panel < d->groups[s][1]) side = s;
  if (!cmp) side = 0;
  if (side < 0) return;
  const tt_panel *pn = &p->lay->panels[pk.panel];
  const char *name = pn->t->name;
  const tt_tensor *t3[3] = {pn->t, NULL, NULL};
  if (cmp) {
    t3[0] = side_tensor(d, p->tr, 0, mode, name);
    t3[1] = side_tensor(d, cmp->b, 1, mode, name);
    t3[2] = side_tensor(d, d->diff, 2, mode, name);
  }
  int64_t idx = pn->offset + (int64_t)pk.row * pn->row_stride + pk.col;
  float v[3] = {NAN, NAN, NAN};
  for (int s = 0; s < 3; s++)
    if (t3[s] && same_shape(t3[s], pn->t)) v[s] = tt_tensor_at(t3[s], idx);
  in->hover = true;
  in->side = "ABD"[side];
  in->head = pn->t->ndim == 3 ? pn->head : -1;
  in->row = pk.row;
  in->col = pk.col;
  in->a = v[0];
  in->b = v[1];
  in->d = v[2];

  for (int i = 0; i < p->lay->n_panels; i++) {
    const tt_panel *q = &p->lay->panels[i];
    if (q->offset != pn->offset || strcmp(q->t->name, name) != 0 || pk.row >= q->rows || pk.col >= q->cols) continue;
    tt_draw_cell_mark(p->cv, q, pk.row, pk.col, p->pal->highlight);
  }

  int u = p->unit;

  const tt_type type = tt_type_for(u);
  char l[6][200], num[32];
  static const char *const names[3] = {"A  ", "B  ", "A \xE2\x88\x92 B  "};
  for (int s = 0; s < 3; s++) {
    if (isfinite(v[s]))
      tt_fmt_num(v[s], "%.6g", num, sizeof num);  // "5.96046e−08", the minus sign as everywhere
    else
      tt_fmt_value(v[s], num, sizeof num);
    if (!t3[s] || (s == 2 && isnan(v[s]) && !d->info.diff)) snprintf(num, sizeof num, "\xE2\x80\x94");  // —
    snprintf(l[s], sizeof l[s], "%s%s", cmp ? names[s] : "", num);
  }
  if (!cmp) {  // one value: the value line, then the index lines
    snprintf(l[1], sizeof l[1], "%s", l[0]);
    l[0][0] = 0;
  }
  index_text(p, pn, pk.row, pk.col, l[3], sizeof l[3]);
  tt_cell_index_text(pn->t, pn->head, pk.row, pk.col, l[4], sizeof l[4]);
  int px[5] = {type.heading, type.heading, type.heading, type.label, type.small};
  tt_font_kind fk[5] = {TT_FONT_BOLD, TT_FONT_BOLD, TT_FONT_BOLD, TT_FONT_SANS, TT_FONT_MONO};
  int first = cmp ? 0 : 1, n = 0;
  if (!cmp) l[2][0] = 0;
  // For readers of SVG: what each line is (tests/numbers checks them against both traces).
  char notes[5][48];
  for (int s = 0; s < 3; s++)
    snprintf(notes[s], sizeof notes[s], "hover_side s=%c r=%d c=%d", "ABD"[s], pk.row, pk.col);
  if (!cmp) snprintf(notes[1], sizeof notes[1], "hover_value r=%d c=%d", pk.row, pk.col);
  snprintf(notes[3], sizeof notes[3], "hover_where r=%d c=%d", pk.row, pk.col);
  snprintf(notes[4], sizeof notes[4], "hover_index r=%d c=%d", pk.row, pk.col);
  tt_tip_line lines[5];
  for (int i = first; i < 5; i++) {
    if (!l[i][0]) continue;
    tt_rgba c = cmp && i == side ? p->pal->accent : i < 3 ? p->pal->fg : p->pal->dim;
    lines[n++] = (tt_tip_line){l[i], px[i], fk[i], c, notes[i]};
  }
  tt_draw_cell_tooltip(p, area, mx, my, lines, n, pn->t, pn->head);
}

// The fourth box of the 2 × 2 arrangement: how to read the difference.
static void info_box(tt_paint *p, SDL_Rect r, tt_derived *d) {
  tt_canvas *cv = p->cv;
  int u = p->unit;
  cv->fill(cv, r.x, r.y, r.w, r.h, p->pal->panel);
  int y = r.y + u / 2;
  const char *lines[3];
  tt_lang lang = p->st->lang;
  lines[0] = tt_str(lang, TT_S_CMP_INFO_SUBTRACT);
  lines[1] = tt_str(lang, d->info.diff ? TT_S_CMP_INFO_COLOURS : TT_S_CMP_INFO_SHAPES);
  lines[2] = tt_str(lang, TT_S_CMP_INFO_POINT);
  for (int i = 0; i < 3 && y < r.y + r.h; i++) {  // what does not fit the box is cut with "…"
    tt_note(cv, "prose");
    y += tt_draw_para_cut(cv, r.x + u / 2, y, r.w - u, lines[i], u, i == 0 ? TT_FONT_BOLD : TT_FONT_SANS,
                          i == 0 ? p->pal->fg : p->pal->dim, r.y + r.h - y);
    y += u / 2;
  }
}

void tt_paint_compare(tt_paint *p, SDL_Rect r, const tt_compare *cmp, tt_derived *d, const tt_tensor *const *layers,
                      const tt_tensor *const *layers_b, int n_layers, int row) {
  const tt_view_state *st = p->st;
  tt_view_kind kind = kind_of(p->tr, st);
  int mode = mode_of(kind, n_layers);
  prepare(d, p->tr, cmp->b, st, layers, layers_b, n_layers);  // normally up to date already
  put_scales(d, p->rc, p->tr, cmp->b, st->hook, mode);
  int u = p->unit;
  p->lay->view_rect = r;
  int hh = header_line(p, r, d, cmp, mode);
  SDL_Rect body = {r.x, r.y + hh, r.w, r.h - hh};

  const tt_tensor *t[3];
  for (int s = 0; s < 3; s++) t[s] = side_tensor(d, s == 0 ? p->tr : s == 1 ? cmp->b : d->diff, s, mode, st->hook);
  // Gradient norms and next-token bars compare as their bars side by side at full height: a
  // cell-by-cell A − B of the one tensor would squeeze them into a quarter each, unreadable
  // (the header still gives the largest difference and where it is).
  bool has_diff = d->info.diff && (mode == M_OVERVIEW || t[2]) && kind != TT_VIEW_GRADNORM && kind != TT_VIEW_BARS;
  int n = has_diff ? 3 : 2;
  const tt_trace *trs[3] = {p->tr, cmp->b, d->diff};
  for (int s = 0; s < 3; s++) d->groups[s][0] = d->groups[s][1] = p->lay->n_panels;

  // The panels: without pointer or pin (the hover below covers all of them), in a
  // slightly smaller type so that three fit.
  tt_view_state sub = *st;
  sub.mouse_x = sub.mouse_y = -1;
  sub.pin_row = sub.pin_col = -1;
  if (sub.frame && mode == M_OTHER) sub.frame = false;
  tt_paint q = *p;
  q.st = &sub;
  q.unit = tt_unit_smaller(u);

  arrangement ar = {.n_boxes = 0};
  bool drawn = false;
  if (mode == M_OTHER && traces_agree(d)) {  // nothing to compare: the step's own view, once, at full size
    snprintf(q.cv->trace, sizeof q.cv->trace, "A");
    d->groups[0][0] = p->lay->n_panels;
    tt_paint_view(&q, body);
    d->groups[0][1] = p->lay->n_panels;
    drawn = true;
  }
  if (!drawn && kind == TT_VIEW_GELU) {
    ar = arrange_plots(body, n, u);
  } else if (!drawn) {
    ar = arrange(body, n, content_aspect(p, mode, t[0], d), u);
  }
  // One head or one matrix: a, b and a − b together, with shared labels and legends; so too
  // a view of its own where its share of the area is too small for it (a zoomed projector).
  if (!drawn && (mode == M_HEAT || (mode == M_OTHER && !fits_own_views(&ar, n, q.unit))) && t[0] && t[1]) {
    tt_scale sc[3];
    tt_scale_get(&q, t[0], st->hook, &sc[0]);
    tt_scale_get(&q, t[1], st->hook, &sc[1]);
    if (n == 3) tt_scale_get(&q, t[2], st->hook, &sc[2]);
    drawn = tt_paint_matrix_trio(&q, body, cmp, t, trs, sc, n, kind == TT_VIEW_TABLE, d->groups);
    if (drawn) ar.n_boxes = 0;  // no info box beside the trio
  }
  if (!drawn) {
    for (int s = 0; s < n; s++) {
      tt_paint qs = q;
      qs.tr = trs[s] ? trs[s] : p->tr;
      snprintf(qs.cv->trace, sizeof qs.cv->trace, "%s", s == 0 ? "A" : s == 1 ? "B" : "D");
      SDL_Rect box = ar.box[s];
      tt_paint_compare_label(&qs, box, s, cmp, trs[s]);
      int lh = qs.unit * 17 / 10;
      SDL_Rect in = {box.x, box.y + lh, box.w, box.h - lh};
      d->groups[s][0] = p->lay->n_panels;
      if (s == 1 && !cmp->b) {
        tt_draw_para(qs.cv, in.x, in.y, in.w, tt_str(st->lang, TT_S_NOT_RECORDED), qs.unit, TT_FONT_SANS, qs.pal->warn);
      } else {
        paint_side(&qs, in, s, mode, kind, t[s], d);
      }
      d->groups[s][1] = p->lay->n_panels;
    }
  }
  p->cv->trace[0] = 0;
  if (ar.n_boxes == 4) info_box(p, ar.box[3], d);
  p->lay->view_rect = r;
  tt_paint_row_marks(p, row, 0);
  hover(p, r, d, cmp, mode);
}

void tt_paint_cell_hover(tt_paint *p, SDL_Rect area, tt_derived *d) {
  hover(p, area, d, NULL, M_HEAT);
}

// Title and subtitle of the vector lengths of layers (one "norms" view).
static void norms_title(const tt_paint *p, const tt_tensor *const *layers, int n_layers, char *title, size_t tl,
                        char *sub, size_t sl) {
  const char *suffix = n_layers > 0 && layers && layers[0] ? tt_hook_suffix(layers[0]->name) : "";
  snprintf(title, tl, tt_str(p->st->lang, TT_S_CMP_NORMS_TITLE_FMT), suffix);
  snprintf(sub, sl, "\xE2\x80\x96x\xE2\x80\x96 = \xE2\x88\x9A(\xCE\xA3 x\xE1\xB5\xA2\xC2\xB2)   ");
}

void tt_paint_norms_view(tt_paint *p, SDL_Rect r, tt_derived *d, const tt_tensor *const *layers, int n_layers) {
  char title[256], sub[512], shape[64] = "";
  norms_title(p, layers, n_layers, title, sizeof title, sub, sizeof sub);
  norms_of(d, 0, layers, n_layers);  // normally up to date already
  bool ok = d->has_norms[0];
  if (ok) tt_shape_str(d->norms[0].shape, 2, shape, sizeof shape);
  const char *prompt = tt_trace_meta(p->tr, "prompt");
  size_t l = strlen(sub);
  snprintf(sub + l, sizeof sub - l, "\xE2\x80\x9C%s\xE2\x80\x9D   %s (T, L)", prompt ? prompt : "", shape);
  int th = tt_paint_title(p, r, title, sub);
  SDL_Rect body = {r.x, r.y + th + p->unit / 2, r.w, r.h - th - p->unit / 2};
  p->lay->view_rect = r;
  if (!ok) {
    tt_draw_para(p->cv, body.x, body.y, body.w, tt_str(p->st->lang, TT_S_NOT_RECORDED), p->unit, TT_FONT_SANS,
                 p->pal->warn);
    return;
  }
  tt_scale s;
  tt_scale_of(&d->norms[0], "norms", &s);
  scale_put(p->rc, &d->norms[0], &s);
  tt_paint_norms(p, body, &d->norms[0], &s);
}

int tt_paint_compare_title(tt_paint *p, SDL_Rect r, const tt_compare *cmp, const tt_tensor *const *layers,
                           int n_layers) {
  const tt_view_state *st = p->st;
  char title[256], sub[600];
  if (n_layers > 0) {
    norms_title(p, layers, n_layers, title, sizeof title, sub, sizeof sub);
    size_t l = strlen(sub);
    snprintf(sub + l, sizeof sub - l, "A: %s   B: %s", cmp->label_a ? cmp->label_a : "",
             cmp->label_b ? cmp->label_b : "");
    return tt_paint_title(p, r, title, sub);
  }
  const tt_tensor *t = tt_trace_find(p->tr, st->hook);
  tt_view_kind k = kind_of(p->tr, st);
  int n = snprintf(title, sizeof title, "%s", k == TT_VIEW_OVERVIEW ? tt_hook_suffix(st->hook) : st->hook);
  if (k == TT_VIEW_OVERVIEW)
    snprintf(title + n, sizeof title - (size_t)n, "  \xC2\xB7  %s", tt_str(st->lang, TT_S_CMP_EVERY_LAYER_HEAD));
  else if (tt_hook_block(st->hook) >= 0 && n < (int)sizeof title)
    n += snprintf(title + n, sizeof title - (size_t)n, "  \xC2\xB7  %s %d", tt_str(st->lang, TT_S_LAYER),
                  tt_hook_block(st->hook));
  if (t && t->ndim == 3 && (k == TT_VIEW_HEATMAP || k == TT_VIEW_TABLE) && n < (int)sizeof title)
    snprintf(title + n, sizeof title - (size_t)n, "  \xC2\xB7  %s %d", tt_str(st->lang, TT_S_HEAD),
             st->head < 0 ? 0 : st->head);
  int step = tt_step_find(p->tr, st->hook, NULL);
  snprintf(sub, sizeof sub, "%s%sA: %s   B: %s", step >= 0 ? tt_step_title(p->tr, step, st->lang) : "",
           step >= 0 ? "   " : "", cmp->label_a ? cmp->label_a : "", cmp->label_b ? cmp->label_b : "");
  return tt_paint_title(p, r, title, sub);
}

// ---- entry points -------------------------------------------------------------------------------
typedef struct {
  const tt_trace *a;
  const tt_compare *cmp;
  const tt_view_state *st;
  tt_derived *d;
  tt_layout *lay;
} compare_job;

// The frame's view: the comparison, in the frame's type for that area.
static void compare_in_frame(tt_paint *p, SDL_Rect v, void *ctx) {
  const compare_job *j = ctx;
  p->st = j->st;
  tt_paint_compare(p, v, j->cmp, j->d, NULL, NULL, 0, -1);
}

static void paint_compare_page(tt_render *rc, tt_canvas *cv, SDL_Rect area, const compare_job *j) {
  const tt_view_state *st = j->st;
  tt_paint p = {cv, j->a, st, &rc->ex, tt_palette_for(st->theme), j->lay, tt_unit_for(st, area.w, area.h), rc};
  memset(j->lay, 0, sizeof *j->lay);
  cv->fill(cv, area.x, area.y, area.w, area.h, p.pal->bg);
  if (st->frame) {
    // The window's frame (navigator, formula, explanation, what-if panel, keys) around the
    // comparison; a pin belongs to a single view, not to the frame's header here.
    tt_view_state framed = *st;
    framed.pin_row = framed.pin_col = -1;
    p.st = &framed;
    tt_paint_frame(&p, area, compare_in_frame, (void *)j);
    return;
  }
  int m = p.unit;
  SDL_Rect inner = {area.x + m, area.y + m * 3 / 4, area.w - 2 * m, area.h - m * 3 / 2};
  int th = tt_paint_compare_title(&p, inner, j->cmp, NULL, 0);
  SDL_Rect body = {inner.x, inner.y + th + m / 2, inner.w, inner.h - th - m / 2};
  tt_paint_compare(&p, body, j->cmp, j->d, NULL, NULL, 0, -1);
  if (st->show_help) tt_paint_help(&p, inner);
}

void tt_render_draw_compare(tt_render *rc, SDL_Renderer *r, SDL_Rect area, const tt_trace *a, const tt_compare *cmp,
                            const tt_view_state *st, tt_derived *d, tt_layout *lay) {
  tt_layout *own = NULL;
  if (!lay) lay = own = malloc(sizeof *lay);
  if (!lay) return;
  // Remake the difference (dropping old textures) before anything of this frame is drawn.
  tt_derived_update(d, rc, a, cmp->b, st, NULL, NULL, 0);
  tt_canvas cv;
  tt_canvas_sdl(&cv, r, rc->cache, rc->fonts);
  compare_job j = {a, cmp, st, d, lay};
  paint_compare_page(rc, &cv, area, &j);
  SDL_RenderSetClipRect(r, NULL);
  free(own);
}

static void compare_fn(tt_render *rc, SDL_Renderer *r, SDL_Rect area, void *ctx) {
  compare_job *j = ctx;
  tt_render_draw_compare(rc, r, area, j->a, j->cmp, j->st, j->d, j->lay);
}

static void compare_svg_fn(tt_render *rc, tt_canvas *cv, SDL_Rect area, void *ctx) {
  paint_compare_page(rc, cv, area, ctx);
}

tt_status tt_render_compare_svg(tt_render *rc, const tt_trace *a, const tt_compare *cmp, const tt_view_state *st, int w,
                                int h, tt_derived *d, const char *path, tt_error *err) {
  tt_layout *lay = malloc(sizeof *lay);
  if (!lay) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  tt_derived_update(d, rc, a, cmp->b, st, NULL, NULL, 0);
  compare_job j = {a, cmp, st, d, lay};
  tt_status s = tt_figure_svg(rc, st, w, h, compare_svg_fn, &j, path, err);
  free(lay);
  return s;
}

tt_status tt_render_compare_png(tt_render *rc, const tt_trace *a, const tt_compare *cmp, const tt_view_state *st, int w,
                                int h, tt_derived *d, const char *path, tt_error *err) {
  tt_layout *lay = malloc(sizeof *lay);
  if (!lay) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  compare_job j = {a, cmp, st, d, lay};
  tt_status s = tt_figure_png(rc, st, w, h, compare_fn, &j, path, err);
  free(lay);
  return s;
}
