// bench_forward: times the forward pass of a model folder on the OpenBLAS backend. Each T
// is timed after the warm-up passes a session running it has had: from 64 rows the engine
// packs its weights once such passes reach 512 rows (engine.h). With --packed first, the
// engine packs them before any pass (tt_engine_pack_weights; what passes shorter than 64
// rows get in a session that ran long ones) and prints how long that took.
//
//   bench_forward MODEL_DIR times T1,T2,...   full trace (a re-trace from a pool, and a first
//                                             trace on new memory) vs --record none, per T
//   bench_forward MODEL_DIR peak T all|none   one run; prints peak RSS, weights and trace bytes
//   bench_forward MODEL_DIR matmul T all|none the engine's matmuls (timed inside a run that
//                                             records everything or nothing) against plain
//                                             cblas_sgemm on the same shapes
//   bench_forward MODEL_DIR ops T [REPS]      nothing recorded, each op timed (the engine's
//                                             op_done; a timed run goes op by op, as a
//                                             recording one): median ms per run of each
//                                             hook's op, summed over the layers, and the run
//   bench_forward MODEL_DIR none T [REPS]     record none alone: median and best ms
//   bench_forward MODEL_DIR full T [REPS]     full re-traces from one pool alone: the same
//   bench_forward MODEL_DIR first T [REPS]    full first traces (new memory each) alone: same
//   bench_forward MODEL_DIR save T PATH       one full trace saved to PATH: bytes and seconds
//   bench_forward MODEL_DIR open PATH         tt_trace_load of PATH and one layer's pattern
//                                             read (what a view needs): seconds
//   bench_forward MODEL_DIR derive T          each layer's pattern (kept as a rule) read for
//                                             the first time, as the window's first view of
//                                             a layer: ms per layer, in a first trace and in
//                                             a re-trace from a pool; and before them the
//                                             last block's resid_post (the residual chain)
// Traces carry the model's config, as the session's do (so the trace can keep the scaled
// and masked scores as rules on the raw ones: trace_bytes is what a file holds,
// held_bytes what memory holds).
// Output lines are "key value ..." so a script can read them (bench/run_bench.py).
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench_util.h"
#include "engine/engine.h"
#include "model/model.h"
#include "trace/trace.h"

static double now(void) {
  return bench_now();
}

static void die(const char *what, const tt_error *err) {
  fprintf(stderr, "bench_forward: %s: %s\n", what, err->msg);
  exit(1);
}

static int32_t *make_ids(int T, int V) {
  int32_t *ids = malloc((size_t)T * sizeof *ids);
  for (int t = 0; t < T; t++) ids[t] = (int32_t)(((int64_t)t * 7919 + 464) % V);
  return ids;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static const tt_config *bench_cfg;  // the model's config, for new_trace

// A trace with the model's config in its metadata (as tt_session_trace makes them), from
// pool when not NULL.
static tt_trace *new_trace(const tt_config *cfg, tt_trace_pool *pool) {
  tt_trace *tr = tt_trace_create_pooled(pool);
  char *json = tt_config_to_json(cfg);
  if (!tr || !json || tt_trace_set_meta(tr, "config", json)) {
    fprintf(stderr, "bench_forward: out of memory\n");
    exit(1);
  }
  free(json);
  return tr;
}

// One run; with `full` every hook goes into a trace made from `pool` (NULL: a trace on new
// memory, as a process's first). Returns seconds (trace untimed when destroyed); *bytes
// and *held receive the trace's size in a file and in memory.
static long last_faults;  // minor page faults of the last run_once

static long minor_faults(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_minflt;
}

// Passes of T rows (record none) until the engine is as a session that runs them finds it:
// one, or, from TT_ENGINE_PACK_MIN_T rows, enough to reach TT_ENGINE_PACK_AFTER_ROWS (the
// weights packed, engine.h).
static void warm_up(tt_engine *eng, const int32_t *ids, int T) {
  int passes = T >= TT_ENGINE_PACK_MIN_T ? (TT_ENGINE_PACK_AFTER_ROWS + T - 1) / T : 1;
  tt_error err = {0};
  for (int i = 0; i < passes; i++)
    if (tt_engine_run(eng, ids, T, NULL, &err) != TT_OK) die("run", &err);
}

static double run_once(tt_engine *eng, const int32_t *ids, int T, bool full, tt_trace_pool *pool, size_t *bytes,
                       size_t *held) {
  tt_error err = {0};
  tt_trace *tr = full ? new_trace(bench_cfg, pool) : NULL;
  tt_recorder rec = full ? tt_trace_recorder(tr) : (tt_recorder){0};
  long f0 = minor_faults();
  double t0 = now();
  if (tt_engine_run(eng, ids, T, full ? &rec : NULL, &err) != TT_OK) die("run", &err);
  double dt = now() - t0;
  last_faults = minor_faults() - f0;
  if (bytes) *bytes = tr ? tt_trace_bytes(tr) : 0;
  if (held) *held = tr ? tt_trace_held_bytes(tr) : 0;
  tt_trace_destroy(tr);
  return dt;
}

// A recorder that hands out slices of one buffer, reused run after run, and keeps no rules
// (every hook's bytes, the attention op by op): what recording everything costs once the
// memory pages already exist.
typedef struct {
  unsigned char *base;
  size_t size, used;
} reuse_rec;

static void *reuse_reserve(void *ctx, const char *name, tt_dtype dtype, int ndim, const int64_t *shape) {
  (void)name;
  reuse_rec *r = ctx;
  size_t n = tt_dtype_size(dtype);
  for (int i = 0; i < ndim; i++) n *= (size_t)shape[i];
  size_t off = (r->used + 63) & ~(size_t)63;
  if (off + n > r->size) return NULL;
  r->used = off + n;
  return r->base + off;
}

static double run_reused(tt_engine *eng, const int32_t *ids, int T, reuse_rec *r) {
  tt_error err = {0};
  r->used = 0;
  tt_recorder rec = {.reserve = reuse_reserve, .ctx = r};
  double t0 = now();
  if (tt_engine_run(eng, ids, T, &rec, &err) != TT_OK) die("run", &err);
  return now() - t0;
}

static int cmp_double_median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n / 2;
}

