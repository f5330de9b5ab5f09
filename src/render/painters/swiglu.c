// swiglu: the gated MLP of one layer at one position (st->position, else the last). Four
// strips over the F neurons side by side: the gate's pre-activation g (mlp.hook_pre),
// act(g), the up projection u (mlp.hook_pre_linear) and their product a (mlp.hook_post);
// then the neurons with the largest |a|, and what the gate switches off: neurons whose
// |act(g)| is below OFF_BELOW although |u| is large, with their numbers.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render_int.h"

#define N_ROWS 8           // neurons per table
#define OFF_BELOW 0.1      // |act(g)| under this: the gate holds the neuron (nearly) shut
#define OFF_BELOW_S "0.1"  // the same, as printed

typedef struct {
  int layer, pos, F;
  tt_act_kind act;
  const tt_tensor *gate, *up, *post;
} swiglu_view;

static double gate_at(const swiglu_view *c, int j) {
  return tt_tensor_at(c->gate, (int64_t)c->pos * c->F + j);
}
static double up_at(const swiglu_view *c, int j) {
  return tt_tensor_at(c->up, (int64_t)c->pos * c->F + j);
}
static double post_at(const swiglu_view *c, int j) {
  return tt_tensor_at(c->post, (int64_t)c->pos * c->F + j);
}
static double act_at(const swiglu_view *c, int j) {
  return tt_activation(c->act, gate_at(c, j));
}

// The value of strip `row` (0 g, 1 act(g), 2 u, 3 a) at neuron j.
static double strip_value(const swiglu_view *c, int row, int j) {
  return row == 0 ? gate_at(c, j) : row == 1 ? act_at(c, j) : row == 2 ? up_at(c, j) : post_at(c, j);
}

// Up to N_ROWS neurons with the largest key (ties: the lower index first) among those
// `keep` accepts; the count.
static int top_neurons(const swiglu_view *c, double (*key)(const swiglu_view *, int),
                       bool (*keep)(const swiglu_view *, int), int *out) {
  int n = 0;
  for (int j = 0; j < c->F; j++) {
    if (keep && !keep(c, j)) continue;
    double k = key(c, j);
    int at = n;
    while (at > 0 && key(c, out[at - 1]) < k) at--;
    if (at >= N_ROWS) continue;
    int last = n < N_ROWS ? n++ : N_ROWS - 1;
    for (int m = last; m > at; m--) out[m] = out[m - 1];
    out[at] = j;
  }
  return n;
}
static double abs_post(const swiglu_view *c, int j) {
  return fabs(post_at(c, j));
}
static double abs_up(const swiglu_view *c, int j) {
  return fabs(up_at(c, j));
}
static bool gate_shut(const swiglu_view *c, int j) {
  return fabs(act_at(c, j)) < OFF_BELOW;
}

// One strip: the neurons in bins of the plot's width, each bin coloured by its value of
// largest magnitude over the strip's largest |value|, printed beside it.
static void strip(tt_paint *p, const swiglu_view *c, int row, SDL_Rect dst) {
  tt_canvas *cv = p->cv;
  int cols = c->F < dst.w ? c->F : dst.w;
  if (cols > cv->max_cells) cols = cv->max_cells;
  double lim = 0;
  for (int j = 0; j < c->F; j++) lim = fmax(lim, fabs(strip_value(c, row, j)));
  tt_rgba *img = malloc(sizeof *img * (size_t)cols);
  if (!img) return;
  for (int b = 0; b < cols; b++) {
    double v = 0;
    for (int j = (int)((int64_t)b * c->F / cols); j < (int)((int64_t)(b + 1) * c->F / cols); j++)
      if (fabs(strip_value(c, row, j)) > fabs(v)) v = strip_value(c, row, j);
    img[b] = tt_cmap_diverging(lim > 0 ? (float)(v / lim) : 0.0f);
  }
  tt_cells cells = {.rows = 1, .cols = cols, .rgb = img, .cell_w = (float)dst.w / (float)cols, .cell_h = (float)dst.h};
  int key_in[5] = {c->layer, c->pos, row, cols, (int)p->st->theme};
  uint64_t key = tt_hash(tt_hash(0, &c->gate->data, sizeof c->gate->data), key_in, sizeof key_in);
  if (!cv->cells_cached(cv, key, dst)) cv->cells(cv, key, &cells, dst);
  free(img);
  char num[32], text[48];
  snprintf(text, sizeof text, "\xC2\xB1%s", tt_fmt_num(lim, "%.3f", num, sizeof num));
  tt_note(cv, "swiglu_max row=%d", row);
  tt_draw_text(cv, dst.x + dst.w + p->unit / 2, dst.y + (dst.h - tt_type_for(p->unit).label) / 2, text,
               tt_type_for(p->unit).label, TT_FONT_MONO, p->pal->fg, TT_ALIGN_LEFT);
}

