// sdl_cache: the SDL canvas's texture cache. A cached cell image draws the same pixels as
// drawing it afresh; the cell images it holds stay under TT_SDL_CELL_BYTES_MAX however many
// pan or zoom states are drawn (a new image each), the least recently drawn going first,
// so an image drawn every frame survives and the oldest does not.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/render/render_int.h"

enum { W = 1000, H = 1000, CELLS = 50, IMAGES = 120 };

// A CELLS x CELLS image whose colours depend on seed.
static void draw_cells(tt_canvas *cv, uint64_t key, int seed) {
  static tt_rgba rgb[CELLS * CELLS];
  for (int i = 0; i < CELLS * CELLS; i++)
    rgb[i] = (tt_rgba){(uint8_t)(i * 7 + seed), (uint8_t)(i / CELLS * 5 + seed * 3), (uint8_t)(seed * 11), 255};
  tt_cells c = {.rows = CELLS, .cols = CELLS, .rgb = rgb, .cell_w = (float)W / CELLS, .cell_h = (float)H / CELLS};
  cv->cells(cv, key, &c, (SDL_Rect){0, 0, W, H});
}

static void clear(SDL_Surface *s) {
  SDL_FillRect(s, NULL, SDL_MapRGBA(s->format, 1, 2, 3, 255));
}

// A software renderer on a surface, a fresh cache and the canvas over them (per test).
typedef struct {
  SDL_Surface *s;
  SDL_Renderer *r;
  tt_sdl_cache *cache;
  tt_canvas cv;
} cache_ctx;

static int setup(void **state) {
  cache_ctx *c = calloc(1, sizeof *c);
  c->s = SDL_CreateRGBSurfaceWithFormat(0, W, H, 32, SDL_PIXELFORMAT_ARGB8888);
  c->r = c->s ? SDL_CreateSoftwareRenderer(c->s) : NULL;
  c->cache = tt_sdl_cache_create();
  if (c->r && c->cache) tt_canvas_sdl(&c->cv, c->r, c->cache, NULL);
  *state = c;
  return c->r && c->cache ? 0 : -1;
}

static int teardown(void **state) {
  cache_ctx *c = *state;
  tt_sdl_cache_destroy(c->cache);
  if (c->r) SDL_DestroyRenderer(c->r);
  SDL_FreeSurface(c->s);
  free(c);
  return 0;
}

static void test_cached_pixels_match(void **state) {
  cache_ctx *c = *state;
  SDL_Surface *s = c->s;
  clear(s);
  draw_cells(&c->cv, 42, 5);  // drawn afresh (and cached)
  size_t bytes = (size_t)s->pitch * H;
  uint8_t *fresh = malloc(bytes);
  memcpy(fresh, s->pixels, bytes);
  clear(s);
  assert_true(c->cv.cells_cached(&c->cv, 42, (SDL_Rect){0, 0, W, H}));
  assert_memory_equal(s->pixels, fresh, bytes);
  assert_false(c->cv.cells_cached(&c->cv, 43, (SDL_Rect){0, 0, W, H}));  // another key: not there
  free(fresh);
}

static void test_cell_bytes_bounded(void **state) {
  cache_ctx *c = *state;
  tt_canvas *cv = &c->cv;
  SDL_Rect all = {0, 0, W, H};
  draw_cells(cv, 1, 0);  // the oldest, never drawn again
  draw_cells(cv, 2, 1);  // drawn every frame (the legend bar, another head)
  size_t most = 0;
  for (int i = 0; i < IMAGES; i++) {  // 120 images of 4 MB: 480 MB unbounded
    assert_true(cv->cells_cached(cv, 2, all));
    draw_cells(cv, 1000 + (uint64_t)i, i);
    size_t b = tt_sdl_cache_cell_bytes(c->cache);
    if (b > most) most = b;
  }
  assert_true(most <= TT_SDL_CELL_BYTES_MAX);
  assert_true(most >= TT_SDL_CELL_BYTES_MAX / 2);  // it does keep images up to the bound
  assert_true(cv->cells_cached(cv, 2, all));
  assert_true(cv->cells_cached(cv, 1000 + IMAGES - 1, all));  // the newest
  assert_false(cv->cells_cached(cv, 1, all));                 // the least recently drawn went
  assert_false(cv->cells_cached(cv, 1000, all));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_cached_pixels_match, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cell_bytes_bounded, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
