// gqa: grouped-query attention from the trace's config. The H query heads in a row above
// the G key/value heads, each query head joined to the K/V head it reads (h / (H/G)), the
// view's head and its group in colour; the groups as lines; and what sharing saves in the
// KV cache: 2 · layers · H_kv · D · 4 bytes per token (float32), against H_kv = H, for this
// prompt and for the model's full context.
// Every text is measured and wraps: the view takes the largest type that fits, with the
// cache's lines under the diagram or beside it; where none fits at a readable size, the
// cache's rule is cut, then smaller type, then the lines left out are counted.
#include <stdio.h>
#include <stdlib.h>

#include "render_int.h"

#define MAX_GROUP_LINES 8
#define N_CACHE 5
#define MIN_UNIT 13  // the smallest type unit: its small type is 10 px

// The view's texts: the title, the group lines and the cache's lines, formatted once.
typedef struct {
  int H, G, per, head, n_groups;
  char title[300], group[MAX_GROUP_LINES][160], cache[N_CACHE][400];
} gqa_text;

static const char *const cache_note[N_CACHE] = {"gqa_token", "gqa_mha", "gqa_prompt", "gqa_ctx", "gqa_saves"};

// Where the parts go at one type unit u (offsets from the view's top left). The diagram sits
// over the full width with the groups beside it or under it, the cache below (stacked), or
// the diagram and the groups in a left column with the cache to their right (!stacked).
typedef struct {
  int u;
  bool stacked, groups_right;
  int title_h, dia_w, box_h, row_gap, groups_x, groups_y, group_w, group_cols, group_h, cache_x, cache_y, cache_w;
  int rule_h, lines_h, h;  // the cache's rule paragraph as drawn, its lines, the whole height
} gqa_fit;

// "0–1" or "3": the query heads of K/V head g.
static void group_heads(int g, int per, char *buf, size_t len) {
  if (per == 1)
    snprintf(buf, len, "%d", g);
  else
    snprintf(buf, len, "%d\xE2\x80\x93%d", g * per, g * per + per - 1);
}

// The texts for head `head` of cfg's model over this trace's prompt.
static void make_texts(const tt_paint *p, const tt_config *cfg, int head, gqa_text *x) {
  tt_lang lang = p->st->lang;
  int L = cfg->n_layer, H = cfg->n_head, G = tt_config_kv_heads(cfg), D = tt_config_head_dim(cfg);
  int T = tt_trace_n_tokens(p->tr);
  long long with_g = 2LL * L * G * D * 4, with_h = 2LL * L * H * D * 4;
  char a[32], b[32], heads[48];
  *x = (gqa_text){.H = H, .G = G, .per = H / G, .head = head, .n_groups = G < MAX_GROUP_LINES ? G : MAX_GROUP_LINES};
  snprintf(x->title, sizeof x->title, tt_str(lang, TT_S_GQA_TITLE_FMT), H, G, H / G);
  for (int g = 0; g < x->n_groups; g++) {
    group_heads(g, H / G, heads, sizeof heads);
    snprintf(x->group[g], sizeof x->group[g], tt_str(lang, TT_S_GQA_GROUP_FMT), g, heads);
  }
  snprintf(x->cache[0], sizeof x->cache[0], tt_str(lang, TT_S_GQA_TOKEN_FMT), L, G, D, with_g);
  snprintf(x->cache[1], sizeof x->cache[1], tt_str(lang, TT_S_GQA_MHA_FMT), H, L, H, D, with_h);
  snprintf(x->cache[2], sizeof x->cache[2], tt_str(lang, TT_S_GQA_PROMPT_FMT), T, with_g * T, with_h * T);
  double mib = 1024.0 * 1024.0;
  snprintf(x->cache[3], sizeof x->cache[3], tt_str(lang, TT_S_GQA_CTX_FMT), cfg->n_positions,
           tt_fmt_num((double)with_g * cfg->n_positions / mib, "%.4g", a, sizeof a),
           tt_fmt_num((double)with_h * cfg->n_positions / mib, "%.4g", b, sizeof b));
  snprintf(x->cache[4], sizeof x->cache[4], tt_str(lang, TT_S_GQA_SAVES_FMT),
           tt_fmt_num(100.0 * (H - G) / H, "%.0f", a, sizeof a), H / G);
}

// The cache's line i: its type, in the unit's body size.
static tt_font_kind cache_font(int i) {
  return i == N_CACHE - 1 ? TT_FONT_BOLD : TT_FONT_SANS;
}

