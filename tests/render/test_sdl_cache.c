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

static void test_cached_pixels_match(void **state) {
  (void)state;
  SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, W, H, 32, SDL_PIXELFORMAT_ARGB8888);
  SDL_Renderer *r = SDL_CreateSoftwareRenderer(s);
  tt_sdl_cache *cache = tt_sdl_cache_create();
  tt_canvas cv;
  tt_canvas_sdl(&cv, r, cache, NULL);
  clear(s);
  draw_cells(&cv, 42, 5);  // drawn afresh (and cached)
  size_t bytes = (size_t)s->pitch * H;
  uint8_t *fresh = malloc(bytes);
  memcpy(fresh, s->pixels, bytes);
  clear(s);
  assert_true(cv.cells_cached(&cv, 42, (SDL_Rect){0, 0, W, H}));
  assert_memory_equal(s->pixels, fresh, bytes);
  assert_false(cv.cells_cached(&cv, 43, (SDL_Rect){0, 0, W, H}));  // another key: not there
  free(fresh);
  tt_sdl_cache_destroy(cache);
  SDL_DestroyRenderer(r);
  SDL_FreeSurface(s);
}

static void test_cell_bytes_bounded(void **state) {
  (void)state;
  SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, W, H, 32, SDL_PIXELFORMAT_ARGB8888);
  SDL_Renderer *r = SDL_CreateSoftwareRenderer(s);
  tt_sdl_cache *cache = tt_sdl_cache_create();
  tt_canvas cv;
  tt_canvas_sdl(&cv, r, cache, NULL);
  SDL_Rect all = {0, 0, W, H};
  draw_cells(&cv, 1, 0);  // the oldest, never drawn again
  draw_cells(&cv, 2, 1);  // drawn every frame (the legend bar, another head)
  size_t most = 0;
  for (int i = 0; i < IMAGES; i++) {  // 120 images of 4 MB: 480 MB unbounded
    assert_true(cv.cells_cached(&cv, 2, all));
    draw_cells(&cv, 1000 + (uint64_t)i, i);
    size_t b = tt_sdl_cache_cell_bytes(cache);
    if (b > most) most = b;
  }
  assert_true(most <= TT_SDL_CELL_BYTES_MAX);
  assert_true(most >= TT_SDL_CELL_BYTES_MAX / 2);  // it does keep images up to the bound
  assert_true(cv.cells_cached(&cv, 2, all));
  assert_true(cv.cells_cached(&cv, 1000 + IMAGES - 1, all));  // the newest
  assert_false(cv.cells_cached(&cv, 1, all));                 // the least recently drawn went
  assert_false(cv.cells_cached(&cv, 1000, all));
  tt_sdl_cache_destroy(cache);
  SDL_DestroyRenderer(r);
  SDL_FreeSurface(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cached_pixels_match),
      cmocka_unit_test(test_cell_bytes_bounded),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
