// gqa: grouped-query attention from the trace's config. The H query heads in a row above
// the G key/value heads, each query head joined to the K/V head it reads (h / (H/G)), the
// view's head and its group in colour; the groups as lines; and what sharing saves in the
// KV cache: 2 · layers · H_kv · D · 4 bytes per token (float32), against H_kv = H, for this
// prompt and for the model's full context.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "render_int.h"

#define MAX_GROUP_LINES 8

// A row of n boxes across r (at most 3 units wide each), labelled by fmt and the index; the
// centre of box i in centres[i].
static void box_row(tt_paint *p, SDL_Rect r, int n, int lit, const char *fmt, const char *note, int *centres) {
  tt_canvas *cv = p->cv;
  const tt_type type = tt_type_for(p->unit);
  int step = r.w / n, bw = step * 4 / 5;
  if (bw > p->unit * 5) bw = p->unit * 5;
  for (int i = 0; i < n; i++) {
    int x = r.x + step * i + (step - bw) / 2;
    centres[i] = x + bw / 2;
    cv->fill(cv, x, r.y, bw, r.h, i == lit ? p->pal->accent_bg : p->pal->panel);
    tt_draw_frame(cv, x, r.y, bw, r.h, i == lit ? p->pal->accent : p->pal->dim, i == lit ? 3 : 1);
    char label[32];
    snprintf(label, sizeof label, fmt, i);
    if (tt_text_width(cv->fonts, label, type.small, TT_FONT_BOLD) > bw - 2) continue;
    tt_note(cv, "%s i=%d", note, i);
    tt_draw_text(cv, centres[i], r.y + (r.h - type.small) / 2, label, type.small, TT_FONT_BOLD, p->pal->fg,
                 TT_ALIGN_CENTER);
  }
}

// The query heads, the K/V heads and a line from each query head to its K/V head.
static int diagram(tt_paint *p, SDL_Rect r, int H, int G, int head) {
  int *qc = calloc((size_t)H + (size_t)G, sizeof *qc), bh = p->unit * 2;
  if (!qc) return 0;
  int *kc = qc + H, per = H / G;
  SDL_Rect top = {r.x, r.y, r.w, bh}, bottom = {r.x, r.y + bh + p->unit * 5, r.w, bh};
  box_row(p, top, H, head, "q%d", "gqa_q", qc);
  box_row(p, bottom, G, head / per, "K/V %d", "gqa_kv", kc);
  for (int h = 0; h < H; h++) {
    tt_rgba col = h / per == head / per ? p->pal->accent : p->pal->dim;
    for (int w = -1; w <= 1; w++)
      p->cv->line(p->cv, qc[h] + w, top.y + bh, kc[h / per] + w, bottom.y,
                  h / per == head / per || !w ? col : p->pal->bg);
  }
  free(qc);
  return bh * 2 + p->unit * 6;
}

// "0–1" or "3": the query heads of K/V head g.
static void group_heads(int g, int per, char *buf, size_t len) {
  if (per == 1)
    snprintf(buf, len, "%d", g);
  else
    snprintf(buf, len, "%d\xE2\x80\x93%d", g * per, g * per + per - 1);
}

