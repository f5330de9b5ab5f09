// lesson: narrated lessons that play from saved traces (format: lessons/README.md).
// A lesson is a header (title, language, model, the traces it uses) and a list of steps;
// each step names one tensor to show (trace, hook, layer, head, token row), a view, an
// optional second trace to compare with, and its narration. The parser needs no model;
// the player loads the lesson's saved traces and resolves each step to its tensors.
// No SDL here: the window (src/ui) and the terminal player (src/cli) both drive this.
#ifndef TT_LESSON_H
#define TT_LESSON_H

#include "core/core.h"
#include "model/model.h"  // tt_config (trace.h uses it)
#include "trace/trace.h"

#define TT_LESSON_ALL (-1)             // head: all heads
#define TT_LESSON_NONE (-2)            // layer: the hook is outside the blocks
#define TT_LESSON_ALL_LAYERS (-3)      // layer: all — one tensor per layer, shown together
#define TT_LESSON_ALL_ROWS (-1000001)  // row: all tokens (rows may be negative: -1 is the last)
#define TT_LESSON_MAX_LAYERS 64

// One saved trace a lesson uses; made by `ttrace lesson --make-traces` from these fields.
typedef struct {
  const char *name;  // "main": how steps and placeholders refer to it
  const char *prompt;
  const char **set;  // variant knobs "key=value" (as `ttrace trace --set`)
  int n_set;
  const char **record;  // hook globs to keep (as `ttrace trace --record`); none = all
  int n_record;
  const char *file;   // file name inside the traces folder, "01-weather.safetensors"
  int line;           // where it is defined
  bool grad;          // grad=true: the backward pass too (grad.<hook>, grad.<weight>)
  const char *train;  // train=LR: traced on the model after `steps` SGD steps of learning
                      // rate LR on this prompt (as `ttrace train-step`); NULL: the model itself
  long steps;         // steps=N with train= (default 1)
  const char *model;  // model=NAME: the model folder assets/models/NAME; NULL: the lesson's model:
} tt_lesson_trace;

// One step. hook is the full hook name; for layer: all it holds the layer-free suffix
// ("hook_resid_post") and the player resolves blocks.L.<suffix> for every layer.
typedef struct {
  int line;           // line of the step's "---"
  const char *title;  // short title ("" when none)
  int trace;          // index into the lesson's traces
  const char *hook;   // "blocks.0.attn.hook_pattern", "tokens", or a suffix (layer: all)
  int layer;          // block index, TT_LESSON_NONE outside the blocks, TT_LESSON_ALL_LAYERS
  int head;           // head index, or TT_LESSON_ALL
  int row;            // token row (negative counts from the end), or TT_LESSON_ALL_ROWS
  const char *view;   // a view name (tt_lesson_view_known)
  int compare;        // index of a second trace to show beside it, or -1
  float temperature;  // for views of next-token probabilities (1 = as recorded)
  const char *text;   // narration: paragraphs separated by blank lines, {{...}} placeholders
  int text_line;      // line where the narration starts
  // Claims the narration makes about the numbers, checked by `ttrace lesson --check`:
  // "A OP B" with OP one of < <= > >= == != and A, B numbers or placeholder bodies
  // ("max blocks.1.attn.hook_pattern[0,3] > 0.9").
  const char **checks;
  const int *check_lines;
  int n_checks;
} tt_lesson_step;

typedef struct tt_lesson tt_lesson;

// Whether a step may use this view: a pipeline view name (tt_view_parse) other than
// "auto", or "norms" (documented in lessons/README.md).
bool tt_lesson_view_known(const char *name);

// Parses a lesson. name is used in error messages ("lessons/en/01.lesson:12: ...").
tt_status tt_lesson_parse(const char *text, size_t len, const char *name, tt_lesson **out, tt_error *err);
// Reads and parses a file; the traces folder defaults to <file's folder>/../traces.
tt_status tt_lesson_load(const char *path, tt_lesson **out, tt_error *err);
void tt_lesson_destroy(tt_lesson *l);

const char *tt_lesson_title(const tt_lesson *l);
const char *tt_lesson_lang(const tt_lesson *l);
const char *tt_lesson_model(const tt_lesson *l);  // "default" or a model folder
const char *tt_lesson_name(const tt_lesson *l);   // the path or name it was parsed as
int tt_lesson_n_traces(const tt_lesson *l);
const tt_lesson_trace *tt_lesson_trace_at(const tt_lesson *l, int i);
int tt_lesson_find_trace(const tt_lesson *l, const char *name);  // -1 when absent
int tt_lesson_n_steps(const tt_lesson *l);
const tt_lesson_step *tt_lesson_step_at(const tt_lesson *l, int i);

