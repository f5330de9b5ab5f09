// lens: the logit lens as a grid: one row per stream (block 0's input, then each block's
// output; the last row is the model's own prediction), one column per position; each cell
// is coloured by the probability of its most probable next token and names it (lens/lens.h).
#include <stdio.h>
#include <string.h>

#include "render_int.h"

static void note(tt_paint *p, SDL_Rect r, const char *msg) {
  tt_draw_para(p->cv, r.x + p->unit, r.y + p->unit, r.w - 2 * p->unit, msg, p->unit, TT_FONT_SANS, p->pal->warn);
}

// The lens of the shown trace (top 1), computed once and kept in the render context; NULL
// with err filled when there is no model or it is not the trace's.
static const tt_lens *lens_of(tt_paint *p, tt_error *err) {
  tt_render *rc = p->rc;
  const tt_tensor *first = tt_trace_find(p->tr, "blocks.0.hook_resid_pre");
  if (first && rc->lens_of == first->data) return &rc->lens;
  tt_lens_free(&rc->lens);
  rc->lens_of = NULL;
  if (!p->ex || !p->ex->model) {
    const char *own = tt_trace_meta(p->tr, "model");
    tt_fail(err, TT_ERR_IO, "no model folder with the trace's shapes was found (the trace names %s)",
            own ? own : "none");
    return NULL;
  }
  if (tt_lens_compute(p->ex->model, p->tr, 1, &rc->lens, err) != TT_OK) return NULL;
  rc->lens_of = first ? first->data : NULL;
  return &rc->lens;
}

// The row label of stream r: "embedding", "after block L".
static void row_label(const tt_paint *p, int r, char *buf, size_t len) {
  if (r == 0)
    snprintf(buf, len, "%s", tt_str(p->st->lang, TT_S_LENS_EMBED));
  else
    snprintf(buf, len, tt_str(p->st->lang, TT_S_LENS_BLOCK_FMT), r - 1);
}

// One cell: the fill by probability, the token and the probability in percent.
static void cell(tt_paint *p, const tt_lens *l, int r, int t, SDL_Rect c, int px) {
  tt_canvas *cv = p->cv;
  size_t i = tt_lens_at(l, r, t, 0);
  float prob = l->probs[i];
  cv->fill(cv, c.x + 1, c.y + 1, c.w - 2, c.h - 2, tt_cmap_viridis(prob));
  tt_rgba ink = prob > 0.55f ? (tt_rgba){20, 20, 20, 255} : (tt_rgba){250, 250, 250, 255};
  char raw[160], shown[160], fit[160], num[32];
  const char *s = p->ex->token_text ? p->ex->token_text(p->ex->token_ctx, l->ids[i], raw, sizeof raw) : NULL;
  if (s)  // decoded after the prompt up to position t: a piece of a character with its character
    tt_candidate_label(p->tr, t, s, shown, sizeof shown);
  else
    snprintf(shown, sizeof shown, "id %d", (int)l->ids[i]);
  tt_text_fit(cv->fonts, shown, px, TT_FONT_MONO, c.w - px / 2, fit, sizeof fit);
  tt_note(cv, "lens_token row=%d pos=%d", r, t);
  tt_draw_text(cv, c.x + c.w / 2, c.y + c.h / 2 - px * 5 / 4, fit, px, TT_FONT_MONO, ink, TT_ALIGN_CENTER);
  tt_fmt_num(prob * 100.0, prob < 0.001f ? "%.3f%%" : "%.1f%%", num, sizeof num);  // as the bars view
  tt_note(cv, "lens_p row=%d pos=%d", r, t);
  tt_draw_text(cv, c.x + c.w / 2, c.y + c.h / 2 + px / 8, num, px, TT_FONT_BOLD, ink, TT_ALIGN_CENTER);
}

// The grid below the caption: row labels left, position labels on top, the last row framed.
static void grid(tt_paint *p, SDL_Rect r, const tt_lens *l) {
  tt_canvas *cv = p->cv;
  const tt_type type = tt_type_for(p->unit);
  int u = p->unit, lab_w = u * 9, head_h = type.line * 2;
  int cw = (r.w - lab_w) / l->T, ch = (r.h - head_h) / l->n_rows;
  if (ch > u * 4) ch = u * 4;
  int px = ch < u * 3 ? type.label : type.body;
  if (px > ch * 10 / 25) px = ch * 10 / 25;  // two lines a cell: token over probability, apart
  char buf[160], fit[160];
  for (int t = 0; t < l->T; t++) {
    tt_axis_label(p->tr, p->ex, 'T', t, buf, sizeof buf);
    tt_text_fit(cv->fonts, buf, type.body, TT_FONT_MONO, cw - u / 2, fit, sizeof fit);
    tt_note(cv, "label axis=T i=%d", t);
    tt_draw_text(cv, r.x + lab_w + t * cw + cw / 2, r.y + type.line / 2, fit, type.body, TT_FONT_MONO, p->pal->fg,
                 TT_ALIGN_CENTER);
  }
  for (int row = 0; row < l->n_rows; row++) {
    int y = r.y + head_h + row * ch;
    row_label(p, row, buf, sizeof buf);
    tt_note(cv, "lens_row row=%d", row);
    tt_draw_text(cv, r.x + lab_w - u / 2, y + ch / 2 - type.label * 5 / 8, buf, type.label, TT_FONT_SANS, p->pal->fg,
                 TT_ALIGN_RIGHT);
    for (int t = 0; t < l->T; t++) cell(p, l, row, t, (SDL_Rect){r.x + lab_w + t * cw, y, cw, ch}, px);
  }
  int last_y = r.y + head_h + (l->n_rows - 1) * ch;
  tt_draw_frame(cv, r.x + lab_w, last_y, cw * l->T, ch, p->pal->accent, 2);
  tt_draw_text(cv, r.x + lab_w, last_y + ch + u / 2, tt_str(p->st->lang, TT_S_LENS_FINAL), type.label, TT_FONT_SANS,
               p->pal->dim, TT_ALIGN_LEFT);
}

void tt_paint_lens(tt_paint *p, SDL_Rect r) {
  tt_error err = {0};
  const tt_lens *l = lens_of(p, &err);
  char line[600];
  if (!l) {
    snprintf(line, sizeof line, tt_str(p->st->lang, TT_S_LENS_NO_MODEL_FMT), err.msg);
    note(p, r, line);
    return;
  }
  const tt_type type = tt_type_for(p->unit);
  tt_note_scope(p->cv, "panel=lens");
  int cap = tt_draw_para(p->cv, r.x, r.y, r.w, tt_str(p->st->lang, TT_S_LENS_CAPTION), type.label, TT_FONT_SANS,
                         p->pal->dim) -
            tt_para_line(type.label);  // beyond one line, where it wraps
  grid(p, (SDL_Rect){r.x, r.y + type.line + cap, r.w, r.h - type.line * 3 - cap}, l);
  tt_note_scope(p->cv, NULL);
}