// The height of the cache's lines in width w at unit u (a fifth of a unit between them).
static int lines_height(const tt_paint *p, const gqa_text *x, int w, int u) {
  int h = 0;
  for (int i = 0; i < N_CACHE; i++) h += tt_para_height(p->cv, w, x->cache[i], u, cache_font(i)) + u / 5;
  return h;
}

// The width a row of n boxes labelled by fmt needs at unit u (each label with a margin).
static int row_width(const tt_paint *p, int n, const char *fmt, int u) {
  char label[32];
  snprintf(label, sizeof label, fmt, n - 1);
  return n * (tt_text_width(p->cv->fonts, label, tt_type_for(u).small, TT_FONT_BOLD) + u);
}

// The widest group line at unit u.
static int groups_width(const tt_paint *p, const gqa_text *x, int u) {
  int w = 0;
  for (int g = 0; g < x->n_groups; g++) w = tt_max_i(w, tt_text_width(p->cv->fonts, x->group[g], u, TT_FONT_SANS));
  return w;
}

// The groups' lines in cols columns of width w: their height.
static int groups_height(const tt_paint *p, const gqa_text *x, gqa_fit *f, int w, int cols) {
  f->group_w = w, f->group_cols = cols, f->group_h = 0;
  for (int g = 0; g < x->n_groups; g++)
    f->group_h = tt_max_i(f->group_h, tt_para_height(p->cv, w, x->group[g], f->u, TT_FONT_SANS));
  int rows = (x->n_groups + cols - 1) / cols + (x->G > MAX_GROUP_LINES);  // and "… N more rows"
  return rows * f->group_h;
}

// The diagram and the groups over the full width w, the groups right of it where there is
// room, else under it in two columns or one; their height.
static int top_block(const tt_paint *p, const gqa_text *x, gqa_fit *f, int w) {
  int u = f->u, need = tt_max_i(row_width(p, x->H, "q%d", u), row_width(p, x->G, "K/V %d", u));
  int gw = groups_width(p, x, u), dia_h = 2 * f->box_h + f->row_gap;
  f->groups_right = need + u + gw <= w;
  if (f->groups_right) {
    f->dia_w = w - gw - u, f->groups_x = f->dia_w + u, f->groups_y = 0;
    return tt_max_i(dia_h, groups_height(p, x, f, gw, 1));
  }
  f->dia_w = w, f->groups_x = 0, f->groups_y = dia_h + u / 2;
  int cols = 2 * gw + u <= w ? 2 : 1;
  return f->groups_y + groups_height(p, x, f, cols == 2 ? (w - u) / 2 : w, cols);
}

// The layout at unit u, stacked or not, in r, with longer lines by extra pixels between the
// rows of boxes; the cache's rule in at most rule_max pixels (-1: whole). f.h is its height.
static gqa_fit try_fit(const tt_paint *p, const gqa_text *x, SDL_Rect r, int u, bool stacked, int rule_max, int extra) {
  gqa_fit f = {.u = u, .stacked = stacked, .box_h = u * 3 / 2, .row_gap = u * 2 + extra};
  const tt_type type = tt_type_for(u);
  const char *rule = tt_str(p->st->lang, TT_S_GQA_CACHE);
  f.title_h = tt_para_height(p->cv, r.w, x->title, type.heading, TT_FONT_BOLD) + u / 2;
  if (stacked) {
    f.cache_x = 0, f.cache_w = r.w;
    f.cache_y = f.title_h + top_block(p, x, &f, r.w) + u / 2;
  } else {
    int left = tt_max_i(tt_max_i(row_width(p, x->H, "q%d", u), row_width(p, x->G, "K/V %d", u)), r.w / 3);
    if (left > r.w / 2) left = r.w / 2;
    f.dia_w = left, f.groups_x = 0, f.groups_y = 2 * f.box_h + f.row_gap + u / 2;
    int left_h = f.groups_y + groups_height(p, x, &f, left, 1);
    f.cache_x = left + u, f.cache_w = r.w - left - u, f.cache_y = f.title_h;
    f.h = f.title_h + left_h;  // the left column; the cache's end is added below
  }
  f.rule_h = tt_para_height(p->cv, f.cache_w, rule, type.body, TT_FONT_BOLD);
  if (rule_max >= 0 && f.rule_h > rule_max) f.rule_h = rule_max / tt_para_line(type.body) * tt_para_line(type.body);
  f.lines_h = lines_height(p, x, f.cache_w, u);
  f.h = tt_max_i(f.h, f.cache_y + f.rule_h + u / 3 + f.lines_h);
  return f;
}

