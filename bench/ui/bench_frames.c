// bench_frames: frame times of the window's drawing, headless (software renderer on a
// surface, the slowest path), on a GPT-2-small-shaped attention layer: T tokens (1024
// unless given), 12 heads, D = 64, framed as in the window (navigator, formula,
// explanation) with the interface's type size (font scale, the window's Ctrl + / Ctrl −)
// as given. Each scene is a sequence of frames as the window would draw them:
//   hover   the softmax heatmap of one head, the pointer on a new cell every frame (a new
//           tooltip every frame)
//   pin     the same, and the hovered cell pinned every frame (its arithmetic shown)
//   pan     the heatmap zoomed 4x, panned by 1.3 cells every frame, the pointer moving
//   grid    all 12 heads, the pointer moving over them
// The first, cold frame of a scene is reported apart; then median / 95th percentile / max.
// Times are wall clock and, beside them, this thread's CPU time (what the frame costs when
// the machine is shared: the wall clock then also counts waiting for a core).
// "panels" is how many cell panels the frame drew (0: the view did not fit at all).
// The window's frame budget applies (--budget, default TT_RENDER_FRAME_BUDGET_MS): cell
// images a frame has no time left for come in the next frames; "whole after" says how many
// frames, and how many milliseconds together, a cold scene took until one had them all.
// Target (issue 17): median <= 16 ms.
//
//   bench_frames [--trace FILE] [--T N] [--frames N] [--size WxH]... [--font-scale S]...
//
// Without --trace the trace is synthetic: random q and k, the scaled causal scores and
// their softmax (the window's pinned-cell arithmetic reads all four). With --trace, a
// saved trace (`ttrace trace`), its blocks.0.attn.hook_pattern. Defaults: T = 1024,
// 100 frames, sizes 1600x1000 1920x1080 2560x1600, font scales 1 1.5 2.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/model.h"
#include "render/render.h"

enum { H = 12, D = 64, T_MAX = 1024, MAX_CASES = 8, N_SCENES = 4 };
static const char *const scene_names[N_SCENES] = {"softmax hover", "softmax pin", "softmax pan (zoom 4)",
                                                  "grid 12 heads"};

