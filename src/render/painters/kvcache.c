// kvcache: what one layer and head has cached after the prompt pass or after decode step
// S of a generation: the K rows and the V rows (one per position: the prompt's from the
// prompt pass, then one from each decode step), the row decode step S added framed as the
// new one, and beside them the weights the new query gave each cached key. The decode step
// is the hook's (decode.S.blocks.L.attn.hook_k) or else the view's position (−1: after the
// prompt pass). With grouped-query attention (G < H key/value heads) the cache holds one
// K and V per key/value head: the view shows the one the chosen query head reads, which
// query heads share it, and the bytes the cache takes against H heads.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render_int.h"
#include "trace/hooks.h"

typedef struct {
  int layer, head, step;  // step: the decode step shown, −1 after the prompt pass
  int T, rows, D;         // prompt tokens, cached rows, head width
  int H, G, kv, L;        // query heads, key/value heads, the K/V head `head` reads, layers
  int32_t gen[4096];      // the generated ids (the tokens of rows T, T+1, ...)
  int n_gen;
} cache_view;

// Row j (0 ≤ j < rows) of the cached K (which 0) or V (1) of K/V head c->kv: the prompt
// pass's row j of hook_k/v (G,T,D), or decode step j−T's one row (G,1,D); NULL when it is
// not recorded.
static const tt_tensor *row_source(const tt_paint *p, const cache_view *c, int which, int j, int64_t *at) {
  const char *suffix = which ? "attn.hook_v" : "attn.hook_k";
  char name[128];
  if (j < c->T) {
    const tt_tensor *t = tt_find_hook(p->tr, c->layer, suffix);
    *at = ((int64_t)c->kv * c->T + j) * c->D;
    return t && t->ndim == 3 && t->shape[0] == c->G && t->shape[1] == c->T ? t : NULL;
  }
  snprintf(name, sizeof name, "decode.%d.blocks.%d.%s", j - c->T, c->layer, suffix);
  const tt_tensor *t = tt_trace_find(p->tr, name);
  *at = (int64_t)c->kv * c->D;
  return t && t->ndim == 3 && t->shape[0] == c->G && t->shape[1] == 1 ? t : NULL;
}

// The largest |value| of the cached rows of K or V (the colour scale's end), −1 when a row is missing.
static float extent(const tt_paint *p, const cache_view *c, int which) {
  float lim = 0;
  for (int j = 0; j < c->rows; j++) {
    int64_t at;
    const tt_tensor *t = row_source(p, c, which, j, &at);
    if (!t) return -1;
    for (int d = 0; d < c->D; d++) lim = fmaxf(lim, fabsf(tt_tensor_at(t, at + d)));
  }
  return lim > 0 ? lim : 1;
}

// The rows of K or V as one cell image in dst, the new row framed.
static void matrix(tt_paint *p, const cache_view *c, int which, SDL_Rect dst) {
  tt_canvas *cv = p->cv;
  float lim = extent(p, c, which);
  if (lim < 0) {
    tt_draw_para(cv, dst.x, dst.y, dst.w, tt_str(p->st->lang, TT_S_NOT_RECORDED), p->unit, TT_FONT_SANS, p->pal->warn);
    return;
  }
  tt_rgba *img = malloc(sizeof *img * (size_t)c->rows * (size_t)c->D);
  if (!img) return;
  for (int j = 0; j < c->rows; j++) {
    int64_t at;
    const tt_tensor *t = row_source(p, c, which, j, &at);
    for (int d = 0; d < c->D; d++) img[(size_t)j * c->D + d] = tt_cmap_diverging(tt_tensor_at(t, at + d) / lim);
  }
  float ch = (float)dst.h / (float)c->rows, cw = (float)dst.w / (float)c->D;
  tt_cells cells = {.rows = c->rows,
                    .cols = c->D,
                    .rgb = img,
                    .cell_w = cw,
                    .cell_h = ch,
                    .grid = ch >= 6 && cw >= 6,
                    .grid_rgb = p->pal->grid};
  int key_in[6] = {c->layer, c->kv, c->step, which, c->rows, (int)p->st->theme};
  uint64_t key = tt_hash(tt_hash(0, &p->tr, sizeof p->tr), key_in, sizeof key_in);
  if (!cv->cells_cached(cv, key, dst)) cv->cells(cv, key, &cells, dst);
  free(img);
  int prompt_y = dst.y + (int)((float)c->T * ch);
  if (c->rows > c->T) cv->fill(cv, dst.x - 2, prompt_y - 1, dst.w + 4, 2, p->pal->fg);  // prompt | generated
  if (c->step >= 0)
    tt_draw_frame(cv, dst.x - 3, dst.y + (int)((float)(c->rows - 1) * ch) - 3, dst.w + 6, (int)ceilf(ch) + 6,
                  p->pal->accent, 3);
}

