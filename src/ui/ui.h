// ui: the SDL2 window only: the step navigator, views, inspector and prompt box
// (window.c, input.c), lessons in the window (lesson_window.c), `view A --compare B`
// (compare.c) and the scripted input that drives it in tests (script.c). What views need
// without a window (model-side data, the headless sequence) is in src/render.
#ifndef TT_UI_H
#define TT_UI_H

#include "core/core.h"
#include "render/render.h"
#include "trace/trace.h"

// ---- the window -----------------------------------------------------------------------
typedef struct {
  const char *model_dir;  // model for retracing prompts (NULL: the trace's model or the default)
  const char *backend;    // session backend (NULL: openblas)
  tt_lang lang;
  tt_theme theme;
  int width, height;      // initial window size (0: 1280 × 800)
  const char *script;     // synthetic input for tests: a file of lines, see script.c
  const char *state_out;  // file to write the final view state to (tests), or NULL
  const char *shot_dir;   // where S saves screenshots (NULL: the current folder)
  bool start_playing;
  bool bos;          // typed prompts get the tokenizer's BOS first (as --bos did for the first)
  float font_scale;  // the interface's type size factor (0: 1); Ctrl + / Ctrl − change it
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
tt_status tt_ui_run_lesson(const char *path, const char *traces_dir, const char *lang, tt_error *err);
tt_status tt_ui_run_lesson_opts(const tt_ui_opts *o, const char *path, const char *traces_dir, const char *lang,
                                tt_error *err);
// One step of a lesson drawn headless as the window draws it, as SVG (no display needed).
typedef struct {
  int step;           // 0-based
  int width, height;  // the window's size
  tt_theme theme;
  float font_scale;  // the interface's type size factor (0: 1)
  const char *out;   // the SVG file (written atomically)
} tt_ui_lesson_svg_opts;
// traces (may be NULL) receives "A <trace file>\n" and, for a comparison, "B <trace file>\n".
tt_status tt_ui_lesson_svg(const char *path, const char *traces_dir, const tt_ui_lesson_svg_opts *so, char *traces,
                           size_t len, tt_error *err);
// Every step of a lesson drawn headless for a page that shows them all (export-html): for
// each, the page without its narration (the view, the lesson title and "3 / 9") written as
// SVG to svg_path (replaced each time), its glyphs noted in fonts instead of embedded, then
// fn with the page (titles, filled narration). The first error stops it.
typedef struct {
  int width, height;
  tt_font_usage *fonts;
  const char *svg_path;
  tt_status (*fn)(void *ctx, int step, int n_steps, const tt_lesson_page *page, tt_error *err);
  void *ctx;
} tt_ui_lesson_pages_opts;
tt_status tt_ui_lesson_pages(const char *path, const char *traces_dir, const tt_ui_lesson_pages_opts *pp,
                             tt_error *err);
// The same lesson in language lang ("ko") beside path (lessons/en/05-x → lessons/ko/05-x);
// false when there is none.
bool tt_ui_lesson_twin(const char *path, const char *lang, char *out, size_t len);
// The options tt_ui_run_lesson starts from (the TTRACE_UI_* variables above).
void tt_ui_lesson_env_opts(tt_ui_opts *o);

#endif
