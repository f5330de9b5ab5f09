// input: keys and the mouse change the view state. Every change goes through here, the
// synthetic events of a test script included.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ui_int.h"

static void goto_step(tt_ui *ui, int step) {
  int layer = ui->vs.layer, head = ui->vs.head;
  tt_view_goto_step(&ui->vs, ui->tr, step);
  ui->vs.layer = layer;
  ui->vs.head = head;
  ui->dirty = true;
}

void tt_ui_step(tt_ui *ui, int delta) {
  int n = tt_step_count_for(ui->tr), s = ui->vs.step < 0 ? 0 : ui->vs.step + delta;
  // Walking off the end of a block continues in the next (or previous) block (the forward
  // pass's steps only: the generation's come after them).
  if (ui->vs.step >= 0 && s >= 0 && s < tt_step_count() && ui->vs.step < tt_step_count()) {
    const tt_step *cur = tt_step_get(ui->tr, ui->vs.step), *next = tt_step_get(ui->tr, s);
    if (cur->in_block && !next->in_block) {
      if (delta > 0 && ui->vs.layer + 1 < ui->n_layers) {
        ui->vs.layer++;
        while (s - 1 >= 0 && tt_step_get(ui->tr, s - 1)->in_block) s--;
      } else if (delta < 0 && ui->vs.layer > 0) {
        ui->vs.layer--;
        while (s + 1 < n && tt_step_get(ui->tr, s + 1)->in_block) s++;
      }
    }
  }
  if (s < 0) s = 0;
  if (s >= n) s = n - 1;
  goto_step(ui, s);
  tt_step_hook(ui->tr, s, ui->vs.layer, ui->vs.hook, sizeof ui->vs.hook);
  tt_view_follow_grad(&ui->vs, ui->tr);
}

static void set_layer(tt_ui *ui, int layer) {
  if (layer < 0) layer = 0;
  if (layer >= ui->n_layers) layer = ui->n_layers - 1;
  if (layer < 0) layer = 0;
  ui->vs.layer = layer;
  if (ui->vs.step >= 0 && tt_step_get(ui->tr, ui->vs.step)->in_block)
    tt_step_hook(ui->tr, ui->vs.step, layer, ui->vs.hook, sizeof ui->vs.hook);
  tt_view_follow_grad(&ui->vs, ui->tr);
  ui->vs.pin_row = ui->vs.pin_col = -1;
  ui->dirty = true;
}

static void set_head(tt_ui *ui, int head) {
  if (head >= ui->n_heads) head = ui->n_heads - 1;
  if (head < 0) head = 0;
  ui->vs.head = head;
  ui->vs.pin_row = ui->vs.pin_col = -1;
  ui->dirty = true;
}

static void zoom_at(tt_ui *ui, float factor, int x, int y) {
  tt_view_state *vs = &ui->vs;
  float z = vs->zoom * factor;
  if (z < 1) z = 1;
  if (z > 4096) z = 4096;
  if (ui->lay->n_panels > 0) {
    const tt_panel *pn = &ui->lay->panels[0];
    // Keep the cell under the pointer (or the centre) where it is.
    if (x < pn->rect.x || y < pn->rect.y || x >= pn->rect.x + pn->rect.w || y >= pn->rect.y + pn->rect.h) {
      x = pn->rect.x + pn->rect.w / 2;
      y = pn->rect.y + pn->rect.h / 2;
    }
    float fr = pn->row0 + (float)(y - pn->rect.y) / pn->cell_h, fc = pn->col0 + (float)(x - pn->rect.x) / pn->cell_w;
    float nr = (float)pn->rows / z, nc = (float)pn->cols / z;
    vs->pan_row = fr - (float)(y - pn->rect.y) / (float)pn->rect.h * nr;
    vs->pan_col = fc - (float)(x - pn->rect.x) / (float)pn->rect.w * nc;
    if (vs->pan_row < 0) vs->pan_row = 0;
    if (vs->pan_col < 0) vs->pan_col = 0;
  }
  vs->zoom = z;
  if (z == 1) vs->pan_row = vs->pan_col = 0;
  ui->dirty = true;
}

static bool bars_view(const tt_ui *ui) {
  return ui->vs.view == TT_VIEW_BARS;
}