// Per T, interleaved so that load from others hits all alike: record none; a full trace
// from a pool (a re-trace, as the session makes them: the pages of the trace before); a
// full recording into one buffer reused run after run (what recording costs the engine
// itself). Then, in runs of their own, a full trace on new memory (a process's first
// trace): interleaved with the others, each one's pages given back at its end slowed the
// runs after it on this VM (T = 16, one core: re-traces 34-36 -> 41-46 ms median and the
// reused buffer 35-37 -> 57-119 ms, where without them all three were level), which a
// session's re-traces never meet.
static void bench_times(tt_engine *eng, int V, const char *list) {
  char *copy = strdup(list);
  tt_trace_pool *pool = tt_trace_pool_create();
  for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
    int T = atoi(tok);
    int reps = T <= 4 ? 20 : T <= 64 ? 10 : T <= 256 ? 5 : 3;
    int32_t *ids = make_ids(T, V);
    warm_up(eng, ids, T);  // workspace pages, weights (packed from 64 rows), OpenBLAS threads
    size_t bytes = 0, held = 0;
    run_once(eng, ids, T, true, pool, &bytes, &held);  // and the pool's blocks for this T
    reuse_rec rr = {malloc(bytes + (64u << 10) * 1024), bytes + (64u << 10) * 1024, 0};
    if (!rr.base) return;
    memset(rr.base, 0, rr.size);
    double none[32], full[32], fresh[32], reused[32];
    long faults[3] = {0};  // page faults, summed over the runs: none, full, fresh
    for (int r = 0; r < reps; r++) {
      none[r] = run_once(eng, ids, T, false, NULL, NULL, NULL);
      faults[0] += last_faults;
      full[r] = run_once(eng, ids, T, true, pool, NULL, NULL);
      faults[1] += last_faults;
      reused[r] = run_reused(eng, ids, T, &rr);
    }
    for (int r = 0; r < reps; r++) {
      fresh[r] = run_once(eng, ids, T, true, NULL, NULL, NULL);
      faults[2] += last_faults;
    }
    free(rr.base);
    int m = cmp_double_median(none, reps);
    cmp_double_median(full, reps), cmp_double_median(fresh, reps), cmp_double_median(reused, reps);
    printf(
        "times T %d reps %d none_median_ms %.3f none_min_ms %.3f full_median_ms %.3f full_min_ms %.3f "
        "fresh_median_ms %.3f reused_median_ms %.3f trace_bytes %zu held_bytes %zu none_faults %ld full_faults %ld "
        "fresh_faults %ld\n",
        T, reps, none[m] * 1e3, none[0] * 1e3, full[m] * 1e3, full[0] * 1e3, fresh[m] * 1e3, reused[m] * 1e3, bytes,
        held, faults[0] / reps, faults[1] / reps, faults[2] / reps);
    fflush(stdout);
    free(ids);
  }
  tt_trace_pool_release(pool);
  free(copy);
}

