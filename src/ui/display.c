// display: what the whole interface answers to, whatever the view: Ctrl + / Ctrl − /
// Ctrl 0 the type size, F11 fullscreen, Home / End the first and last step, a step number
// then Enter, "/" then part of a step's name then Enter; and a resized window (or a renderer
// that lost its textures) drawn again from scratch.
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ui_int.h"

// The largest type size the window draws now (tt_render_font_scale_max): an asked size above
// it (from --font-scale, or kept from a larger window) is drawn at this one.
static float font_scale_most(const tt_ui *ui) {
  return fminf(3.0f, tt_render_font_scale_max(ui->out_w, ui->out_h));
}

// Ctrl + stops where the window draws no larger, so that Ctrl − is seen at once.
static void set_font_scale(tt_ui *ui, float s) {
  float most = font_scale_most(ui);
  if (s > ui->vs.font_scale && s > most) s = fmaxf(ui->vs.font_scale, most);
  if (s < 0.5f) s = 0.5f;
  if (s > 3.0f) s = 3.0f;
  ui->vs.font_scale = s;
  tt_render_forget(ui->rc);  // text textures of the old size
}

static void go_to(tt_ui *ui, int step) {
  tt_view_goto_step(&ui->vs, ui->tr, step);
  ui->status[0] = 0;
}

// Case-insensitive: does hay contain needle (ASCII letters folded; other bytes as they are)?
static bool contains(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  for (; *hay; hay++) {
    size_t i = 0;
    while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i])) i++;
    if (i == n) return true;
  }
  return n == 0;
}

// The first step whose title (in the window's language or English) or id holds name; -1 none.
static int step_named(const tt_ui *ui, const char *name) {
  for (int i = 0; i < tt_step_count(); i++)
    if (contains(tt_step_title(ui->tr, i, ui->vs.lang), name) || contains(tt_step_title(ui->tr, i, TT_LANG_EN), name) ||
        contains(tt_step_get(ui->tr, i)->id, name))
      return i;
  return -1;
}

static void show_find(tt_ui *ui) {
  snprintf(ui->status, sizeof ui->status, "/ %s\xE2\x96\x8F", ui->find);
}

// Keys while "/" collects a step's name: Enter jumps, Esc cancels, Backspace deletes.
static bool find_key(tt_ui *ui, SDL_Keycode c) {
  if (c == SDLK_RETURN || c == SDLK_KP_ENTER) {
    int s = step_named(ui, ui->find);
    ui->finding = false;
    SDL_StopTextInput();
    if (s >= 0)
      go_to(ui, s);
    else
      snprintf(ui->status, sizeof ui->status, "/ %s: \xE2\x88\x85", ui->find);
    return true;
  }
  if (c == SDLK_ESCAPE) {
    ui->finding = false;
    SDL_StopTextInput();
    ui->status[0] = 0;
    return true;
  }
  if (c == SDLK_BACKSPACE) {
    size_t n = strlen(ui->find);
    while (n > 0 && ((unsigned char)ui->find[n - 1] & 0xC0) == 0x80) n--;
    if (n > 0) n--;
    ui->find[n] = 0;
  }
  show_find(ui);
  return true;
}

void tt_ui_find_text(tt_ui *ui, const char *text) {
  if (strlen(ui->find) + strlen(text) < sizeof ui->find) strcat(ui->find, text);
  show_find(ui);
}

// Digits collect a step number (shown on the status line), Enter goes there.
static bool number_key(tt_ui *ui, SDL_Keycode c) {
  bool digit = c >= SDLK_0 && c <= SDLK_9;
  if (digit && (ui->jump_len > 0 || c != SDLK_0) && ui->jump_len < 3) {
    ui->jump[ui->jump_len++] = (char)('0' + (c - SDLK_0));
    ui->jump[ui->jump_len] = 0;
    snprintf(ui->status, sizeof ui->status, tt_str(ui->vs.lang, TT_S_JUMP_FMT), ui->jump);
    return true;
  }
  if ((c == SDLK_RETURN || c == SDLK_KP_ENTER) && ui->jump_len > 0) {
    go_to(ui, atoi(ui->jump) - 1);
    ui->jump_len = 0;
    return true;
  }
  if (ui->jump_len > 0 && !digit) ui->jump_len = 0;  // any other key forgets the number
  return false;
}

bool tt_ui_display_key(tt_ui *ui, const SDL_KeyboardEvent *k) {
  SDL_Keycode c = k->keysym.sym;
  bool ctrl = (k->keysym.mod & KMOD_CTRL) != 0, shift = (k->keysym.mod & KMOD_SHIFT) != 0;
  if (ui->finding) return find_key(ui, c);
  if (ctrl && (c == SDLK_EQUALS || c == SDLK_PLUS || c == SDLK_KP_PLUS)) {
    set_font_scale(ui, ui->vs.font_scale * 1.15f);
    return true;
  }
  if (ctrl && (c == SDLK_MINUS || c == SDLK_KP_MINUS)) {
    set_font_scale(ui, fminf(ui->vs.font_scale, font_scale_most(ui)) / 1.15f);  // from the size drawn
    return true;
  }
  if (ctrl && c == SDLK_0) {
    set_font_scale(ui, 1);
    return true;
  }
  if (c == SDLK_F11) {
    bool full = (SDL_GetWindowFlags(ui->win) & SDL_WINDOW_FULLSCREEN_DESKTOP) != 0;
    SDL_SetWindowFullscreen(ui->win, full ? 0 : SDL_WINDOW_FULLSCREEN_DESKTOP);
    return true;
  }
  if (ui->lesson || ui->editing) return false;  // the lesson window has its own jumps
  if (c == SDLK_HOME || c == SDLK_END) {
    go_to(ui, c == SDLK_HOME ? 0 : tt_step_count() - 1);
    return true;
  }
  if (c == SDLK_SLASH && !shift) {
    ui->finding = true;
    ui->find[0] = 0;
    SDL_StartTextInput();
    show_find(ui);
    return true;
  }
  return number_key(ui, c);
}

void tt_ui_window_event(tt_ui *ui, const SDL_Event *e) {
  // A new size, or a renderer that dropped its textures (some drivers do on every resize):
  // make every texture again rather than draw with lost ones.
  bool lost = e->type == SDL_RENDER_TARGETS_RESET || e->type == SDL_RENDER_DEVICE_RESET ||
              (e->type == SDL_WINDOWEVENT &&
               (e->window.event == SDL_WINDOWEVENT_SIZE_CHANGED || e->window.event == SDL_WINDOWEVENT_EXPOSED));
  if (lost) tt_render_forget(ui->rc);
  ui->dirty = true;
}
