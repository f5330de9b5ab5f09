// zoomed: the window's frame with the interface's type enlarged (font scale 1.5 to 3, the
// window's Ctrl +) still draws the view, an attention pattern of a long prompt (12 heads,
// T = 512, more cells than pixels) as a square heatmap and as a grid of every head, at the
// sizes of laptops, projectors and large screens, with no text running off the edge; and
// the window's frame budget, which leaves such a grid's heads for the next frames, ends at
// the picture drawn whole.
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/model.h"
#include "render/render.h"

enum { H = 12, T = 512 };

// A (12, T, T) causal pattern: row i spread evenly over tokens 0..i.
static tt_trace *long_trace(void) {
  tt_trace *tr = tt_trace_create();
  tt_config cfg;
  tt_config_default(&cfg);
  char *json = tt_config_to_json(&cfg);
  tt_trace_set_meta(tr, "config", json);
  free(json);
  static int32_t ids[T];
  static char bufs[T][16];
  static const char *strs[T];
  for (int i = 0; i < T; i++) {
    ids[i] = 1000 + i;
    snprintf(bufs[i], sizeof bufs[i], " w%d", i);
    strs[i] = bufs[i];
  }
  tt_error err = {0};
  assert_int_equal(tt_trace_set_tokens(tr, ids, strs, T, &err), TT_OK);
  float *p = calloc((size_t)H * T * T, sizeof(float));
  for (int h = 0; h < H; h++)
    for (int i = 0; i < T; i++)
      for (int j = 0; j <= i; j++) p[((size_t)h * T + (size_t)i) * T + (size_t)j] = 1.0f / (float)(i + 1);
  tt_tensor t = {.name = "blocks.0.attn.hook_pattern", .dtype = TT_F32, .ndim = 3, .shape = {H, T, T}, .data = p};
  assert_int_equal(tt_trace_add(tr, &t, &err), TT_OK);
  free(p);
  return tr;
}

typedef struct {
  int w, h;
  float scale;
} screen;

static const screen screens[] = {{1600, 1000, 1.5f}, {1600, 1000, 2},   {1920, 1080, 2},
                                 {2560, 1600, 2},    {1280, 800, 2.5f}, {1920, 1080, 3}};

// What every test draws with: the trace, a render context and a layout (a group fixture).
typedef struct {
  tt_trace *tr;
  tt_render *rc;
  tt_layout *lay;
} zoom_ctx;

static int setup(void **state) {
  zoom_ctx *c = calloc(1, sizeof *c);
  tt_error err = {0};
  c->tr = long_trace();
  c->lay = calloc(1, sizeof *c->lay);
  *state = c;
  return tt_render_create(&c->rc, &err) == TT_OK && c->lay ? 0 : -1;
}

static int teardown(void **state) {
  zoom_ctx *c = *state;
  free(c->lay);
  tt_render_destroy(c->rc);
  tt_trace_destroy(c->tr);
  free(c);
  return 0;
}

// Draws the view at sc; returns the surface (free it) when keep, else NULL.
static SDL_Surface *draw(const zoom_ctx *c, const screen *sc, tt_view_kind view, bool keep) {
  tt_view_state vs;
  tt_view_state_init(&vs);
  vs.frame = true;
  vs.font_scale = sc->scale;
  tt_view_goto_step(&vs, c->tr, tt_step_find(c->tr, "blocks.0.attn.hook_pattern", NULL));
  vs.view = view;
  SDL_Surface *s = NULL;
  tt_error err = {0};
  assert_int_equal(tt_render_surface(c->rc, c->tr, &vs, sc->w, sc->h, &s, c->lay, &err), TT_OK);
  if (keep) return s;
  SDL_FreeSurface(s);
  return NULL;
}

// The heatmap: drawn, square although downsampled, and an eighth of the height at least.
static void test_zoomed_heatmap(void **state) {
  const zoom_ctx *c = *state;
  int downsampled = 0;
  for (size_t i = 0; i < sizeof screens / sizeof *screens; i++) {
    const screen *sc = &screens[i];
    draw(c, sc, TT_VIEW_HEATMAP, false);
    if (c->lay->n_panels < 1) fail_msg("%dx%d at font scale %g: no heatmap drawn", sc->w, sc->h, (double)sc->scale);
    SDL_Rect r = c->lay->panels[0].rect;
    if (r.w != r.h || r.h < sc->h / 8 || r.y + r.h > sc->h || r.x + r.w > sc->w)
      fail_msg("%dx%d at font scale %g: heatmap %dx%d at (%d, %d)", sc->w, sc->h, (double)sc->scale, r.w, r.h, r.x,
               r.y);
    downsampled += c->lay->panels[0].cell_h < 1;
  }
  assert_true(downsampled >= 3);  // more cells than pixels: the case the square is about
}

