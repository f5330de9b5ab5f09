// script: synthetic input for tests. A script is a text file, one command a line; its
// events go into SDL's queue and through the same handlers as real input:
//   key NAME [shift|ctrl] a key press (SDL key names: Right, Left, Up, Down, Tab, Space,
//                        Return, Escape, F1, ], [, s, g, ...)
//   size W H             resize the window to W × H
//   text STRING          typed text (the prompt box)
//   move X Y             pointer to (X, Y) in window coordinates
//   click X Y            left button down and up at (X, Y)
//   cell R C [P]         pointer to the centre of cell (R, C) of the main panel (or of
//                        panel P, in drawing order: with --compare 0 is A, 1 B, 2 A − B)
//   clickcell R C [P]    click there
//   drag X0 Y0 X1 Y1     press at (X0, Y0), move to (X1, Y1), release
//   wheel N              scroll N notches (positive zooms in) at the pointer
//   wait MS              let MS milliseconds pass (drawing continues)
//   shot PATH            save a screenshot of the window to PATH
//   state PATH           write the view state (as `--state-out`) to PATH
//   quit                 close the window
// Lines starting with # and empty lines are skipped.
#include <stdlib.h>
#include <string.h>

#include "ui_int.h"

bool tt_script_open(tt_script *s, const char *path, tt_error *err) {
  memset(s, 0, sizeof *s);
  s->fp = fopen(path, "r");
  if (!s->fp) {
    tt_fail(err, TT_ERR_IO, "cannot open script %s", path);
    return false;
  }
  return true;
}

void tt_script_close(tt_script *s) {
  if (s->fp) fclose(s->fp);
  s->fp = NULL;
}

static void push_button(tt_ui *ui, uint32_t type, int x, int y) {
  SDL_Event e = {0};
  e.type = type;
  e.button.windowID = SDL_GetWindowID(ui->win);
  e.button.button = SDL_BUTTON_LEFT;
  e.button.state = type == SDL_MOUSEBUTTONDOWN ? SDL_PRESSED : SDL_RELEASED;
  e.button.clicks = 1;
  e.button.x = x;
  e.button.y = y;
  SDL_PushEvent(&e);
}

static void push_motion(tt_ui *ui, int x, int y) {
  SDL_Event e = {0};
  e.type = SDL_MOUSEMOTION;
  e.motion.windowID = SDL_GetWindowID(ui->win);
  e.motion.x = x;
  e.motion.y = y;
  SDL_PushEvent(&e);
}

static void fail_line(tt_ui *ui, const char *line) {
  snprintf(ui->status, sizeof ui->status, "script line %d not understood: %s", ui->script.line, line);
  fprintf(stderr, "ttrace: %s\n", ui->status);
}

// Runs script lines until one needs the event loop (events pushed, or a wait).
static void push_key(tt_ui *ui, SDL_Keycode k, SDL_Keymod mod) {
  SDL_Event e = {0};
  e.type = SDL_KEYDOWN;
  e.key.windowID = SDL_GetWindowID(ui->win);
  e.key.state = SDL_PRESSED;
  e.key.keysym.sym = k;
  e.key.keysym.scancode = SDL_GetScancodeFromKey(k);
  e.key.keysym.mod = (uint16_t)mod;
  SDL_PushEvent(&e);
  e.type = SDL_KEYUP;
  e.key.state = SDL_RELEASED;
  SDL_PushEvent(&e);
}

// "cell R C [PANEL]" / "clickcell ...": the pointer to the centre of a drawn cell.
static bool push_cell(tt_ui *ui, const char *cmd, const char *arg, int a, int b) {
  int c = 0;
  if (sscanf(arg, "%d %d %d", &a, &b, &c) != 3) c = 0;
  if (c < 0 || c >= ui->lay->n_panels) {
    fail_line(ui, "cell: no such panel on screen");
    return false;
  }
  const tt_panel *pn = &ui->lay->panels[c];
  // Window coordinates of the cell's centre (the layout is in renderer pixels).
  float px = (float)pn->rect.x + ((float)b - pn->col0 + 0.5f) * pn->cell_w;
  float py = (float)pn->rect.y + ((float)a - pn->row0 + 0.5f) * pn->cell_h;
  int x = (int)(px / ui->scale), y = (int)(py / ui->scale);
  push_motion(ui, x, y);
  if (cmd[0] == 'c' && cmd[1] == 'l') {
    push_button(ui, SDL_MOUSEBUTTONDOWN, x, y);
    push_button(ui, SDL_MOUSEBUTTONUP, x, y);
  }
  return true;
}

