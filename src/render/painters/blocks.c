// blocks: GPT-2's and Llama's pass side by side. Both step lists have the same length
// (pipeline/steps.c), so step i of one sits beside step i of the other: each with its title
// and its shapes, the steps that differ in colour, the block's steps framed as one block
// repeated L times. One side is the trace's own model; the other is the classroom model
// of the other architecture (assets/models/tiny-classroom, assets/models/tiny-llama), its
// config.json read through the model module and its shapes computed for the trace's T.
#include <stdlib.h>
#include <string.h>

#include "render_int.h"

typedef struct {
  const tt_trace *tr;  // the trace's own, or `own` (a trace holding only config and T tokens)
  tt_trace *own;
  tt_config cfg;
  bool shapes;      // false: no model of this architecture (titles only)
  char model[128];  // the folder's name
  bool this_trace;
} block_side;

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

// The side's heading: architecture and model, its sizes (or why there are none).
static void side_heading(tt_paint *p, const block_side *s, const char *tag, SDL_Rect r) {
  tt_canvas *cv = p->cv;
  const tt_type type = tt_type_for(p->unit);
  tt_lang lang = p->st->lang;
  char line[300];
  snprintf(line, sizeof line, "%s \xC2\xB7 %s (%s)", s->cfg.arch == TT_ARCH_LLAMA ? "Llama" : "GPT-2", s->model,
           tt_str(lang, s->this_trace ? TT_S_BLOCKS_THIS : TT_S_BLOCKS_CLASSROOM));
  tt_note(cv, "name");
  tt_draw_text(cv, r.x, r.y, line, type.large, TT_FONT_BOLD, p->pal->fg, TT_ALIGN_LEFT);
  if (!s->shapes) {
    tt_draw_para(cv, r.x, r.y + type.line, r.w, tt_str(lang, TT_S_BLOCKS_MISSING), type.label, TT_FONT_SANS,
                 p->pal->warn);
    return;
  }
  const tt_config *c = &s->cfg;
  snprintf(line, sizeof line, tt_str(lang, TT_S_BLOCKS_CFG_FMT), c->n_layer, c->n_embd, c->n_head,
           tt_config_kv_heads(c), tt_config_head_dim(c), c->n_inner, c->vocab_size, c->n_positions);
  int px = type.label;
  while (px > type.small * 3 / 4 && tt_text_width(cv->fonts, line, px, TT_FONT_MONO) > r.w) px--;
  tt_note(cv, "blocks_cfg side=%s model=%s", tag, s->this_trace ? "-" : s->model);
  tt_draw_text(cv, r.x, r.y + type.line, line, px, TT_FONT_MONO, p->pal->fg, TT_ALIGN_LEFT);
  snprintf(line, sizeof line, tt_str(lang, TT_S_BLOCKS_EACH_FMT), s->cfg.n_layer);
  tt_note(cv, "blocks_each side=%s", tag);
  tt_draw_text(cv, r.x, r.y + type.line * 2, line, type.label, TT_FONT_SANS, p->pal->dim, TT_ALIGN_LEFT);
}

// Step i of one side: its title (in colour where the other side's step differs) and shapes.
static void step_row(tt_paint *p, const block_side *s, const block_side *other, const char *tag, int i, SDL_Rect r) {
  tt_canvas *cv = p->cv;
  const tt_type type = tt_type_for(p->unit);
  const tt_step *st = tt_step_get(s->tr, i);
  bool changed = true;  // no step of the other list has this title
  for (int j = 0; j < tt_step_count(); j++)
    changed &= strcmp(tt_step_title(s->tr, i, p->st->lang), tt_step_title(other->tr, j, p->st->lang)) != 0;
  if (st && st->in_block) cv->fill(cv, r.x, r.y, r.w, r.h - 1, p->pal->panel);
  char title[200], shapes[400], fit[400];
  tt_text_fit(cv->fonts, tt_step_title(s->tr, i, p->st->lang), type.cell, TT_FONT_BOLD, r.w * 36 / 100, title,
              sizeof title);
  tt_note(cv, "name");
  tt_draw_text(cv, r.x + p->unit / 3, r.y + (r.h - type.cell) / 2, title, type.cell, TT_FONT_BOLD,
               changed ? p->pal->accent : p->pal->fg, TT_ALIGN_LEFT);
  if (!s->shapes || !st) return;
  tt_step_shapes(s->tr, i, p->st->lang, shapes, sizeof shapes);
  int px = type.small, room = r.w * 62 / 100;
  if (tt_text_width(cv->fonts, shapes, px, TT_FONT_MONO) > room) px = px * 85 / 100;
  tt_text_fit(cv->fonts, shapes, px, TT_FONT_MONO, room, fit, sizeof fit);
  tt_note(cv, "blocks_shape side=%s i=%d id=%s", tag, i, st->id);
  tt_draw_text(cv, r.x + r.w * 38 / 100, r.y + (r.h - px) / 2, fit, px, TT_FONT_MONO, p->pal->dim, TT_ALIGN_LEFT);
}