// Where trace i is stored: traces_dir (NULL: the default folder) / file.
tt_status tt_lesson_trace_path(const tt_lesson *l, int i, const char *traces_dir, char *buf, size_t len, tt_error *err);
// True when two trace definitions describe the same computation (prompt, set, record).
bool tt_lesson_trace_same(const tt_lesson_trace *a, const tt_lesson_trace *b);
// The "trained" metadata of a train= trace: "lr=0.5 steps=1" ("" without train=).
const char *tt_lesson_training(const tt_lesson_trace *t, char *buf, size_t len);

// ---- playing -----------------------------------------------------------------------
// Turns a token id into display text for {{word ...}} placeholders; NULL: shown as "#id".
typedef const char *(*tt_lesson_decode_fn)(void *ctx, int32_t id, char *buf, size_t len);

// What one step shows, resolved against the loaded traces. Tensors point into the traces.
typedef struct {
  const tt_lesson_step *step;
  const tt_trace *trace;    // the step's trace
  const tt_trace *compare;  // the compared trace, or NULL
  // The shown tensors: one, or one per layer (layer: all), in layer order.
  const tt_tensor *tensors[TT_LESSON_MAX_LAYERS];
  const tt_tensor *compare_tensors[TT_LESSON_MAX_LAYERS];  // NULL entries without compare
  int n_tensors;
  char *narration;  // the narration with every {{...}} filled in (malloc'd)
} tt_lesson_view;

// Checks the step against the traces (hook present, layer, head and row in range, compared
// tensor present) and fills the placeholders. traces[i] is the lesson's trace i.
tt_status tt_lesson_resolve(const tt_lesson *l, int step, const tt_trace *const *traces, tt_lesson_decode_fn decode,
                            void *decode_ctx, tt_lesson_view *out, tt_error *err);
void tt_lesson_view_free(tt_lesson_view *v);

// The tensor beside name with its last component replaced ("blocks.0.ln1.hook_out",
// "hook_mean" → blocks.0.ln1.hook_mean); NULL when the trace lacks it.
const tt_tensor *tt_lesson_sibling(const tt_trace *tr, const char *name, const char *last);

// A saved trace still matches its definition i: prompt, record globs, variant knobs.
tt_status tt_lesson_verify_trace(const tt_lesson *l, int i, const tt_trace *tr, tt_error *err);
// Two language versions of one lesson: the same traces, and steps that show and check the
// same things (only titles and words may differ).
tt_status tt_lesson_verify_twins(const tt_lesson *a, const tt_lesson *b, tt_error *err);

// Evaluates the step's check: lines against the traces; the first false one is an error
// naming its line and both values.
tt_status tt_lesson_check_claims(const tt_lesson *l, int step, const tt_trace *const *traces, tt_error *err);

// Fills {{...}} placeholders of text from the traces (syntax in lessons/README.md).
// *out is malloc'd.
tt_status tt_lesson_fill(const tt_lesson *l, int default_trace, const char *text, int line,
                         const tt_trace *const *traces, tt_lesson_decode_fn decode, void *decode_ctx, char **out,
                         tt_error *err);

// The player: a lesson with its traces loaded, and the current step.
//
// How a window drives it (what `ttrace lesson FILE` expects from src/ui): open the player,
// show tt_lesson_player_view()'s narration in a panel, and point the view at the step:
// view.tensors[0] (or one per layer for layer: all) in view.trace; step->head (-1: all
// heads), step->row (the token the narration is about; TT_LESSON_ALL_ROWS: none) and
// step->temperature for bars; step->view is a render view name (tt_view_parse), except
// "norms", which is lesson-only (a vector-length table; a heatmap will do). With
// view.compare, draw view.compare_tensors[k] beside it and, when the shapes agree, their
// difference. Next/previous call tt_lesson_player_next/prev; a teacher jumps with
// tt_lesson_player_jump. The CLI calls, in builds with the window (TT_HAVE_GUI):
//   tt_status tt_ui_run_lesson(const char *path, const char *traces_dir, const char *lang,
//                              tt_error *err);  // TT_ERR_UNSUPPORTED: no display
// and otherwise plays the lesson as text.
typedef struct {
  tt_lesson *lesson;
  tt_trace **traces;  // one per lesson trace
  int step;           // current step, 0-based
} tt_lesson_player;

// Loads the lesson and all its traces (traces_dir NULL: the default folder).
tt_status tt_lesson_player_open(const char *path, const char *traces_dir, tt_lesson_player **out, tt_error *err);
void tt_lesson_player_close(tt_lesson_player *p);
bool tt_lesson_player_next(tt_lesson_player *p);            // false at the last step
bool tt_lesson_player_prev(tt_lesson_player *p);            // false at the first step
bool tt_lesson_player_jump(tt_lesson_player *p, int step);  // false when out of range
// Resolves the current step (see tt_lesson_resolve).
tt_status tt_lesson_player_view(const tt_lesson_player *p, tt_lesson_decode_fn decode, void *decode_ctx,
                                tt_lesson_view *out, tt_error *err);

#endif
