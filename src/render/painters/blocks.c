// blocks: GPT-2's and Llama's pass side by side. Both step lists have the same length
// (pipeline/steps.c), so step i of one sits beside step i of the other: each with its title
// and its shapes, the steps that differ in colour, the block's steps framed as one block
// repeated L times. One side is the trace's own model; the other is the classroom model
// of the other architecture (assets/models/tiny-classroom, assets/models/tiny-llama), its
// config.json read through the model module and its shapes computed for the trace's T.
// Every text is measured: the view takes the largest unit (p->unit at most, no text under
// MIN_PX) at which the title, the sides' headings and sizes, wrapped to their widths, leave
// every step a row of its title's type; the step titles' column is as wide as the widest
// title (at most NAME_SHARE of a side), the shapes get the rest and are cut where longer.
#include <stdlib.h>
#include <string.h>

#include "render_int.h"

#define MIN_PX 10      // no text smaller than this
#define CFG_LINES 4    // the most lines a side's sizes wrap onto
#define NAME_SHARE 50  // the step titles' column takes at most this percentage of a side
#define MAX_STEPS 64   // steps drawn (the step list has 23)
#define FRAME_GAP 4    // the gap where a block begins or ends: its frame's 2 px and a pixel either side

typedef struct {
  const tt_trace *tr;  // the trace's own, or `own` (a trace holding only config and T tokens)
  tt_trace *own;
  tt_config cfg;
  bool shapes;      // false: no model of this architecture (titles only)
  char model[128];  // the folder's name
  bool this_trace;
  char head[300], cfg_line[300], each[200];  // its heading, sizes and "repeated L times"
} block_side;

// The layout at unit v: its type t (no size under MIN_PX), each side's width w and the gap
// between the sides; the title's type and height, the T line's height, the sides' headings'
// type and height and the height of what is under them (the taller side's); the sizes' type;
// the step titles' type, the rows' height, the number of steps and how many are shown.
typedef struct {
  tt_type t;
  int v, w, gap, title_px, title_h, T_h, head_px, head_h, cfg_h, info_h, cfg_px, px, row_h, n, shown;
} blocks_layout;

static const char *folder_name(const char *path) {
  const char *slash = path ? strrchr(path, '/') : NULL;
  return slash ? slash + 1 : path ? path : "?";
}

// A trace with cfg's config and T placeholder tokens: the step list answers for it.
static tt_trace *config_trace(const tt_config *cfg, int T) {
  tt_trace *tr = tt_trace_create();
  char *json = tt_config_to_json(cfg);
  int32_t *ids = calloc((size_t)T + 1, sizeof *ids);
  const char **strings = calloc((size_t)T + 1, sizeof *strings);
  bool ok = tr && json && ids && strings && tt_trace_set_meta(tr, "config", json) == TT_OK;
  for (int i = 0; ok && i < T; i++) strings[i] = "";
  if (ok && T > 0) ok = tt_trace_set_tokens(tr, ids, strings, T, NULL) == TT_OK;
  free(json);
  free(ids);
  free(strings);
  if (!ok) tt_trace_destroy(tr);
  return ok ? tr : NULL;
}

// The other architecture's side: its classroom model's config, else its step list alone.
static void other_side(block_side *s, tt_arch arch, int T) {
  const char *name = arch == TT_ARCH_LLAMA ? "tiny-llama" : "tiny-classroom";
  char rel[64], dir[4096];
  snprintf(rel, sizeof rel, "models/%s", name);
  snprintf(s->model, sizeof s->model, "%s", name);
  s->shapes =
      tt_asset_path(rel, dir, sizeof dir) && tt_config_read_dir(dir, &s->cfg, NULL) == TT_OK && s->cfg.arch == arch;
  if (!s->shapes) {  // the architecture's defaults: its steps' titles, no numbers
    tt_config_default(&s->cfg);
    s->cfg.arch = arch;
    if (arch == TT_ARCH_LLAMA) s->cfg.positions = TT_POS_ROPE, s->cfg.norm = TT_NORM_RMSNORM;
    if (arch == TT_ARCH_LLAMA) s->cfg.activation = TT_ACT_SILU;
  }
  s->own = config_trace(&s->cfg, T);
  s->tr = s->own;
}

