// bench_frames: frame times of the window's drawing, headless (software renderer on a
// surface, the slowest path), on a GPT-2-small-shaped attention layer: T tokens (256
// unless given; the case is 1024), 12 heads. Three scenes, each a sequence of frames as the window would draw them:
//   hover   the softmax heatmap (framed like the window), the pointer on a new cell
//           every frame (tooltip text changes every frame)
//   pan     the same zoomed 4x, panned by 1.3 cells every frame (cells recomputed)
//   grid    all 12 heads, the pointer moving over them
// Prints median / 95th percentile / max per scene. Target: median <= 16 ms.
//
//   bench_frames [WIDTH HEIGHT [FRAMES [T [FONT_SCALE]]]]   (default 1600 1000 200 256 1;
//                                                          the interface zoomed: 1.5 or 2)
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/model.h"
#include "render/render.h"

enum { H = 12, T_MAX = 1024 };

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

// A causal softmax of pseudo-random scores, (H, T, T).
static float *make_pattern(uint32_t seed, int T) {
  float *p = malloc(sizeof(float) * H * T * T);
  for (int h = 0; h < H; h++)
    for (int i = 0; i < T; i++) {
      float *row = p + ((size_t)h * T + i) * T;
      double sum = 0;
      for (int j = 0; j < T; j++) {
        seed = seed * 1664525u + 1013904223u;
        double s =
            (double)(seed >> 8) / (double)(1u << 24) * 4.0 - 2.0 + (j == i ? 2.0 : 0) + (h % 3 == 0 && j == 0 ? 3 : 0);
        row[j] = j <= i ? (float)exp(s) : 0.0f;
        sum += row[j];
      }
      for (int j = 0; j < T; j++) row[j] = (float)(row[j] / sum);
    }
  return p;
}

typedef struct {
  const char *name;
  double median, p95, max, first;
} result;

static void summarize(result *r, double *t, int n) {
  r->first = t[0];
  qsort(t + 1, (size_t)(n - 1), sizeof(double), cmp);  // the first (cold) frame is reported apart
  r->median = t[1 + (n - 1) / 2];
  r->p95 = t[1 + (int)((n - 1) * 0.95)];
  r->max = t[n - 1];
}