static double clock_ms(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static float uniform(uint32_t *seed) {  // in [-1, 1)
  *seed = *seed * 1664525u + 1013904223u;
  return (float)(*seed >> 8) / (float)(1u << 23) - 1.0f;
}

static tt_status add_tensor(tt_trace *tr, const char *name, int64_t a, int64_t b, int64_t c, float *data,
                            tt_error *err) {
  tt_tensor t = {.name = name, .dtype = TT_F32, .ndim = 3, .shape = {a, b, c}, .data = data};
  return tt_trace_add(tr, &t, err);
}

// Random q, k (H, T, D); scores (H, T, T) = q k^T / sqrt(D), -inf above the diagonal;
// pattern = row softmax of the scores. A few heads lean on the first token, as trained
// ones do.
static tt_status add_attention(tt_trace *tr, int T, tt_error *err) {
  size_t nqk = (size_t)H * (size_t)T * D, ntt = (size_t)H * (size_t)T * (size_t)T;
  float *q = malloc(sizeof(float) * nqk), *k = malloc(sizeof(float) * nqk);
  float *s = malloc(sizeof(float) * ntt), *p = malloc(sizeof(float) * ntt);
  tt_status st = q && k && s && p ? TT_OK : tt_fail(err, TT_ERR_NOMEM, "out of memory");
  uint32_t seed = 12345;
  for (size_t i = 0; !st && i < nqk; i++) q[i] = 1.7f * uniform(&seed), k[i] = 1.7f * uniform(&seed);
  for (int h = 0; !st && h < H; h++)
    for (int i = 0; i < T; i++) {
      const float *qi = q + ((size_t)h * (size_t)T + (size_t)i) * D;
      float *srow = s + ((size_t)h * (size_t)T + (size_t)i) * (size_t)T, *prow = p + (srow - s);
      double mx = -INFINITY, sum = 0;
      for (int j = 0; j < T; j++) {
        const float *kj = k + ((size_t)h * (size_t)T + (size_t)j) * D;
        float acc = 0;
        for (int d = 0; d < D && j <= i; d++) acc += qi[d] * kj[d];
        srow[j] = j <= i ? acc / 8.0f + (h % 3 == 0 && j == 0 ? 3.0f : 0.0f) : -INFINITY;
        if (srow[j] > mx) mx = srow[j];
      }
      for (int j = 0; j <= i; j++) sum += exp(srow[j] - mx);
      for (int j = 0; j < T; j++) prow[j] = j <= i ? (float)(exp(srow[j] - mx) / sum) : 0.0f;
    }
  if (!st) st = add_tensor(tr, "blocks.0.attn.hook_q", H, T, D, q, err);
  if (!st) st = add_tensor(tr, "blocks.0.attn.hook_k", H, T, D, k, err);
  if (!st) st = add_tensor(tr, "blocks.0.attn.hook_attn_scores", H, T, T, s, err);
  if (!st) st = add_tensor(tr, "blocks.0.attn.hook_pattern", H, T, T, p, err);
  free(q), free(k), free(s), free(p);
  return st;
}

static tt_status synthetic_trace(int T, tt_trace **out, tt_error *err) {
  tt_trace *tr = tt_trace_create();
  if (!tr) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
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
  tt_status st = tt_trace_set_tokens(tr, ids, strs, T, err);
  if (!st) st = add_attention(tr, T, err);
  if (st) tt_trace_destroy(tr);
  *out = st ? NULL : tr;
  return st;
}

typedef struct {
  double median, p95, max, first;                  // wall clock
  double cpu_median, cpu_p95, cpu_max, cpu_first;  // this thread's CPU time
  int panels;
  int whole_frames;  // frames until one had every cell image (the frame budget's deferrals)
  double whole_ms;   // their wall clock, together
} result;

// Median, 95th percentile and max of t[1..n-1] (the first, cold frame is reported apart).
static void summarize(double *t, int n, double *median, double *p95, double *max, double *first) {
  *first = t[0];
  qsort(t + 1, (size_t)(n - 1), sizeof(double), cmp);
  *median = t[1 + (n - 1) / 2];
  *p95 = t[1 + (int)((n - 1) * 0.95)];
  *max = t[n - 1];
}

// The box the pointer sweeps: the main panel, or the bounding box of every head (grid).
static SDL_Rect sweep_area(const tt_layout *lay, int W, int Ht, bool grid) {
  SDL_Rect a = lay->n_panels ? lay->panels[0].rect : (SDL_Rect){0, 0, W, Ht};
  if (!grid) return a;
  int x1 = a.x + a.w, y1 = a.y + a.h;
  for (int i = 1; i < lay->n_panels; i++) {
    SDL_Rect q = lay->panels[i].rect;
    if (q.x < a.x) a.x = q.x;
    if (q.y < a.y) a.y = q.y;
    if (q.x + q.w > x1) x1 = q.x + q.w;
    if (q.y + q.h > y1) y1 = q.y + q.h;
  }
  a.w = x1 - a.x, a.h = y1 - a.y;
  return a;
}

// One scene's frames; times[f] and cpu[f] get each frame's milliseconds (draw, present,
// pick), wall clock and CPU.
static void run_scene(tt_render *rc, SDL_Renderer *r, int W, int Ht, const tt_trace *tr, int scene, float font_scale,
                      int frames, double *times, double *cpu, tt_layout *lay, result *res) {
  tt_view_state vs;
  tt_view_state_init(&vs);
  vs.frame = true;
  vs.font_scale = font_scale;
  tt_view_goto_step(&vs, tr, tt_step_find(tr, "blocks.0.attn.hook_pattern", NULL));
  vs.head = 3;
  if (scene == 2) vs.zoom = 4;
  if (scene == 3) vs.view = TT_VIEW_GRID;
  int T = tt_trace_n_tokens(tr);
  tt_render_forget(rc);
  tt_render_draw(rc, r, (SDL_Rect){0, 0, W, Ht}, tr, &vs, lay);  // learn where the cells are
  SDL_Rect area = sweep_area(lay, W, Ht, scene == 3);
  res->panels = lay->n_panels;
  tt_render_forget(rc);  // every scene starts cold
  res->whole_frames = 0;
  res->whole_ms = 0;
  for (int f = 0; f < frames; f++) {
    // The pointer sweeps the area on a diagonal path, a new cell each frame.
    vs.mouse_x = area.x + (int)((double)area.w * fmod(f * 0.0137 + 0.01, 1.0));
    vs.mouse_y = area.y + (int)((double)area.h * fmod(f * 0.0291 + 0.01, 1.0));
    if (scene == 2) {
      vs.pan_col = (float)fmod(f * 1.3, 0.75 * T);
      vs.pan_row = (float)fmod(f * 0.7, 0.75 * T);
    }
    double t0 = clock_ms(CLOCK_MONOTONIC), c0 = clock_ms(CLOCK_THREAD_CPUTIME_ID);
    tt_render_draw(rc, r, (SDL_Rect){0, 0, W, Ht}, tr, &vs, lay);
    SDL_RenderPresent(r);
    tt_pick pk;
    bool picked = tt_render_pick(lay, tr, vs.mouse_x, vs.mouse_y, &pk);
    times[f] = clock_ms(CLOCK_MONOTONIC) - t0;
    cpu[f] = clock_ms(CLOCK_THREAD_CPUTIME_ID) - c0;
    if (!res->whole_frames) {
      res->whole_ms += times[f];
      if (!tt_render_incomplete(rc)) res->whole_frames = f + 1;
    }
    if (scene == 1 && picked) vs.pin_row = pk.row, vs.pin_col = pk.col;  // pinned for the next frame
  }
  summarize(times, frames, &res->median, &res->p95, &res->max, &res->first);
  summarize(cpu, frames, &res->cpu_median, &res->cpu_p95, &res->cpu_max, &res->cpu_first);
}

typedef struct {
  const char *trace;
  double budget_ms;  // the frame budget (tt_render_set_frame_budget)
  int T, frames, n_sizes, n_scales;
  int w[MAX_CASES], h[MAX_CASES];
  float scales[MAX_CASES];
} options;

static bool parse(int argc, char **argv, options *o) {
  *o = (options){.T = T_MAX, .frames = 100, .budget_ms = TT_RENDER_FRAME_BUDGET_MS};
  for (int i = 1; i < argc; i += 2) {  // every option takes a value
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v) return false;
    if (!strcmp(a, "--trace")) {
      o->trace = v;
    } else if (!strcmp(a, "--T")) {
      o->T = atoi(v);
    } else if (!strcmp(a, "--budget")) {
      o->budget_ms = atof(v);
      if (!(o->budget_ms >= 0 && o->budget_ms <= 1000)) return false;
    } else if (!strcmp(a, "--frames")) {
      o->frames = atoi(v);
    } else if (!strcmp(a, "--size") && o->n_sizes < MAX_CASES) {
      if (sscanf(v, "%dx%d", &o->w[o->n_sizes], &o->h[o->n_sizes]) != 2) return false;
      if (o->w[o->n_sizes] < 320 || o->h[o->n_sizes] < 240 || o->w[o->n_sizes] > 8192 || o->h[o->n_sizes] > 8192)
        return false;
      o->n_sizes++;
    } else if (!strcmp(a, "--font-scale") && o->n_scales < MAX_CASES) {
      float s = (float)atof(v);
      if (!(s >= 0.5f && s <= 3.0f)) return false;
      o->scales[o->n_scales++] = s;
    } else {
      return false;
    }
  }
  static const int dw[3] = {1600, 1920, 2560}, dh[3] = {1000, 1080, 1600};
  static const float ds[3] = {1.0f, 1.5f, 2.0f};
  if (o->n_sizes == 0)
    for (; o->n_sizes < 3; o->n_sizes++) o->w[o->n_sizes] = dw[o->n_sizes], o->h[o->n_sizes] = dh[o->n_sizes];
  if (o->n_scales == 0)
    for (; o->n_scales < 3; o->n_scales++) o->scales[o->n_scales] = ds[o->n_scales];
  return o->frames >= 10 && o->T >= 8 && o->T <= T_MAX;
}

