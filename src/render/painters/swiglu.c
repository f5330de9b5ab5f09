// swiglu: the gated MLP of one layer at one position (st->position, else the last). Four
// strips over the F neurons side by side: the gate's pre-activation g (mlp.hook_pre),
// act(g), the up projection u (mlp.hook_pre_linear) and their product a (mlp.hook_post);
// then the neurons with the largest |a|, and what the gate switches off: neurons whose
// |act(g)| is below OFF_BELOW although |u| is large, with their numbers.
// Every text is measured. The title takes the largest size that fits its line; the strips'
// labels sit beside them where that leaves the strips a third of the width (else above), and
// the strips are low where the tables need the room. The tables take the layout (side by side
// or stacked) that shows the most rows in type from body down to small, smaller (towards the
// unzoomed label size) only where that shows fewer than MIN_ROWS; rows that find no room are
// counted in a "… N more rows" line, and where not even the headings fit a line says so.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render_int.h"

#define N_ROWS 8           // neurons per table
#define OFF_BELOW 0.1      // |act(g)| under this: the gate holds the neuron (nearly) shut
#define OFF_BELOW_S "0.1"  // the same, as printed
#define MIN_PX 10          // no text smaller than this
#define MIN_ROWS 3         // rows a table shows before its type shrinks below small

typedef struct {
  int layer, pos, F;
  tt_act_kind act;
  const tt_tensor *gate, *up, *post;
} swiglu_view;

// The strips' texts and where they go: each label to the left of its strip (label_w wide) or
// on a line above it; the strip sh high with gap under it; its ±max after it (max_w wide).
typedef struct {
  char label[4][96], max[4][48];
  int label_w, max_w, sh, gap;
  bool above;
} strip_layout;

// The two tables (0: the largest |a|, 1: switched off): their neurons and headings (the
// switched-off one without its order).
typedef struct {
  int js[2][N_ROWS], n[2];
  char head[2][300], act_name[48];
  const char *order;
} table_data;