// Position j's label: "j token" (the prompt's tokens, then the generated ones).
static void row_label(tt_paint *p, const cache_view *c, int j, int x, int y, int px, int w) {
  char text[200], tok[160], t[160], fit[200];
  const char *s = NULL;
  if (j < c->T)
    s = tt_token_display(tt_trace_token(p->tr, j), tok, sizeof tok);
  else if (j - c->T < c->n_gen && p->ex && p->ex->token_text &&
           p->ex->token_text(p->ex->token_ctx, c->gen[j - c->T], t, sizeof t))
    s = tt_token_display(t, tok, sizeof tok);
  snprintf(text, sizeof text, "%d %s", j, s ? s : "?");
  tt_text_fit(p->cv->fonts, text, px, TT_FONT_MONO, w, fit, sizeof fit);
  tt_note(p->cv, "kv_label j=%d", j);
  tt_draw_text(p->cv, x, y, fit, px, TT_FONT_MONO, j < c->T ? p->pal->dim : p->pal->fg, TT_ALIGN_RIGHT);
}

// The new query's weight on each cached key (decode step S's pattern row), as numbers; the
// heading may run on to head_w.
static void weights(tt_paint *p, const cache_view *c, SDL_Rect r, int head_w, float ch, int px) {
  char name[128], num[32];
  snprintf(name, sizeof name, "decode.%d.blocks.%d.attn.hook_pattern", c->step, c->layer);
  const tt_tensor *a = tt_trace_find(p->tr, name);
  if (!a || a->ndim != 3 || a->shape[2] != c->rows) return;
  char fit[160];
  tt_text_fit(p->cv->fonts, tt_str(p->st->lang, TT_S_KV_WEIGHTS), px, TT_FONT_SANS, head_w, fit, sizeof fit);
  tt_draw_text(p->cv, r.x, r.y - tt_type_for(p->unit).line, fit, px, TT_FONT_SANS, p->pal->dim, TT_ALIGN_LEFT);
  int bar_w = r.w - tt_text_width(p->cv->fonts, "0.000", px, TT_FONT_SANS) - p->unit / 2;  // the number after
  for (int j = 0; j < c->rows; j++) {
    float w = tt_tensor_at(a, (int64_t)c->head * c->rows + j);
    int y = r.y + (int)((float)j * ch);
    p->cv->fill(p->cv, r.x, y + (int)ch / 5, (int)(w * (float)bar_w) + 1, (int)ch * 3 / 5 + 1, p->pal->accent);
    tt_note(p->cv, "kv_w j=%d", j);
    tt_draw_text(p->cv, r.x + bar_w + p->unit / 2, y + (int)(ch - (float)px) / 2, tt_fmt_num(w, "%.3f", num, 32), px,
                 TT_FONT_SANS, p->pal->fg, TT_ALIGN_LEFT);
  }
}

// Grouped-query attention: which query heads share the K/V head shown, and what the cache
// of all layers takes for the rows cached (float32 K and V) against one per query head.
static void gqa_lines(tt_paint *p, const cache_view *c, int x, int y, int w) {
  const tt_type type = tt_type_for(p->unit);
  int R = c->H / c->G;
  char line[300], fit[300];
  long long bytes = 2LL * c->L * c->G * c->D * c->rows * 4, mha = 2LL * c->L * c->H * c->D * c->rows * 4;
  snprintf(line, sizeof line, tt_str(p->st->lang, TT_S_KV_GQA_SHARE_FMT), c->head, c->kv, c->kv * R, c->kv * R + R - 1);
  tt_text_fit(p->cv->fonts, line, type.label, TT_FONT_SANS, w, fit, sizeof fit);
  tt_note(p->cv, "kv_gqa_share");
  tt_draw_text(p->cv, x, y, fit, type.label, TT_FONT_SANS, p->pal->fg, TT_ALIGN_LEFT);
  snprintf(line, sizeof line, tt_str(p->st->lang, TT_S_KV_GQA_SAVES_FMT), c->G, c->H, c->rows, c->L, bytes, mha, R);
  tt_text_fit(p->cv->fonts, line, type.label, TT_FONT_SANS, w, fit, sizeof fit);
  tt_note(p->cv, "kv_gqa_saves");
  tt_draw_text(p->cv, x, y + type.line, fit, type.label, TT_FONT_SANS, p->pal->accent, TT_ALIGN_LEFT);
}