static void toggle_view(tt_ui *ui, tt_view_kind v) {
  ui->vs.view = ui->vs.view == v ? TT_VIEW_AUTO : v;
  if (v == TT_VIEW_GRID || v == TT_VIEW_OVERVIEW) {
    // The grid and overview show attention tensors: go to the softmax step when elsewhere.
    const tt_tensor *t = tt_trace_find(ui->tr, ui->vs.hook);
    if (!t || t->ndim != 3) {
      for (int i = 0; i < tt_step_count(); i++)
        if (strcmp(tt_step_get(ui->tr, i)->id, "softmax") == 0) {
          tt_view_kind keep = ui->vs.view;
          goto_step(ui, i);
          ui->vs.view = keep;
        }
    }
  }
  ui->vs.zoom = 1;
  ui->vs.pan_row = ui->vs.pan_col = 0;
  ui->vs.pin_row = ui->vs.pin_col = -1;  // a pinned cell belongs to the view it was pinned in
  ui->dirty = true;
}

// A key while the prompt is being typed: Esc cancels, Enter traces, Backspace deletes a
// character (a whole UTF-8 sequence).
static void prompt_key(tt_ui *ui, SDL_Keycode c) {
  if (c == SDLK_ESCAPE) {  // the shown trace's prompt again
    ui->editing = false;
    SDL_StopTextInput();
    const char *shown = tt_trace_meta(ui->tr, "prompt");
    snprintf(ui->prompt, sizeof ui->prompt, "%s", shown ? shown : "");
  } else if (c == SDLK_RETURN || c == SDLK_KP_ENTER) {
    ui->editing = false;
    SDL_StopTextInput();
    tt_ui_retrace(ui);
  } else if (c == SDLK_BACKSPACE) {
    size_t n = strlen(ui->prompt);
    while (n > 0 && ((unsigned char)ui->prompt[n - 1] & 0xC0) == 0x80) n--;
    if (n > 0) n--;
    ui->prompt[n] = 0;
  }
  ui->dirty = true;
}

// The generation view shown (timeline or kvcache), else TT_VIEW_AUTO.
static tt_view_kind generation_view(const tt_ui *ui) {
  const tt_view_state *vs = &ui->vs;
  tt_view_kind v = vs->view == TT_VIEW_AUTO && vs->step >= 0 ? tt_step_get(ui->tr, vs->step)->view : vs->view;
  return v == TT_VIEW_TIMELINE || v == TT_VIEW_KVCACHE ? v : TT_VIEW_AUTO;
}

// The tokens a generation trace appended (its decode steps are one fewer).
static int generated(const tt_ui *ui) {
  int32_t ids[4096];
  return tt_generated_ints(ui->tr, "generated_ids", ids, 4096);
}

// Page Down / Page Up: the next / previous decode step in the KV-cache view (from the
// prompt pass, position −1, to the last step), the next / previous token in the timeline.
static bool decode_key(tt_ui *ui, SDL_Keycode c) {
  tt_view_kind v = generation_view(ui);
  if ((c != SDLK_PAGEDOWN && c != SDLK_PAGEUP) || v == TT_VIEW_AUTO) return false;
  int n = generated(ui), last = v == TT_VIEW_KVCACHE ? n - 2 : n - 1, first = v == TT_VIEW_KVCACHE ? -1 : 0;
  int pos = ui->vs.position < first ? (v == TT_VIEW_KVCACHE ? -1 : last) : ui->vs.position;
  pos += c == SDLK_PAGEDOWN ? 1 : -1;
  ui->vs.position = pos < first ? first : pos > last ? last : pos;
  return true;
}

