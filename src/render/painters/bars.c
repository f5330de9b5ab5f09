// bars: the top-k next tokens for one position as horizontal bars, with probabilities
// recomputed at the chosen temperature: p = softmax(logits / τ).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render_int.h"

// The top K next tokens of row pos (ranks do not change with τ) and the softmax
// denominator over all V at temperature tau.
typedef struct {
  int top[30];
  float topv[30];  // their logits
  int nk;
  double maxz, sum;
} candidates;

static float logit_at(const tt_tensor *src, bool logits, int64_t i) {
  float z = tt_tensor_at(src, i);
  return logits ? z : logf(fmaxf(z, 1e-30f));
}

static void top_k(const tt_tensor *src, bool logits, int pos, int K, float tau, candidates *c) {
  int V = (int)src->shape[1];
  c->nk = 0;
  c->maxz = -INFINITY;
  for (int v = 0; v < V; v++) {
    float z = logit_at(src, logits, (int64_t)pos * V + v);
    if (z > c->maxz) c->maxz = z;
    if (c->nk < K || z > c->topv[c->nk - 1]) {
      int i = c->nk < K ? c->nk++ : K - 1;
      while (i > 0 && c->topv[i - 1] < z) {
        c->topv[i] = c->topv[i - 1];
        c->top[i] = c->top[i - 1];
        i--;
      }
      c->topv[i] = z;
      c->top[i] = v;
    }
  }
  c->sum = 0;
  for (int v = 0; v < V; v++) c->sum += exp(((double)logit_at(src, logits, (int64_t)pos * V + v) - c->maxz) / tau);
}

// The temperature line and its slider (log scale from 0.1 to 10) at y = sy.
static void slider(tt_paint *p, SDL_Rect r, int sy, float tau) {
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  const tt_view_state *st = p->st;
  int u = p->unit;
  const tt_type type = tt_type_for(u);
  char line[400];
  snprintf(line, sizeof line, "%s \xCF\x84 = %.2f", tt_str(st->lang, TT_S_TEMPERATURE), (double)tau);
  tt_note(cv, "bars_tau");
  tt_draw_text(cv, r.x, sy, line, u, TT_FONT_SANS, pal->fg, TT_ALIGN_LEFT);
  int tw = tt_text_width(cv->fonts, "temperature \xCF\x84 = 10.00", u, TT_FONT_SANS) + u;
  // The slider a third of the width, shorter where the keys that move it need the room
  // after it (they are left out where even a short slider leaves none).
  const char *keys = st->figure ? "" : tt_str(st->lang, TT_S_BARS_KEYS);
  int keys_w = keys[0] ? u * 2 + tt_text_width(cv->fonts, keys, type.small, TT_FONT_SANS) : 0;
  int slx = r.x + tw, slw = tt_max_i(u * 6, tt_min_i(r.w / 3, r.x + r.w - slx - keys_w));
  if (slx + slw + keys_w > r.x + r.w) keys = "";
  cv->fill(cv, slx, sy + u / 2, slw, u / 4 > 2 ? u / 4 : 2, pal->dim);
  float f = (log10f(tau) + 1) / 2;
  f = fminf(fmaxf(f, 0), 1);
  cv->fill(cv, slx + (int)(f * (float)slw) - u / 3, sy, u * 2 / 3, u + u / 4, pal->accent);
  tt_note(cv, "fixed");
  tt_draw_text(cv, slx, sy + type.line, "0.1", type.small, TT_FONT_SANS, pal->dim, TT_ALIGN_CENTER);
  tt_note(cv, "fixed");
  tt_draw_text(cv, slx + slw / 2, sy + type.line, "1", type.small, TT_FONT_SANS, pal->dim, TT_ALIGN_CENTER);
  tt_note(cv, "fixed");
  tt_draw_text(cv, slx + slw, sy + type.line, "10", type.small, TT_FONT_SANS, pal->dim, TT_ALIGN_CENTER);
  if (keys[0]) tt_draw_text(cv, slx + slw + u * 2, sy, keys, type.small, TT_FONT_SANS, pal->dim, TT_ALIGN_LEFT);
}

