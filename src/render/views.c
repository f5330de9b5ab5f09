// views: the view state, view names, and the dispatcher that draws the chosen view with
// its title, then the hover highlight and tooltip on top.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render_int.h"

void tt_view_goto_step(tt_view_state *st, const tt_trace *tr, int i) {
  if (i < 0) i = 0;
  if (i >= tt_step_count_for(tr)) i = tt_step_count_for(tr) - 1;
  st->step = i;
  tt_step_hook(tr, i, st->layer, st->hook, sizeof st->hook);
  st->view = tt_step_get(tr, i)->view;
  st->zoom = 1;
  st->pan_row = st->pan_col = 0;
  st->pin_row = st->pin_col = -1;
  tt_view_follow_grad(st, tr);
}

bool tt_trace_has_grad(const tt_trace *tr) {
  for (size_t i = 0; tr && i < tt_trace_count(tr); i++)
    if (strncmp(tt_trace_get(tr, i)->name, "grad.", 5) == 0) return true;
  return false;
}

bool tt_view_follow_grad(tt_view_state *st, const tt_trace *tr) {
  bool shown = strncmp(st->hook, "grad.", 5) == 0;
  if (!st->grad) {
    if (shown) memmove(st->hook, st->hook + 5, strlen(st->hook + 5) + 1);
    return false;
  }
  if (shown) return true;
  char g[sizeof st->hook];
  if (snprintf(g, sizeof g, "grad.%s", st->hook) >= (int)sizeof g || !tt_trace_find(tr, g)) return false;
  snprintf(st->hook, sizeof st->hook, "%s", g);
  if (st->view != TT_VIEW_TABLE) st->view = TT_VIEW_HEATMAP;  // layernorm, qkv, ... draw values
  return true;
}

void tt_view_state_init(tt_view_state *st) {
  memset(st, 0, sizeof *st);
  snprintf(st->hook, sizeof st->hook, "tokens");
  st->step = -1;
  st->head = 0;
  st->view = TT_VIEW_AUTO;
  st->zoom = 1;
  st->font_scale = 1;
  st->mouse_x = st->mouse_y = -1;
  st->pin_row = st->pin_col = -1;
  st->hover_row = st->hover_col = -1;
  st->temperature = 1;
  st->position = -1;
  st->top_k = 10;
  st->token = -1;
  st->pair = -1;
}

// The view a hook opens with when none is chosen.
static tt_view_kind auto_view(const tt_trace *tr, const char *hook) {
  int layer;
  int s = tt_step_find(tr, hook, &layer);
  if (s >= 0) {
    tt_view_kind v = tt_step_get(tr, s)->view;
    if (v == TT_VIEW_QKV) return TT_VIEW_HEATMAP;  // a single Q/K/V tensor shows as itself
    return v;
  }
  if (strcmp(hook, "tokens") == 0) return TT_VIEW_TOKENS;
  return TT_VIEW_HEATMAP;
}

static void message(tt_paint *p, SDL_Rect r, const char *msg) {
  tt_draw_para(p->cv, r.x + p->unit, r.y + p->unit, r.w - 2 * p->unit, msg, p->unit, TT_FONT_SANS, p->pal->warn);
}

bool tt_hover_pick(const tt_paint *p, tt_pick *pk, int *mx, int *my) {
  const tt_view_state *st = p->st;
  *mx = st->mouse_x, *my = st->mouse_y;
  if (st->hover_row >= 0 && !tt_layout_point_at(p->lay, st->head, st->hover_row, st->hover_col, mx, my)) return false;
  return *mx >= 0 && *my >= 0 && tt_render_pick(p->lay, p->tr, *mx, *my, pk);
}

void tt_draw_cell_tooltip(tt_paint *p, SDL_Rect area, int mx, int my, const tt_tip_line *lines, int n,
                          const tt_tensor *t, int head) {
  char scope[sizeof p->cv->scope];
  memcpy(scope, p->cv->scope, sizeof scope);
  tt_note_scope(p->cv, "panel=hover hook=%s head=%d", t->name, t->ndim == 3 ? head : -1);
  tt_draw_tooltip(p->cv, p->pal, area, mx, my, p->unit, lines, n);
  memcpy(p->cv->scope, scope, sizeof scope);
  p->rc->hover_drawn = true;
}

