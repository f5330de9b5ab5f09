// ui: the SDL2 window (step navigator, views, inspector, prompt box) and what the
// commands need around it: the model-side data that enriches views (vocabulary strings,
// the embedding matrix, BPE merges) and the headless step sequence.
#ifndef TT_UI_H
#define TT_UI_H

#include "core/core.h"
#include "render/render.h"
#include "trace/trace.h"

// ---- model-side data for views ------------------------------------------------------
typedef struct tt_viz_data tt_viz_data;
// Loads the tokenizer (and, when it matches the trace, the model for W_E) from model_dir,
// else the trace's "model" metadata, else the default model, else assets/tokenizer.
// Never fails for a missing model: views then show ids instead of pieces. *out may be
// used with any later trace of the same model.
tt_status tt_viz_data_open(const char *model_dir, const tt_trace *tr, tt_viz_data **out, tt_error *err);
// The same, loading the model's weights only when `weights` (views that draw W_E); the
// tokenizer alone is cheap, a model folder may be gigabytes.
tt_status tt_viz_data_open_for(const char *model_dir, const tt_trace *tr, bool weights, tt_viz_data **out,
                               tt_error *err);
void tt_viz_data_close(tt_viz_data *d);
// Fills ex for tr (merges are recomputed from tr's prompt). ex stays valid until the next
// call or tt_viz_data_close.
void tt_viz_data_extras(tt_viz_data *d, const tt_trace *tr, tt_render_extras *ex);

// ---- the window -----------------------------------------------------------------------
typedef struct {
  const char *model_dir;    // model for retracing prompts (NULL: the trace's model or the default)
  const char *backend;      // session backend (NULL: openblas)
  tt_lang lang;
  tt_theme theme;
  int width, height;        // initial window size (0: 1280 × 800)
  const char *script;       // synthetic input for tests: a file of lines, see ui_script.c
  const char *state_out;    // file to write the final view state to (tests), or NULL
  const char *shot_dir;     // where S saves screenshots (NULL: the current folder)
  bool start_playing;
  // A second trace shown beside the first with their difference (`view A --compare B`);
  // stepping, layer and head keys drive both. Labels name the two sides.
  const tt_trace *compare;
  const char *label_a, *label_b;
} tt_ui_opts;

// True when SDL can open a window here (a display is present).
bool tt_ui_display_available(void);
// Opens the window on tr (owned by the caller; a retraced prompt replaces it inside the
// window only) and runs until the window is closed or Q is pressed.
tt_status tt_ui_run(const tt_ui_opts *o, const tt_trace *tr, tt_error *err);

// ---- lessons in the window (lesson_window.c) ----------------------------------------------
// Plays a lesson from its saved traces: narration on the left, the step's view on the
// right; → / Space / PgDn next, ← / PgUp back, Home / End, a number and Enter jumps, L
// switches to the twin lesson in the other language (lessons/en ↔ lessons/ko), S saves a
// screenshot, F1 lists the keys, Esc / Q quits. lang: the interface language when the
// lesson names none (NULL: English). TT_ERR_UNSUPPORTED when there is no display.
// tt_ui_run_lesson reads the test options (script, state file, size, screenshot folder,
// theme) from TTRACE_UI_SCRIPT, TTRACE_UI_STATE_OUT, TTRACE_UI_SIZE (WxH), TTRACE_UI_SHOTS
// and TTRACE_UI_THEME (light|dark) when they are set.
#define TT_UI_LESSON_API 1
tt_status tt_ui_run_lesson(const char *path, const char *traces_dir, const char *lang, tt_error *err);
tt_status tt_ui_run_lesson_opts(const tt_ui_opts *o, const char *path, const char *traces_dir, const char *lang,
                                tt_error *err);
// The options tt_ui_run_lesson starts from (the TTRACE_UI_* variables above).
void tt_ui_lesson_env_opts(tt_ui_opts *o);

// ---- headless step sequence ---------------------------------------------------------------
// Writes the whole step sequence (every step; block steps for each layer, up to 4
// layers, else the first and last) as numbered PNGs (001-tokenize.png, ...) into dir,
// creating it. Returns the number written in *n.
tt_status tt_ui_write_sequence(const tt_trace *tr, const tt_render_extras *ex, const char *dir, int w, int h,
                               tt_lang lang, tt_theme theme, int *n, tt_error *err);

#endif
