// downsample: a heatmap with more cells than pixels shows, at each pixel, the colour of the
// value of largest magnitude in the block of cells it covers (masked when every cell of the
// block is), checked here against that block computed directly from the data; and an F32
// tensor (read in place) draws exactly the pixels of the same values stored as F64 (read
// through the generic element reader).
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/render/render_int.h"

enum { H = 2, T = 700, W = 900, HT = 640 };
static const char *const hook = "blocks.0.attn.hook_attn_scores";

// Scores of both heads, -inf above the diagonal, with a few spikes (the values a block's
// maximum has to find).
static float *scores(void) {
  float *d = malloc(sizeof(float) * H * T * T);
  uint32_t seed = 7;
  for (int h = 0; h < H; h++)
    for (int i = 0; i < T; i++)
      for (int j = 0; j < T; j++) {
        seed = seed * 1664525u + 1013904223u;
        float v = (float)(seed >> 8) / (float)(1u << 23) - 1.0f;
        if ((seed >> 4) % 997 == 0) v *= 6;
        d[((size_t)h * T + (size_t)i) * T + (size_t)j] = j <= i ? v : -INFINITY;
      }
  return d;
}

static tt_trace *trace_of(const float *d, tt_dtype dt) {
  tt_trace *tr = tt_trace_create();
  size_t n = (size_t)H * T * T;
  double *d64 = dt == TT_F64 ? malloc(sizeof(double) * n) : NULL;
  for (size_t i = 0; d64 && i < n; i++) d64[i] = d[i];
  tt_tensor t = {.name = hook, .dtype = dt, .ndim = 3, .shape = {H, T, T}, .data = d64 ? (void *)d64 : (void *)d};
  tt_error err = {0};
  assert_int_equal(tt_trace_add(tr, &t, &err), TT_OK);
  free(d64);
  return tr;
}

static SDL_Surface *draw(tt_render *rc, const tt_trace *tr, tt_layout *lay) {
  tt_view_state vs;
  tt_view_state_init(&vs);
  snprintf(vs.hook, sizeof vs.hook, "%s", hook);
  vs.view = TT_VIEW_HEATMAP;
  vs.head = 1;
  SDL_Surface *s = NULL;
  tt_error err = {0};
  assert_int_equal(tt_render_surface(rc, tr, &vs, W, HT, &s, lay, &err), TT_OK);
  return s;
}

static tt_rgba pixel(SDL_Surface *s, int x, int y) {
  const uint8_t *p = (const uint8_t *)s->pixels + (size_t)y * (size_t)s->pitch + (size_t)x * 3;
  return (tt_rgba){p[0], p[1], p[2], 255};
}

// Pixel (x, y) of a panel of n x n cells on fewer pixels shows block [y n / h, (y + 1) n / h)
// x [x n / w, (x + 1) n / w).
static void check_blocks(SDL_Surface *s, const tt_panel *pn, const float *d, const tt_scale *sc) {
  SDL_Rect r = pn->rect;
  assert_true(r.w < T && r.h < T);  // downsampled
  int bad = 0, checked = 0;
  for (int y = 0; y < r.h; y++)
    for (int x = 0; x < r.w; x++) {
      int r0 = y * T / r.h, r1 = (y + 1) * T / r.h, c0 = x * T / r.w, c1 = (x + 1) * T / r.w;
      float best = -1, v = 0;
      for (int i = r0; i < r1; i++)
        for (int j = c0; j < c1; j++) {
          float e = d[((size_t)1 * T + (size_t)i) * T + (size_t)j];
          if (isfinite(e) && fabsf(e) > best) best = fabsf(e), v = e;
        }
      if (best < 0) continue;  // every cell masked: the hatch
      tt_rgba want = tt_scale_color(sc, v), got = pixel(s, r.x + x, r.y + y);
      checked++;
      if (abs(got.r - want.r) > 1 || abs(got.g - want.g) > 1 || abs(got.b - want.b) > 1) {
        if (bad++ < 5)
          print_error("pixel (%d, %d) block rows %d-%d cols %d-%d max |v| %g: got %d,%d,%d want %d,%d,%d\n", x, y, r0,
                      r1, c0, c1, (double)v, got.r, got.g, got.b, want.r, want.g, want.b);
      }
    }
  assert_true(checked > r.w * r.h / 3);
  assert_int_equal(bad, 0);
}

static void test_downsampled_blocks(void **state) {
  (void)state;
  float *d = scores();
  tt_trace *tr = trace_of(d, TT_F32), *tr64 = trace_of(d, TT_F64);
  tt_render *rc = NULL;
  tt_error err = {0};
  assert_int_equal(tt_render_create(&rc, &err), TT_OK);
  tt_layout *lay = calloc(1, sizeof *lay);
  SDL_Surface *s = draw(rc, tr, lay);
  assert_true(lay->n_panels >= 1);
  tt_scale sc;
  tt_scale_of(tt_trace_find(tr, hook), hook, &sc);
  check_blocks(s, &lay->panels[0], d, &sc);
  tt_render_forget(rc);
  SDL_Surface *s64 = draw(rc, tr64, lay);
  assert_int_equal(s64->h, s->h);
  assert_int_equal(s64->pitch, s->pitch);
  assert_memory_equal(s64->pixels, s->pixels, (size_t)s->pitch * (size_t)s->h);
  SDL_FreeSurface(s);
  SDL_FreeSurface(s64);
  free(lay);
  tt_render_destroy(rc);
  tt_trace_destroy(tr);
  tt_trace_destroy(tr64);
  free(d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_downsampled_blocks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