static void bench_peak(tt_engine *eng, const tt_model *m, int T, bool full) {
  int32_t *ids = make_ids(T, m->cfg.vocab_size);
  size_t bytes = 0;
  tt_error err = {0};
  tt_trace *tr = full ? new_trace(&m->cfg, NULL) : NULL;
  tt_recorder rec = full ? tt_trace_recorder(tr) : (tt_recorder){0};
  if (tt_engine_run(eng, ids, T, full ? &rec : NULL, &err) != TT_OK) die("run", &err);
  bytes = tr ? tt_trace_bytes(tr) : 0;
  size_t held = tr ? tt_trace_held_bytes(tr) : 0;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("peak T %d record %s peak_rss_bytes %lld weights_bytes %zu trace_bytes %zu held_bytes %zu\n", T,
         full ? "all" : "none", (long long)ru.ru_maxrss * 1024, m->n_params * sizeof(float), bytes, held);
  tt_trace_destroy(tr);
  free(ids);
}

// ---- matmuls: timed inside the engine, then plain sgemm on the same shapes --------------------
#define MAX_SHAPES 16
typedef struct {
  int batch, M, K, N;
  bool trans_b, bias;
  double seconds;
  int calls;
} shape_stat;

static shape_stat stats[MAX_SHAPES];
static int n_stats;
static tt_status (*real_matmul)(tt_backend *, tt_buf, tt_buf, tt_buf, tt_buf, int, int, int, bool, tt_error *);
static tt_status (*real_batched)(tt_backend *, tt_buf, tt_buf, tt_buf, int, int, int, int, bool, float, tt_error *);

static shape_stat *stat_for(int batch, int M, int K, int N, bool trans_b, bool bias) {
  for (int i = 0; i < n_stats; i++) {
    shape_stat *s = &stats[i];
    if (s->batch == batch && s->M == M && s->K == K && s->N == N && s->trans_b == trans_b && s->bias == bias) return s;
  }
  if (n_stats == MAX_SHAPES) return NULL;
  stats[n_stats] = (shape_stat){batch, M, K, N, trans_b, bias, 0, 0};
  return &stats[n_stats++];
}

static tt_status timed_matmul(tt_backend *be, tt_buf out, tt_buf a, tt_buf b, tt_buf bias, int M, int K, int N,
                              bool trans_b, tt_error *err) {
  double t0 = now();
  tt_status st = real_matmul(be, out, a, b, bias, M, K, N, trans_b, err);
  shape_stat *s = stat_for(1, M, K, N, trans_b, bias.handle != NULL);
  if (s) s->seconds += now() - t0, s->calls++;
  return st;
}

static tt_status timed_batched(tt_backend *be, tt_buf out, tt_buf a, tt_buf b, int batch, int M, int K, int N,
                               bool trans_b, float alpha, tt_error *err) {
  double t0 = now();
  tt_status st = real_batched(be, out, a, b, batch, M, K, N, trans_b, alpha, err);
  shape_stat *s = stat_for(batch, M, K, N, trans_b, false);
  if (s) s->seconds += now() - t0, s->calls++;
  return st;
}

// Plain sgemm on buffers of the same shape (one set per batch entry, as in the engine):
// seconds per call, best of reps.
static int default_threads;  // OpenBLAS's own thread count, before the backend tunes it

static double plain_sgemm(const shape_stat *s, int reps) {
  openblas_set_num_threads(default_threads);
  return bench_sgemm_seconds(s->batch, s->M, s->K, s->N, s->trans_b, reps);
}