int main(int argc, char **argv) {
  int W = argc > 2 ? atoi(argv[1]) : 1600, Ht = argc > 2 ? atoi(argv[2]) : 1000;
  int frames = argc > 3 ? atoi(argv[3]) : 200, T = argc > 4 ? atoi(argv[4]) : 256;
  float font_scale = argc > 5 ? (float)atof(argv[5]) : 1.0f;
  if (W < 320 || Ht < 240 || frames < 10 || T < 8 || T > T_MAX || !(font_scale >= 0.5f && font_scale <= 4.0f)) {
    fprintf(stderr, "usage: bench_frames [WIDTH HEIGHT [FRAMES [T (8..%d) [FONT_SCALE (0.5..4)]]]]\n", T_MAX);
    return 2;
  }
  tt_trace *tr = tt_trace_create();
  tt_error err = {0};
  tt_config cfg;
  tt_config_default(&cfg);  // GPT-2 small: 12 layers, 12 heads, C = 768
  char *json = tt_config_to_json(&cfg);
  tt_trace_set_meta(tr, "config", json);
  free(json);
  tt_trace_set_meta(tr, "prompt", "(synthetic text)");
  static int32_t ids[T_MAX];
  static char bufs[T_MAX][16];
  static const char *strs[T_MAX];
  for (int i = 0; i < T; i++) {
    ids[i] = 1000 + i;
    snprintf(bufs[i], sizeof bufs[i], " word%d", i);
    strs[i] = bufs[i];
  }
  if (tt_trace_set_tokens(tr, ids, strs, T, &err)) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  float *pat = make_pattern(12345, T);
  tt_tensor t = {.name = "blocks.0.attn.hook_pattern", .dtype = TT_F32, .ndim = 3, .shape = {H, T, T}, .data = pat};
  if (tt_trace_add(tr, &t, &err)) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  free(pat);

  tt_render *rc = NULL;
  if (tt_render_create(&rc, &err)) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  SDL_Surface *surf = SDL_CreateRGBSurfaceWithFormat(0, W, Ht, 32, SDL_PIXELFORMAT_ARGB8888);
  SDL_Renderer *r = SDL_CreateSoftwareRenderer(surf);
  tt_layout *lay = calloc(1, sizeof *lay);
  double *times = malloc(sizeof(double) * (size_t)frames);
  result res[3];
  char names[3][40];
  snprintf(names[0], sizeof names[0], "hover softmax T=%d", T);
  snprintf(names[1], sizeof names[1], "pan softmax T=%d zoom 4", T);
  snprintf(names[2], sizeof names[2], "grid 12 heads T=%d", T);
  for (int scene = 0; scene < 3; scene++) {
    tt_view_state vs;
    tt_view_state_init(&vs);
    vs.frame = true;
    vs.font_scale = font_scale;
    tt_view_goto_step(&vs, tr, tt_step_find(tr, "blocks.0.attn.hook_pattern", NULL));
    vs.head = 3;
    if (scene == 1) vs.zoom = 4;
    if (scene == 2) vs.view = TT_VIEW_GRID;
    tt_render_forget(rc);  // every scene starts cold
    // One frame to learn the layout (where the cells are).
    tt_render_draw(rc, r, (SDL_Rect){0, 0, W, Ht}, tr, &vs, lay);
    SDL_Rect area = lay->n_panels ? lay->panels[0].rect : (SDL_Rect){0, 0, W, Ht};
    if (scene == 2 && lay->n_panels == H) {  // the bounding box of all the heads
      int x1 = 0, y1 = 0;
      for (int i = 0; i < lay->n_panels; i++) {
        SDL_Rect q = lay->panels[i].rect;
        if (q.x < area.x) area.x = q.x;
        if (q.y < area.y) area.y = q.y;
        if (q.x + q.w > x1) x1 = q.x + q.w;
        if (q.y + q.h > y1) y1 = q.y + q.h;
      }
      area.w = x1 - area.x;
      area.h = y1 - area.y;
    }
    tt_render_forget(rc);
    int picked = 0;
    for (int f = 0; f < frames; f++) {
      // The pointer sweeps the area on a diagonal path, a new cell each frame.
      vs.mouse_x = area.x + (int)((double)area.w * fmod(f * 0.0137 + 0.01, 1.0));
      vs.mouse_y = area.y + (int)((double)area.h * fmod(f * 0.0291 + 0.01, 1.0));
      if (scene == 1) {
        vs.pan_col = (float)fmod(f * 1.3, 0.75 * T);
        vs.pan_row = (float)fmod(f * 0.7, 0.75 * T);
      }
      double t0 = now_ms();
      tt_render_draw(rc, r, (SDL_Rect){0, 0, W, Ht}, tr, &vs, lay);
      SDL_RenderPresent(r);
      tt_pick pk;
      picked += tt_render_pick(lay, tr, vs.mouse_x, vs.mouse_y, &pk);
      times[f] = now_ms() - t0;
    }
    res[scene].name = names[scene];
    summarize(&res[scene], times, frames);
    if (scene < 2 && picked < frames * 9 / 10)
      fprintf(stderr, "warning: scene %d picked only %d of %d frames\n", scene, picked, frames);
  }
  printf("frame times, software renderer, %dx%d, T = %d, font scale %.2g, %d frames per scene (ms)\n", W, Ht, T,
         (double)font_scale, frames);
  printf("%-24s %8s %8s %8s %8s\n", "scene", "median", "p95", "max", "first");
  bool ok = true;
  for (int i = 0; i < 3; i++) {
    printf("%-24s %8.2f %8.2f %8.2f %8.2f\n", res[i].name, res[i].median, res[i].p95, res[i].max, res[i].first);
    ok = ok && res[i].median <= 16.0;
  }
  printf("target median <= 16 ms: %s\n", ok ? "met" : "NOT met");
  free(times);
  free(lay);
  tt_render_forget(rc);
  SDL_DestroyRenderer(r);
  SDL_FreeSurface(surf);
  tt_render_destroy(rc);
  tt_trace_destroy(tr);
  return 0;
}
