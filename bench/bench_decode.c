// bench_decode: one decode step with the KV cache against recomputing the whole sequence,
// and the decode step against the memory-bandwidth bound, on the OpenBLAS backend.
//
//   bench_decode [--packed] MODEL_DIR T THREADS [STEPS]
//
// --packed: the engine packs its weights first (tt_engine_pack_weights), as it does by
// itself for a prompt of 512 tokens or more (engine.h).
//
// Prefills T tokens, then times STEPS (default 16) decode steps (the cache holds T .. T +
// STEPS − 1 rows), then full forward passes of T + 1 tokens, recording nothing. The bound:
// the bytes a decode step must read (every weight once, except the embedding and position
// tables of which it reads one row each, and the cached K and V rows) divided by the
// memory bandwidth measured here with THREADS threads summing a buffer much larger than
// the caches. OpenBLAS's threads come from OPENBLAS_NUM_THREADS (run_decode_bench.py sets
// it to THREADS). Output lines are "key value ..." (bench/run_decode_bench.py reads them).
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine.h"
#include "model/model.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what, const tt_error *err) {
  fprintf(stderr, "bench_decode: %s: %s\n", what, err->msg);
  exit(1);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

// ---- the bandwidth probe: THREADS threads, each summing its share of one large buffer ----
typedef struct {
  const float *p;
  size_t n;
  float sum;
} share;

static void *sum_share(void *arg) {
  share *s = arg;
  float acc[16] = {0};
  for (size_t i = 0; i + 16 <= s->n; i += 16)
    for (int j = 0; j < 16; j++) acc[j] += s->p[i + j];
  for (int j = 0; j < 16; j++) s->sum += acc[j];
  return NULL;
}

// Bytes per second read by `threads` threads over a buffer of `bytes`, best of 5.
static double bandwidth(int threads, size_t bytes) {
  size_t n = bytes / sizeof(float);
  float *buf = malloc(n * sizeof *buf);
  if (!buf) return 0;
  for (size_t i = 0; i < n; i++) buf[i] = (float)(i & 7);
  double best = 1e30;
  float total = 0;
  for (int rep = 0; rep < 5; rep++) {
    pthread_t th[64];
    share sh[64];
    double t0 = now();
    for (int i = 0; i < threads; i++) {
      sh[i] = (share){buf + n / threads * i, n / threads, 0};
      pthread_create(&th[i], NULL, sum_share, &sh[i]);
    }
    for (int i = 0; i < threads; i++) pthread_join(th[i], NULL), total += sh[i].sum;
    double dt = now() - t0;
    if (dt < best) best = dt;
  }
  free(buf);
  if (total == 42.0f) printf("#\n");  // keeps the sums alive
  return (double)bytes / best;
}

// ---- what one decode step reads ------------------------------------------------------------
// Bytes of one decode step's reads: every weight once (the unembedding (V,C) in full, tied
// or not; one row of W_E and of the positions), and the cached K and V rows (G key/value
// heads of width D: C for GPT-2). The Llama block: q, k, v, o and gate, up, down, no biases
// unless the config has them (counted as if it had none: they are a few floats).
static double step_bytes(const tt_config *c, int cached, double *weights) {
  double C = c->n_embd, F = c->n_inner, V = c->vocab_size, L = c->n_layer;
  double HD = (double)c->n_head * tt_config_head_dim(c), GD = (double)tt_config_kv_heads(c) * tt_config_head_dim(c);
  double block = c->arch == TT_ARCH_LLAMA ? C * HD + 2 * C * GD + HD * C + 2 * C + 3 * C * F
                                          : C * 3 * C + 3 * C + C * C + C + 4 * C + C * F + F + F * C + C;  // (floats)
  double head = 2 * C + V * C + C;  // ln_f, the unembedding, the embedding row
  double pos = c->positions == TT_POS_LEARNED ? C : 0;
  *weights = 4 * (L * block + head + pos);
  return *weights + 4 * 2 * L * (double)cached * GD;  // + the cached K and V rows
}