static void bench_matmul(const tt_model *m, tt_backend *be, int T, bool full) {
  real_matmul = be->matmul;
  real_batched = be->matmul_batched;
  be->matmul = timed_matmul;
  be->matmul_batched = timed_batched;
  tt_engine *eng;
  tt_error err = {0};
  if (tt_engine_create(m, be, T, &eng, &err) != TT_OK) die("engine", &err);
  int32_t *ids = make_ids(T, m->cfg.vocab_size);
  warm_up(eng, ids, T);
  // Best of three runs per shape, as for plain sgemm below.
  double best[MAX_SHAPES];
  for (int rep = 0; rep < 3; rep++) {
    for (int i = 0; i < n_stats; i++) stats[i].seconds = 0, stats[i].calls = 0;
    run_once(eng, ids, T, full, NULL, NULL, NULL);
    for (int i = 0; i < n_stats; i++) best[i] = (rep == 0 || stats[i].seconds < best[i]) ? stats[i].seconds : best[i];
  }
  double eng_flops = 0, eng_s = 0, plain_s_total = 0;
  for (int i = 0; i < n_stats; i++) {
    shape_stat *s = &stats[i];
    s->seconds = best[i];
    double flops = 2.0 * s->batch * (double)s->M * s->K * s->N;
    double per_call = s->seconds / s->calls;
    double plain = plain_sgemm(s, 3);
    printf("matmul batch %d M %d K %d N %d trans_b %d calls %d engine_gflops %.1f sgemm_gflops %.1f\n", s->batch, s->M,
           s->K, s->N, (int)s->trans_b, s->calls, flops / per_call * 1e-9, flops / plain * 1e-9);
    eng_flops += flops * s->calls;
    eng_s += s->seconds;
    plain_s_total += plain * s->calls;
  }
  printf("matmul_total T %d record %s engine_gflops %.1f sgemm_gflops %.1f ratio %.3f\n", T, full ? "all" : "none",
         eng_flops / eng_s * 1e-9, eng_flops / plain_s_total * 1e-9, plain_s_total / eng_s);
  free(ids);
  tt_engine_destroy(eng);
}

// ---- ops: record none, each op's time summed over the layers -------------------------------
#define MAX_OPS 48
#define MAX_OP_REPS 33
typedef struct {
  char name[64];           // the hook's suffix, without "blocks.L."
  double ms[MAX_OP_REPS];  // per run
} op_stat;

typedef struct {
  op_stat ops[MAX_OPS];
  int n_ops, rep;
} op_table;

static void *skip_reserve(void *ctx, const char *name, tt_dtype dtype, int ndim, const int64_t *shape) {
  (void)ctx, (void)name, (void)dtype, (void)ndim, (void)shape;
  return NULL;  // record nothing: every op runs in the engine's own slots, as with record none
}

static void op_done(void *ctx, const char *name, double seconds) {
  op_table *t = ctx;
  if (strncmp(name, "blocks.", 7) == 0) {
    const char *dot = strchr(name + 7, '.');
    if (dot) name = dot + 1;
  }
  int i = 0;
  while (i < t->n_ops && strcmp(t->ops[i].name, name) != 0) i++;
  if (i == t->n_ops) {
    if (t->n_ops == MAX_OPS) return;
    snprintf(t->ops[t->n_ops++].name, sizeof t->ops[0].name, "%s", name);
  }
  t->ops[i].ms[t->rep] += seconds * 1e3;
}

static void bench_ops(tt_engine *eng, int V, int T, int reps) {
  static op_table t;
  int32_t *ids = make_ids(T, V);
  tt_recorder rec = {.reserve = skip_reserve, .ctx = &t, .op_done = op_done};
  tt_error err = {0};
  reps = reps < 1 ? 1 : reps > MAX_OP_REPS ? MAX_OP_REPS : reps;
  double total[MAX_OP_REPS];
  warm_up(eng, ids, T);
  if (tt_engine_run(eng, ids, T, &rec, &err) != TT_OK) die("run", &err);  // warm
  memset(&t, 0, sizeof t);
  for (t.rep = 0; t.rep < reps; t.rep++) {
    double t0 = now();
    if (tt_engine_run(eng, ids, T, &rec, &err) != TT_OK) die("run", &err);
    total[t.rep] = (now() - t0) * 1e3;
  }
  for (int i = 0; i < t.n_ops; i++) {
    int m = cmp_double_median(t.ops[i].ms, reps);
    printf("op T %d name %s median_ms %.3f\n", T, t.ops[i].name, t.ops[i].ms[m]);
  }
  int m = cmp_double_median(total, reps);
  printf("ops_total T %d reps %d median_ms %.3f min_ms %.3f\n", T, reps, total[m], total[0]);
  free(ids);
}

