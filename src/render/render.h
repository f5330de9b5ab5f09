// render: the painters. Every view is a pure function of (trace, view state, area) →
// pixels; the window (ui) and the headless exporter (PNG, SVG) call the same painters,
// so a screenshot needs no display. Painters draw through a small canvas (rectangles,
// lines, text, cell images) that has an SDL_Renderer backend and an SVG backend.
#ifndef TT_RENDER_H
#define TT_RENDER_H

#include <SDL.h>

#include "core/core.h"
#include "pipeline/pipeline.h"
#include "trace/trace.h"

typedef enum { TT_THEME_LIGHT, TT_THEME_DARK } tt_theme;
// The faces text is drawn in (DejaVu, with Nanum Gothic for Hangul).
typedef enum { TT_FONT_SANS, TT_FONT_BOLD, TT_FONT_MONO, TT_FONT_KINDS } tt_font_kind;

// Everything a view depends on besides the trace. Plain data: copy it freely.
typedef struct {
  char hook[96];    // the tensor shown, a full hook name ("blocks.0.attn.hook_pattern")
  int step;         // index in the step list (tt_step_get), or -1 when a hook is shown directly
  int layer, head;  // layer for block steps; head of head-major tensors
  tt_view_kind view;
  float zoom;              // 1 shows the whole tensor; 2 shows half the cells along each axis, ...
  float pan_row, pan_col;  // first visible row and column, in cells
  tt_theme theme;
  tt_lang lang;
  float font_scale;          // multiplies the type size chosen for the area (1 = default)
  bool frame;                // draw the step navigator, formula and explanation around the view
  int mouse_x, mouse_y;      // pointer inside the area (-1: none); the hovered cell is inspected
  int hover_row, hover_col;  // figures: the pointer on this cell instead (of head's panel in a grid;
                             // tt_layout_point_at; -1: none)
  int pin_row, pin_col;      // pinned cell of the main panel (-1: none); its arithmetic is shown
  float temperature;         // bars: p = softmax(logits / temperature)
  int position;              // bars: whose next token (row of the logits); -1 the last token
  int top_k;                 // bars: how many candidates
  int token;                 // neighbours: a vocabulary id shown instead of the token at position (-1: none)
  int pair;                  // rope: the pair of dimensions shown between the fastest and the slowest (-1: D/4)
  bool playing;              // show the play marker
  bool show_help;            // the key overlay
  const char *prompt_edit;   // text being typed in the prompt box, or NULL when not editing
  const char *status;        // one line at the bottom (e.g. where a screenshot went), or NULL
  // The what-if panel (the window's K): its rows (key, knob and value), or NULL when closed.
  const char *const (*knob_rows)[2];
  int n_knob_rows;
  // A figure for a file (`ttrace render`): no interface hints (keys, "point at a cell", the
  // current head's box), and title instead of the hook's name when not NULL.
  bool figure;
  const char *title;
  // Provenance written into the file (PNG text chunks, SVG <metadata>): n_provenance
  // (key, value) pairs, UTF-8, keys of 1 to 79 printable ASCII characters.
  const char *const (*provenance)[2];
  int n_provenance;
  bool grad;  // show each step's gradient grad.<hook> where the trace holds it
} tt_view_state;

void tt_view_state_init(tt_view_state *st);

// Data that is not in the trace but makes views richer; any field may be NULL/0.
typedef struct {
  const float *wte;  // (V, C) embedding matrix
  const float *wpe;  // (P, C) position matrix
  int vocab, width, n_pos;
  const struct tt_model *model;  // the model itself (the collapse view reads its FFN weights)
  // Writes a display string for a vocabulary id into buf (next-token candidates).
  const char *(*token_text)(void *ctx, int32_t id, char *buf, size_t len);
  void *token_ctx;
  const char *const *merges;  // BPE merge lines of the prompt, e.g. "␣ + w → ␣w  (#10)"
  int n_merges;
  // The prompt's pre-tokens in order, each with its merges (a slice of merges); when
  // n_merge_groups is 0 the merges are shown as one list.
  const struct tt_merge_group *merge_groups;
  int n_merge_groups;
} tt_render_extras;