// One bar: the token, its id, the bar and the probability.
static void bar(tt_paint *p, SDL_Rect r, int i, int y, int bar_h, int px, int lab_w, int bx, int bw, const char *label,
                int id, double prob) {
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  int u = p->unit;
  char fit[160], num[48];
  tt_text_fit(cv->fonts, label, px, TT_FONT_MONO, lab_w, fit, sizeof fit);
  tt_note(cv, "bar_token rank=%d", i);
  tt_draw_text(cv, r.x + lab_w, y + (bar_h - px * 5 / 4) / 2, fit, px, TT_FONT_MONO, pal->fg, TT_ALIGN_RIGHT);
  snprintf(num, sizeof num, "%d", id);
  tt_note(cv, "bar_id rank=%d", i);
  int id_px = px * 8 / 10 > tt_type_for(u).small ? px * 8 / 10 : tt_type_for(u).small;  // no finer than fine print
  if (id_px > px) id_px = px;
  tt_draw_text(cv, r.x + lab_w + u / 2, y + (bar_h - px * 5 / 4) / 2, num, id_px, TT_FONT_SANS, pal->dim,
               TT_ALIGN_LEFT);
  int w = (int)(prob * bw);
  tt_rgba c = tt_cmap_viridis((float)(0.25 + 0.75 * prob));
  cv->fill(cv, bx, y + bar_h / 8, w > 1 ? w : 1, bar_h * 3 / 4, c);
  snprintf(num, sizeof num, "%.1f%%", prob * 100);
  if (prob < 0.001) snprintf(num, sizeof num, "%.3f%%", prob * 100);
  tt_note(cv, "bar_p rank=%d", i);
  tt_draw_text(cv, bx + w + u / 2, y + (bar_h - px * 5 / 4) / 2, num, px, TT_FONT_BOLD, pal->fg, TT_ALIGN_LEFT);
}

// The bars from top_y down to bottom: labels sized to the widest, bars scaled to the width left.
static void bars(tt_paint *p, SDL_Rect r, int top_y, int bottom, const candidates *c, float tau, int pos) {
  tt_canvas *cv = p->cv;
  int u = p->unit, nk = c->nk;
  int bar_h = (bottom - top_y) / (nk ? nk : 1);
  if (bar_h > u * 3) bar_h = u * 3;
  int px = bar_h * 55 / 100 < u ? bar_h * 55 / 100 : u;
  if (px < 9) px = 9;
  int lab_w = 0;
  char labels[30][160];
  for (int i = 0; i < nk; i++) {
    char t[160];
    const char *s = p->ex && p->ex->token_text ? p->ex->token_text(p->ex->token_ctx, c->top[i], t, sizeof t) : NULL;
    if (s)  // decoded after the prompt: a piece of a character with the character it completes
      tt_candidate_label(p->tr, pos, s, labels[i], sizeof labels[i]);
    else
      snprintf(labels[i], sizeof labels[i], "id %d", c->top[i]);
    int w = tt_text_width(cv->fonts, labels[i], px, TT_FONT_MONO);
    if (w > lab_w) lab_w = w;
  }
  if (lab_w > r.w / 4) lab_w = r.w / 4;
  int id_w = tt_text_width(cv->fonts, "50256", px, TT_FONT_SANS) + u;
  int bx = r.x + lab_w + id_w + u;
  int bw = r.w - (bx - r.x) - u * 6;
  // At τ = 1 the bars are the step's tensor itself (hook_probs, or hook_logits' softmax): a bar
  // is its cell (pos, id), to point at and pin.
  const tt_tensor *shown = tt_trace_find(p->tr, p->st->hook);
  tt_mat m;
  bool cells = tau == 1.0f && shown &&
               (strcmp(shown->name, "hook_probs") == 0 || strcmp(shown->name, "hook_logits") == 0) &&
               tt_mat_of(p->tr, shown, 0, &m);
  for (int i = 0; i < nk; i++) {
    int y = top_y + i * bar_h;
    bar(p, r, i, y, bar_h, px, lab_w, bx, bw, labels[i], c->top[i], exp(((double)c->topv[i] - c->maxz) / tau) / c->sum);
    if (cells) tt_pick_cell(p, (SDL_Rect){r.x, y, r.w - u * 6, bar_h}, &m, pos, c->top[i]);
  }
}

