// render_int: what the painters share inside the render module: colours, fonts, the
// canvas (SDL or SVG), matrix views of tensors and the colour scale.
#ifndef TT_RENDER_INT_H
#define TT_RENDER_INT_H

#include <SDL_ttf.h>
#include <string.h>

#include "model/model.h"
#include "cost/cost.h"
#include "lens/lens.h"
#include "render.h"

typedef struct {
  uint8_t r, g, b, a;
} tt_rgba;

// ---- colour maps (colormap.c) ------------------------------------------------------------
tt_rgba tt_cmap_viridis(float t);    // t in [0, 1]
tt_rgba tt_cmap_diverging(float t);  // t in [-1, 1]: blue, white at 0, red

// ---- theme (theme.c) -----------------------------------------------------------------------
typedef struct {
  tt_rgba bg, panel, fg, dim, accent, accent_bg, grid, masked, masked_line, highlight, warn;
} tt_palette;
const tt_palette *tt_palette_for(tt_theme th);

// Integer max and min, for layouts.
static inline int tt_max_i(int a, int b) {
  return a > b ? a : b;
}
static inline int tt_min_i(int a, int b) {
  return a < b ? a : b;
}

// ---- fonts and text (text.c) ----------------------------------------------------------------
typedef struct tt_fonts tt_fonts;
tt_status tt_fonts_open(tt_fonts **out, tt_error *err);
void tt_fonts_close(tt_fonts *f);
// The bundled font files (assets/fonts), as tt_fonts_open reads them.
enum {
  TT_FONT_FILE_SANS,
  TT_FONT_FILE_BOLD,
  TT_FONT_FILE_MONO,
  TT_FONT_FILE_HANGUL,
  TT_FONT_FILE_HANGUL_BOLD,
  TT_FONT_FILES
};
const char *tt_fonts_file_data(const tt_fonts *f, int file, size_t *len);
// Where SVG canvases over f note the glyphs they draw when a page holds several SVGs and
// embeds their fonts once (tt_render_share_fonts); NULL: each SVG embeds its own.
tt_font_usage *tt_fonts_shared_usage(const tt_fonts *f);
void tt_fonts_set_shared_usage(tt_fonts *f, tt_font_usage *u);
// ---- font subsets for embedding (font_embed.c) -------------------------------------------
// Writes the @font-face rules for the glyphs in u, each face a base64 subset of f's files.
tt_status tt_font_embed_css(const tt_fonts *f, const tt_font_usage *u, FILE *out, tt_error *err);
// One run of text drawn with one face.
typedef struct {
  TTF_Font *font;
  int start, len;  // bytes of the string
  int x;           // pixel offset of the run
  int dy;          // vertical offset so that baselines line up
} tt_text_run;
// Splits s into runs (a face per glyph: DejaVu, else Nanum); returns the count (≤ max).
int tt_text_layout(tt_fonts *f, const char *s, int px, tt_font_kind k, tt_text_run *runs, int max, int *w, int *h);
void tt_text_size(tt_fonts *f, const char *s, int px, tt_font_kind k, int *w, int *h);
int tt_text_width(tt_fonts *f, const char *s, int px, tt_font_kind k);
// The largest type from px down to least in which s fits max_w pixels on one line (least
// where none does).
int tt_text_px_fit(tt_fonts *f, const char *s, tt_font_kind k, int px, int least, int max_w);
// Copies s into buf, cut with "…" so it is at most max_w pixels wide.
const char *tt_text_fit(tt_fonts *f, const char *s, int px, tt_font_kind k, int max_w, char *buf, size_t len);

// ---- canvas (canvas_sdl.c, canvas_svg.c) -----------------------------------------------------
enum { TT_ALIGN_LEFT = 0, TT_ALIGN_CENTER = 1, TT_ALIGN_RIGHT = 2 };