typedef struct tt_merge_group {
  const char *text;    // the pre-token as typed (UTF-8; a leading space is drawn as ␣)
  const char *pieces;  // the tokens it ends as, e.g. "␣weather" or "␣un · believ · able"
  int first, count;    // its merges: merges[first] … merges[first + count − 1]
} tt_merge_group;

// One drawn matrix of cells, kept so a pointer position can be turned into a cell.
typedef struct {
  SDL_Rect rect;  // where the visible cells lie
  const tt_tensor *t;
  int64_t offset;          // flat index of cell (0, 0)
  int64_t row_stride;      // flat step between rows (columns are contiguous)
  int rows, cols;          // the whole matrix
  float row0, col0;        // first visible cell (fractional when panned)
  float cell_w, cell_h;    // pixels per cell
  int layer, head;         // -1 when not applicable
  int row_axis, col_axis;  // axis letters: 'T', 'C', 'D', 'F', 'V', 'P', 'Q' (3C), 'L' (T-1), '1'
} tt_panel;

#define TT_MAX_PANELS 400
#define TT_MAX_NAV 48
typedef struct {
  int n_panels;
  tt_panel panels[TT_MAX_PANELS];
  int n_nav;  // step navigator entries drawn
  SDL_Rect nav_rects[TT_MAX_NAV];
  int nav_steps[TT_MAX_NAV];  // the step index of each entry
  SDL_Rect view_rect;         // the area of the view itself (inside the frame)
} tt_layout;

// A cell under the pointer.
typedef struct {
  int panel;
  const tt_tensor *t;
  int layer, head, row, col;
  float value;
  char row_label[80], col_label[80];
} tt_pick;

// Finds the cell at (x, y) among lay's panels; labels use the trace's token strings.
bool tt_render_pick(const tt_layout *lay, const tt_trace *tr, int x, int y, tt_pick *out);
// A point (*x, *y) where tt_render_pick finds cell (row, col) of the topmost panel that
// shows it whole enough to point at (its centre), a panel of head first (the grid's heads);
// false when none does (not drawn, panned away, or cells narrower than a pixel there).
bool tt_layout_point_at(const tt_layout *lay, int head, int row, int col, int *x, int *y);

typedef struct tt_render tt_render;

// Opens the bundled fonts (assets/fonts). Needs no display.
tt_status tt_render_create(tt_render **out, tt_error *err);
void tt_render_destroy(tt_render *rc);
void tt_render_set_extras(tt_render *rc, const tt_render_extras *ex);  // copied

// Drops the textures made for the renderer last drawn on; call before destroying it.
void tt_render_forget(tt_render *rc);
// A window's frames: with budget_ms > 0, a frame makes new cell images (a heatmap, a grid's
// heads) for budget_ms from its first one; the rest are left for the next frames, their
// places filled, and tt_render_incomplete says so until a frame has drawn everything (the
// window then draws again at once). 0 (the default; figures always) draws everything.
#define TT_RENDER_FRAME_BUDGET_MS 6.0  // the window's: with the ~10 ms of the rest, ≤ 16 ms a frame
void tt_render_set_frame_budget(tt_render *rc, double budget_ms);
bool tt_render_incomplete(const tt_render *rc);
// Draws the view into area of r. lay (may be NULL) receives the panels for picking.
void tt_render_draw(tt_render *rc, SDL_Renderer *r, SDL_Rect area, const tt_trace *tr, const tt_view_state *st,
                    tt_layout *lay);

// The largest type size factor (font_scale) an area of w × h draws as asked: zoomed type
// keeps 40 × 25 units of room, and a larger factor is drawn as this one (at least 1).
float tt_render_font_scale_max(int w, int h);

// Headless: the view drawn at w × h into a new RGB24 surface (free with SDL_FreeSurface).
tt_status tt_render_surface(tt_render *rc, const tt_trace *tr, const tt_view_state *st, int w, int h, SDL_Surface **out,
                            tt_layout *lay, tt_error *err);
// Writes a surface as PNG atomically (temporary file, then rename).
tt_status tt_render_save_png(SDL_Surface *s, const char *path, tt_error *err);
// The same with text chunks: each (key, value) as tEXt (ISO 8859-1, when the value is
// ASCII) or iTXt (UTF-8), before IEND.
tt_status tt_render_save_png_text(SDL_Surface *s, const char *path, const char *const (*pairs)[2], int n,
                                  tt_error *err);