// The side's texts: architecture and model, its sizes, how often the block repeats.
static void side_texts(block_side *s, tt_lang lang) {
  const tt_config *c = &s->cfg;
  snprintf(s->head, sizeof s->head, "%s \xC2\xB7 %s (%s)", c->arch == TT_ARCH_LLAMA ? "Llama" : "GPT-2", s->model,
           tt_str(lang, s->this_trace ? TT_S_BLOCKS_THIS : TT_S_BLOCKS_CLASSROOM));
  snprintf(s->cfg_line, sizeof s->cfg_line, tt_str(lang, TT_S_BLOCKS_CFG_FMT), c->n_layer, c->n_embd, c->n_head,
           tt_config_kv_heads(c), tt_config_head_dim(c), c->n_inner, c->vocab_size, c->n_positions);
  snprintf(s->each, sizeof s->each, tt_str(lang, TT_S_BLOCKS_EACH_FMT), c->n_layer);
}

// dst (cap bytes) with len bytes of src appended, cut where they do not fit.
static void append(char *dst, size_t cap, const char *src, size_t len) {
  size_t have = strlen(dst);
  if (have + len >= cap) len = cap - 1 - have;
  memcpy(dst + have, src, len);
  dst[have + len] = 0;
}

// The sizes line s ("L = 4  C = 128  ...") on lines no wider than w in px mono type, broken
// only between its sizes (at double spaces); the number of lines.
static int cfg_lines(tt_fonts *f, const char *s, int px, int w, char lines[CFG_LINES][160]) {
  int n = 0;
  lines[0][0] = 0;
  while (*s) {
    const char *end = strstr(s, "  ");
    size_t len = end ? (size_t)(end - s) : strlen(s);
    char cand[160] = "";
    append(cand, sizeof cand, lines[n], strlen(lines[n]));
    if (cand[0]) append(cand, sizeof cand, "  ", 2);
    append(cand, sizeof cand, s, len);
    if (lines[n][0] && tt_text_width(f, cand, px, TT_FONT_MONO) > w && n + 1 < CFG_LINES) {
      lines[++n][0] = 0;
      append(lines[n], sizeof lines[n], s, len);
    } else {
      memcpy(lines[n], cand, sizeof cand);
    }
    s += len;
    while (*s == ' ') s++;
  }
  return n + 1;
}

// The sizes of unit v, none under MIN_PX.
static tt_type type_at(int v) {
  tt_type t = tt_type_for(v);
  int *sizes[] = {&t.heading, &t.large, &t.cell, &t.label, &t.small};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) *sizes[i] = *sizes[i] < MIN_PX ? MIN_PX : *sizes[i];
  return t;
}

// The rows' tops y[0..n] (y[n]: under the last) for rows rh high from top: a gap of FRAME_GAP
// where either side's block begins or ends, so that the frame runs between rows, not over
// their text. Both sides take the same gaps: step i stays beside step i.
static void row_tops(const block_side *sides, int n, int top, int rh, int *y) {
  int gaps = 0;
  for (int i = 0; i <= n; i++) {
    for (int k = 0; k < 2; k++) {
      const tt_step *a = i > 0 ? tt_step_get(sides[k].tr, i - 1) : NULL;
      const tt_step *b = i < n ? tt_step_get(sides[k].tr, i) : NULL;
      if ((a && a->in_block) != (b && b->in_block)) {
        gaps++;
        break;
      }
    }
    y[i] = top + rh * i + gaps * FRAME_GAP;
  }
}

// The largest of sizes[0..n) (largest first) at which s fits w on one line, else sizes[0]
// (where it wraps).
static int one_line(tt_fonts *f, const char *s, int w, const int *sizes, int n, tt_font_kind k) {
  for (int i = 0; i < n; i++)
    if (tt_text_width(f, s, sizes[i], k) <= w) return sizes[i];
  return sizes[0];
}

// The widest step title of both sides in px bold type.
static int widest_title(tt_paint *p, const block_side *sides, int n, int px) {
  int widest = 0;
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < n; i++)
      widest =
          tt_max_i(widest, tt_text_width(p->cv->fonts, tt_step_title(sides[k].tr, i, p->st->lang), px, TT_FONT_BOLD));
  return widest;
}

// The step titles' type: the largest from cell down to 85% of small at which both sides'
// widest title fits NAME_SHARE of a side (cut where not even that does). Widths grow with the
// type: the first guess scales cell by the room over the width, then steps down.
static int names_px(tt_paint *p, const block_side *sides, const blocks_layout *L) {
  int room = L->w * NAME_SHARE / 100, least = tt_max_i(MIN_PX, L->t.small * 85 / 100);
  int px = L->t.cell, widest = widest_title(p, sides, L->n, px);
  if (widest <= room) return px;
  px = widest > 0 ? px * room / widest : px;
  while (px > least && widest_title(p, sides, L->n, px) > room) px--;
  return px < least ? least : px;
}