// The grid: every head drawn, each at least 48 pixels square.
static void test_zoomed_grid(void **state) {
  const zoom_ctx *c = *state;
  for (size_t i = 0; i < sizeof screens / sizeof *screens; i++) {
    const screen *sc = &screens[i];
    draw(c, sc, TT_VIEW_GRID, false);
    if (c->lay->n_panels != H)
      fail_msg("%dx%d at font scale %g: %d of %d heads drawn", sc->w, sc->h, (double)sc->scale, c->lay->n_panels, H);
    for (int h = 0; h < H; h++) {
      SDL_Rect r = c->lay->panels[h].rect;
      if (r.w < 48 || r.h < 48 || r.y + r.h > sc->h)
        fail_msg("%dx%d at font scale %g: head %d %dx%d at (%d, %d)", sc->w, sc->h, (double)sc->scale, h, r.w, r.h, r.x,
                 r.y);
    }
  }
}

// Nothing above the heatmap runs off the right edge: the header's lines and the view's
// one-line heading are cut to the width (the rightmost pixels stay background).
static void test_zoomed_text_fits(void **state) {
  const zoom_ctx *c = *state;
  for (size_t i = 0; i < sizeof screens / sizeof *screens; i++) {
    const screen *sc = &screens[i];
    SDL_Surface *s = draw(c, sc, TT_VIEW_HEATMAP, true);
    assert_int_equal(s->format->BytesPerPixel, 3);
    const uint8_t *bg = (const uint8_t *)s->pixels + (size_t)(s->w - 1) * 3;  // the top right corner
    for (int y = 0; y < c->lay->panels[0].rect.y; y++)
      for (int x = s->w - 3; x < s->w; x++) {
        const uint8_t *px = (const uint8_t *)s->pixels + (size_t)y * (size_t)s->pitch + (size_t)x * 3;
        if (memcmp(px, bg, 3) != 0)
          fail_msg("%dx%d at font scale %g: something drawn at the right edge, (%d, %d)", sc->w, sc->h,
                   (double)sc->scale, x, y);
      }
    SDL_FreeSurface(s);
  }
}

// One frame of the view drawn into s by rc (as the window draws, not as a figure).
static void frame(const zoom_ctx *c, tt_render *rc, SDL_Renderer *r, SDL_Surface *s, tt_view_kind view) {
  tt_view_state vs;
  tt_view_state_init(&vs);
  vs.frame = true;
  vs.font_scale = 1.5f;
  tt_view_goto_step(&vs, c->tr, tt_step_find(c->tr, "blocks.0.attn.hook_pattern", NULL));
  vs.view = view;
  tt_render_draw(rc, r, (SDL_Rect){0, 0, s->w, s->h}, c->tr, &vs, c->lay);
  SDL_RenderPresent(r);
}

// With a budget too small for a second image, every frame makes one new head: the first
// frame is incomplete, the frames after it fill the heads in, and the frame that has them
// all is the picture drawn with no budget, pixel for pixel; a figure is always whole.
static void test_zoomed_grid_budget(void **state) {
  const zoom_ctx *c = *state;
  tt_render *whole = NULL;
  tt_error err = {0};
  assert_int_equal(tt_render_create(&whole, &err), TT_OK);
  SDL_Surface *want = SDL_CreateRGBSurfaceWithFormat(0, 1600, 1000, 32, SDL_PIXELFORMAT_ARGB8888);
  SDL_Surface *got = SDL_CreateRGBSurfaceWithFormat(0, 1600, 1000, 32, SDL_PIXELFORMAT_ARGB8888);
  SDL_Renderer *rw = SDL_CreateSoftwareRenderer(want), *rg = SDL_CreateSoftwareRenderer(got);
  assert_non_null(rw);
  assert_non_null(rg);
  frame(c, whole, rw, want, TT_VIEW_GRID);
  assert_false(tt_render_incomplete(whole));

  tt_render_set_frame_budget(c->rc, 1e-6);
  int frames = 0;
  do frame(c, c->rc, rg, got, TT_VIEW_GRID);
  while (tt_render_incomplete(c->rc) && ++frames < 2 * H);
  assert_int_equal(c->lay->n_panels, H);
  assert_true(frames >= H - 1 && frames < 2 * H);  // one head a frame, then whole
  assert_int_equal(memcmp(got->pixels, want->pixels, (size_t)want->pitch * (size_t)want->h), 0);
  frame(c, c->rc, rg, got, TT_VIEW_GRID);  // nothing new: whole at once
  assert_false(tt_render_incomplete(c->rc));

  tt_render_forget(c->rc);
  SDL_Surface *fig = draw(c, &(screen){1600, 1000, 1.5f}, TT_VIEW_GRID, true);
  tt_render_set_frame_budget(c->rc, 0);
  SDL_Surface *fig_whole = draw(c, &(screen){1600, 1000, 1.5f}, TT_VIEW_GRID, true);
  assert_int_equal(memcmp(fig->pixels, fig_whole->pixels, (size_t)fig->pitch * (size_t)fig->h), 0);
  SDL_FreeSurface(fig);
  SDL_FreeSurface(fig_whole);
  tt_render_forget(c->rc);
  SDL_DestroyRenderer(rw);
  SDL_DestroyRenderer(rg);
  SDL_FreeSurface(want);
  SDL_FreeSurface(got);
  tt_render_forget(whole);
  tt_render_destroy(whole);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_zoomed_heatmap),
      cmocka_unit_test(test_zoomed_grid),
      cmocka_unit_test(test_zoomed_text_fits),
      cmocka_unit_test(test_zoomed_grid_budget),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