// A block of cells to draw into a rectangle: colours (rows × cols, row-major) and a mask
// flag per cell; pixel (x, y) of dst shows cell (floor((y + off_y) / cell_h),
// floor((x + off_x) / cell_w)). Grid lines separate cells when they are large.
typedef struct {
  int rows, cols;
  const tt_rgba *rgb;
  const uint8_t *masked;  // 1: drawn hatched (e.g. −inf under the causal mask)
  float cell_w, cell_h, off_x, off_y;
  bool grid;
  tt_rgba grid_rgb, mask_bg, mask_line;
} tt_cells;

typedef struct tt_canvas tt_canvas;
struct tt_canvas {
  void (*fill)(tt_canvas *cv, int x, int y, int w, int h, tt_rgba c);
  void (*line)(tt_canvas *cv, int x0, int y0, int x1, int y1, tt_rgba c);
  // Text with its top-left at (x, y); rot90 draws it reading upwards, (x, y) then being
  // the top-left of the rotated box.
  void (*text)(tt_canvas *cv, int x, int y, const char *s, int px, tt_font_kind k, tt_rgba c, bool rot90);
  // Cell images: cached under key when the backend keeps textures.
  bool (*cells_cached)(tt_canvas *cv, uint64_t key, SDL_Rect dst);
  void (*cells)(tt_canvas *cv, uint64_t key, const tt_cells *cells, SDL_Rect dst);
  void (*clip)(tt_canvas *cv, const SDL_Rect *r);  // NULL: no clipping
  // A continuous vertical colour ramp through n colours, the first at the top (NULL: the
  // backend has none; draw cells instead).
  void (*vgradient)(tt_canvas *cv, SDL_Rect r, const tt_rgba *colours, int n);
  int max_cells;  // how many cells per axis a cell image may have (SVG keeps files small)
  // A window's frame budget (tt_render_set_frame_budget): cell images not yet made get
  // budget_ns from the start of the frame's first (0: no limit); past that, the others are
  // left for a later frame, their places filled (the first is always made: every frame makes
  // progress). *deferred counts those left (the frame is then incomplete).
  uint64_t budget_ns, deadline_ns;
  int images_made;
  int *deferred;
  tt_fonts *fonts;
  void *impl;
  // What the texts say, for a reader of the output (the SVG canvas writes them as the
  // data-tt and data-tt-panel attributes; tt_note, tt_note_scope).
  char note[160];   // the next text only: its kind and indices ("cell r=2 c=0")
  char scope[256];  // every text until changed: what they belong to ("hook=... head=3")
  char trace[4];    // which trace of a comparison the texts come from: "A", "B", "D" (a − b)
};
// Says what the next text drawn is: a kind and key=value indices, never its value
// ("cell r=2 c=0", "label axis=T i=3", "tick i=0"). Cleared by that text.
void tt_note(tt_canvas *cv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
// Says what the following texts belong to ("panel=heatmap hook=blocks.0.attn.hook_pattern
// head=3 trace=A"), until the next call; NULL clears it.
void tt_note_scope(tt_canvas *cv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// Canvas over an SDL renderer; the cache of text and cell textures lives in rc.
typedef struct tt_sdl_cache tt_sdl_cache;
tt_sdl_cache *tt_sdl_cache_create(void);
// Cell images of a frame drawn on this cache's canvases after budget_ms wait for a later
// frame (0: none, the default: headless figures always draw everything).
void tt_sdl_cache_set_budget(tt_sdl_cache *c, double budget_ms);
// How many cell images the last canvas made on c left for a later frame.
int tt_sdl_cache_deferred(const tt_sdl_cache *c);
void tt_sdl_cache_destroy(tt_sdl_cache *c);
void tt_sdl_cache_forget(tt_sdl_cache *c);  // drops every texture (renderer going away)
// Bytes held by the cached cell images (bounded: the least recently drawn go first).
size_t tt_sdl_cache_cell_bytes(const tt_sdl_cache *c);
#define TT_SDL_CELL_BYTES_MAX ((size_t)128 << 20)
void tt_canvas_sdl(tt_canvas *cv, SDL_Renderer *r, tt_sdl_cache *cache, tt_fonts *fonts);
// Canvas that writes SVG elements to fp; state lives in svg (owned by the caller).
typedef struct {
  FILE *fp;
  int n_clips;
  bool group_open;
  int n_patterns;
  uint32_t pattern_key[8];
  tt_font_usage *usage;  // where the drawn characters are noted (the shared set, or own)
  tt_font_usage *own;    // this SVG's own set, embedded at the end; NULL when shared
  bool no_memory;
  int n_gradients;
  int w, h;            // the canvas
  int x0, y0, x1, y1;  // what was drawn, apart from fills of the whole canvas (x1 < x0: nothing)
} tt_svg_state;
void tt_canvas_svg(tt_canvas *cv, tt_svg_state *svg, FILE *fp, tt_fonts *fonts, int w, int h);
// Closes the SVG, first writing the @font-face rules of the glyphs it drew (unless the
// fonts are shared, tt_render_share_fonts).
tt_status tt_canvas_svg_end(tt_canvas *cv, tt_error *err);
// The svg element's size attributes for a view box (x, y, w, h) of the drawing, as the
// header writes them.
void tt_svg_size_attrs(char *buf, size_t len, int x, int y, int w, int h);
// Writes the SVG document body (n bytes, as the canvas wrote it) to out with its view box
// cut to what was drawn, margin pixels around it (inside the canvas).
void tt_svg_write_cropped(FILE *out, const char *body, size_t n, const tt_svg_state *sv, int margin);

// Drawing helpers on any canvas.
void tt_draw_text(tt_canvas *cv, int x, int y, const char *s, int px, tt_font_kind k, tt_rgba c,
                  int align);                                                     // x is the left, centre or right edge
void tt_draw_rect(tt_canvas *cv, int x, int y, int w, int h, tt_rgba c);          // outline, 1 px
void tt_draw_frame(tt_canvas *cv, int x, int y, int w, int h, tt_rgba c, int t);  // outline, t px
// The height of one line of a paragraph of px type (tt_draw_para's line pitch).
static inline int tt_para_line(int px) {
  return px * 13 / 10;
}
// Word-wrapped paragraph inside width w; returns the height used.
int tt_draw_para(tt_canvas *cv, int x, int y, int w, const char *s, int px, tt_font_kind k, tt_rgba c);
// The height tt_draw_para would use, drawing nothing.
int tt_para_height(const tt_canvas *cv, int w, const char *s, int px, tt_font_kind k);
// The same in at most max_h pixels: the last line that fits ends with what is left of the
// text cut with "…" (a line break in it cut there too).
int tt_draw_para_cut(tt_canvas *cv, int x, int y, int w, const char *s, int px, tt_font_kind k, tt_rgba c, int max_h);
// Outline of cell (row, col) of a drawn panel, clipped to it: a frame around cells of 4 px
// and more, else a cross of 1 px lines through the cell.
void tt_draw_cell_mark(tt_canvas *cv, const tt_panel *pn, int row, int col, tt_rgba c);
// A box of text lines next to the pointer (mx, my), below right or, where it would leave
// area, above / left of it: panel fill, 2 px highlight frame, u the spacing unit.
typedef struct {
  const char *s;
  int px;
  tt_font_kind k;
  tt_rgba c;
  const char *note;  // what the line is, for readers of SVG (tt_note), or NULL
} tt_tip_line;
void tt_draw_tooltip(tt_canvas *cv, const tt_palette *pal, SDL_Rect area, int mx, int my, int u,
                     const tt_tip_line *lines, int n);

// ---- provenance (provenance.c) -------------------------------------------------------------
#define TT_SVG_META_NS "https://ttrace.invalid/figure-metadata"
// The (key, value) pairs as a <metadata> element (nothing when n is 0).
void tt_svg_write_meta(FILE *fp, const char *const (*pairs)[2], int n);

// ---- headless drawing (export.c) -----------------------------------------------------------
// Type size for an area: large enough for a projector, scaled with the area, times the
// state's font_scale, as far as the area keeps 40 × 25 units of room (1280 × 720 at × 2
// draws as × 1.6).
int tt_unit_for(const tt_view_state *st, int w, int h);
// The unit u where a part of the page has room for at most `most`: u when it fits, else
// less, but never under the unzoomed unit (u / font_scale). Zoomed type (the window's
// Ctrl +) then shrinks back in the window's header and view before it crowds out the cells.
int tt_unit_fit(const tt_view_state *st, int u, int most);

// The type scale: every text size and text line of a drawing, named, from its unit u
// (tt_unit_for: the area and st->font_scale). Painters take sizes from here, never as
// ratios of u.
typedef struct {
  int display;     // u·16/10  the window header's step title and counter
  int formula;     // u·14/10  the step's formula
  int title;       // u·13/10  view titles, key-table titles, a tooltip's value
  int heading;     // u·12/10  lesson narration, headings of bars and comparisons
  int large;       // u·11/10  panel titles, the shapes line
  int body;        // u        paragraphs, table rows, cell labels
  int cell;        // u·85/100 the inspector's lines, values in small cells, narrow panels
  int label;       // u·9/10   axis titles and ticks, notes, legends
  int small;       // u·8/10   fine print, slider ticks
  int big;         // u·3/2    letters over panels (Q K V), the prompt being typed
  int line;        // u·3/2    one line of body or label text with its gap
  int line_loose;  // u·17/10  a line in key tables and under formulas
} tt_type;
tt_type tt_type_for(int u);
// The unit for a part drawn in smaller type (a comparison's panels, a norm's two heatmaps):
// 85% of u, but never below 18 px (labels 16 px, cell numbers 14 px: the least a projector
// at 1280 × 800 shows readably) unless u itself is smaller.
int tt_unit_smaller(int u);
// The smallest type of cell numbers for unit u (numbers smaller than it are not drawn).
int tt_cell_number_min(int u);
// Draws with fn into a software renderer of w × h (textures in a private cache) and
// returns the picture as an RGB24 surface in *out (free it); *out is untouched on failure.
typedef void (*tt_headless_fn)(tt_render *rc, SDL_Renderer *r, SDL_Rect area, void *ctx);
tt_status tt_headless_surface(tt_render *rc, int w, int h, tt_headless_fn fn, void *ctx, SDL_Surface **out,
                              tt_error *err);
// The bounding box of the pixels of s that differ from bg, grown by margin, inside s.
SDL_Rect tt_content_box(SDL_Surface *s, tt_rgba bg, int margin);
// *s cut to box (a new surface; the old one freed).
tt_status tt_crop_surface(SDL_Surface **s, SDL_Rect box, tt_error *err);
// A figure file drawn at w × h: cut to what was drawn when st->figure, with st's provenance.
tt_status tt_figure_png(tt_render *rc, const tt_view_state *st, int w, int h, tt_headless_fn fn, void *ctx,
                        const char *path, tt_error *err);
typedef void (*tt_svg_fn)(tt_render *rc, tt_canvas *cv, SDL_Rect area, void *ctx);
tt_status tt_figure_svg(tt_render *rc, const tt_view_state *st, int w, int h, tt_svg_fn fn, void *ctx, const char *path,
                        tt_error *err);
// The same picture written to path as PNG (atomically).
tt_status tt_headless_png(tt_render *rc, int w, int h, tt_headless_fn fn, void *ctx, const char *path, tt_error *err);

// ---- tensors as matrices (data.c) ---------------------------------------------------------
// Element i of t as a float, any dtype the format has; F32 (every recorded hook) read in
// place, inline, since the cell images and colour scales read millions of them.
float tt_tensor_at_any(const tt_tensor *t, int64_t i);
static inline float tt_tensor_at(const tt_tensor *t, int64_t i) {
  if (t->dtype != TT_F32) return tt_tensor_at_any(t, i);
  float v;
  memcpy(&v, (const unsigned char *)t->data + (size_t)i * sizeof v, sizeof v);  // the data may be unaligned
  return v;
}

typedef struct {
  const tt_tensor *t;
  int64_t offset, row_stride;
  int rows, cols;
  int row_axis, col_axis;  // axis letters
  int slice;               // the head for head-major tensors, else -1
} tt_mat;
static inline float tt_mat_at(const tt_mat *m, int r, int c) {
  return tt_tensor_at(m->t, m->offset + (int64_t)r * m->row_stride + c);
}
// The axes letters of a hook ("H,T,T" → "HTT"), from the catalogue, else from the shape.
void tt_hook_axes(const tt_trace *tr, const tt_tensor *t, char *axes, size_t len);
// Hook names through the catalogue (trace/hooks.h). The tensor `suffix` of block `layer`
// (ignored outside the blocks) in tr, NULL when not recorded or not a catalogue hook;
// the same hook as `name` in another block (NULL when name is not a block hook); the
// block of a full name (-1 outside the blocks or not a catalogue hook); its layer-free
// suffix ("attn.hook_pattern"; the name itself when not a catalogue hook).
const tt_tensor *tt_find_hook(const tt_trace *tr, int layer, const char *suffix);
const char *tt_hook_relayer(const char *name, int layer, char *buf, size_t len);
int tt_hook_block(const char *name);
const char *tt_hook_suffix(const char *name);
// A matrix view of t: head-major (H, T, X) tensors give head `head` (clamped);
// 1-D tensors are one column. false for tensors with more dims.
bool tt_mat_of(const tt_trace *tr, const tt_tensor *t, int head, tt_mat *m);
// Label of index i along an axis ('T': "3 nice", 'V': the token text when known).
const char *tt_axis_label(const tt_trace *tr, const tt_render_extras *ex, int axis, int i, char *buf, size_t len);
// The prompt's tokens as text (token_text.c): token i's bytes (its string unescaped);
// its label, a piece of a character written with its bytes and the character they spell
// ("␣‹EB:먹›", tokenizer.h tt_bytes_label); a next-token candidate (a display string of the
// tokenizer) after the prompt up to token pos (-1: no context); whether token i begins
// inside a character that token i − 1 began.
size_t tt_token_bytes(const tt_trace *tr, int i, char *buf, size_t cap);
const char *tt_token_label(const tt_trace *tr, int i, char *buf, size_t len);
const char *tt_candidate_label(const tt_trace *tr, int pos, const char *display, char *buf, size_t len);
bool tt_token_splits_before(const tt_trace *tr, int i);
// A token as displayed: a leading space as "␣", newlines as "↵".
const char *tt_token_display(const char *tok, char *buf, size_t len);

// Colour scale of a whole tensor (all heads): sequential for probabilities and other
// non-negative values, diverging and symmetric around zero otherwise; extreme outliers
// are clipped (the ends of the legend then say ≤ / ≥). Gradients (grad.*) are always
// diverging around zero, whatever the hook, and the legend says they are gradients.
typedef struct {
  bool diverging;
  float lo, hi;
  bool clipped;
  bool has_masked;
  int qty;        // what the values are: a TT_S_QTY_* string for the legend (0: none)
  bool gradient;  // the tensor is a gradient ∂L/∂x (a "grad." name)
} tt_scale;
void tt_scale_of(const tt_tensor *t, const char *hook, tt_scale *s);
// What a hook's values are, for the legend: a TT_S_QTY_* string.
int tt_scale_quantity(const char *hook);
// The same, remembered per tensor in the render context (painters call this one).
typedef struct tt_paint tt_paint;
void tt_scale_get(tt_paint *p, const tt_tensor *t, const char *hook, tt_scale *s);
tt_rgba tt_scale_color(const tt_scale *s, float v);
// Value formatted compactly for cells and labels ("0.25", "-12.3", "1.2e+03", "−∞").
const char *tt_fmt_value(float v, char *buf, size_t len);
// One number by a printf format ("%.4f", "%+.3f"): every minus sign U+2212 (also in the
// exponent), infinities as ∞ / −∞. Every number a painter prints goes through one of these.
const char *tt_fmt_num(double v, const char *fmt, char *buf, size_t len);
// Turns each ASCII '-' that is a number's sign in s (before a digit, '.' or ∞, not inside a
// word) into U+2212, in place, within len bytes.
void tt_minus_signs(char *s, size_t len);

// ---- the render context ---------------------------------------------------------------------
#define TT_SCALE_CACHE 48
typedef struct {
  const void *data;
  int64_t numel;
  tt_scale s;
} tt_scale_entry;

#define TT_NORM_CACHE 256  // a 12-block model's gradient norms are 87 (36 residual, 51 weights)
typedef struct {
  const void *data;
  int64_t numel;
  double norm;
} tt_norm_entry;

struct tt_render {
  tt_fonts *fonts;
  tt_sdl_cache *cache;
  tt_render_extras ex;
  tt_tensor wte_view;  // ex.wte as a tensor: panels point at it after painting
  // The collapse view's x·W + b, kept while it shows the same FFN output (panels point at it).
  tt_ffn_collapse collapse;
  const void *collapse_of;  // data of the hook_mlp_out it was computed for (NULL: none)
  int collapse_layer;
  char collapse_name[48];  // "collapse.blocks.L": what the SVG says its cells belong to
  tt_tensor collapse_view;
  tt_lens lens;            // the lens view's lens, kept while it shows the same trace
  const void *lens_of;     // data of the blocks.0.hook_resid_pre it was computed from (NULL: none)
  tt_neighbours neigh;     // the neighbours view's last answer, for the W_E and k below
  const float *neigh_wte;  // NULL: none yet
  int neigh_k;
  tt_scale_entry scales[TT_SCALE_CACHE];
  int next_scale;
  // The gradient-norm view's norms (‖g‖ of each tensor it lists), computed once per trace:
  // 124 M floats of GPT-2 small's weight gradients took 0.25 s, every frame. Cleared with
  // the scales.
  tt_norm_entry norms[TT_NORM_CACHE];
  int n_norms;
  bool hover_drawn;  // the figure being drawn showed its --hover tooltip (tt_figure_* refuse one without)
};
// The Euclidean norm of t's values (in double), from rc's cache when it has t's.
double tt_norm_cached(tt_render *rc, const tt_tensor *t);

// What every painter gets.
struct tt_paint {
  tt_canvas *cv;
  const tt_trace *tr;
  const tt_view_state *st;
  const tt_render_extras *ex;
  const tt_palette *pal;
  tt_layout *lay;  // never NULL inside painters
  int unit;        // base type size in pixels for this area
  tt_render *rc;
};

// Painters (one file each). Each draws into r.
void tt_paint_view(tt_paint *p, SDL_Rect r);  // dispatches on the view kind (views.c)
void tt_paint_heatmap(tt_paint *p, SDL_Rect r, const tt_tensor *t, int head, bool table);
void tt_paint_grid(tt_paint *p, SDL_Rect r, const tt_tensor *t);
// A (T, V) tensor: per token the top columns with their token texts, and the vocabulary
// in bins drawn by their largest and smallest values (logits.c; the heatmap of a V axis).
void tt_paint_logits(tt_paint *p, SDL_Rect r, const tt_tensor *t);
void tt_paint_overview(tt_paint *p, SDL_Rect r, const char *suffix);
void tt_paint_tokens(tt_paint *p, SDL_Rect r);
void tt_paint_bars(tt_paint *p, SDL_Rect r);
void tt_paint_layernorm(tt_paint *p, SDL_Rect r, const char *prefix);
void tt_paint_gelu(tt_paint *p, SDL_Rect r, int layer);
// The activation function a of the FFN at x (gelu.c).
double tt_activation(tt_act_kind a, double x);
void tt_paint_embed(tt_paint *p, SDL_Rect r);
void tt_paint_positions(tt_paint *p, SDL_Rect r);
// A residual step (hook: blocks.L.hook_resid_mid or hook_resid_post) as h + o = h' (h' + m =
// h'') beside each other (embed.c); false, having drawn nothing, where the config does
// not make it a plain sum (no residual, post-LN) or a tensor is missing.
bool tt_paint_residual(tt_paint *p, SDL_Rect r, const char *hook);
void tt_paint_qkv(tt_paint *p, SDL_Rect r, int layer, int head);
void tt_paint_collapse(tt_paint *p, SDL_Rect r, int layer);  // painters/collapse.c
// Generation traces (ttrace generate -o): the timeline of generated tokens and the
// candidates each was drawn from (timeline.c); one layer/head's KV cache after the decode
// step st->hook names (decode.S.…; any other hook: after the prompt pass) (kvcache.c).
void tt_paint_timeline(tt_paint *p, SDL_Rect r);
void tt_paint_kvcache(tt_paint *p, SDL_Rect r, int layer, int head);

void tt_paint_gradnorm(tt_paint *p, SDL_Rect r);  // ‖∇‖ through the model (gradnorm.c)
// The window's frame (frame.c): navigator, formula and explanation, and the view in the rest,
// drawn by view (NULL: tt_paint_view) with p's type fitted to that area; ctx is view's own.
typedef void (*tt_view_painter)(tt_paint *p, SDL_Rect r, void *ctx);
void tt_paint_frame(tt_paint *p, SDL_Rect r, tt_view_painter view, void *ctx);
void tt_paint_inspector(tt_paint *p, SDL_Rect r);  // hovered and pinned cell (inspect.c)
// The hovered cell (views.c; a view's and a comparison's tooltips): the one under the
// pointer, or a figure's --hover cell (st->hover_row, hover_col) at its centre
// (tt_layout_point_at); false when neither is on a drawn cell.
bool tt_hover_pick(const tt_paint *p, tt_pick *pk, int *mx, int *my);
// A hovered cell's tooltip at (mx, my): its lines said to belong to t at head (the SVG's
// panel=hover scope, which tests/numbers reads), and noted as drawn for tt_figure_*.
void tt_draw_cell_tooltip(tt_paint *p, SDL_Rect area, int mx, int my, const tt_tip_line *lines, int n,
                          const tt_tensor *t, int head);
// "name[h, r, c]", "name[r, c]" or "name[r]" by t's rank.
void tt_cell_index_text(const tt_tensor *t, int head, int row, int col, char *buf, size_t len);
void tt_paint_lens(tt_paint *p, SDL_Rect r);  // painters/lens.c
void tt_paint_cost(tt_paint *p, SDL_Rect r);  // painters/cost.c
// The Llama block's parts: RoPE of one layer and head (rope.c), the K/V head groups and
// the cache they save (gqa.c), SwiGLU at st->position (swiglu.c), GPT-2's and Llama's step
// lists side by side with both models' shapes (blocks.c).
void tt_paint_rope(tt_paint *p, SDL_Rect r, int layer, int head);
void tt_paint_gqa(tt_paint *p, SDL_Rect r, int head);
void tt_paint_swiglu(tt_paint *p, SDL_Rect r, int layer);
void tt_paint_blocks(tt_paint *p, SDL_Rect r);
void tt_paint_neighbours(tt_paint *p, SDL_Rect r);        // painters/neighbours.c
void tt_paint_gates(tt_paint *p, SDL_Rect r, int layer);  // painters/gates.c
// The pinned cell's arithmetic for a gradient (inspect_grad.c): lines for the inspector to
// draw, for grad.hook_logits, grad.*.attn.hook_attn_scores(_scaled) and grad.*.attn.hook_pattern;
// the count (0: no arithmetic for this tensor).
typedef enum { TT_PIN_STEP, TT_PIN_MONO, TT_PIN_DIM, TT_PIN_RESULT, TT_PIN_WARN } tt_pin_style;
typedef struct {
  char note[48];  // what the line is, for the SVG's data-tt ("pin_g_p"); "" for none
  char text[240];
  tt_pin_style style;
} tt_pin_line;
int tt_grad_pin_lines(const tt_trace *tr, tt_lang lang, const char *hook, int head, int i, int j, tt_pin_line *out,
                      int max);
void tt_paint_help(tt_paint *p, SDL_Rect r);   // key overlay (frame.c)
void tt_paint_knobs(tt_paint *p, SDL_Rect r);  // the what-if panel, st->knob_rows (frame.c)
// The boxed key table of a help overlay (title "Keys") in r, its top `top` below r.y; rows
// are (keys, what they do), the second column at col2_pct % of the box width; row `skip`
// (-1: none) is left out (frame.c).
void tt_paint_key_table(tt_paint *p, SDL_Rect r, int top, const char *const (*rows)[2], int n, int col2_pct, int skip);
// The bottom line: st->status when there is one (accent), else keys (dim), cut to fit (frame.c).
void tt_paint_key_line(tt_paint *p, SDL_Rect r, const char *keys);

// The panel with the main matrix, drawn by the heatmap painter: cells and the figure parts.
// Draws the colour legend (vertical bar with numbers, the quantity along its side) into r;
// tt_legend_width is the width it needs beside a plot, tt_legend_min_height the least
// height it draws in (with 2 numbers; 5 from about twice that). The titled ones put title
// along the side instead of the quantity.
void tt_paint_legend(tt_paint *p, SDL_Rect r, const tt_scale *s);
void tt_paint_legend_titled(tt_paint *p, SDL_Rect r, const tt_scale *s, const char *title);
int tt_legend_width(tt_paint *p, const tt_scale *s);
int tt_legend_width_titled(tt_paint *p, const tt_scale *s);
int tt_legend_min_height(tt_paint *p, const tt_scale *s);
// A title line and a subtitle line at the top of r; returns the height used.
int tt_paint_title(tt_paint *p, SDL_Rect r, const char *title, const char *subtitle);
// A panel's cells (no labels) for matrix m in dst; registers the panel for picking.
// Returns the panel index (or -1 when the layout is full).
typedef struct {
  float row0, col0;        // first visible cell
  int vis_rows, vis_cols;  // visible cells (≥ 1)
  bool numbers;            // print values inside cells when they fit
  bool table;              // number cells on a pale background
  int layer, head;
} tt_cells_opts;
int tt_paint_cells(tt_paint *p, SDL_Rect dst, const tt_mat *m, const tt_scale *s, const tt_cells_opts *o);
// One cell (row, col) of m drawn on its own at r (a top column of a vocabulary, a bar),
// registered as a panel of one cell for picking and pinning; the panel index or -1.
int tt_pick_cell(tt_paint *p, SDL_Rect r, const tt_mat *m, int row, int col);
// Row labels left of a drawn panel and column labels under it.
void tt_paint_axis_labels(tt_paint *p, const tt_panel *pn, const tt_mat *m, int px, int row_w, int col_h);
// The fused Q/K/V tensor (thirds.c): C when t is a blocks.L.attn.hook_qkv of shape (T, 3C),
// else 0; the space its letters need above the cells; separators at C and 2C and Q, K, V
// over the thirds of a drawn panel.
int tt_qkv_third(const tt_tensor *t);
// The prompt's BPE merges grouped by pre-token, fitted into r (merges.c).
void tt_paint_merges(tt_paint *p, SDL_Rect r);
int tt_thirds_height(int u);
void tt_paint_thirds(tt_paint *p, const tt_panel *pn, int C);
// Which visible window of a matrix a zoom/pan state gives for a plot of w × h pixels.
void tt_view_window(const tt_view_state *st, int rows, int cols, int w, int h, bool square, int unit, tt_cells_opts *o);

// 64-bit FNV-1a over bytes, for cache keys.
uint64_t tt_hash(uint64_t h, const void *p, size_t n);

#endif
