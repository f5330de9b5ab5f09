// glyphs: the SDL canvas draws every glyph whole. DejaVu Sans Mono's underscore lies below
// the font's descent at many sizes; a text texture one line tall cut it off, so that
// "hook_out" read "hook out" in a zoomed window. Here "_" is drawn in each face at every
// size from 8 to 64 px and must leave ink on the surface.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "../../src/render/render_int.h"

enum { W = 200, H = 200 };

// Pixels of the surface that are not the white it was cleared to.
static int ink(SDL_Surface *s) {
  int n = 0;
  for (int y = 0; y < s->h; y++)
    for (int x = 0; x < s->w; x++) {
      uint8_t r, g, b;
      SDL_GetRGB(((uint32_t *)((uint8_t *)s->pixels + y * s->pitch))[x], s->format, &r, &g, &b);
      n += r < 200 || g < 200 || b < 200;
    }
  return n;
}

static void test_underscore_at_every_size(void **state) {
  (void)state;
  tt_fonts *fonts = NULL;
  tt_error err = {0};
  assert_int_equal(tt_fonts_open(&fonts, &err), TT_OK);
  SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, W, H, 32, SDL_PIXELFORMAT_ARGB8888);
  SDL_Renderer *r = SDL_CreateSoftwareRenderer(s);
  tt_sdl_cache *cache = tt_sdl_cache_create();
  assert_non_null(r);
  assert_non_null(cache);
  tt_canvas cv;
  tt_canvas_sdl(&cv, r, cache, fonts);
  const tt_font_kind kinds[3] = {TT_FONT_SANS, TT_FONT_BOLD, TT_FONT_MONO};
  for (int k = 0; k < 3; k++)
    for (int px = 8; px <= 64; px++) {
      SDL_FillRect(s, NULL, SDL_MapRGB(s->format, 255, 255, 255));
      tt_draw_text(&cv, 10, 10, "_", px, kinds[k], (tt_rgba){0, 0, 0, 255}, TT_ALIGN_LEFT);
      SDL_RenderPresent(r);
      if (ink(s) == 0) fail_msg("\"_\" in face %d at %d px left no ink", k, px);
    }
  tt_sdl_cache_destroy(cache);
  SDL_DestroyRenderer(r);
  SDL_FreeSurface(s);
  tt_fonts_close(fonts);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_underscore_at_every_size)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
