// ui_int: the window's state shared by the event handlers, the script player and the loop.
#ifndef TT_UI_INT_H
#define TT_UI_INT_H

#include <SDL.h>

#include "session/session.h"
#include "ui.h"

typedef struct {
  FILE *fp;
  uint32_t resume_at;  // SDL ticks when a "wait" ends
  bool done;
  int line;
} tt_script;

typedef struct tt_ui_lesson tt_ui_lesson;  // lesson_window.c

typedef struct {
  tt_ui_opts opts;
  SDL_Window *win;
  SDL_Renderer *ren;
  tt_render *rc;
  tt_view_state vs;
  tt_layout *lay;
  const tt_trace *tr;  // what is shown: the caller's trace or own
  tt_trace *own;       // a trace made in the window from a typed prompt
  tt_session *sess;    // opened on the first typed prompt
  tt_viz_data *vd;
  tt_render_extras ex;
  char prompt[512];
  bool editing;
  char status[600];
  bool dragging, drag_moved;
  int drag_x, drag_y;
  float drag_pan_row, drag_pan_col;
  uint32_t next_play;
  float scale;  // renderer pixels per window pixel (HiDPI)
  int out_w, out_h;
  bool quit, dirty;
  int partial_frames;  // frames in a row that left cell images for the next (the frame budget)
  int n_shots;
  tt_script script;
  int n_layers, n_heads;
  tt_derived *derived;   // differences and vector lengths drawn by compare and lesson views
  tt_compare cmp;        // cmp.b set: `view A --compare B`
  tt_ui_lesson *lesson;  // playing a lesson, or NULL
  // The what-if panel (knobs.c): the variant's config, its trace and session.
  bool knobs_open;
  tt_config knob_cfg;
  tt_trace *variant;  // the prompt traced with knob_cfg (shown as cmp.b), or NULL
  tt_session *variant_sess;
  char variant_label[256];
  char knob_text[8][96];
  // display.c: "/" and the step name being typed; a step number being typed
  bool finding;
  char find[64];
  char jump[4];
  int jump_len;
  const char *knob_row[8][2];
} tt_ui;

// input.c: one event changes the state.
void tt_ui_handle(tt_ui *ui, const SDL_Event *e);
void tt_ui_step(tt_ui *ui, int delta);  // next / previous step (across layers)
// window.c
// The window's life: open (window, renderer, state on tr), run the loop until quit, close.
tt_status tt_ui_open(tt_ui *ui, const tt_ui_opts *o, const tt_trace *tr, tt_error *err);
void tt_ui_loop(tt_ui *ui);
void tt_ui_close(tt_ui *ui);
tt_status tt_ui_screenshot(tt_ui *ui, const char *path, char *written, size_t len, tt_error *err);
// Saves a screenshot to path; the status line then says where it went, or why it failed.
void tt_ui_shot_status(tt_ui *ui, const char *path);
void tt_ui_set_trace(tt_ui *ui, const tt_trace *tr);
void tt_ui_retrace(tt_ui *ui);
tt_status tt_ui_write_state(tt_ui *ui, const char *path, tt_error *err);
// knobs.c: K opens the what-if panel; a number flips a knob and traces the variant (true
// when the key was the panel's); the rows the next frame draws; the variant again after
// the baseline changed; what the panel holds, freed.
bool tt_ui_knob_key(tt_ui *ui, SDL_Keycode c);
void tt_ui_knobs_prepare(tt_ui *ui);
void tt_ui_knobs_retrace(tt_ui *ui);
void tt_ui_knobs_close(tt_ui *ui);
// display.c: Ctrl + / − / 0, F11, Home / End, a number and Enter, "/" and a name (true
// when the key was used); typed text of the "/" search; window events (resize, lost textures).
bool tt_ui_display_key(tt_ui *ui, const SDL_KeyboardEvent *k);
void tt_ui_find_text(tt_ui *ui, const char *text);
void tt_ui_window_event(tt_ui *ui, const SDL_Event *e);
// compare.c: `view A --compare B`.
void tt_ui_compare_draw(tt_ui *ui);
void tt_ui_compare_state(tt_ui *ui, FILE *fp, const tt_compare *cmp);
// lesson_window.c: drawing, the lesson's keys (true when the key was used), state lines.
void tt_ui_lesson_draw(tt_ui *ui);
bool tt_ui_lesson_key(tt_ui *ui, const SDL_KeyboardEvent *k);
void tt_ui_lesson_state(tt_ui *ui, FILE *fp);
// script.c: feeds the next scripted events into SDL's queue; false when finished.
bool tt_script_open(tt_script *s, const char *path, tt_error *err);
void tt_script_pump(tt_ui *ui);
void tt_script_close(tt_script *s);

#endif