// One side's column: heading, the steps, the frame around the block's steps.
static void column(tt_paint *p, const block_side *s, const block_side *other, const char *tag, SDL_Rect r, int top) {
  const tt_type type = tt_type_for(p->unit);
  side_heading(p, s, tag, r);
  int n = tt_step_count(), rh = (r.y + r.h - top) / n, first = -1, last = -1;
  if (rh > type.line) rh = type.line;
  for (int i = 0; i < n; i++) {
    step_row(p, s, other, tag, i, (SDL_Rect){r.x, top + rh * i, r.w, rh});
    const tt_step *st = tt_step_get(s->tr, i);
    if (st && st->in_block) last = i, first = first < 0 ? i : first;
  }
  if (first < 0) return;
  tt_draw_frame(p->cv, r.x - 3, top + rh * first - 3, r.w + 6, rh * (last - first + 1) + 6, p->pal->dim, 2);
}

void tt_paint_blocks(tt_paint *p, SDL_Rect r) {
  tt_canvas *cv = p->cv;
  const tt_type type = tt_type_for(p->unit);
  block_side sides[2];  // GPT-2, Llama
  memset(sides, 0, sizeof sides);
  tt_config cfg;
  int T = tt_trace_n_tokens(p->tr);
  if (!tt_trace_config(p->tr, &cfg)) {
    tt_draw_para(cv, r.x, r.y, r.w, tt_str(p->st->lang, TT_S_NOT_RECORDED), p->unit, TT_FONT_SANS, p->pal->warn);
    return;
  }
  int mine = cfg.arch == TT_ARCH_LLAMA ? 1 : 0;
  sides[mine] = (block_side){.tr = p->tr, .cfg = cfg, .shapes = true, .this_trace = true};
  snprintf(sides[mine].model, sizeof sides[mine].model, "%s", folder_name(tt_trace_meta(p->tr, "model")));
  other_side(&sides[1 - mine], mine ? TT_ARCH_GPT2 : TT_ARCH_LLAMA, T);
  if (sides[1 - mine].tr) {
    tt_note_scope(cv, "panel=blocks");
    tt_note(cv, "fixed");
    tt_draw_text(cv, r.x, r.y, tt_str(p->st->lang, TT_S_BLOCKS_TITLE), type.heading, TT_FONT_BOLD, p->pal->fg,
                 TT_ALIGN_LEFT);
    char line[200];
    snprintf(line, sizeof line, tt_str(p->st->lang, TT_S_BLOCKS_SHAPES_FMT), T);
    tt_note(cv, "blocks_T");
    tt_draw_text(cv, r.x, r.y + type.line, line, type.label, TT_FONT_SANS, p->pal->dim, TT_ALIGN_LEFT);
    int w = (r.w - p->unit * 2) / 2, top = r.y + type.line * 6;
    for (int k = 0; k < 2; k++)
      column(p, &sides[k], &sides[1 - k], k ? "llama" : "gpt2",
             (SDL_Rect){r.x + k * (w + p->unit * 2), r.y + type.line * 2 + type.line / 2, w, r.h - type.line * 3}, top);
    tt_note_scope(cv, NULL);
  }
  tt_trace_destroy(sides[1 - mine].own);
}