// The layout at unit v in r (title and T line the texts above the sides): true where every
// step has a row of at least 6/5 of its title's type. The title and the headings take the
// largest of three sizes that fits them on one line, else wrap.
static bool layout_at(tt_paint *p, const block_side *sides, const char *title, const char *tline, SDL_Rect r, int v,
                      blocks_layout *L) {
  tt_canvas *cv = p->cv;
  *L = (blocks_layout){.t = type_at(v), .v = v, .gap = v * 2};
  const tt_type *t = &L->t;
  L->w = (r.w - L->gap) / 2;
  L->title_px = one_line(cv->fonts, title, r.w, (const int[]){t->heading, t->large, t->body}, 3, TT_FONT_BOLD);
  L->title_h = tt_para_height(cv, r.w, title, L->title_px, TT_FONT_BOLD);
  L->T_h = tt_para_height(cv, r.w, tline, t->label, TT_FONT_SANS) + t->line / 2;
  L->cfg_px = t->label;
  L->head_px = t->large;
  for (int k = 0; k < 2; k++) {
    int px = one_line(cv->fonts, sides[k].head, L->w, (const int[]){t->large, t->body, t->cell}, 3, TT_FONT_BOLD);
    L->head_px = px < L->head_px ? px : L->head_px;
  }
  for (int k = 0; k < 2; k++) {
    const block_side *s = &sides[k];
    char lines[CFG_LINES][160];
    L->head_h = tt_max_i(L->head_h, tt_para_height(cv, L->w, s->head, L->head_px, TT_FONT_BOLD));
    if (s->shapes)
      L->cfg_h = tt_max_i(L->cfg_h, cfg_lines(cv->fonts, s->cfg_line, L->cfg_px, L->w, lines) * t->label * 13 / 10);
  }
  for (int k = 0; k < 2; k++) {
    const block_side *s = &sides[k];
    int h = s->shapes ? L->cfg_h + tt_para_height(cv, L->w, s->each, t->label, TT_FONT_SANS)
                      : tt_para_height(cv, L->w, tt_str(p->st->lang, TT_S_BLOCKS_MISSING), t->label, TT_FONT_SANS);
    L->info_h = tt_max_i(L->info_h, h);
  }
  L->n = tt_step_count() < MAX_STEPS ? tt_step_count() : MAX_STEPS;
  L->px = t->cell;  // the step titles' type at most (names_px, once the unit is chosen)
  int y[MAX_STEPS + 1];
  row_tops(sides, L->n, 0, 0, y);  // the gaps alone
  int room = r.h - L->title_h - L->T_h - L->head_h - L->info_h - t->line / 2 - y[L->n];
  L->row_h = L->n > 0 ? room / L->n : t->line;
  if (L->row_h > t->line) L->row_h = t->line;
  L->shown = L->n;
  return L->row_h >= L->px * 6 / 5;
}

// The largest unit that fits (by halving: a smaller unit never needs more room); where none
// does, the smallest, showing the steps there is room for above a line that counts the rest.
// Then the step titles' type.
static void fit(tt_paint *p, const block_side *sides, const char *title, const char *tline, SDL_Rect r,
                blocks_layout *L) {
  int lo = MIN_PX, hi = p->unit > MIN_PX ? p->unit : MIN_PX;
  bool fits = layout_at(p, sides, title, tline, r, hi, L);
  while (!fits && hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if (layout_at(p, sides, title, tline, r, mid, L))
      lo = mid;
    else
      hi = mid;
  }
  if (!fits && !layout_at(p, sides, title, tline, r, lo, L)) {
    int room = L->row_h * L->n - FRAME_GAP - tt_para_line(L->t.label);  // less the line that counts the rest
    L->row_h = L->px * 6 / 5;
    L->shown = room > 0 ? room / L->row_h : 0;
    if (L->shown > L->n) L->shown = L->n;
  }
  L->px = names_px(p, sides, L);
}