// Alone, reps runs after a warm-up: record none, full re-traces from one pool, or full
// first traces (each on new memory, as a process's first): median and best ms (what a
// profiler should look at). kind: "none", "full" or "first".
static void bench_alone(tt_engine *eng, int V, int T, int reps, const char *kind) {
  int32_t *ids = make_ids(T, V);
  reps = reps < 1 ? 1 : reps > MAX_OP_REPS ? MAX_OP_REPS : reps;
  double ms[MAX_OP_REPS];
  bool full = strcmp(kind, "none") != 0;
  tt_trace_pool *pool = strcmp(kind, "full") == 0 ? tt_trace_pool_create() : NULL;
  warm_up(eng, ids, T);
  run_once(eng, ids, T, full, pool, NULL, NULL);
  for (int r = 0; r < reps; r++) ms[r] = run_once(eng, ids, T, full, pool, NULL, NULL) * 1e3;
  int m = cmp_double_median(ms, reps);
  printf("%s T %d reps %d median_ms %.3f min_ms %.3f\n", kind, T, reps, ms[m], ms[0]);
  tt_trace_pool_release(pool);
  free(ids);
}

// One full trace at T saved to path: bytes written and seconds (the file's write speed).
static void bench_save(tt_engine *eng, const tt_model *m, int T, const char *path) {
  int32_t *ids = make_ids(T, m->cfg.vocab_size);
  tt_error err = {0};
  tt_trace *tr = new_trace(&m->cfg, NULL);
  tt_recorder rec = tt_trace_recorder(tr);
  if (tt_engine_run(eng, ids, T, &rec, &err) != TT_OK) die("run", &err);
  char **strs = malloc((size_t)T * sizeof *strs);
  for (int t = 0; t < T; t++) {
    strs[t] = malloc(16);
    snprintf(strs[t], 16, "t%d", (int)ids[t]);
  }
  if (tt_trace_set_tokens(tr, ids, (const char *const *)strs, T, &err) != TT_OK) die("tokens", &err);
  for (int t = 0; t < T; t++) free(strs[t]);
  free(strs);
  double t0 = now();
  if (tt_trace_save(tr, path, &err) != TT_OK) die("save", &err);
  double dt = now() - t0;
  printf("save T %d bytes %zu seconds %.4f\n", T, tt_trace_bytes(tr), dt);
  tt_trace_destroy(tr);
  free(ids);
}

// Each layer's attn.hook_pattern of a full trace at T found for the first time (the trace
// computes it from its rule then, once): what the window's first view of a layer waits
// for. ms[l] per layer; *again the mean of a second find (the tensor is there). First of
// all the last block's hook_resid_post (a rule at the end of the residual stream's chain:
// every sum made down to the embeddings): *stream ms.
static void first_reads(tt_engine *eng, const tt_model *m, const int32_t *ids, int T, tt_trace_pool *pool, double *ms,
                        double *again, double *stream) {
  tt_error err = {0};
  tt_trace *tr = new_trace(&m->cfg, pool);
  tt_recorder rec = tt_trace_recorder(tr);
  if (tt_engine_run(eng, ids, T, &rec, &err) != TT_OK) die("run", &err);
  char last[64];
  snprintf(last, sizeof last, "blocks.%d.hook_resid_post", m->cfg.n_layer - 1);
  double start = now();
  if (!tt_trace_find(tr, last)) die("resid_post", &(tt_error){.msg = "not in the trace"});
  *stream = (now() - start) * 1e3;
  *again = 0;
  for (int l = 0; l < m->cfg.n_layer; l++) {
    char name[64];
    snprintf(name, sizeof name, "blocks.%d.attn.hook_pattern", l);
    double t0 = now();
    if (!tt_trace_find(tr, name)) die("pattern", &(tt_error){.msg = "not in the trace"});
    ms[l] = (now() - t0) * 1e3;
    t0 = now();
    tt_trace_find(tr, name);
    *again += (now() - t0) * 1e3 / m->cfg.n_layer;
  }
  tt_trace_destroy(tr);
}