// The tables' layout: px type on lines of line pixels, columns col_w wide with gap between;
// side by side or stacked, each tw wide, its heading head_h high, shown[t] of its rows drawn.
typedef struct {
  int px, line, gap, tw, col_w[5], head_h[2], shown[2];
  bool stacked;
} table_layout;

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
static double strip_lim(const swiglu_view *c, int row) {
  double lim = 0;
  for (int j = 0; j < c->F; j++) lim = fmax(lim, fabs(strip_value(c, row, j)));
  return lim;
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

// The title line in the largest of the heading, large, body, label and small sizes that fits
// r.w, the token cut with "…" where even the small size does not; the height it takes.
static int title(tt_paint *p, const swiglu_view *c, SDL_Rect r) {
  const tt_type type = tt_type_for(p->unit);
  const char *fmt = tt_str(p->st->lang, TT_S_SWIGLU_TITLE_FMT);
  const int sizes[5] = {type.heading, type.large, type.body, type.label, type.small};
  char line[300], tok[160], cut[300];
  tt_token_label(p->tr, c->pos, tok, sizeof tok);
  snprintf(line, sizeof line, fmt, c->layer, c->pos, tok, c->F);
  int px = sizes[4] > MIN_PX ? sizes[4] : MIN_PX;
  for (int i = 0; i < 4; i++)
    if (tt_text_width(p->cv->fonts, line, sizes[i], TT_FONT_BOLD) <= r.w) {
      px = sizes[i];
      break;
    }
  if (tt_text_width(p->cv->fonts, line, px, TT_FONT_BOLD) > r.w) {  // the token gets what the rest leaves
    snprintf(line, sizeof line, fmt, c->layer, c->pos, "", c->F);
    int room = r.w - tt_text_width(p->cv->fonts, line, px, TT_FONT_BOLD);
    tt_text_fit(p->cv->fonts, tok, px, TT_FONT_BOLD, room > 0 ? room : 0, cut, sizeof cut);
    snprintf(line, sizeof line, fmt, c->layer, c->pos, cut[0] ? cut : tok, c->F);
  }
  tt_note(p->cv, "swiglu_title");  // the line itself cut where not even that fits
  tt_draw_text(p->cv, r.x, r.y, tt_text_fit(p->cv->fonts, line, px, TT_FONT_BOLD, r.w, cut, sizeof cut), px,
               TT_FONT_BOLD, p->pal->fg, TT_ALIGN_LEFT);
  return type.line < px * 3 / 2 ? type.line : px * 3 / 2;
}

// The strips' labels and maxima, measured; beside the strips when that leaves them a third
// of the width, else above them. Strip heights are the caller's.
static strip_layout strip_texts(tt_paint *p, const swiglu_view *c, int w) {
  const tt_type type = tt_type_for(p->unit);
  tt_lang lang = p->st->lang;
  strip_layout s = {0};
  char num[32];
  snprintf(s.label[0], sizeof s.label[0], "%s", tt_str(lang, TT_S_SWIGLU_GATE));
  snprintf(s.label[1], sizeof s.label[1], tt_str(lang, TT_S_SWIGLU_ACT_FMT), tt_act_name(c->act));
  snprintf(s.label[2], sizeof s.label[2], "%s", tt_str(lang, TT_S_SWIGLU_UP));
  snprintf(s.label[3], sizeof s.label[3], tt_str(lang, TT_S_SWIGLU_PROD_FMT), tt_act_name(c->act));
  for (int row = 0; row < 4; row++) {
    snprintf(s.max[row], sizeof s.max[row], "\xC2\xB1%s", tt_fmt_num(strip_lim(c, row), "%.3f", num, sizeof num));
    int lw = tt_text_width(p->cv->fonts, s.label[row], type.label, TT_FONT_BOLD) + p->unit;
    int mw = tt_text_width(p->cv->fonts, s.max[row], type.label, TT_FONT_MONO) + p->unit / 2;
    s.label_w = lw > s.label_w ? lw : s.label_w;
    s.max_w = mw > s.max_w ? mw : s.max_w;
  }
  s.above = w - s.label_w - s.max_w < w / 3;
  if (s.above) s.label_w = 0;
  return s;
}

// The line of a label above its strip.
static int label_line(const tt_paint *p) {
  return tt_type_for(p->unit).label * 4 / 3;
}

// The height of the four strips with their labels.
static int strips_height(const tt_paint *p, const strip_layout *s) {
  return 4 * ((s->above ? label_line(p) : 0) + s->sh + s->gap);
}

// One strip: the neurons in bins of the plot's width, each bin coloured by its value of
// largest magnitude over the strip's largest |value|, printed beside it.
static void strip(tt_paint *p, const swiglu_view *c, int row, SDL_Rect dst, const char *max) {
  tt_canvas *cv = p->cv;
  int cols = c->F < dst.w ? c->F : dst.w;
  if (cols > cv->max_cells) cols = cv->max_cells;
  if (cols <= 0) return;
  double lim = strip_lim(c, row);
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
  int px = tt_type_for(p->unit).label;
  tt_note(cv, "swiglu_max row=%d", row);
  tt_draw_text(cv, dst.x + dst.w + p->unit / 2, dst.y + (dst.h - px) / 2, max, px, TT_FONT_MONO, p->pal->fg,
               TT_ALIGN_LEFT);
}

// The four strips in r, each under or beside its label, as many as fit; the height used.
static int strips(tt_paint *p, const swiglu_view *c, const strip_layout *s, SDL_Rect r) {
  const tt_type type = tt_type_for(p->unit);
  int y = r.y;
  for (int row = 0; row < 4 && y + (s->above ? label_line(p) : 0) + s->sh <= r.y + r.h; row++) {
    int label_y = s->above ? y : y + (s->sh - type.label) / 2;
    tt_note(p->cv, "name");
    tt_draw_text(p->cv, r.x, label_y, s->label[row], type.label, TT_FONT_BOLD, p->pal->fg, TT_ALIGN_LEFT);
    if (s->above) y += label_line(p);
    strip(p, c, row, (SDL_Rect){r.x + s->label_w, y, r.w - s->label_w - s->max_w, s->sh}, s->max[row]);
    y += s->sh + s->gap;
  }
  return y - r.y;
}

// The neurons of both tables and their headings (the switched-off one with its order).
static void table_data_for(const tt_paint *p, const swiglu_view *c, table_data *d) {
  tt_lang lang = p->st->lang;
  int shut = 0;
  for (int j = 0; j < c->F; j++) shut += gate_shut(c, j);
  d->n[0] = top_neurons(c, abs_post, NULL, d->js[0]);
  d->n[1] = top_neurons(c, abs_up, gate_shut, d->js[1]);
  snprintf(d->head[0], sizeof d->head[0], tt_str(lang, TT_S_SWIGLU_TOP_FMT), d->n[0]);
  snprintf(d->head[1], sizeof d->head[1], tt_str(lang, TT_S_SWIGLU_OFF_FMT), shut, c->F, tt_act_name(c->act),
           OFF_BELOW_S);
  d->order = tt_str(lang, TT_S_SWIGLU_OFF_ORDER);
  snprintf(d->act_name, sizeof d->act_name, tt_str(lang, TT_S_SWIGLU_ACT_FMT), tt_act_name(c->act));
}

// Column k's name and the text of its cell for neuron j (j, g, act(g), u, a).
static const char *column_name(const tt_paint *p, const table_data *d, int k) {
  const char *names[5] = {tt_str(p->st->lang, TT_S_SWIGLU_NEURON), "g", d->act_name, "u", "a"};
  return names[k];
}
static const char *cell_text(const swiglu_view *c, int j, int k, char *buf, size_t len) {
  double v[5] = {j, gate_at(c, j), act_at(c, j), up_at(c, j), post_at(c, j)};
  return tt_fmt_num(v[k], k ? "%.3f" : "%.0f", buf, len);
}

// Heading `tab` as drawn tw wide in px type: the switched-off one with its order on a line of
// its own, or after a comma where that takes fewer lines.
static const char *heading(const tt_paint *p, const table_data *d, int tab, int px, int tw, char *buf, size_t len) {
  if (tab == 0) return d->head[0];
  snprintf(buf, len, "%s, %s", d->head[1], d->order);
  int comma = tt_para_height(p->cv, tw, buf, px, TT_FONT_BOLD);
  snprintf(buf, len, "%s\n%s", d->head[1], d->order);
  if (comma < tt_para_height(p->cv, tw, buf, px, TT_FONT_BOLD)) snprintf(buf, len, "%s, %s", d->head[1], d->order);
  return buf;
}

// The widths of t's columns in its type: the widest of the name and the cells of both
// tables; the total.
static int column_widths(tt_paint *p, const swiglu_view *c, const table_data *d, table_layout *t) {
  char buf[32];
  int sum = 0;
  for (int k = 0; k < 5; k++) {
    t->col_w[k] = tt_text_width(p->cv->fonts, column_name(p, d, k), t->px, TT_FONT_BOLD);
    for (int tab = 0; tab < 2; tab++)
      for (int i = 0; i < d->n[tab]; i++) {
        int cw = tt_text_width(p->cv->fonts, cell_text(c, d->js[tab][i], k, buf, sizeof buf), t->px, TT_FONT_MONO);
        t->col_w[k] = cw > t->col_w[k] ? cw : t->col_w[k];
      }
    sum += t->col_w[k];
  }
  return sum;
}

// The tables in px type, stacked or side by side, in w × h: px 0 where their columns (at
// least half the type apart) or headings find no room. Each table shows the rows that fit,
// the last line saying how many it leaves out.
static table_layout try_tables(tt_paint *p, const swiglu_view *c, const table_data *d, int w, int h, int px,
                               bool stacked) {
  table_layout t = {.px = px, .line = px * 4 / 3, .stacked = stacked};
  t.tw = stacked ? w : (w - px * 3 / 2) / 2;
  t.gap = (t.tw - column_widths(p, c, d, &t)) / 4;
  t.gap = t.gap < px * 3 / 2 ? t.gap : px * 3 / 2;
  char buf[400];
  for (int tab = 0; tab < 2; tab++)
    t.head_h[tab] =
        tt_para_height(p->cv, t.tw, heading(p, d, tab, px, t.tw, buf, sizeof buf), px, TT_FONT_BOLD) + px / 4;
  if (!stacked) t.head_h[0] = t.head_h[1] = t.head_h[0] > t.head_h[1] ? t.head_h[0] : t.head_h[1];
  for (int tab = 0; tab < 2; tab++) {
    int room = (stacked ? h / 2 : h) - t.head_h[tab] - t.line;  // under the heading and the column names
    int shown = room / t.line < d->n[tab] ? (room - t.line) / t.line : d->n[tab];
    if (room < 0 || (shown < d->n[tab] && room < t.line)) t.px = 0;
    t.shown[tab] = shown > 0 ? shown : 0;
  }
  if (t.gap < px / 2) t.px = 0;
  return t;
}

// Whether each table of t shows MIN_ROWS rows, or all it has when fewer.
static bool enough_rows(const table_layout *t, const table_data *d) {
  for (int tab = 0; tab < 2; tab++)
    if (t->shown[tab] < (d->n[tab] < MIN_ROWS ? d->n[tab] : MIN_ROWS)) return false;
  return t->px > 0;
}

// The tables' layout that shows the most rows, in the largest type from body down to small,
// side by side before stacked. Where that leaves a table under MIN_ROWS rows, the type
// shrinks on, as zoomed type does (tt_unit_fit), towards the unzoomed unit's label size.
static table_layout best_tables(tt_paint *p, const swiglu_view *c, const table_data *d, int w, int h) {
  const tt_type type = tt_type_for(p->unit);
  int least = tt_type_for(tt_unit_fit(p->st, p->unit, 0)).label;
  least = least > MIN_PX ? least : MIN_PX;
  table_layout best = {0};
  for (int px = type.body > least ? type.body : least; px >= least; px--) {
    if (px < type.small && enough_rows(&best, d)) break;
    for (int stacked = 0; stacked < 2; stacked++) {
      table_layout t = try_tables(p, c, d, w, h, px, stacked);
      if (t.px && (!best.px || t.shown[0] + t.shown[1] > best.shown[0] + best.shown[1])) best = t;
    }
  }
  return best;
}

// Table `tab` at (x, y): its heading, the column names, its rows shown and, when some are
// left out, a line that counts them. Columns are right-aligned.
static void draw_table(tt_paint *p, const swiglu_view *c, const table_data *d, const table_layout *t, int tab, int x,
                       int y) {
  tt_canvas *cv = p->cv;
  const char *tabs[2] = {"top", "off"}, *what[5] = {"j", "g", "act", "u", "a"};
  char buf[400];
  tt_note(cv, "swiglu_head tab=%s", tabs[tab]);
  tt_draw_para(cv, x, y, t->tw, heading(p, d, tab, t->px, t->tw, buf, sizeof buf), t->px, TT_FONT_BOLD, p->pal->fg);
  y += t->head_h[tab];
  int right[5];
  for (int k = 0, at = x; k < 5; k++) {
    right[k] = at + t->col_w[k];
    at = right[k] + t->gap;
    tt_note(cv, "name");
    tt_draw_text(cv, right[k], y, column_name(p, d, k), t->px, TT_FONT_BOLD, p->pal->dim, TT_ALIGN_RIGHT);
  }
  for (int i = 0; i < t->shown[tab]; i++) {
    y += t->line;
    for (int k = 0; k < 5; k++) {
      tt_note(cv, "swiglu_cell tab=%s r=%d v=%s", tabs[tab], i, what[k]);
      tt_draw_text(cv, right[k], y, cell_text(c, d->js[tab][i], k, buf, sizeof buf), t->px, TT_FONT_MONO,
                   k == 2 && tab == 1 ? p->pal->accent : p->pal->fg, TT_ALIGN_RIGHT);
    }
  }
  if (t->shown[tab] >= d->n[tab]) return;
  char more[96], fit[96];
  snprintf(more, sizeof more, tt_str(p->st->lang, TT_S_ROWS_MORE_FMT), d->n[tab] - t->shown[tab]);
  tt_note(cv, "swiglu_more tab=%s shown=%d rows=%d", tabs[tab], t->shown[tab], d->n[tab]);
  tt_draw_text(cv, x, y + t->line, tt_text_fit(cv->fonts, more, t->px, TT_FONT_SANS, t->tw, fit, sizeof fit), t->px,
               TT_FONT_SANS, p->pal->dim, TT_ALIGN_LEFT);
}

// The tables' layout for the strips s above them in r (from y): s's strips as tall as roomy
// asks when the tables then show as much in as large a type as with compact strips.
static table_layout fit_tables(tt_paint *p, const swiglu_view *c, const table_data *d, strip_layout *s, SDL_Rect r,
                               int y) {
  const tt_type type = tt_type_for(p->unit);
  s->sh = type.line * 3 / 2, s->gap = type.line / 2;  // roomy
  table_layout roomy = best_tables(p, c, d, r.w, r.y + r.h - y - strips_height(p, s) - type.line / 3);
  s->sh = type.label * 9 / 8, s->gap = type.label / 6;  // compact
  table_layout tight = best_tables(p, c, d, r.w, r.y + r.h - y - strips_height(p, s) - type.line / 3);
  if (roomy.px && roomy.px >= tight.px && roomy.shown[0] + roomy.shown[1] >= tight.shown[0] + tight.shown[1]) {
    s->sh = type.line * 3 / 2, s->gap = type.line / 2;
    return roomy;
  }
  return tight;
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
  tt_note_scope(cv, "panel=swiglu layer=%d pos=%d", c.layer, c.pos);
  int y = r.y + title(p, &c, r);
  char line[400];
  snprintf(line, sizeof line, tt_str(lang, TT_S_SWIGLU_RULE_FMT), tt_act_name(c.act));
  if (!p->st->figure) {  // a figure for a file has no interface hints
    size_t n = strlen(line);
    snprintf(line + n, sizeof line - n, " %s", tt_str(lang, TT_S_SWIGLU_KEYS));
  }
  y += tt_draw_para(cv, r.x, y, r.w, line, type.label, TT_FONT_SANS, p->pal->dim) + type.line / 3;
  strip_layout s = strip_texts(p, &c, r.w);
  table_data d;
  table_data_for(p, &c, &d);
  table_layout t = fit_tables(p, &c, &d, &s, r, y);
  y += strips(p, &c, &s, (SDL_Rect){r.x, y, r.w, r.y + r.h - y}) + type.line / 3;
  if (t.px) {  // the second table to the right of the first, or under it within its half of the height
    int under = t.head_h[0] + t.line * (t.shown[0] + (t.shown[0] < d.n[0] ? 2 : 1)) + t.line * 2 / 3;
    under = under < (r.y + r.h - y) / 2 ? under : (r.y + r.h - y) / 2;
    draw_table(p, &c, &d, &t, 0, r.x, y);
    draw_table(p, &c, &d, &t, 1, t.stacked ? r.x : r.x + r.w - t.tw, t.stacked ? y + under : y);
  } else {  // not even the headings fit in readable type: say so (gradnorm's words)
    tt_draw_para_cut(cv, r.x, y, r.w, tt_str(lang, TT_S_GN_SMALL), type.label, TT_FONT_SANS, p->pal->warn,
                     r.y + r.h - y);
  }
  tt_note_scope(cv, NULL);
}