// The largest type that fits: all of it (the cache's lines under the diagram, else beside
// it), else with the cache's rule cut to the room left (a line at least); down to a readable
// unit (tt_unit_smaller), then smaller type down to MIN_UNIT. (Where the whole does not fit
// at the readable unit, larger type is not tried with it: each try measures the text afresh.)
static gqa_fit choose_fit(const tt_paint *p, const gqa_text *x, SDL_Rect r) {
  int lo = tt_unit_smaller(p->unit);
  bool whole = try_fit(p, x, r, lo, true, -1, 0).h <= r.h || try_fit(p, x, r, lo, false, -1, 0).h <= r.h;
  for (int pass = whole ? 0 : 1; pass < 3; pass++)
    for (int u = pass < 2 ? p->unit : lo - 1; u >= (pass < 2 ? lo : MIN_UNIT); u--) {
      gqa_fit best = {0};
      for (int stacked = 1; stacked >= 0; stacked--) {
        gqa_fit f = try_fit(p, x, r, u, stacked, pass == 0 ? -1 : 0, 0);
        if (pass == 0 && f.h <= r.h) {  // longer lines between the boxes where there is room
          gqa_fit g = try_fit(p, x, r, u, stacked, -1, tt_min_i(r.h - f.h, u * 2));
          return g.h <= r.h ? g : f;
        }
        int room = r.h - f.h;  // what is left for the rule
        if (pass > 0 && room >= tt_para_line(u) && (best.u == 0 || room > r.h - best.h)) best = f;
      }
      if (best.u) return try_fit(p, x, r, u, best.stacked, r.h - best.h, 0);
    }
  return try_fit(p, x, r, MIN_UNIT, true, 0, 0);  // not even that: the lines that fit (draw_cache)
}

// A row of n boxes across r (at most 5 units wide each), labelled by fmt and the index; the
// centre of box i in centres[i].
static void box_row(tt_paint *p, SDL_Rect r, int u, int n, int lit, const char *fmt, const char *note, int *centres) {
  tt_canvas *cv = p->cv;
  const tt_type type = tt_type_for(u);
  int step = r.w / n, bw = step * 4 / 5;
  if (bw > u * 5) bw = u * 5;
  for (int i = 0; i < n; i++) {
    int x = r.x + step * i + (step - bw) / 2;
    centres[i] = x + bw / 2;
    cv->fill(cv, x, r.y, bw, r.h, i == lit ? p->pal->accent_bg : p->pal->panel);
    tt_draw_frame(cv, x, r.y, bw, r.h, i == lit ? p->pal->accent : p->pal->dim, i == lit ? 3 : 1);
    char label[32];
    snprintf(label, sizeof label, fmt, i);
    if (tt_text_width(cv->fonts, label, type.small, TT_FONT_BOLD) > bw - 6) continue;
    tt_note(cv, "%s i=%d", note, i);
    tt_draw_text(cv, centres[i], r.y + (r.h - type.small * 6 / 5) / 2, label, type.small, TT_FONT_BOLD, p->pal->fg,
                 TT_ALIGN_CENTER);
  }
}

// The query heads, the K/V heads and a line from each query head to its K/V head, at (x, y).
static void diagram(tt_paint *p, const gqa_text *t, const gqa_fit *f, int x, int y) {
  int *qc = calloc((size_t)t->H + (size_t)t->G, sizeof *qc), bh = f->box_h;
  if (!qc) return;
  int *kc = qc + t->H, per = t->per, head = t->head;
  SDL_Rect top = {x, y, f->dia_w, bh}, bottom = {x, y + bh + f->row_gap, f->dia_w, bh};
  box_row(p, top, f->u, t->H, head, "q%d", "gqa_q", qc);
  box_row(p, bottom, f->u, t->G, head / per, "K/V %d", "gqa_kv", kc);
  for (int h = 0; h < t->H; h++) {
    tt_rgba col = h / per == head / per ? p->pal->accent : p->pal->dim;
    for (int w = -1; w <= 1; w++)
      p->cv->line(p->cv, qc[h] + w, top.y + bh, kc[h / per] + w, bottom.y,
                  h / per == head / per || !w ? col : p->pal->bg);
  }
  free(qc);
}