// first_reads on a trace on new memory (a process's first), then on a re-trace from a pool
// that had the same tensors (the window's traces after its first): median and max per layer.
static void bench_derive(tt_engine *eng, const tt_model *m, int T) {
  enum { MAX_L = 128 };
  if (m->cfg.n_layer > MAX_L) return;
  int32_t *ids = make_ids(T, m->cfg.vocab_size);
  tt_trace_pool *pool = tt_trace_pool_create();
  double ms[MAX_L], again, stream;
  int L = m->cfg.n_layer;
  for (int round = 0; round < 3; round++) {  // new memory; the pool's first trace; a re-trace
    first_reads(eng, m, ids, T, round ? pool : NULL, ms, &again, &stream);
    if (round == 1) continue;
    qsort(ms, (size_t)L, sizeof *ms, cmp_double);
    printf(
        "derive T %d trace %s layers %d first_read_median_ms %.3f first_read_max_ms %.3f second_read_mean_ms %.4f "
        "last_resid_post_ms %.3f\n",
        T, round ? "re-trace" : "first", L, ms[L / 2], ms[L - 1], again, stream);
  }
  tt_trace_pool_release(pool);
  free(ids);
}

// tt_trace_load of path (mmap, checks), then layer 0's pattern read once as a view would.
static void bench_open(const char *path) {
  tt_error err = {0};
  tt_trace *tr;
  double t0 = now();
  if (tt_trace_load(path, &tr, &err) != TT_OK) die("load", &err);
  double t1 = now();
  const tt_tensor *p = tt_trace_find(tr, "blocks.0.attn.hook_pattern");
  double sum = 0;
  if (p)
    for (int64_t i = 0; i < tt_tensor_numel(p); i++) sum += ((const float *)p->data)[i];
  double t2 = now();
  printf("open bytes %zu load_s %.4f pattern_read_s %.4f pattern_sum %.1f\n", tt_trace_bytes(tr), t1 - t0, t2 - t1,
         sum);
  tt_trace_destroy(tr);
}

int main(int argc, char **argv) {
  bool packed = argc > 1 && strcmp(argv[1], "--packed") == 0;
  if (packed) argc--, argv++;
  if (argc < 4) {
    fprintf(stderr,
            "usage: bench_forward [--packed] MODEL_DIR times T1,T2,... | peak T all|none | matmul T all|none | ops T "
            "[REPS] | "
            "none T [REPS] | save T "
            "PATH | open PATH | derive T\n");
    return 2;
  }
  default_threads = openblas_get_num_threads();
  if (strcmp(argv[2], "open") == 0) {
    bench_open(argv[3]);
    return 0;
  }
  tt_error err = {0};
  tt_model *m;
  if (tt_model_load(argv[1], &m, &err) != TT_OK) die("model", &err);
  tt_backend *be;
  if (tt_backend_create("openblas", &be, NULL, 0, &err) != TT_OK) die("backend", &err);
  printf("device %s\n", be->device);
  bench_cfg = &m->cfg;
  if (strcmp(argv[2], "matmul") == 0) {
    bench_matmul(m, be, atoi(argv[3]), argc < 5 || strcmp(argv[4], "none") != 0);
  } else {
    int max_T = strcmp(argv[2], "peak") == 0 ? atoi(argv[3]) : m->cfg.n_positions;
    tt_engine *eng;
    if (tt_engine_create(m, be, max_T, &eng, &err) != TT_OK) die("engine", &err);
    double t0 = now();
    if (packed && tt_engine_pack_weights(eng, &err) != TT_OK) die("pack", &err);
    if (packed) printf("packed weights in %.3f s\n", now() - t0);
    if (strcmp(argv[2], "times") == 0)
      bench_times(eng, m->cfg.vocab_size, argv[3]);
    else if (strcmp(argv[2], "none") == 0 || strcmp(argv[2], "full") == 0 || strcmp(argv[2], "first") == 0)
      bench_alone(eng, m->cfg.vocab_size, atoi(argv[3]), argc > 4 ? atoi(argv[4]) : 5, argv[2]);
    else if (strcmp(argv[2], "ops") == 0)
      bench_ops(eng, m->cfg.vocab_size, atoi(argv[3]), argc > 4 ? atoi(argv[4]) : 5);
    else if (strcmp(argv[2], "save") == 0 && argc > 4)
      bench_save(eng, m, atoi(argv[3]), argv[4]);
    else if (strcmp(argv[2], "peak") == 0 && argc > 4)
      bench_peak(eng, m, atoi(argv[3]), strcmp(argv[4], "none") != 0);
    else if (strcmp(argv[2], "derive") == 0)
      bench_derive(eng, m, atoi(argv[3]));
    else
      fprintf(stderr, "bench_forward: unknown mode %s\n", argv[2]);
    tt_engine_destroy(eng);
  }
  tt_backend_destroy(be);
  tt_model_destroy(m);
  return 0;
}