void tt_cell_index_text(const tt_tensor *t, int head, int row, int col, char *buf, size_t len) {
  if (t->ndim == 3)
    snprintf(buf, len, "%s[%d, %d, %d]", t->name, head, row, col);
  else if (t->ndim == 2)
    snprintf(buf, len, "%s[%d, %d]", t->name, row, col);
  else
    snprintf(buf, len, "%s[%d]", t->name, row);
}

// Outline of the hovered cell, and the tooltip with its value and labels.
static void hover(tt_paint *p, SDL_Rect area) {
  const tt_view_state *st = p->st;
  tt_pick pk;
  int mx, my;
  if (!tt_hover_pick(p, &pk, &mx, &my)) return;
  const tt_panel *pn = &p->lay->panels[pk.panel];
  tt_draw_cell_mark(p->cv, pn, pk.row, pk.col, p->pal->highlight);

  // Tooltip: value, row and column labels, the tensor and index.
  char l0[200], l1[200], l2[200], l3[200], num[32], lab[160];
  int u = p->unit;
  const tt_type type = tt_type_for(u);
  tt_axis_label(p->tr, p->ex, pn->row_axis, pk.row, lab, sizeof lab);
  snprintf(l1, sizeof l1, "%s %d: %s", tt_str(st->lang, TT_S_ROW), pk.row, lab);
  tt_axis_label(p->tr, p->ex, pn->col_axis, pk.col, lab, sizeof lab);
  snprintf(l2, sizeof l2, "%s %d: %s", tt_str(st->lang, TT_S_COLUMN), pk.col, lab);
  snprintf(l0, sizeof l0, "%s", tt_fmt_value(pk.value, num, sizeof num));
  if (isfinite(pk.value)) tt_fmt_num(pk.value, "%.6g", l0, sizeof l0);
  tt_cell_index_text(pk.t, pk.head, pk.row, pk.col, l3, sizeof l3);
  // For readers of SVG: what each line is (tests/numbers checks them against the trace).
  char n0[48], n1[48], n2[48], n3[48];
  snprintf(n0, sizeof n0, "hover_value r=%d c=%d", pk.row, pk.col);
  snprintf(n1, sizeof n1, "hover_label axis=%c i=%d", pn->row_axis, pk.row);
  snprintf(n2, sizeof n2, "hover_label axis=%c i=%d", pn->col_axis, pk.col);
  snprintf(n3, sizeof n3, "hover_index r=%d c=%d", pk.row, pk.col);
  const tt_tip_line lines[4] = {{l0, type.title, TT_FONT_BOLD, p->pal->fg, n0},
                                {l1, u, TT_FONT_SANS, p->pal->dim, n1},
                                {l2, u, TT_FONT_SANS, p->pal->dim, n2},
                                {l3, type.small, TT_FONT_MONO, p->pal->dim, n3}};
  tt_draw_cell_tooltip(p, area, mx, my, lines, 4, pk.t, pk.head);
}

// The panel that shows the pinned cell of t: the one whose visible cells hold it (the top
// columns of a vocabulary and the bars are panels of one cell each), else the first when it
// is t's and not such a cell; NULL when none is.
static const tt_panel *pin_panel(const tt_paint *p, const tt_tensor *t) {
  const tt_view_state *st = p->st;
  const tt_layout *lay = p->lay;
  for (int i = 0; i < lay->n_panels; i++) {
    const tt_panel *pn = &lay->panels[i];
    float r = (float)st->pin_row - pn->row0, c = (float)st->pin_col - pn->col0;
    if (pn->t == t && r >= 0 && c >= 0 && r * pn->cell_h < (float)pn->rect.h && c * pn->cell_w < (float)pn->rect.w)
      return pn;
  }
  bool first = lay->n_panels > 0 && lay->panels[0].t == t && lay->panels[0].col_axis != 'V';  // not one top cell
  return first ? &lay->panels[0] : NULL;
}