// The side's heading (architecture and model) and its sizes, wrapped, with how often the
// block repeats, or why there are none; r.y: the heading's top.
static void side_heading(tt_paint *p, const block_side *s, const char *tag, const blocks_layout *L, SDL_Rect r) {
  tt_canvas *cv = p->cv;
  const tt_type *t = &L->t;
  tt_note(cv, "name");
  tt_draw_para(cv, r.x, r.y, r.w, s->head, L->head_px, TT_FONT_BOLD, p->pal->fg);
  int y = r.y + L->head_h;
  if (!s->shapes) {
    tt_draw_para(cv, r.x, y, r.w, tt_str(p->st->lang, TT_S_BLOCKS_MISSING), t->label, TT_FONT_SANS, p->pal->warn);
    return;
  }
  char lines[CFG_LINES][160];
  int n = cfg_lines(cv->fonts, s->cfg_line, L->cfg_px, r.w, lines);
  for (int i = 0; i < n; i++) {  // each line with the note: the check reads them joined
    tt_note(cv, "blocks_cfg side=%s model=%s", tag, s->this_trace ? "-" : s->model);
    tt_draw_text(cv, r.x, y + i * tt_para_line(L->cfg_px), lines[i], L->cfg_px, TT_FONT_MONO, p->pal->fg,
                 TT_ALIGN_LEFT);
  }
  tt_note(cv, "blocks_each side=%s", tag);
  tt_draw_para(cv, r.x, y + L->cfg_h, r.w, s->each, t->label, TT_FONT_SANS, p->pal->dim);
}

// The top at which a text of px type in kind k sits centred in a row from y, h high.
static int centred(tt_canvas *cv, int y, int h, int px, tt_font_kind k) {
  int w = 0, th = 0;
  tt_text_size(cv->fonts, "Ag", px, k, &w, &th);
  return y + (h - th) / 2;
}

// The steps' two columns in a side: the titles' width, the shapes' type.
typedef struct {
  int name_w, spx;
} step_cols;

// Step i of one side in r (its background fill_h high): its title (in colour where the other
// side's step differs) in c->name_w after a margin, its shapes after it, cut where longer.
static void step_row(tt_paint *p, const block_side *s, const block_side *other, const char *tag, int i, SDL_Rect r,
                     int fill_h, const blocks_layout *L, const step_cols *c) {
  tt_canvas *cv = p->cv;
  const tt_step *st = tt_step_get(s->tr, i);
  const char *name = tt_step_title(s->tr, i, p->st->lang);
  bool changed = true;  // no step of the other list has this title
  for (int j = 0; j < L->n; j++) changed &= strcmp(name, tt_step_title(other->tr, j, p->st->lang)) != 0;
  if (st && st->in_block) cv->fill(cv, r.x, r.y, r.w, fill_h, p->pal->panel);
  char title[200], shapes[400], fit[400];
  int margin = L->v / 3, px = L->px;
  tt_text_fit(cv->fonts, name, px, TT_FONT_BOLD, c->name_w, title, sizeof title);
  tt_note(cv, "name");
  tt_draw_text(cv, r.x + margin, centred(cv, r.y, r.h - 1, px, TT_FONT_BOLD), title, px, TT_FONT_BOLD,
               changed ? p->pal->accent : p->pal->fg, TT_ALIGN_LEFT);
  if (!s->shapes || !st) return;
  tt_step_shapes(s->tr, i, p->st->lang, shapes, sizeof shapes);
  int x = r.x + margin + c->name_w + L->v / 2, room = r.x + r.w - margin - x;
  tt_text_fit(cv->fonts, shapes, c->spx, TT_FONT_MONO, room, fit, sizeof fit);
  tt_note(cv, "blocks_shape side=%s i=%d id=%s", tag, i, st->id);
  tt_draw_text(cv, x, centred(cv, r.y, r.h - 1, c->spx, TT_FONT_MONO), fit, c->spx, TT_FONT_MONO, p->pal->dim,
               TT_ALIGN_LEFT);
}

// A side's step columns in width w: the titles as wide as the widest (at most NAME_SHARE of
// w), the shapes in small type, or smaller where that leaves one of them longer than its room.
static step_cols step_columns(tt_paint *p, const block_side *s, const blocks_layout *L, int w) {
  tt_fonts *f = p->cv->fonts;
  step_cols c = {0, L->t.small};
  for (int i = 0; i < L->n; i++)
    c.name_w = tt_max_i(c.name_w, tt_text_width(f, tt_step_title(s->tr, i, p->st->lang), L->px, TT_FONT_BOLD));
  if (c.name_w > w * NAME_SHARE / 100) c.name_w = w * NAME_SHARE / 100;
  int room = w - L->v / 3 * 2 - c.name_w - L->v / 2;
  char shapes[400];
  for (int i = 0; s->shapes && i < L->n && c.spx == L->t.small; i++) {
    tt_step_shapes(s->tr, i, p->st->lang, shapes, sizeof shapes);
    if (tt_text_width(f, shapes, c.spx, TT_FONT_MONO) > room) c.spx = tt_max_i(MIN_PX, c.spx * 85 / 100);
  }
  return c;
}

