// neighbours: a token's nearest rows of the embedding matrix W_E by cosine similarity,
// with the numbers (model/model.h tt_embedding_neighbours). The token is the prompt's at
// st->position (-1: the last), or the vocabulary id st->token. Rows that tokens share
// bit for bit (the default model's one row for every token it never saw in training) are
// said to be shared, not listed as neighbours.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render_int.h"

#define NB_BAR_ZERO 0.3  // where cos = 0 sits along a row's bar, as a share of its width

// The token shown and its label: st->token when set, else the prompt's token at st->position.
static int32_t query_of(const tt_paint *p, char *label, size_t len) {
  const tt_view_state *st = p->st;
  int T = tt_trace_n_tokens(p->tr);
  if (st->token >= 0) {
    char raw[160];
    const char *s = p->ex->token_text ? p->ex->token_text(p->ex->token_ctx, st->token, raw, sizeof raw) : NULL;
    if (s)
      tt_candidate_label(p->tr, -1, s, label, len);
    else
      snprintf(label, len, "id %d", (int)st->token);
    return st->token;
  }
  int pos = st->position < 0 || st->position >= T ? T - 1 : st->position;
  tt_token_label(p->tr, pos, label, len);
  return tt_trace_token_id(p->tr, pos);
}

// The neighbours of id, kept in the render context while the same W_E, id and k are asked for.
static const tt_neighbours *neighbours_of(tt_paint *p, int32_t id, int k, tt_error *err) {
  tt_render *rc = p->rc;
  const tt_render_extras *ex = p->ex;
  if (rc->neigh_wte == ex->wte && rc->neigh.id == id && rc->neigh_k == k) return &rc->neigh;
  rc->neigh_wte = NULL;
  if (tt_embedding_neighbours(ex->wte, ex->vocab, ex->width, id, k, &rc->neigh, err) != TT_OK) return NULL;
  rc->neigh_wte = ex->wte;
  rc->neigh_k = k;
  return &rc->neigh;
}

typedef struct {
  int x_rank, x_token, x_id, x_cos, w_cos, x_bar, w_bar;  // x_id, x_cos: right edges
} nb_columns;

// One entry: rank, token (or how many tokens share the row), id, cosine and its bar.
static void entry(tt_paint *p, const nb_columns *c, const tt_neighbour *nb, int rank, int y, int h, int px) {
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  char buf[200], fit[200], raw[160];
  snprintf(buf, sizeof buf, "%d", rank);
  tt_note(cv, "nb_rank rank=%d", rank);
  tt_draw_text(cv, c->x_rank, y, buf, px, TT_FONT_SANS, pal->dim, TT_ALIGN_RIGHT);
  if (nb->shared > 1) {
    snprintf(buf, sizeof buf, tt_str(p->st->lang, TT_S_NB_SHARED_FMT), nb->shared);
    int room = c->x_cos - c->w_cos - p->unit - c->x_token;  // over the id column: a shared row has no one id
    int spx = px;
    while (spx > px * 3 / 4 && tt_text_width(cv->fonts, buf, spx, TT_FONT_SANS) > room) spx--;
    tt_text_fit(cv->fonts, buf, spx, TT_FONT_SANS, room, fit, sizeof fit);
    tt_note(cv, "nb_shared rank=%d", rank);
    tt_draw_text(cv, c->x_token, y, fit, spx, TT_FONT_SANS, pal->warn, TT_ALIGN_LEFT);
  } else {
    const char *s = p->ex->token_text ? p->ex->token_text(p->ex->token_ctx, nb->id, raw, sizeof raw) : NULL;
    if (s)
      tt_candidate_label(p->tr, -1, s, buf, sizeof buf);
    else
      snprintf(buf, sizeof buf, "id %d", (int)nb->id);
    tt_text_fit(cv->fonts, buf, px, TT_FONT_MONO, c->x_id - c->x_token - p->unit * 4, fit, sizeof fit);
    tt_note(cv, "nb_token rank=%d", rank);
    tt_draw_text(cv, c->x_token, y, fit, px, TT_FONT_MONO, pal->fg, TT_ALIGN_LEFT);
    snprintf(buf, sizeof buf, "%d", (int)nb->id);
    tt_note(cv, "nb_id rank=%d", rank);
    tt_draw_text(cv, c->x_id, y, buf, px, TT_FONT_SANS, pal->dim, TT_ALIGN_RIGHT);
  }
  tt_fmt_num(nb->cosine, "%.3f", buf, sizeof buf);
  tt_note(cv, "nb_cos rank=%d", rank);
  tt_draw_text(cv, c->x_cos, y, buf, px, TT_FONT_BOLD, pal->fg, TT_ALIGN_RIGHT);
  // The bar: from cos = 0 to the cosine (−1 at the left end, 1 at the right).
  int zero = c->x_bar + (int)(c->w_bar * NB_BAR_ZERO);
  double cos = isfinite(nb->cosine) ? fmax(-1, fmin(1, nb->cosine)) : 0;
  int len = (int)(fabs(cos) * (cos < 0 ? c->w_bar * NB_BAR_ZERO : c->w_bar * (1 - NB_BAR_ZERO)));
  cv->fill(cv, cos < 0 ? zero - len : zero, y + h / 8, len > 1 ? len : 1, h / 2, cos < 0 ? pal->warn : pal->accent);
  cv->fill(cv, zero, y, 1, h * 3 / 4, pal->dim);
}