static void pinned(tt_paint *p, const tt_tensor *t) {
  const tt_view_state *st = p->st;
  const tt_panel *pn = pin_panel(p, t);
  if (st->pin_row < 0 || !pn) return;
  int x = pn->rect.x + (int)floorf(((float)st->pin_col - pn->col0) * pn->cell_w);
  int y = pn->rect.y + (int)floorf(((float)st->pin_row - pn->row0) * pn->cell_h);
  int w = (int)ceilf(pn->cell_w), h = (int)ceilf(pn->cell_h);
  p->cv->clip(p->cv, &pn->rect);
  tt_draw_frame(p->cv, x - 2, y - 2, w + 4, h + 4, p->pal->accent, 3);
  p->cv->clip(p->cv, NULL);
}

static bool pin_has_inspector(const tt_paint *p) {
  return p->st->pin_row >= 0 && p->st->pin_col >= 0;
}

// The view's heading: title (tensor, layer, head), subtitle (step, prompt, shape), the shape alone.
typedef struct {
  char title[256], sub[512], shape[96];
} view_heading;

static void heading_of(const tt_paint *p, tt_view_kind kind, const char *hook, const tt_tensor *t, int layer,
                       view_heading *h) {
  const tt_view_state *st = p->st;
  const tt_trace *tr = p->tr;
  h->shape[0] = 0;
  // The overview shows the hook of every block: its layer-free name, every layer × head.
  bool overview = kind == TT_VIEW_OVERVIEW && tt_hook_block(hook) >= 0;
  int n = snprintf(h->title, sizeof h->title, "%s", overview ? tt_hook_suffix(hook) : hook);
  bool headed = t && t->ndim == 3 && (kind == TT_VIEW_HEATMAP || kind == TT_VIEW_TABLE);
  if (overview)
    n += snprintf(h->title + n, sizeof h->title - (size_t)n, "  \xC2\xB7  %s", tt_str(st->lang, TT_S_ALL_LAYERS_HEADS));
  else if (tt_hook_block(hook) >= 0 && n < (int)sizeof h->title)
    n += snprintf(h->title + n, sizeof h->title - (size_t)n, "  \xC2\xB7  %s %d", tt_str(st->lang, TT_S_LAYER), layer);
  if (kind == TT_VIEW_GRID && t && t->ndim == 3 && n < (int)sizeof h->title)
    n += snprintf(h->title + n, sizeof h->title - (size_t)n, "  \xC2\xB7  %s", tt_str(st->lang, TT_S_ALL_HEADS));
  if (headed && n < (int)sizeof h->title)
    snprintf(h->title + n, sizeof h->title - (size_t)n, "  \xC2\xB7  %s %d", tt_str(st->lang, TT_S_HEAD),
             st->head < 0              ? 0
             : st->head >= t->shape[0] ? (int)t->shape[0] - 1
                                       : st->head);
  if (t) tt_shape_str(t->shape, t->ndim, h->shape, sizeof h->shape);
  int step = tt_step_find(tr, hook, NULL);
  const char *prompt = tt_trace_meta(tr, "prompt");
  snprintf(h->sub, sizeof h->sub, "%s%s\xE2\x80\x9C%s\xE2\x80\x9D   %s",
           step >= 0 ? tt_step_title(tr, step, st->lang) : "", step >= 0 ? "   " : "", prompt ? prompt : "", h->shape);
  if (st->title && st->title[0]) {  // the writer's title; the tensor's name moves to the subtitle
    char sub[sizeof h->sub];
    snprintf(sub, sizeof sub, "%.200s   %.300s", h->title, h->sub);
    snprintf(h->sub, sizeof h->sub, "%s", sub);
    snprintf(h->title, sizeof h->title, "%s", st->title);
  }
}

// Draws the heading and returns the rectangle left below it for the view.
static SDL_Rect paint_heading(tt_paint *p, SDL_Rect r, const view_heading *h) {
  int th = p->st->frame ? 0 : tt_paint_title(p, r, h->title, h->sub);
  SDL_Rect body = {r.x, r.y + th, r.w, r.h - th};
  if (p->st->frame) {
    // In the window the header already names the step; keep one line naming the tensor.
    char line[400], fit[400];
    snprintf(line, sizeof line, "%s   %s", h->title, h->shape);
    tt_note(p->cv, "title");
    tt_draw_text(p->cv, r.x, r.y, tt_text_fit(p->cv->fonts, line, p->unit, TT_FONT_MONO, r.w, fit, sizeof fit), p->unit,
                 TT_FONT_MONO, p->pal->dim, TT_ALIGN_LEFT);
    body.y += p->unit * 3 / 2;
    body.h -= p->unit * 3 / 2;
  }
  return body;
}