// The heading and the two matrices with their labels.
static void draw(tt_paint *p, SDL_Rect r, const cache_view *c) {
  tt_canvas *cv = p->cv;
  const tt_type type = tt_type_for(p->unit);
  tt_lang lang = p->st->lang;
  char line[300];
  if (c->step >= 0)
    snprintf(line, sizeof line, tt_str(lang, TT_S_KV_TITLE_FMT), c->layer, c->head, c->step);
  else
    snprintf(line, sizeof line, tt_str(lang, TT_S_KV_PREFILL_FMT), c->layer, c->head);
  tt_note_scope(cv, "panel=kvcache layer=%d head=%d step=%d", c->layer, c->head, c->step);
  tt_note(cv, "kv_title");
  int title_px = tt_text_px_fit(cv->fonts, line, TT_FONT_BOLD, type.heading, type.body, r.w);
  tt_draw_text(cv, r.x, r.y, line, title_px, TT_FONT_BOLD, p->pal->fg, TT_ALIGN_LEFT);
  if (c->step >= 0)
    snprintf(line, sizeof line, tt_str(lang, TT_S_KV_ROWS_FMT), c->rows, c->T, c->rows - c->T, c->rows - 1);
  else
    snprintf(line, sizeof line, tt_str(lang, TT_S_KV_PREFILL_ROWS_FMT), c->rows);
  tt_note(cv, "kv_rows");
  int y = r.y + type.line + tt_draw_para(cv, r.x, r.y + type.line, r.w, line, type.label, TT_FONT_SANS, p->pal->dim);
  bool gqa = c->G < c->H;
  if (gqa) gqa_lines(p, c, r.x, y, r.w);
  // The weights' column holds a short bar and its number ("0.656").
  int num_w = tt_text_width(cv->fonts, "0.000", type.label, TT_FONT_SANS);
  int top = y + type.line * (gqa ? 4 : 2), lab_w = r.w / 6;
  int wts_w = c->step >= 0 ? tt_max_i(r.w / 6, num_w + p->unit * 3) : 0;
  int mw = (r.w - lab_w - wts_w - p->unit * 3) / 2, mh = r.y + r.h - top - p->unit;
  float ch = (float)mh / (float)c->rows;
  if (ch > (float)type.line) ch = (float)type.line, mh = (int)(ch * (float)c->rows);
  int px = ch * 0.8f < (float)type.label ? (int)(ch * 0.8f) : type.label;
  int mx = r.x + lab_w + p->unit;
  for (int which = 0; which < 2; which++) {
    SDL_Rect dst = {mx + which * (mw + p->unit), top, mw, mh};
    tt_note(cv, "name");
    tt_draw_text(cv, dst.x, top - type.line, tt_str(lang, which ? TT_S_KV_V : TT_S_KV_K), type.label, TT_FONT_BOLD,
                 p->pal->fg, TT_ALIGN_LEFT);
    matrix(p, c, which, dst);
  }
  // The new row's label leaves room for the word that marks it.
  int new_w = c->step >= 0 ? tt_text_width(cv->fonts, tt_str(lang, TT_S_KV_NEW), px, TT_FONT_BOLD) + p->unit / 2 : 0;
  if (px >= 8)
    for (int j = 0; j < c->rows; j++)
      row_label(p, c, j, r.x + lab_w, top + (int)((float)j * ch), px, lab_w - (j == c->rows - 1 ? new_w : 0));
  if (c->step >= 0 && px >= 8) {
    tt_note(cv, "name");
    tt_draw_text(cv, r.x, top + (int)((float)(c->rows - 1) * ch), tt_str(lang, TT_S_KV_NEW), px, TT_FONT_BOLD,
                 p->pal->accent, TT_ALIGN_LEFT);
    int wx = mx + 2 * (mw + p->unit) + p->unit;
    weights(p, c, (SDL_Rect){wx, top, wts_w, mh}, r.x + r.w - wx, ch, px);
  }
  tt_note_scope(cv, NULL);
}

void tt_paint_kvcache(tt_paint *p, SDL_Rect r, int layer, int head) {
  cache_view *c = calloc(1, sizeof *c);
  tt_config cfg;
  tt_hook_ref ref;
  if (!c || !tt_trace_config(p->tr, &cfg) || cfg.n_head < 1 || tt_config_kv_heads(&cfg) < 1 ||
      cfg.n_head % tt_config_kv_heads(&cfg) != 0 || layer < 0 || layer >= cfg.n_layer) {
    tt_draw_para(p->cv, r.x, r.y, r.w, tt_str(p->st->lang, TT_S_NOT_RECORDED), p->unit, TT_FONT_SANS, p->pal->warn);
    free(c);
    return;
  }
  c->layer = layer;
  c->head = head < 0 ? 0 : head >= cfg.n_head ? cfg.n_head - 1 : head;
  c->T = tt_trace_n_tokens(p->tr);
  c->H = cfg.n_head;
  c->G = tt_config_kv_heads(&cfg);
  c->D = tt_config_head_dim(&cfg);
  c->L = cfg.n_layer;
  c->kv = c->head / (c->H / c->G);
  c->n_gen = tt_generated_ints(p->tr, "generated_ids", c->gen, 4096);
  // The decode step: the hook's (decode.S.…), else the view's position (−1: the prompt pass).
  c->step = tt_hook_lookup(p->st->hook, &ref) && ref.decode >= 0 ? ref.decode : p->st->position;
  if (c->step > c->n_gen - 2) c->step = c->n_gen - 2;
  if (c->step < -1) c->step = -1;
  c->rows = c->T + (c->step >= 0 ? c->step + 1 : 0);
  draw(p, r, c);
  free(c);
}