// + and − change the temperature on the bars view, else zoom; 0 resets both; , and .
// move the bars' token. false when c is none of these.
static bool scale_key(tt_ui *ui, SDL_Keycode c) {
  tt_view_state *vs = &ui->vs;
  bool bars = bars_view(ui) ||
              (vs->view == TT_VIEW_AUTO && vs->step >= 0 && tt_step_get(ui->tr, vs->step)->view == TT_VIEW_BARS);
  int T = tt_trace_n_tokens(ui->tr), pos = vs->position < 0 ? T - 1 : vs->position;
  if (generation_view(ui) == TT_VIEW_TIMELINE) T = generated(ui), pos = vs->position < 0 ? T - 1 : vs->position;
  switch (c) {
  case SDLK_EQUALS:
  case SDLK_PLUS:
  case SDLK_KP_PLUS:
    if (bars)
      vs->temperature = fminf(vs->temperature * 1.25f, 10.0f);
    else
      zoom_at(ui, 1.5f, -1, -1);
    return true;
  case SDLK_MINUS:
  case SDLK_KP_MINUS:
    if (bars)
      vs->temperature = fmaxf(vs->temperature / 1.25f, 0.1f);
    else
      zoom_at(ui, 1 / 1.5f, -1, -1);
    return true;
  case SDLK_0:
    vs->zoom = 1;
    vs->pan_row = vs->pan_col = 0;
    vs->temperature = 1;
    return true;
  case SDLK_COMMA:
    vs->position = pos > 0 ? pos - 1 : 0;
    return true;
  case SDLK_PERIOD:
    vs->position = pos + 1 < T ? pos + 1 : T - 1;
    return true;
  default:
    return false;
  }
}

// Shift+, and Shift+. (< and >) choose the rope view's pair of dimensions. false otherwise.
static bool pair_key(tt_ui *ui, SDL_Keycode c, bool shift) {
  tt_view_state *vs = &ui->vs;
  tt_config cfg;
  if (!shift || (c != SDLK_COMMA && c != SDLK_PERIOD) || vs->view != TT_VIEW_ROPE || !tt_trace_config(ui->tr, &cfg))
    return false;
  int half = tt_config_head_dim(&cfg) / 2, at = (vs->pair < 0 ? half / 2 : vs->pair) + (c == SDLK_PERIOD ? 1 : -1);
  vs->pair = at < 0 ? 0 : at >= half ? half - 1 : at;
  return true;
}

// Arrows move through the steps and layers, [ and ] through the heads. false when c is none of these.
static bool nav_key(tt_ui *ui, SDL_Keycode c) {
  tt_view_state *vs = &ui->vs;
  switch (c) {
  case SDLK_RIGHT:
    tt_ui_step(ui, 1);
    return true;
  case SDLK_LEFT:
    tt_ui_step(ui, -1);
    return true;
  case SDLK_DOWN:
    set_layer(ui, vs->layer + 1);
    return true;
  case SDLK_UP:
    set_layer(ui, vs->layer - 1);
    return true;
  case SDLK_RIGHTBRACKET:
    set_head(ui, vs->head + 1);
    return true;
  case SDLK_LEFTBRACKET:
    set_head(ui, vs->head - 1);
    return true;
  default:
    return false;
  }
}

// B: value ↔ gradient of the step's tensor (a trace made with --grad); the status line
// says when the trace or this step has none.
static void toggle_grad(tt_ui *ui) {
  tt_view_state *vs = &ui->vs;
  if (!tt_trace_has_grad(ui->tr)) {
    snprintf(ui->status, sizeof ui->status, "%s", tt_str(vs->lang, TT_S_STATUS_NO_GRAD));
    return;
  }
  vs->grad = !vs->grad;
  if (!tt_view_follow_grad(vs, ui->tr) && vs->grad)
    snprintf(ui->status, sizeof ui->status, "%s", tt_str(vs->lang, TT_S_STATUS_NO_GRAD_HOOK));
  else if (!vs->grad && vs->step >= 0)
    vs->view = tt_step_get(ui->tr, vs->step)->view;  // the step's own view again
  vs->pin_row = vs->pin_col = -1;
}