// The layer norm view of a hook: the norm's name is the hook's up to ".hook_".
static void paint_layernorm_of(tt_paint *p, SDL_Rect body, const char *hook) {
  char prefix[96];
  snprintf(prefix, sizeof prefix, "%s", hook);
  char *dot = strstr(prefix, ".hook_");
  if (dot) *dot = 0;
  tt_paint_layernorm(p, body, prefix);
}

// Draws the chosen kind of view into body; t is the hook's tensor (present where the kind needs one).
static void paint_kind(tt_paint *p, SDL_Rect body, tt_view_kind kind, const tt_tensor *t, int layer) {
  const tt_view_state *st = p->st;
  switch (kind) {
  case TT_VIEW_HEATMAP:
  case TT_VIEW_TABLE:
  case TT_VIEW_AUTO:
    tt_paint_heatmap(p, body, t, st->head, kind == TT_VIEW_TABLE);
    break;
  case TT_VIEW_GRID:
    if (t->ndim == 3)
      tt_paint_grid(p, body, t);
    else
      tt_paint_heatmap(p, body, t, st->head, false);
    break;
  case TT_VIEW_OVERVIEW:
    tt_paint_overview(p, body, tt_hook_suffix(st->hook));
    break;
  case TT_VIEW_TOKENS:
    tt_paint_tokens(p, body);
    break;
  case TT_VIEW_BARS:
    tt_paint_bars(p, body);
    break;
  case TT_VIEW_LAYERNORM:
    paint_layernorm_of(p, body, st->hook);
    break;
  case TT_VIEW_GELU:
    tt_paint_gelu(p, body, layer);
    break;
  case TT_VIEW_EMBED:
    tt_paint_embed(p, body);
    break;
  case TT_VIEW_POSITIONS:  // x + p = h0, or a residual step's h + o = h'
    if (tt_paint_residual(p, body, st->hook)) break;
    if (t &&
        (!strcmp(tt_hook_suffix(st->hook), "hook_resid_mid") || !strcmp(tt_hook_suffix(st->hook), "hook_resid_post")))
      tt_paint_heatmap(p, body, t, st->head, false);  // not a plain sum in this config
    else
      tt_paint_positions(p, body);
    break;
  case TT_VIEW_QKV:
    tt_paint_qkv(p, body, layer, st->head);
    break;
  case TT_VIEW_COLLAPSE:
    tt_paint_collapse(p, body, layer);
    break;
  case TT_VIEW_GRADNORM:
    tt_paint_gradnorm(p, body);
    break;
  case TT_VIEW_TIMELINE:
    tt_paint_timeline(p, body);
    break;
  case TT_VIEW_KVCACHE:
    tt_paint_kvcache(p, body, layer, st->head);
    break;
  case TT_VIEW_LENS:
    tt_paint_lens(p, body);
    break;
  case TT_VIEW_COST:
    tt_paint_cost(p, body);
    break;
  case TT_VIEW_ROPE:
    tt_paint_rope(p, body, layer, st->head);
    break;
  case TT_VIEW_GQA:
    tt_paint_gqa(p, body, st->head);
    break;
  case TT_VIEW_SWIGLU:
    tt_paint_swiglu(p, body, layer);
    break;
  case TT_VIEW_BLOCKS:
    tt_paint_blocks(p, body);
    break;
  case TT_VIEW_NEIGHBOURS:
    tt_paint_neighbours(p, body);
    break;
  case TT_VIEW_GATES:
    tt_paint_gates(p, body, layer);
    break;
  case TT_VIEW_COUNT:
    break;
  }
}

// The step of a generation trace shown with view kind (after the forward pass's steps), or -1.
static int generation_step(const tt_trace *tr, tt_view_kind kind) {
  for (int i = tt_step_count(); i < tt_step_count_for(tr); i++)
    if (tt_step_get(tr, i)->view == kind) return i;
  return -1;
}