// All scenes at one size; prints their rows; false when a median is over 16 ms (*cpu_ok
// false when a CPU median is).
static bool bench_size(tt_render *rc, const tt_trace *tr, int W, int Ht, const options *o, double *times, double *cpu,
                       tt_layout *lay, bool *cpu_ok) {
  SDL_Surface *surf = SDL_CreateRGBSurfaceWithFormat(0, W, Ht, 32, SDL_PIXELFORMAT_ARGB8888);
  SDL_Renderer *r = surf ? SDL_CreateSoftwareRenderer(surf) : NULL;
  bool ok = r != NULL;
  for (int si = 0; r && si < o->n_scales; si++)
    for (int scene = 0; scene < N_SCENES; scene++) {
      result res;
      run_scene(rc, r, W, Ht, tr, scene, o->scales[si], o->frames, times, cpu, lay, &res);
      printf("| %dx%d | %.2g | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %d | %d / %.1f |\n", W, Ht,
             (double)o->scales[si], scene_names[scene], res.median, res.p95, res.max, res.first, res.cpu_median,
             res.cpu_p95, res.cpu_first, res.panels, res.whole_frames, res.whole_ms);
      fflush(stdout);
      ok = ok && res.median <= 16.0 && res.panels > 0;
      *cpu_ok = *cpu_ok && res.cpu_median <= 16.0 && res.panels > 0;
    }
  tt_render_forget(rc);
  if (r) SDL_DestroyRenderer(r);
  SDL_FreeSurface(surf);
  return ok;
}