// Tab, g, o, e and c toggle the table, grid, overview, lens and cost views, r, h, u and m the
// Llama block's (rope, gqa, swiglu, blocks), w and f the neighbours and gates views; d the
// theme, l the language; F1 and ? the help, which Esc closes (else Esc drops the pin). false
// when c is none of these.
static bool view_key(tt_ui *ui, SDL_Keycode c, bool shift) {
  tt_view_state *vs = &ui->vs;
  switch (c) {
  case SDLK_TAB:
    vs->view = vs->view == TT_VIEW_TABLE ? TT_VIEW_AUTO : TT_VIEW_TABLE;
    vs->pan_row = vs->pan_col = 0;
    return true;
  case SDLK_g:
    toggle_view(ui, TT_VIEW_GRID);
    return true;
  case SDLK_o:
    toggle_view(ui, TT_VIEW_OVERVIEW);
    return true;
  case SDLK_e:
    toggle_view(ui, TT_VIEW_LENS);
    return true;
  case SDLK_c:
    toggle_view(ui, TT_VIEW_COST);
    return true;
  case SDLK_r:
    toggle_view(ui, TT_VIEW_ROPE);
    return true;
  case SDLK_h:
    toggle_view(ui, TT_VIEW_GQA);
    return true;
  case SDLK_u:
    toggle_view(ui, TT_VIEW_SWIGLU);
    return true;
  case SDLK_m:
    toggle_view(ui, TT_VIEW_BLOCKS);
    return true;
  case SDLK_w:
    toggle_view(ui, TT_VIEW_NEIGHBOURS);
    return true;
  case SDLK_f:
    toggle_view(ui, TT_VIEW_GATES);
    return true;
  case SDLK_F1:
    vs->show_help = !vs->show_help;
    return true;
  case SDLK_SLASH:
    if (shift) vs->show_help = !vs->show_help;
    return true;
  case SDLK_ESCAPE:
    if (vs->show_help)
      vs->show_help = false;
    else
      vs->pin_row = vs->pin_col = -1;
    return true;
  case SDLK_d:
    vs->theme = vs->theme == TT_THEME_DARK ? TT_THEME_LIGHT : TT_THEME_DARK;
    return true;
  case SDLK_l:
    vs->lang = tt_lang_next(vs->lang);
    return true;
  case SDLK_b:  // Shift+B: the gradient-norm view
    if (shift)
      toggle_view(ui, TT_VIEW_GRADNORM);
    else
      toggle_grad(ui);
    return true;
  default:
    return false;
  }
}

// Space plays or pauses, s saves a screenshot, p opens the prompt box, q quits.
// false when c is none of these.
static bool action_key(tt_ui *ui, SDL_Keycode c) {
  tt_view_state *vs = &ui->vs;
  switch (c) {
  case SDLK_SPACE:
    vs->playing = !vs->playing;
    ui->next_play = SDL_GetTicks() + 3000;
    return true;
  case SDLK_s: {
    char path[4200];
    snprintf(path, sizeof path, "%s/ttrace-%03d-%s.png", ui->opts.shot_dir ? ui->opts.shot_dir : ".", ++ui->n_shots,
             vs->hook);
    tt_ui_shot_status(ui, path);
    return true;
  }
  case SDLK_p:
    ui->editing = true;  // the box opens with the current prompt to edit; Esc keeps the old trace
    SDL_StartTextInput();
    return true;
  case SDLK_q:
    ui->quit = true;
    return true;
  default:
    return false;
  }
}

static void key(tt_ui *ui, const SDL_KeyboardEvent *k) {
  SDL_Keycode c = k->keysym.sym;
  if (ui->editing) {
    prompt_key(ui, c);
    return;
  }
  if (ui->lesson && tt_ui_lesson_key(ui, k)) {
    ui->dirty = true;  // the lesson's keys say things on the status line themselves
    return;
  }
  if (!ui->lesson && !ui->finding && tt_ui_knob_key(ui, c)) {
    ui->dirty = true;
    return;
  }
  if (tt_ui_display_key(ui, k)) {
    ui->dirty = true;
    return;
  }
  bool shifted = (k->keysym.mod & KMOD_SHIFT) != 0;
  if (pair_key(ui, c, shifted) || decode_key(ui, c) || scale_key(ui, c)) {
    ui->status[0] = 0;
    ui->dirty = true;
    return;
  }
  bool shift = (k->keysym.mod & KMOD_SHIFT) != 0;
  if (!nav_key(ui, c) && !view_key(ui, c, shift) && !action_key(ui, c)) return;
  if (c != SDLK_s && c != SDLK_b) ui->status[0] = 0;  // the screenshot's message and B's stay
  ui->dirty = true;
}