// Reads back the text chunks (tEXt and uncompressed iTXt) of a PNG file, or the entries
// of an SVG written by ttrace's <metadata>: calls fn for each (key, value). TT_ERR_FORMAT
// when the file is neither, or has none.
typedef void (*tt_meta_fn)(void *ctx, const char *key, const char *value);
tt_status tt_figure_read_meta(const char *path, tt_meta_fn fn, void *ctx, tt_error *err);
tt_status tt_render_png(tt_render *rc, const tt_trace *tr, const tt_view_state *st, int w, int h, const char *path,
                        tt_error *err);
// The same view as SVG elements (cells as rectangles, downsampled for large tensors).
tt_status tt_render_svg(tt_render *rc, const tt_trace *tr, const tt_view_state *st, int w, int h, const char *path,
                        tt_error *err);

// ---- fonts embedded in SVG and HTML (canvas/font_embed.c) ---------------------------------
// Every SVG carries @font-face rules with subsets of the bundled fonts holding just the
// glyphs it draws, so its text shows where the fonts are not installed. A page that holds
// several SVGs (export-html) shares one set: rc's SVGs then note their characters in u and
// embed nothing; the page writes tt_render_font_css once. Text names its fonts with
// tt_font_css_families (embedded faces first, then the installed ones).
typedef struct tt_font_usage tt_font_usage;  // the characters drawn, per face
tt_status tt_font_usage_create(tt_font_usage **out, tt_error *err);
void tt_font_usage_destroy(tt_font_usage *u);
void tt_font_usage_add(tt_font_usage *u, tt_font_kind k, const char *utf8);
const char *tt_font_css_families(tt_font_kind k);  // a CSS font-family list (bold: font-weight)
// u NULL: SVGs embed their own fonts again.
void tt_render_share_fonts(tt_render *rc, tt_font_usage *u);
// The @font-face rules (CSS text, no <style> around it) for the characters in u.
tt_status tt_render_font_css(tt_render *rc, const tt_font_usage *u, FILE *out, tt_error *err);

// ---- two traces side by side; lesson pages (compare.c, norms.c, lesson_page.c) --------
// Tensors a view computes from the traces (a − b, vector lengths per layer), kept between
// frames because the layout's panels point at them. One per window or export; reset it
// when a trace it was drawn with goes away.
typedef struct tt_derived tt_derived;
tt_status tt_derived_create(tt_derived **out, tt_error *err);
void tt_derived_destroy(tt_derived *d);
void tt_derived_reset(tt_derived *d);

// A second trace beside the first: the view of the state in both and, when the shown
// tensor has one shape in both, their difference a − b (diverging colours: red where a is
// larger); a and b share one colour scale. Hovering a cell shows a, b and a − b there.
typedef struct {
  const tt_trace *b;
  const char *label_a, *label_b;  // short names over the two sides ("weather", "B.safetensors")
} tt_compare;

// What the last drawing with d compared (the window's state dump, tests).
typedef struct {
  bool diff;      // a difference was drawn
  char hook[96];  // the tensor compared ("norms" for vector lengths)
  int64_t numel;
  float max_abs;        // max |a − b| over the cells finite in both
  int64_t max_at;       // flat index of that cell (-1: none)
  int64_t n_one_sided;  // cells finite in one trace only (e.g. masked in one)
  bool hover;           // the pointer is on a compared cell:
  char side;            // 'A', 'B' or 'D' (the difference panel)
  int head, row, col;   // its index (head -1 for matrices)
  float a, b, d;        // the three values there
} tt_compare_info;
void tt_derived_info(const tt_derived *d, tt_compare_info *out);

void tt_render_draw_compare(tt_render *rc, SDL_Renderer *r, SDL_Rect area, const tt_trace *a, const tt_compare *cmp,
                            const tt_view_state *st, tt_derived *d, tt_layout *lay);
// Headless: the comparison as a figure (or with the window's frame when st->frame).
tt_status tt_render_compare_png(tt_render *rc, const tt_trace *a, const tt_compare *cmp, const tt_view_state *st, int w,
                                int h, tt_derived *d, const char *path, tt_error *err);