void tt_paint_view(tt_paint *p, SDL_Rect r) {
  const tt_view_state *st = p->st;
  p->lay->view_rect = r;
  tt_view_kind kind = st->view == TT_VIEW_AUTO ? auto_view(p->tr, st->hook) : st->view;
  const tt_tensor *t = tt_trace_find(p->tr, st->hook);
  int layer = tt_hook_block(st->hook);
  if (layer < 0) layer = st->layer;

  // The FFN drawn without its activation is the layer's FFN, whatever step was asked for:
  // the heading names its output.
  char ffn_out[64];
  snprintf(ffn_out, sizeof ffn_out, "blocks.%d.hook_mlp_out", layer);
  const char *named = kind == TT_VIEW_COLLAPSE ? ffn_out : st->hook;
  view_heading h;
  heading_of(p, kind, named, named == st->hook ? t : tt_trace_find(p->tr, named), layer, &h);
  if (kind == TT_VIEW_LENS || kind == TT_VIEW_COST) {  // views of the whole pass, not of the step's hook
    const char *prompt = tt_trace_meta(p->tr, "prompt");
    snprintf(h.title, sizeof h.title, "%s", tt_str(st->lang, kind == TT_VIEW_LENS ? TT_S_LENS_TITLE : TT_S_COST_TITLE));
    snprintf(h.sub, sizeof h.sub, "\xE2\x80\x9C%s\xE2\x80\x9D", prompt ? prompt : "");
    h.shape[0] = 0;
  }
  int gen = generation_step(p->tr, kind);
  if (kind == TT_VIEW_TIMELINE && gen >= 0) {  // the generation's own step, not the hook it starts from
    const char *prompt = tt_trace_meta(p->tr, "prompt");
    snprintf(h.title, sizeof h.title, "%s", tt_step_title(p->tr, gen, st->lang));
    snprintf(h.sub, sizeof h.sub, "\xE2\x80\x9C%s\xE2\x80\x9D", prompt ? prompt : "");
    h.shape[0] = 0;
  }
  if (kind == TT_VIEW_NEIGHBOURS || kind == TT_VIEW_GATES) {  // views of one token, not of the step's tensor
    const char *prompt = tt_trace_meta(p->tr, "prompt");
    if (kind == TT_VIEW_NEIGHBOURS)
      snprintf(h.title, sizeof h.title, "%s", tt_str(st->lang, TT_S_NB_TITLE));
    else
      snprintf(h.title, sizeof h.title, tt_str(st->lang, TT_S_GATES_TITLE_FMT), layer);
    snprintf(h.sub, sizeof h.sub, "\xE2\x80\x9C%s\xE2\x80\x9D", prompt ? prompt : "");
    h.shape[0] = 0;
  }
  SDL_Rect body = paint_heading(p, r, &h);
  // Exports put the inspector beside the view; the window lays it over the side away from
  // the pinned cell, so the view does not move under the pointer when it opens.
  bool matrix = kind == TT_VIEW_HEATMAP || kind == TT_VIEW_TABLE;
  SDL_Rect insp = {0, 0, 0, 0};
  if (pin_has_inspector(p) && matrix && !st->frame) {
    insp = (SDL_Rect){body.x + body.w * 58 / 100, body.y, body.w * 42 / 100, body.h};
    body.w = body.w * 58 / 100 - p->unit;
  }

  bool needs_tensor = kind == TT_VIEW_HEATMAP || kind == TT_VIEW_TABLE || kind == TT_VIEW_GRID;
  if (needs_tensor && !t) {
    message(p, body, tt_str(st->lang, TT_S_NOT_RECORDED));
    return;
  }
  paint_kind(p, body, kind, t, layer);
  const tt_panel *pn = pin_has_inspector(p) && st->frame ? pin_panel(p, t) : NULL;
  if (pn) {
    float cx = (float)pn->rect.x + ((float)st->pin_col - pn->col0 + 0.5f) * pn->cell_w;
    int w = body.w * 42 / 100;
    insp = (SDL_Rect){cx > (float)(body.x + body.w / 2) ? body.x : body.x + body.w - w, body.y, w, body.h};
  }
  if (insp.w > 0) {
    pinned(p, t);
    tt_paint_inspector(p, insp);
  }
  hover(p, r);
}
