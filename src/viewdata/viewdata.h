// viewdata: what views need besides the painters and the trace, for every front end (the
// window, `ttrace render`, the headless demo): the model-side data that enriches views
// (vocabulary strings, the embedding matrix, the prompt's BPE merges) and the headless
// step sequence. Between render and ui: it needs no window.
#ifndef TT_VIEWDATA_H
#define TT_VIEWDATA_H

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
// The same, loading the model's weights only when `weights` (views that draw W_E or, like
// collapse, compute from the weights); the tokenizer alone is cheap, a model folder may be
// gigabytes.
tt_status tt_viz_data_open_for(const char *model_dir, const tt_trace *tr, bool weights, tt_viz_data **out,
                               tt_error *err);
void tt_viz_data_close(tt_viz_data *d);
// Fills ex for tr (merges are recomputed from tr's prompt). ex stays valid until the next
// call or tt_viz_data_close.
void tt_viz_data_extras(tt_viz_data *d, const tt_trace *tr, tt_render_extras *ex);

// ---- headless step sequence ---------------------------------------------------------------
// Writes the whole step sequence (every step; block steps for each layer, up to 4
// layers, else the first and last) as numbered PNGs (001-tokenize.png, ...) into dir,
// creating it. Returns the number written in *n.
tt_status tt_viz_write_sequence(const tt_trace *tr, const tt_render_extras *ex, const char *dir, int w, int h,
                                tt_lang lang, tt_theme theme, int *n, tt_error *err);

#endif