// A table of neurons: its heading (already formatted), the column names, a row per neuron
// (j, g, act(g), u, a).
static void table(tt_paint *p, const swiglu_view *c, SDL_Rect r, const char *tab, const char *heading, int head_h,
                  const int *js, int n) {
  tt_canvas *cv = p->cv;
  const tt_type type = tt_type_for(p->unit);
  tt_lang lang = p->st->lang;
  char act_name[48], name[64], num[32];
  snprintf(act_name, sizeof act_name, tt_str(lang, TT_S_SWIGLU_ACT_FMT), tt_act_name(c->act));
  tt_note(cv, "swiglu_head tab=%s", tab);
  tt_draw_para(cv, r.x, r.y, r.w - p->unit, heading, type.body, TT_FONT_BOLD, p->pal->fg);
  r.y += head_h - type.line;  // the rows under the taller of the two headings
  const char *cols[5] = {tt_str(lang, TT_S_SWIGLU_NEURON), "g", act_name, "u", "a"};
  const char *what[5] = {"j", "g", "act", "u", "a"};
  for (int k = 0; k < 5; k++) {
    snprintf(name, sizeof name, "%s", cols[k]);
    tt_note(cv, "name");
    tt_draw_text(cv, r.x + r.w * k / 5, r.y + type.line, name, type.label, TT_FONT_BOLD, p->pal->dim, TT_ALIGN_LEFT);
  }
  for (int i = 0; i < n; i++) {
    int j = js[i], y = r.y + type.line * (i + 2);
    double v[5] = {j, gate_at(c, j), act_at(c, j), up_at(c, j), post_at(c, j)};
    for (int k = 0; k < 5; k++) {
      tt_note(cv, "swiglu_cell tab=%s r=%d v=%s", tab, i, what[k]);
      tt_draw_text(cv, r.x + r.w * k / 5, y, tt_fmt_num(v[k], k ? "%.3f" : "%.0f", num, sizeof num), type.label,
                   TT_FONT_MONO, k == 2 && !strcmp(tab, "off") ? p->pal->accent : p->pal->fg, TT_ALIGN_LEFT);
    }
  }
}

// The two tables: the largest |a|, and the largest |u| among the neurons the gate shuts.
static void tables(tt_paint *p, const swiglu_view *c, SDL_Rect r) {
  tt_lang lang = p->st->lang;
  int top[N_ROWS], off[N_ROWS], shut = 0;
  for (int j = 0; j < c->F; j++) shut += gate_shut(c, j);
  int n_top = top_neurons(c, abs_post, NULL, top), n_off = top_neurons(c, abs_up, gate_shut, off);
  char head_top[300], head_off[300];
  snprintf(head_top, sizeof head_top, tt_str(lang, TT_S_SWIGLU_TOP_FMT), n_top);
  snprintf(head_off, sizeof head_off, tt_str(lang, TT_S_SWIGLU_OFF_FMT), shut, c->F, tt_act_name(c->act), OFF_BELOW_S);
  // The ranking after a comma when it fits, else on a line of its own (the numbers stay on the
  // first); both tables start under the taller heading.
  const tt_type type = tt_type_for(p->unit);
  int half = r.w / 2 - p->unit, head_h = type.line;
  size_t n = strlen(head_off);
  snprintf(head_off + n, sizeof head_off - n, ", %s", tt_str(lang, TT_S_SWIGLU_OFF_ORDER));
  if (tt_text_width(p->cv->fonts, head_off, type.body, TT_FONT_BOLD) > half - p->unit) {
    snprintf(head_off + n, sizeof head_off - n, "\n%s", tt_str(lang, TT_S_SWIGLU_OFF_ORDER));
    head_h = type.line * 2;
  }
  table(p, c, (SDL_Rect){r.x, r.y, half, r.h}, "top", head_top, head_h, top, n_top);
  table(p, c, (SDL_Rect){r.x + r.w / 2, r.y, r.w / 2, r.h}, "off", head_off, head_h, off, n_off);
}