// The group lines at (x, y), in the fit's columns; "… N more rows" past MAX_GROUP_LINES.
static void group_lines(tt_paint *p, const gqa_text *t, const gqa_fit *f, int x, int y) {
  int cols = f->group_cols, rows = (t->n_groups + cols - 1) / cols;
  for (int g = 0; g < t->n_groups; g++) {
    tt_note(p->cv, "gqa_group g=%d", g);
    tt_draw_para(p->cv, x + (g % cols) * (f->group_w + f->u), y + (g / cols) * f->group_h, f->group_w, t->group[g],
                 f->u, TT_FONT_SANS, g == t->head / t->per ? p->pal->accent : p->pal->fg);
  }
  if (t->G <= MAX_GROUP_LINES) return;
  char line[120];
  snprintf(line, sizeof line, tt_str(p->st->lang, TT_S_ROWS_MORE_FMT), t->G - MAX_GROUP_LINES);
  tt_note(p->cv, "gqa_groups_more");
  tt_draw_para_cut(p->cv, x, y + rows * f->group_h, f->group_w * cols, line, f->u, TT_FONT_SANS, p->pal->dim,
                   f->group_h);
}

// The cache's rule (cut to the fit's height) and its lines in r; lines that do not fit
// (only below MIN_UNIT's room) are counted in "… N more rows".
static void draw_cache(tt_paint *p, const gqa_text *t, const gqa_fit *f, SDL_Rect r) {
  tt_canvas *cv = p->cv;
  const tt_type type = tt_type_for(f->u);
  tt_rgba col[N_CACHE] = {p->pal->accent, p->pal->fg, p->pal->fg, p->pal->fg, p->pal->accent};
  tt_note(cv, "fixed");
  int y = r.y +
          tt_draw_para_cut(cv, r.x, r.y, r.w, tt_str(p->st->lang, TT_S_GQA_CACHE), type.body, TT_FONT_BOLD, p->pal->fg,
                           f->rule_h) +
          f->u / 3;
  int line = tt_para_line(f->u), i = 0;
  for (; i < N_CACHE; i++) {
    int h = tt_para_height(cv, r.w, t->cache[i], f->u, cache_font(i));
    if (y + h + (i < N_CACHE - 1 ? line : 0) > r.y + r.h) break;
    tt_note(cv, "%s", cache_note[i]);
    y += tt_draw_para(cv, r.x, y, r.w, t->cache[i], f->u, cache_font(i), col[i]) + f->u / 5;
  }
  if (i == N_CACHE) return;
  char more[120];
  snprintf(more, sizeof more, tt_str(p->st->lang, TT_S_ROWS_MORE_FMT), N_CACHE - i);
  tt_note(cv, "gqa_more n=%d", N_CACHE - i);
  tt_draw_para_cut(cv, r.x, y, r.w, more, f->u, TT_FONT_SANS, p->pal->dim, r.y + r.h - y);
}

void tt_paint_gqa(tt_paint *p, SDL_Rect r, int head) {
  tt_canvas *cv = p->cv;
  tt_lang lang = p->st->lang;
  tt_config cfg;
  int G = 0;
  if (!tt_trace_config(p->tr, &cfg) || cfg.n_head < 1 || (G = tt_config_kv_heads(&cfg)) < 1 || cfg.n_head % G) {
    tt_draw_para(cv, r.x, r.y, r.w, tt_str(lang, TT_S_NOT_RECORDED), p->unit, TT_FONT_SANS, p->pal->warn);
    return;
  }
  head = head < 0 ? 0 : head >= cfg.n_head ? cfg.n_head - 1 : head;
  gqa_text t;
  make_texts(p, &cfg, head, &t);
  gqa_fit f = choose_fit(p, &t, r);
  tt_note_scope(cv, "panel=gqa head=%d", head);
  tt_note(cv, "gqa_title");
  tt_draw_para(cv, r.x, r.y, r.w, t.title, tt_type_for(f.u).heading, TT_FONT_BOLD, p->pal->fg);
  int y = r.y + f.title_h;
  diagram(p, &t, &f, r.x, y);
  group_lines(p, &t, &f, r.x + f.groups_x, y + f.groups_y);
  int cache_y = r.y + f.cache_y;
  draw_cache(p, &t, &f, (SDL_Rect){r.x + f.cache_x, cache_y, f.cache_w, r.y + r.h - cache_y});
  tt_note_scope(cv, NULL);
}