void tt_paint_bars(tt_paint *p, SDL_Rect r) {
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  const tt_view_state *st = p->st;
  int u = p->unit;
  const tt_type type = tt_type_for(u);
  const tt_tensor *lg = tt_trace_find(p->tr, "hook_logits");
  const tt_tensor *pr = tt_trace_find(p->tr, "hook_probs");
  const tt_tensor *src = lg ? lg : pr;
  if (!src || src->ndim != 2) {
    tt_draw_para(cv, r.x, r.y, r.w, tt_str(st->lang, TT_S_NOT_RECORDED), u, TT_FONT_SANS, pal->warn);
    return;
  }
  int T = (int)src->shape[0], V = (int)src->shape[1];
  int pos = st->position < 0 || st->position >= T ? T - 1 : st->position;
  float tau = st->temperature > 0.01f ? st->temperature : 0.01f;
  int asked = st->top_k < 1 ? 10 : st->top_k, K = asked > 30 ? 30 : asked;
  // As many bars as have room for labels of type.small (zoomed type leaves room for fewer);
  // the line below then says how many were left out.
  int top_y = r.y + u * 6, bottom = r.y + r.h - u * 2, min_bar = type.small * 100 / 55 + 1;
  if ((bottom - top_y) / min_bar < K) {
    bottom -= type.line;
    K = (bottom - top_y) / min_bar > 1 ? (bottom - top_y) / min_bar : 1;
  }
  candidates c;
  top_k(src, lg != NULL, pos, K, tau, &c);
  char line[400], tok[160];
  tt_axis_label(p->tr, p->ex, 'T', pos, tok, sizeof tok);
  snprintf(line, sizeof line, "%s \xE2\x80\x9C%s\xE2\x80\x9D (%s %d)", tt_str(st->lang, TT_S_NEXT_AFTER), tok,
           tt_str(st->lang, TT_S_POSITION), pos);
  tt_note_scope(cv, "panel=bars source=%s pos=%d tau=%.9g k=%d", lg ? "hook_logits" : "hook_probs", pos, (double)tau,
                c.nk);
  tt_note(cv, "bars_head");
  tt_draw_text(cv, r.x, r.y, line, type.heading, TT_FONT_BOLD, pal->fg, TT_ALIGN_LEFT);
  slider(p, r, r.y + u * 2, tau);
  bars(p, r, top_y, bottom, &c, tau, pos);
  if (asked > K) {  // asked for more than the view draws: said, not dropped silently
    snprintf(line, sizeof line, tt_str(st->lang, TT_S_BARS_MORE_FMT), asked - K);
    tt_note(cv, "bars_more k=%d asked=%d", K, asked);
    tt_draw_text(cv, r.x, r.y + r.h - type.line * 2, line, type.label, TT_FONT_SANS, pal->fg, TT_ALIGN_LEFT);
  }
  snprintf(line, sizeof line, tt_str(st->lang, TT_S_BARS_FOOT_FMT), pos, lg ? "hook_logits" : "hook_probs", c.nk, V);
  tt_note(cv, "bars_foot");
  tt_draw_text(cv, r.x, r.y + r.h - type.line, line, type.label, TT_FONT_SANS, pal->dim, TT_ALIGN_LEFT);
}