// The cache's lines: the rule, per token with G and with H heads, this prompt, the full context, the saving.
static void cache_lines(tt_paint *p, SDL_Rect r, const tt_config *cfg, int T) {
  tt_canvas *cv = p->cv;
  const tt_type type = tt_type_for(p->unit);
  tt_lang lang = p->st->lang;
  int L = cfg->n_layer, H = cfg->n_head, G = tt_config_kv_heads(cfg), D = tt_config_head_dim(cfg);
  long long with_g = 2LL * L * G * D * 4, with_h = 2LL * L * H * D * 4;
  char line[400], a[32], b[32];
  int y = r.y;
  tt_note(cv, "fixed");
  y += tt_draw_para(cv, r.x, y, r.w, tt_str(lang, TT_S_GQA_CACHE), type.body, TT_FONT_BOLD, p->pal->fg) + type.line / 3;
  snprintf(line, sizeof line, tt_str(lang, TT_S_GQA_TOKEN_FMT), L, G, D, with_g);
  tt_note(cv, "gqa_token");
  tt_draw_text(cv, r.x, y, line, type.body, TT_FONT_SANS, p->pal->accent, TT_ALIGN_LEFT);
  snprintf(line, sizeof line, tt_str(lang, TT_S_GQA_MHA_FMT), H, L, H, D, with_h);
  tt_note(cv, "gqa_mha");
  tt_draw_text(cv, r.x, y + type.line, line, type.body, TT_FONT_SANS, p->pal->fg, TT_ALIGN_LEFT);
  snprintf(line, sizeof line, tt_str(lang, TT_S_GQA_PROMPT_FMT), T, with_g * T, with_h * T);
  tt_note(cv, "gqa_prompt");
  tt_draw_text(cv, r.x, y + type.line * 2, line, type.body, TT_FONT_SANS, p->pal->fg, TT_ALIGN_LEFT);
  double mib = 1024.0 * 1024.0;
  snprintf(line, sizeof line, tt_str(lang, TT_S_GQA_CTX_FMT), cfg->n_positions,
           tt_fmt_num((double)with_g * cfg->n_positions / mib, "%.4g", a, sizeof a),
           tt_fmt_num((double)with_h * cfg->n_positions / mib, "%.4g", b, sizeof b));
  tt_note(cv, "gqa_ctx");
  tt_draw_text(cv, r.x, y + type.line * 3, line, type.body, TT_FONT_SANS, p->pal->fg, TT_ALIGN_LEFT);
  snprintf(line, sizeof line, tt_str(lang, TT_S_GQA_SAVES_FMT), tt_fmt_num(100.0 * (H - G) / H, "%.0f", a, sizeof a),
           H / G);
  tt_note(cv, "gqa_saves");
  tt_draw_text(cv, r.x, y + type.line * 4, line, type.body, TT_FONT_BOLD, p->pal->accent, TT_ALIGN_LEFT);
}

void tt_paint_gqa(tt_paint *p, SDL_Rect r, int head) {
  tt_canvas *cv = p->cv;
  const tt_type type = tt_type_for(p->unit);
  tt_lang lang = p->st->lang;
  tt_config cfg;
  int G = 0;
  if (!tt_trace_config(p->tr, &cfg) || cfg.n_head < 1 || (G = tt_config_kv_heads(&cfg)) < 1 || cfg.n_head % G) {
    tt_draw_para(cv, r.x, r.y, r.w, tt_str(lang, TT_S_NOT_RECORDED), p->unit, TT_FONT_SANS, p->pal->warn);
    return;
  }
  int H = cfg.n_head, per = H / G;
  head = head < 0 ? 0 : head >= H ? H - 1 : head;
  char line[300], heads[48];
  tt_note_scope(cv, "panel=gqa head=%d", head);
  snprintf(line, sizeof line, tt_str(lang, TT_S_GQA_TITLE_FMT), H, G, per);
  tt_note(cv, "gqa_title");
  tt_draw_text(cv, r.x, r.y, line, type.heading, TT_FONT_BOLD, p->pal->fg, TT_ALIGN_LEFT);
  int y = r.y + type.line * 2;
  y += diagram(p, (SDL_Rect){r.x, y, r.w, r.h}, H, G, head);
  for (int g = 0; g < G && g < MAX_GROUP_LINES; g++) {
    group_heads(g, per, heads, sizeof heads);
    snprintf(line, sizeof line, tt_str(lang, TT_S_GQA_GROUP_FMT), g, heads);
    tt_note(cv, "gqa_group g=%d", g);
    tt_draw_text(cv, r.x + (g % 2) * r.w / 2, y + (g / 2) * type.line, line, type.body, TT_FONT_SANS,
                 g == head / per ? p->pal->accent : p->pal->fg, TT_ALIGN_LEFT);
  }
  int rows = (G < MAX_GROUP_LINES ? G : MAX_GROUP_LINES) + 1;
  y += type.line * (rows / 2) + type.line;
  cache_lines(p, (SDL_Rect){r.x, y, r.w, r.y + r.h - y}, &cfg, tt_trace_n_tokens(p->tr));
  tt_note_scope(cv, NULL);
}