// One side's column: heading, the steps at their tops y (the block's rows one background),
// the frame around the block's steps in the gaps above and under them, the count of steps
// left out.
static void column(tt_paint *p, const block_side *s, const block_side *other, const char *tag, SDL_Rect r, const int *y,
                   const blocks_layout *L) {
  side_heading(p, s, tag, L, r);
  int rh = L->row_h, first = -1, last = -1;
  step_cols c = step_columns(p, s, L, r.w);
  for (int i = 0; i < L->shown; i++) {
    const tt_step *st = tt_step_get(s->tr, i), *next = tt_step_get(s->tr, i + 1);
    bool joined = i + 1 < L->shown && next && next->in_block;  // the background runs on into the next row
    step_row(p, s, other, tag, i, (SDL_Rect){r.x, y[i], r.w, rh}, joined ? y[i + 1] - y[i] : rh, L, &c);
    if (st && st->in_block) last = i, first = first < 0 ? i : first;
  }
  if (first >= 0) tt_draw_frame(p->cv, r.x - 3, y[first] - 3, r.w + 6, y[last] + rh + 5 - y[first], p->pal->dim, 2);
  if (L->shown < L->n) {
    char line[160];
    snprintf(line, sizeof line, tt_str(p->st->lang, TT_S_ROWS_MORE_FMT), L->n - L->shown);
    tt_note(p->cv, "rows_more shown=%d rows=%d", L->shown, L->n);
    tt_draw_text(p->cv, r.x, y[L->shown] + FRAME_GAP, line, L->t.label, TT_FONT_SANS, p->pal->dim, TT_ALIGN_LEFT);
  }
}

// The title, the T line and both sides, in the largest type that fits r.
static void draw(tt_paint *p, block_side *sides, int T, SDL_Rect r) {
  tt_canvas *cv = p->cv;
  const char *title = tt_str(p->st->lang, TT_S_BLOCKS_TITLE);
  char tline[200];
  snprintf(tline, sizeof tline, tt_str(p->st->lang, TT_S_BLOCKS_SHAPES_FMT), T);
  for (int k = 0; k < 2; k++) side_texts(&sides[k], p->st->lang);
  blocks_layout L;
  fit(p, sides, title, tline, r, &L);
  tt_note_scope(cv, "panel=blocks");
  tt_note(cv, "fixed");
  tt_draw_para(cv, r.x, r.y, r.w, title, L.title_px, TT_FONT_BOLD, p->pal->fg);
  tt_note(cv, "blocks_T");
  tt_draw_para(cv, r.x, r.y + L.title_h, r.w, tline, L.t.label, TT_FONT_SANS, p->pal->dim);
  int y = r.y + L.title_h + L.T_h, tops[MAX_STEPS + 1];
  row_tops(sides, L.n, y + L.head_h + L.info_h + L.t.line / 2, L.row_h, tops);
  for (int k = 0; k < 2; k++)
    column(p, &sides[k], &sides[1 - k], k ? "llama" : "gpt2",
           (SDL_Rect){r.x + k * (L.w + L.gap), y, L.w, r.y + r.h - y}, tops, &L);
  tt_note_scope(cv, NULL);
}

void tt_paint_blocks(tt_paint *p, SDL_Rect r) {
  block_side sides[2];  // GPT-2, Llama
  memset(sides, 0, sizeof sides);
  tt_config cfg;
  int T = tt_trace_n_tokens(p->tr);
  if (!tt_trace_config(p->tr, &cfg)) {
    tt_draw_para(p->cv, r.x, r.y, r.w, tt_str(p->st->lang, TT_S_NOT_RECORDED), p->unit, TT_FONT_SANS, p->pal->warn);
    return;
  }
  int mine = cfg.arch == TT_ARCH_LLAMA ? 1 : 0;
  sides[mine] = (block_side){.tr = p->tr, .cfg = cfg, .shapes = true, .this_trace = true};
  snprintf(sides[mine].model, sizeof sides[mine].model, "%s", folder_name(tt_trace_meta(p->tr, "model")));
  other_side(&sides[1 - mine], mine ? TT_ARCH_GPT2 : TT_ARCH_LLAMA, T);
  if (sides[1 - mine].tr) draw(p, sides, T, r);
  tt_trace_destroy(sides[1 - mine].own);
}