static int32_t id_at(int t, int V) {
  return (int32_t)(((int64_t)t * 7919 + 464) % V);
}

int main(int argc, char **argv) {
  bool packed = argc > 1 && strcmp(argv[1], "--packed") == 0;
  if (packed) argc--, argv++;
  if (argc < 4) {
    fprintf(stderr, "usage: bench_decode [--packed] MODEL_DIR T THREADS [STEPS]\n");
    return 2;
  }
  int T = atoi(argv[2]), threads = atoi(argv[3]), steps = argc > 4 ? atoi(argv[4]) : 16;
  if (T < 1 || threads < 1 || threads > 64 || steps < 1) return 2;
  tt_error err = {0};
  tt_model *m;
  tt_backend *be;
  tt_engine *eng;
  if (tt_model_load(argv[1], &m, &err)) die("model", &err);
  if (T + steps + 1 > m->cfg.n_positions) return fprintf(stderr, "bench_decode: T + STEPS beyond the context\n"), 2;
  if (tt_backend_openblas_create(&be, &err)) die("backend", &err);
  if (tt_engine_create(m, be, m->cfg.n_positions, &eng, &err) || tt_engine_enable_cache(eng, &err)) die("engine", &err);
  if (packed && tt_engine_pack_weights(eng, &err)) die("pack", &err);
  int V = m->cfg.vocab_size, n = T + steps + 1;
  int32_t *ids = malloc((size_t)n * sizeof *ids);
  for (int t = 0; t < n; t++) ids[t] = id_at(t, V);

  // The decode steps first, as `ttrace generate` runs them after its one prefill (the
  // weights packed only with --packed or a prompt of 512 tokens or more).
  if (tt_engine_prefill(eng, ids, T, NULL, &err)) die("prefill", &err);
  if (tt_engine_decode(eng, ids[T], NULL, &err)) die("decode", &err);  // warm
  if (tt_engine_prefill(eng, ids, T, NULL, &err)) die("prefill", &err);
  double *dec = malloc((size_t)steps * sizeof *dec);
  for (int s = 0; s < steps; s++) {
    double t0 = now();
    if (tt_engine_decode(eng, ids[T + s], NULL, &err)) die("decode", &err);
    dec[s] = now() - t0;
  }
  // Then full passes of T + 1, after the warm-up a session that runs them has had (from 64
  // rows the engine packs its weights once such passes reach 512 rows: engine.h).
  double full[8];
  int full_reps = T <= 64 ? 8 : 3, warm = T + 1 >= TT_ENGINE_PACK_MIN_T ? TT_ENGINE_PACK_AFTER_ROWS / (T + 1) + 1 : 1;
  for (int w = 0; w < warm; w++) tt_engine_run(eng, ids, T + 1, NULL, &err);
  for (int r = 0; r < full_reps; r++) {
    double t0 = now();
    if (tt_engine_run(eng, ids, T + 1, NULL, &err)) die("run", &err);
    full[r] = now() - t0;
  }
  qsort(full, (size_t)full_reps, sizeof *full, cmp_double);
  qsort(dec, (size_t)steps, sizeof *dec, cmp_double);
  double weights, bytes = step_bytes(&m->cfg, T + steps / 2, &weights);
  double bw = bandwidth(threads, (size_t)256 << 20);  // 256 MiB: far beyond the caches
  double step = dec[steps / 2], bound = bytes / bw;
  printf(
      "decode T %d threads %d steps %d step_median_ms %.3f step_min_ms %.3f full_median_ms %.3f speedup %.2f "
      "tokens_per_s %.1f bytes_per_step %.0f weight_bytes %.0f bandwidth_gbs %.2f bound_ms %.3f "
      "step_over_bound %.2f\n",
      T, threads, steps, step * 1e3, dec[0] * 1e3, full[full_reps / 2] * 1e3, full[full_reps / 2] / step, 1 / step,
      bytes, weights, bw / 1e9, bound * 1e3, step / bound);
  free(dec);
  free(ids);
  tt_engine_destroy(eng);
  tt_backend_destroy(be);
  tt_model_destroy(m);
  return 0;
}