// The pointer commands (move, cell, clickcell, click, drag, wheel): 1 when events were
// pushed, 0 when it failed (said so), -1 when cmd is not one of them.
static int pointer_command(tt_ui *ui, const char *cmd, const char *arg) {
  int a = 0, b = 0, c = 0, d = 0;
  if (!strcmp(cmd, "move") && sscanf(arg, "%d %d", &a, &b) == 2) {
    push_motion(ui, a, b);
  } else if ((!strcmp(cmd, "cell") || !strcmp(cmd, "clickcell")) && sscanf(arg, "%d %d", &a, &b) == 2) {
    return push_cell(ui, cmd, arg, a, b) ? 1 : 0;
  } else if (!strcmp(cmd, "click") && sscanf(arg, "%d %d", &a, &b) == 2) {
    push_motion(ui, a, b);
    push_button(ui, SDL_MOUSEBUTTONDOWN, a, b);
    push_button(ui, SDL_MOUSEBUTTONUP, a, b);
  } else if (!strcmp(cmd, "drag") && sscanf(arg, "%d %d %d %d", &a, &b, &c, &d) == 4) {
    push_motion(ui, a, b);
    push_button(ui, SDL_MOUSEBUTTONDOWN, a, b);
    for (int i = 1; i <= 8; i++) push_motion(ui, a + (c - a) * i / 8, b + (d - b) * i / 8);
    push_button(ui, SDL_MOUSEBUTTONUP, c, d);
  } else if (!strcmp(cmd, "wheel") && sscanf(arg, "%d", &a) == 1) {
    SDL_Event e = {0};
    e.type = SDL_MOUSEWHEEL;
    e.wheel.windowID = SDL_GetWindowID(ui->win);
    e.wheel.y = a;
    SDL_PushEvent(&e);
  } else {
    return -1;
  }
  return 1;
}

// One script command: true when the pump should stop here (events pushed, a wait, quit).
static bool run_command(tt_ui *ui, const char *cmd, const char *arg) {
  tt_script *s = &ui->script;
  int a = 0;
  if (!strcmp(cmd, "key")) {
    char name[64] = "", mod[16] = "";
    sscanf(arg, "%63s %15s", name, mod);
    SDL_Keycode k = SDL_GetKeyFromName(name);
    if (k == SDLK_UNKNOWN) {
      fail_line(ui, arg);
      return false;
    }
    push_key(ui, k, !strcmp(mod, "shift") ? KMOD_LSHIFT : !strcmp(mod, "ctrl") ? KMOD_LCTRL : KMOD_NONE);
    return true;
  } else if (!strcmp(cmd, "size")) {  // the window resized as a user would drag it
    int w = 0, h = 0;
    if (sscanf(arg, "%d %d", &w, &h) != 2) {
      fail_line(ui, arg);
      return false;
    }
    SDL_SetWindowSize(ui->win, w, h);
    s->resume_at = SDL_GetTicks() + 300;  // let the window system answer
    return true;
  } else if (!strcmp(cmd, "text")) {
    SDL_Event e = {0};
    e.type = SDL_TEXTINPUT;
    e.text.windowID = SDL_GetWindowID(ui->win);
    snprintf(e.text.text, sizeof e.text.text, "%s", arg);
    SDL_PushEvent(&e);
    return true;
  } else if (!strcmp(cmd, "wait") && sscanf(arg, "%d", &a) == 1) {
    s->resume_at = SDL_GetTicks() + (uint32_t)a;
    if (!s->resume_at) s->resume_at = 1;
    return true;
  } else if (!strcmp(cmd, "shot")) {
    char written[4200];
    tt_error err = {0};
    if (tt_ui_screenshot(ui, arg, written, sizeof written, &err)) fprintf(stderr, "ttrace: %s\n", err.msg);
  } else if (!strcmp(cmd, "state")) {
    tt_error err = {0};
    if (tt_ui_write_state(ui, arg, &err)) fprintf(stderr, "ttrace: %s\n", err.msg);
  } else if (!strcmp(cmd, "quit")) {
    ui->quit = true;
    s->done = true;
    return true;
  } else {
    int r = pointer_command(ui, cmd, arg);
    if (r < 0) fail_line(ui, cmd);
    return r > 0;
  }
  return false;
}

void tt_script_pump(tt_ui *ui) {
  tt_script *s = &ui->script;
  if (SDL_PeepEvents(NULL, 0, SDL_PEEKEVENT, SDL_FIRSTEVENT, SDL_LASTEVENT) > 0) return;  // let pushed ones run
  if (ui->dirty) return;  // draw first, so that picks see the current layout
  if (s->resume_at && !SDL_TICKS_PASSED(SDL_GetTicks(), s->resume_at)) return;
  s->resume_at = 0;
  char line[1024];
  while (fgets(line, sizeof line, s->fp)) {
    s->line++;
    line[strcspn(line, "\r\n")] = 0;
    char *cmd = line + strspn(line, " \t");
    if (!*cmd || *cmd == '#') continue;
    char *arg = strchr(cmd, ' ');
    if (arg)
      *arg++ = 0;
    else
      arg = cmd + strlen(cmd);
    if (run_command(ui, cmd, arg)) return;
  }
  s->done = true;
}