// The same as SVG (texts say which trace they come from: data-tt-trace A, B or D).
tt_status tt_render_compare_svg(tt_render *rc, const tt_trace *a, const tt_compare *cmp, const tt_view_state *st, int w,
                                int h, tt_derived *d, const char *path, tt_error *err);

// One step of a lesson: the lesson title and "3 / 9" on top, the narration on the left,
// and on the right exactly the step's view (st), or a comparison, or the lengths of the
// token vectors through the layers.
typedef struct {
  const char *lesson_title;
  const char *step_title;     // "" when none
  const char *narration;      // paragraphs separated by blank lines; single newlines reflow
  int step, n_steps;          // step is 0-based
  int row;                    // the token row the narration is about, outlined (-1: none)
  const tt_compare *compare;  // NULL: one trace
  // "norms": the (T, C) tensor of each layer in a (and in compare->b), drawn as a table of
  // vector lengths, tokens × layers, instead of st's view.
  const tt_tensor *const *layers;
  const tt_tensor *const *layers_b;
  int n_layers;
  const char *jump;        // digits typed to jump to a step, or NULL
  const char *other_lang;  // what L switches to ("한국어"), or NULL when there is no twin
  const char *error;       // the step could not be shown: this message instead, or NULL
  bool narration_hidden;   // the view takes the whole width
  // Narration too long for its panel at the body type size is not shrunk further: it
  // scrolls. Lines scrolled (in, clamped to what there is to scroll); the painter writes
  // back how many lines are hidden below (narration_below; 0: it all shows).
  int narration_scroll;
  int *narration_below;
  bool no_key_line;  // no line of window keys at the bottom (a page for the browser)
  bool no_top_bar;   // no title, step count and progress on top (the browser's page has them)
} tt_lesson_page;
void tt_render_draw_lesson(tt_render *rc, SDL_Renderer *r, SDL_Rect area, const tt_trace *tr, const tt_view_state *st,
                           const tt_lesson_page *pg, tt_derived *d, tt_layout *lay);
tt_status tt_render_lesson_png(tt_render *rc, const tt_trace *tr, const tt_view_state *st, const tt_lesson_page *pg,
                               int w, int h, tt_derived *d, const char *path, tt_error *err);
tt_status tt_render_lesson_svg(tt_render *rc, const tt_trace *tr, const tt_view_state *st, const tt_lesson_page *pg,
                               int w, int h, tt_derived *d, const char *path, tt_error *err);

// ---- model-side data for views (extras.c): what the window, `ttrace render` and the demo
// add to the trace --------------------------------------------------------------------------
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
// The vocabulary id of text, which must be exactly one token of the tokenizer d loaded.
tt_status tt_viz_data_token_id(const tt_viz_data *d, const char *text, int32_t *id, tt_error *err);

// ---- the headless step sequence (sequence.c) ----------------------------------------------
// Writes the whole step sequence (every step; block steps for each layer, up to 4
// layers, else the first and last) as numbered PNGs (001-tokenize.png, ...) into dir,
// creating it, with type font_scale times the default (0: 1). Returns the number written in *n.
tt_status tt_render_write_sequence(const tt_trace *tr, const tt_render_extras *ex, const char *dir, int w, int h,
                                   tt_lang lang, tt_theme theme, float font_scale, int *n, tt_error *err);
// The same sequence as view states (frame on): fn gets each one with its file stem
// ("003-embed", "012-L0-softmax"); the first error it returns stops the walk.
typedef tt_status (*tt_sequence_fn)(void *ctx, const tt_view_state *vs, const char *name, tt_error *err);
tt_status tt_render_each_step(const tt_trace *tr, tt_lang lang, tt_theme theme, tt_sequence_fn fn, void *ctx, int *n,
                              tt_error *err);

// Points st at step i of tr's step list (pipeline.h): the hook for st->layer, the step's
// view, zoom and pan reset.
void tt_view_goto_step(tt_view_state *st, const tt_trace *tr, int i);
// Makes st->hook follow st->grad: with it, the gradient grad.<hook> where tr holds one
// (drawn as a heatmap, diverging around 0); without it, the value again. true when the
// hook shown is a gradient.
bool tt_view_follow_grad(tt_view_state *st, const tt_trace *tr);
// Whether tr holds any gradient (a grad.* tensor: a trace made with --grad).
bool tt_trace_has_grad(const tt_trace *tr);

#endif