static void click(tt_ui *ui, int x, int y) {
  tt_layout *lay = ui->lay;
  for (int i = 0; i < lay->n_nav; i++) {
    SDL_Rect r = lay->nav_rects[i];
    if (x >= r.x && y >= r.y && x < r.x + r.w && y < r.y + r.h) {
      goto_step(ui, lay->nav_steps[i]);
      tt_step_hook(ui->tr, ui->vs.step, ui->vs.layer, ui->vs.hook, sizeof ui->vs.hook);
      tt_view_follow_grad(&ui->vs, ui->tr);
      return;
    }
  }
  tt_pick pk;
  if (!tt_render_pick(lay, ui->tr, x, y, &pk)) {
    return;
  }
  tt_view_kind v = ui->vs.view;
  if (v == TT_VIEW_GRID || v == TT_VIEW_OVERVIEW) {
    // A click on a small panel opens that head (and layer) as a heatmap.
    if (pk.layer >= 0) set_layer(ui, pk.layer);
    if (pk.head >= 0) set_head(ui, pk.head);
    ui->vs.view = TT_VIEW_AUTO;
  } else if ((pk.panel == 0 || lay->panels[pk.panel].col_axis == 'V') &&
             pk.t == tt_trace_find(ui->tr, ui->vs.hook)) {  // the step's own tensor (a vocabulary: its top cells)
    if (ui->vs.pin_row == pk.row && ui->vs.pin_col == pk.col)
      ui->vs.pin_row = ui->vs.pin_col = -1;
    else {
      ui->vs.pin_row = pk.row;
      ui->vs.pin_col = pk.col;
    }
  }
  ui->dirty = true;
}

void tt_ui_handle(tt_ui *ui, const SDL_Event *e) {
  tt_view_state *vs = &ui->vs;
  switch (e->type) {
  case SDL_QUIT:
    ui->quit = true;
    break;
  case SDL_WINDOWEVENT:
  case SDL_RENDER_TARGETS_RESET:
  case SDL_RENDER_DEVICE_RESET:
    tt_ui_window_event(ui, e);
    break;
  case SDL_KEYDOWN:
    key(ui, &e->key);
    break;
  case SDL_TEXTINPUT:
    if (ui->finding) {
      tt_ui_find_text(ui, e->text.text);
      ui->dirty = true;
    } else if (ui->editing && strlen(ui->prompt) + strlen(e->text.text) < sizeof ui->prompt) {
      strcat(ui->prompt, e->text.text);
      ui->dirty = true;
    }
    break;
  case SDL_MOUSEMOTION: {
    int x = (int)((float)e->motion.x * ui->scale), y = (int)((float)e->motion.y * ui->scale);
    vs->mouse_x = x;
    vs->mouse_y = y;
    if (ui->dragging) {
      int dx = x - ui->drag_x, dy = y - ui->drag_y;
      if (abs(dx) + abs(dy) > 4) ui->drag_moved = true;
      if (ui->drag_moved && ui->lay->n_panels > 0) {
        const tt_panel *pn = &ui->lay->panels[0];
        vs->pan_col = fmaxf(0, ui->drag_pan_col - (float)dx / pn->cell_w);
        vs->pan_row = fmaxf(0, ui->drag_pan_row - (float)dy / pn->cell_h);
        float maxr = (float)pn->rows - (float)pn->rect.h / pn->cell_h,
              maxc = (float)pn->cols - (float)pn->rect.w / pn->cell_w;
        if (vs->pan_row > maxr) vs->pan_row = fmaxf(0, maxr);
        if (vs->pan_col > maxc) vs->pan_col = fmaxf(0, maxc);
      }
    }
    ui->dirty = true;
    break;
  }
  case SDL_MOUSEBUTTONDOWN:
    if (e->button.button == SDL_BUTTON_LEFT) {
      ui->dragging = true;
      ui->drag_moved = false;
      ui->drag_x = (int)((float)e->button.x * ui->scale);
      ui->drag_y = (int)((float)e->button.y * ui->scale);
      ui->drag_pan_row = vs->pan_row;
      ui->drag_pan_col = vs->pan_col;
    }
    break;
  case SDL_MOUSEBUTTONUP:
    if (e->button.button == SDL_BUTTON_LEFT) {
      if (ui->dragging && !ui->drag_moved)
        click(ui, (int)((float)e->button.x * ui->scale), (int)((float)e->button.y * ui->scale));
      ui->dragging = false;
      ui->dirty = true;
    }
    break;
  case SDL_MOUSEWHEEL:
    if (e->wheel.y != 0) zoom_at(ui, powf(1.25f, (float)e->wheel.y), vs->mouse_x, vs->mouse_y);
    break;
  default:
    break;
  }
}
