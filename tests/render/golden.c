// golden: RGB comparison of rendered images with the committed goldens.
#include "golden.h"

#include <SDL_image.h>
#include <stdio.h>
#include <stdlib.h>

#include "render/render.h"

// Share of pixels whose channels differ by more than tol.
static double differing(SDL_Surface *a, SDL_Surface *b, int tol, int *worst) {
  long n = 0;
  *worst = 0;
  for (int y = 0; y < a->h; y++) {
    const uint8_t *pa = (const uint8_t *)a->pixels + (size_t)y * (size_t)a->pitch;
    const uint8_t *pb = (const uint8_t *)b->pixels + (size_t)y * (size_t)b->pitch;
    for (int x = 0; x < a->w * 3; x += 3) {
      int d = 0;
      for (int c = 0; c < 3; c++) d = abs(pa[x + c] - pb[x + c]) > d ? abs(pa[x + c] - pb[x + c]) : d;
      if (d > *worst) *worst = d;
      if (d > tol) n++;
    }
  }
  return (double)n / ((double)a->w * a->h);
}

int tt_golden_check(const char *golden_dir, const char *name, SDL_Surface *img) {
  char path[4096], got[4200];
  snprintf(path, sizeof path, "%s/%s.png", golden_dir, name);
  snprintf(got, sizeof got, "%s.got.png", name);
  tt_error err = {0};
  const char *update = getenv("TTRACE_UPDATE_GOLDEN");
  if (update && update[0] == '1') {
    if (tt_render_save_png(img, path, &err) != TT_OK) {
      fprintf(stderr, "cannot write %s: %s\n", path, err.msg);
      return 1;
    }
    printf("wrote %s\n", path);
    return 0;
  }
  SDL_Surface *want0 = IMG_Load(path);
  if (!want0) {
    fprintf(stderr, "missing golden %s (TTRACE_UPDATE_GOLDEN=1 writes it)\n", path);
    return 1;
  }
  SDL_Surface *want = SDL_ConvertSurfaceFormat(want0, SDL_PIXELFORMAT_RGB24, 0);
  SDL_FreeSurface(want0);
  int worst = 0, bad = 0;
  double share = (want->w == img->w && want->h == img->h) ? differing(img, want, 24, &worst) : 1.0;
  if (share > 0.002) {
    tt_render_save_png(img, got, NULL);
    fprintf(stderr, "%s: %.3f%% of pixels differ (largest channel difference %d); this run's image: %s\n", name,
            share * 100, worst, got);
    bad = 1;
  }
  SDL_FreeSurface(want);
  return bad;
}