// The tensors of layer at the view's position; false when the trace's MLP is not gated.
static bool setup(const tt_paint *p, swiglu_view *c, int layer) {
  tt_config cfg;
  memset(c, 0, sizeof *c);
  if (!tt_trace_config(p->tr, &cfg) || cfg.arch != TT_ARCH_LLAMA || layer < 0 || layer >= cfg.n_layer) return false;
  int T = tt_trace_n_tokens(p->tr);
  c->layer = layer, c->F = cfg.n_inner, c->act = cfg.activation;
  c->pos = p->st->position >= 0 && p->st->position < T ? p->st->position : T - 1;
  c->gate = tt_find_hook(p->tr, layer, "mlp.hook_pre");
  c->up = tt_find_hook(p->tr, layer, "mlp.hook_pre_linear");
  c->post = tt_find_hook(p->tr, layer, "mlp.hook_post");
  const tt_tensor *have[3] = {c->gate, c->up, c->post};
  for (int i = 0; i < 3; i++)
    if (!have[i] || have[i]->ndim != 2 || have[i]->shape[0] != T || have[i]->shape[1] != c->F) return false;
  return T > 0 && c->F > 0;
}

void tt_paint_swiglu(tt_paint *p, SDL_Rect r, int layer) {
  tt_canvas *cv = p->cv;
  const tt_type type = tt_type_for(p->unit);
  tt_lang lang = p->st->lang;
  swiglu_view c;
  if (!setup(p, &c, layer)) {
    tt_draw_para(cv, r.x, r.y, r.w, tt_str(lang, TT_S_SWIGLU_NONE), p->unit, TT_FONT_SANS, p->pal->warn);
    return;
  }
  char line[300], tok[160];
  tt_note_scope(cv, "panel=swiglu layer=%d pos=%d", c.layer, c.pos);
  tt_token_label(p->tr, c.pos, tok, sizeof tok);
  snprintf(line, sizeof line, tt_str(lang, TT_S_SWIGLU_TITLE_FMT), c.layer, c.pos, tok, c.F);
  tt_note(cv, "swiglu_title");
  tt_draw_text(cv, r.x, r.y, line, type.heading, TT_FONT_BOLD, p->pal->fg, TT_ALIGN_LEFT);
  snprintf(line, sizeof line, tt_str(lang, TT_S_SWIGLU_RULE_FMT), tt_act_name(c.act));
  if (!p->st->figure) {  // a figure for a file has no interface hints
    size_t n = strlen(line);
    snprintf(line + n, sizeof line - n, " %s", tt_str(lang, TT_S_SWIGLU_KEYS));
  }
  int y = r.y + type.line;
  y += tt_draw_para(cv, r.x, y, r.w, line, type.label, TT_FONT_SANS, p->pal->dim) + type.line / 2;
  int lw = r.w / 4, sw = r.w - lw - p->unit * 6, sh = type.line * 3 / 2;
  for (int row = 0; row < 4; row++) {
    int ry = y + row * (sh + type.line / 2);
    const char *label = row == 0 ? tt_str(lang, TT_S_SWIGLU_GATE) : row == 2 ? tt_str(lang, TT_S_SWIGLU_UP) : line;
    if (row == 1) snprintf(line, sizeof line, tt_str(lang, TT_S_SWIGLU_ACT_FMT), tt_act_name(c.act));
    if (row == 3) snprintf(line, sizeof line, tt_str(lang, TT_S_SWIGLU_PROD_FMT), tt_act_name(c.act));
    tt_note(cv, "name");
    tt_draw_text(cv, r.x, ry + (sh - type.label) / 2, label, type.label, TT_FONT_BOLD, p->pal->fg, TT_ALIGN_LEFT);
    strip(p, &c, row, (SDL_Rect){r.x + lw, ry, sw, sh});
  }
  y += 4 * (sh + type.line / 2) + type.line / 2;
  tables(p, &c, (SDL_Rect){r.x, y, r.w, r.y + r.h - y});
  tt_note_scope(cv, NULL);
}