static void table(tt_paint *p, SDL_Rect r, const tt_neighbours *nb) {
  tt_canvas *cv = p->cv;
  const tt_type type = tt_type_for(p->unit);
  int u = p->unit, h = nb->n > 0 ? r.h / (nb->n + 1) : r.h;
  if (h > type.line * 3 / 2) h = type.line * 3 / 2;
  int px = h < type.line ? type.label : type.body;
  nb_columns c = {.x_rank = r.x + u * 2, .x_token = r.x + u * 3};
  c.x_bar = r.x + r.w * 60 / 100;
  c.w_bar = r.x + r.w - c.x_bar - u;
  c.x_cos = c.x_bar - u;
  c.w_cos = tt_text_width(cv->fonts,
                          "\xE2\x88\x92"
                          "0.000",
                          px, TT_FONT_BOLD);
  c.x_id = c.x_cos - c.w_cos - u * 2;
  tt_rgba dim = p->pal->dim;
  tt_draw_text(cv, c.x_token, r.y, tt_str(p->st->lang, TT_S_NB_COL_TOKEN), px, TT_FONT_BOLD, dim, TT_ALIGN_LEFT);
  tt_draw_text(cv, c.x_id, r.y, "id", px, TT_FONT_BOLD, dim, TT_ALIGN_RIGHT);
  tt_draw_text(cv, c.x_cos, r.y, tt_str(p->st->lang, TT_S_NB_COL_COSINE), px, TT_FONT_BOLD, dim, TT_ALIGN_RIGHT);
  for (int i = 0; i < nb->n; i++) entry(p, &c, &nb->near[i], i + 1, r.y + h * (i + 1), h, px);
}

void tt_paint_neighbours(tt_paint *p, SDL_Rect r) {
  tt_canvas *cv = p->cv;
  const tt_type type = tt_type_for(p->unit);
  int u = p->unit;
  tt_error err = {0};
  char label[200], line[600];
  int32_t id = query_of(p, label, sizeof label);
  int k = p->st->top_k < 1 ? 1 : p->st->top_k > TT_MAX_NEIGHBOURS ? TT_MAX_NEIGHBOURS : p->st->top_k;
  const tt_neighbours *nb = NULL;
  if (!p->ex || !p->ex->wte) {
    const char *own = tt_trace_meta(p->tr, "model");
    tt_fail(&err, TT_ERR_IO, "no model folder with the trace's shapes was found (the trace names %s)",
            own ? own : "none");
  } else {
    nb = neighbours_of(p, id, k, &err);
  }
  if (!nb) {
    snprintf(line, sizeof line, tt_str(p->st->lang, TT_S_NB_NO_MODEL_FMT), err.msg);
    tt_draw_para(cv, r.x + u, r.y + u, r.w - 2 * u, line, u, TT_FONT_SANS, p->pal->warn);
    return;
  }
  tt_note_scope(cv, "panel=neighbours id=%d", (int)id);
  snprintf(line, sizeof line, tt_str(p->st->lang, TT_S_NB_CAPTION_FMT), label, (int)id);
  tt_note(cv, "nb_caption");
  int y = r.y + tt_draw_para(cv, r.x, r.y, r.w, line, type.body, TT_FONT_BOLD, p->pal->fg);
  y += type.line - tt_para_line(type.body);  // the caption's gap as on one line
  tt_note(cv, "fixed");
  y += tt_draw_para(cv, r.x, y, r.w, tt_str(p->st->lang, TT_S_NB_RULE), type.label, TT_FONT_SANS, p->pal->dim);
  y += type.line * 3 / 2 - tt_para_line(type.label);
  if (nb->shared > 1) {
    snprintf(line, sizeof line, tt_str(p->st->lang, TT_S_NB_SELF_SHARED_FMT), label, nb->shared - 1);
    tt_note(cv, "nb_self_shared");
    y += tt_draw_para(cv, r.x, y, r.w, line, type.label, TT_FONT_SANS, p->pal->warn) + u / 2;
  }
  table(p, (SDL_Rect){r.x, y, r.w, r.y + r.h - y}, nb);
  tt_note_scope(cv, NULL);
}