int main(int argc, char **argv) {
  options o;
  if (!parse(argc, argv, &o)) {
    fprintf(stderr,
            "usage: bench_frames [--trace FILE] [--T N (8..%d)] [--frames N (>= 10)] [--size WxH]... "
            "[--font-scale S (0.5..3)]... [--budget MS (frame budget for cell images; 0: none)]\n",
            T_MAX);
    return 2;
  }
  tt_error err = {0};
  tt_trace *tr = NULL;
  tt_status st = o.trace ? tt_trace_load(o.trace, &tr, &err) : synthetic_trace(o.T, &tr, &err);
  if (!st && tt_step_find(tr, "blocks.0.attn.hook_pattern", NULL) < 0)
    st = tt_fail(&err, TT_ERR_FORMAT, "%s has no blocks.0.attn.hook_pattern", o.trace);
  tt_render *rc = NULL;
  if (!st) st = tt_render_create(&rc, &err);
  if (!st) tt_render_set_frame_budget(rc, o.budget_ms);  // as the window does
  if (st) {
    fprintf(stderr, "bench_frames: %s\n", err.msg);
    tt_trace_destroy(tr);
    return 1;
  }
  printf("frame times, software renderer, T = %d (%s), %d frames per scene, frame budget %.3g ms (ms)\n\n",
         tt_trace_n_tokens(tr), o.trace ? o.trace : "synthetic", o.frames, o.budget_ms);
  printf(
      "| size | font scale | scene | median | p95 | max | first | CPU median | CPU p95 | CPU first | panels | whole "
      "after (frames / ms) |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  tt_layout *lay = calloc(1, sizeof *lay);
  double *times = malloc(sizeof(double) * (size_t)o.frames), *cpu = malloc(sizeof(double) * (size_t)o.frames);
  bool ok = lay && times && cpu, cpu_ok = ok;
  for (int i = 0; lay && times && cpu && i < o.n_sizes; i++)
    ok = bench_size(rc, tr, o.w[i], o.h[i], &o, times, cpu, lay, &cpu_ok) && ok;
  printf("\ntarget median <= 16 ms with the view drawn: wall clock %s, CPU time %s\n", ok ? "met" : "NOT met",
         cpu_ok ? "met" : "NOT met");
  free(times);
  free(cpu);
  free(lay);
  tt_render_destroy(rc);
  tt_trace_destroy(tr);
  return 0;
}
