// bench_grad: the backward pass on the OpenBLAS backend, against the forward pass alone.
//
//   bench_grad MODEL_DIR T [REPS]           times, nothing recorded
//   bench_grad MODEL_DIR T peak none|all    one gradient run as `ttrace trace --grad` makes it
//
// Prints (key value ... lines, for bench/run_grad_bench.py):
//   grad T .. reps .. forward_median_ms .. grad_median_ms .. ratio_median ..
//       forward alone and forward + backward, interleaved; ratio_median is the median of the
//       per-rep ratios (grad run r against forward run r), ratio_min the fastest grad run
//       against the fastest forward, cpu_ratio_median the median ratio of CPU seconds (all
//       threads: less sensitive to other programs' load, but OpenBLAS's waiting threads count)
//   matmul calls .. engine_ms .. sgemm_ms .. ratio_median ..
//       every matrix product of the backward pass (dx, d W and the attention's), timed inside
//       the runs, against plain cblas_sgemm on the same shapes replayed right after each run
//   step NAME op OP shape SHAPE calls N ms MS
//       the backward's time per op (mean per run), under the hook its step writes (the layers
//       summed: blocks.L. dropped); ops without a hook of their own count under the next one
//   backward wall_ms .. ops_ms ..   the backward's wall time and the part spent inside ops
//   peak record none|all peak_rss_bytes .. weights_bytes .. trace_bytes .. held_bytes ..
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench_util.h"
#include "engine/engine.h"
#include "model/model.h"
#include "trace/trace.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void die(const char *what, const tt_error *err) {
  fprintf(stderr, "bench_grad: %s: %s\n", what, err->msg);
  exit(1);
}

// ---- the op log: every backend op of a run, with the step (hook) it belongs to ----------------
enum { MAX_CALLS = 4096, STEP_LEN = 64 };
typedef struct {
  const char *op;
  char shape[48];
  char step[STEP_LEN];  // the hook name the engine reported next, blocks.L. dropped
  double start, seconds;
  // matrix products, in cblas_sgemm's terms (0 for other ops), on the engine's own memory
  int batch, m, n, k;
  bool ta, tb;
  float beta;
  const float *pa, *pb;
  float *po;
} op_call;

typedef struct {
  op_call calls[MAX_CALLS];
  int n, labelled;  // calls[labelled..n) still wait for their step's name
  tt_backend real;  // the backend's own ops
} op_log;
static op_log lg;  // one benchmark process, one log

static op_call *log_call(const char *op, double t0) {
  if (lg.n == MAX_CALLS) return NULL;
  op_call *c = &lg.calls[lg.n++];
  *c = (op_call){.op = op, .start = t0, .seconds = bench_now() - t0};
  return c;
}

// The host memory behind a view (the OpenBLAS backend's buffers are plain memory).
static const float *host_in(tt_buf b) {
  return (b.handle ? (const float *)b.handle : (const float *)b.read_only) + b.offset;
}

static void set_gemm(op_call *c, tt_buf a, tt_buf b, tt_buf o, int batch, bool ta, bool tb, int m, int n, int k,
                     float beta) {
  if (!c) return;
  c->batch = batch, c->ta = ta, c->tb = tb, c->m = m, c->n = n, c->k = k, c->beta = beta;
  c->pa = host_in(a), c->pb = host_in(b), c->po = (float *)o.handle + o.offset;
  snprintf(c->shape, sizeof c->shape, "%dx(%d,%d)%s(%d,%d)%s%s", batch, ta ? k : m, ta ? m : k, "x", tb ? n : k,
           tb ? k : n, ta ? "Ta" : "", tb ? "Tb" : "");
}

static void set_shape(op_call *c, size_t a, size_t b) {
  if (c) snprintf(c->shape, sizeof c->shape, b ? "(%zu,%zu)" : "(%zu)", a, b);
}

// The engine's op_done: the calls since the last one belong to the step named.
static void on_op(void *ctx, const char *name, double seconds) {
  (void)ctx, (void)seconds;
  char step[STEP_LEN];
  const char *b = strstr(name, "blocks.");
  const char *dot = b ? strchr(b + 7, '.') : NULL;
  if (dot)
    snprintf(step, sizeof step, "%.*s%s", (int)(b - name), name, dot + 1);
  else
    snprintf(step, sizeof step, "%s", name);
  for (; lg.labelled < lg.n; lg.labelled++) memcpy(lg.calls[lg.labelled].step, step, sizeof step);
}

static void *record_nothing(void *ctx, const char *name, tt_dtype dtype, int ndim, const int64_t *shape) {
  (void)ctx, (void)name, (void)dtype, (void)ndim, (void)shape;
  return NULL;
}

// ---- timed wrappers of the backend's ops ------------------------------------------------------
static tt_status t_matmul(tt_backend *be, tt_buf out, tt_buf a, tt_buf b, tt_buf bias, int M, int K, int N, bool tb,
                          tt_error *err) {
  double t0 = bench_now();
  tt_status st = lg.real.matmul(be, out, a, b, bias, M, K, N, tb, err);
  set_gemm(log_call("matmul", t0), a, b, out, 1, false, tb, M, N, K, tt_buf_is_set(bias) ? 1.0f : 0.0f);
  return st;
}

static tt_status t_batched(tt_backend *be, tt_buf out, tt_buf a, tt_buf b, int batch, int M, int K, int N, bool tb,
                           float alpha, tt_error *err) {
  double t0 = bench_now();
  tt_status st = lg.real.matmul_batched(be, out, a, b, batch, M, K, N, tb, alpha, err);
  set_gemm(log_call("matmul_batched", t0), a, b, out, batch, false, tb, M, N, K, 0.0f);
  return st;
}

static tt_status t_matmul_tn(tt_backend *be, tt_buf out, tt_buf a, tt_buf b, int batch, int M, int K, int N, bool acc,
                             tt_error *err) {
  double t0 = bench_now();
  tt_status st = lg.real.matmul_tn(be, out, a, b, batch, M, K, N, acc, err);
  set_gemm(log_call("matmul_tn", t0), a, b, out, batch, true, false, K, N, M, acc ? 1.0f : 0.0f);
  return st;
}

// The other ops, each logged with its element count.
#define TIMED(op, n, params, args)                        \
  static tt_status t_##op params {                        \
    double t0 = bench_now();                              \
    tt_status st = lg.real.op args;                       \
    set_shape(log_call(#op, t0), (size_t)(n), (size_t)0); \
    return st;                                            \
  }
TIMED(add, n, (tt_backend * be, tt_buf out, tt_buf a, tt_buf b, size_t n, tt_error *err), (be, out, a, b, n, err))
TIMED(scale, n, (tt_backend * be, tt_buf out, tt_buf x, float s, size_t n, tt_error *err), (be, out, x, s, n, err))
TIMED(mul, n, (tt_backend * be, tt_buf out, tt_buf a, tt_buf b, size_t n, tt_error *err), (be, out, a, b, n, err))
TIMED(zero, n, (tt_backend * be, tt_buf out, size_t n, tt_error *err), (be, out, n, err))
TIMED(add_row_sums, M *N, (tt_backend * be, tt_buf out, tt_buf x, int M, int N, tt_error *err), (be, out, x, M, N, err))
TIMED(norm_backward, T *C,
      (tt_backend * be, tt_buf dx, tt_buf dn, tt_buf dg, tt_buf db, tt_buf dout, tt_buf nrm, tt_buf sc, tt_buf g, int T,
       int C, bool rms, tt_error *err),
      (be, dx, dn, dg, db, dout, nrm, sc, g, T, C, rms, err))
TIMED(activation_backward, n,
      (tt_backend * be, tt_buf dx, tt_buf y, tt_buf x, tt_buf dy, size_t n, tt_act_kind act, tt_error *err),
      (be, dx, y, x, dy, n, act, err))
TIMED(softmax_backward, rows *cols,
      (tt_backend * be, tt_buf dx, tt_buf y, tt_buf dy, int rows, int cols, tt_error *err),
      (be, dx, y, dy, rows, cols, err))
TIMED(unmerge_heads, T *H *D, (tt_backend * be, tt_buf z, tt_buf x, int T, int H, int D, tt_error *err),
      (be, z, x, T, H, D, err))
TIMED(merge_heads, T *H *D, (tt_backend * be, tt_buf x, tt_buf z, int T, int H, int D, tt_error *err),
      (be, x, z, T, H, D, err))
TIMED(join_heads, T * 3 * H * D,
      (tt_backend * be, tt_buf qkv, tt_buf q, tt_buf k, tt_buf v, int T, int H, int D, tt_error *err),
      (be, qkv, q, k, v, T, H, D, err))
TIMED(nll_backward, T *V,
      (tt_backend * be, tt_buf d, tt_buf probs, const int32_t *ids, int T, int V, float tiny, tt_error *err),
      (be, d, probs, ids, T, V, tiny, err))
TIMED(embed_backward, T *C, (tt_backend * be, tt_buf d, tt_buf dx, const int32_t *ids, int T, int C, tt_error *err),
      (be, d, dx, ids, T, C, err))
TIMED(embed, T *C, (tt_backend * be, tt_buf out, tt_buf tab, const int32_t *ids, int T, int C, tt_error *err),
      (be, out, tab, ids, T, C, err))
TIMED(causal_mask, H *T *T, (tt_backend * be, tt_buf out, tt_buf x, int H, int T, tt_error *err),
      (be, out, x, H, T, err))
TIMED(softmax, rows *cols, (tt_backend * be, tt_buf out, tt_buf x, int rows, int cols, tt_error *err),
      (be, out, x, rows, cols, err))
TIMED(norm, T *C,
      (tt_backend * be, tt_buf out, tt_buf nrm, tt_buf mean, tt_buf sc, tt_buf x, tt_buf g, tt_buf b, int T, int C,
       float eps, bool rms, tt_error *err),
      (be, out, nrm, mean, sc, x, g, b, T, C, eps, rms, err))
TIMED(activation, n, (tt_backend * be, tt_buf out, tt_buf x, size_t n, tt_act_kind act, tt_error *err),
      (be, out, x, n, act, err))
TIMED(split_heads, T * 3 * H * D,
      (tt_backend * be, tt_buf q, tt_buf k, tt_buf v, tt_buf qkv, int T, int H, int D, tt_error *err),
      (be, q, k, v, qkv, T, H, D, err))
TIMED(nll, T *V, (tt_backend * be, tt_buf loss, tt_buf logits, const int32_t *ids, int T, int V, tt_error *err),
      (be, loss, logits, ids, T, V, err))
TIMED(download, n, (tt_backend * be, tt_buf src, float *dst, size_t n, tt_error *err), (be, src, dst, n, err))

static void wrap_backend(tt_backend *be) {
  lg.real = *be;
  be->matmul = t_matmul, be->matmul_batched = t_batched, be->matmul_tn = t_matmul_tn;
  be->add = t_add, be->scale = t_scale, be->mul = t_mul, be->zero = t_zero, be->add_row_sums = t_add_row_sums;
  be->norm_backward = t_norm_backward, be->activation_backward = t_activation_backward;
  be->softmax_backward = t_softmax_backward, be->unmerge_heads = t_unmerge_heads, be->merge_heads = t_merge_heads;
  be->join_heads = t_join_heads, be->nll_backward = t_nll_backward, be->embed_backward = t_embed_backward;
  be->download = t_download, be->embed = t_embed, be->causal_mask = t_causal_mask, be->softmax = t_softmax;
  be->norm = t_norm, be->activation = t_activation, be->split_heads = t_split_heads, be->nll = t_nll;
}

static bool in_backward(const op_call *c) {
  return strncmp(c->step, "grad.", 5) == 0;
}

// ---- plain sgemm on the backward's shapes ---------------------------------------------------
// The backward's products of the log replayed by cblas_sgemm on the same memory (operands
// and outputs where the engine had them), in the same order, with OpenBLAS's own thread
// count: seconds; *engine the same products' seconds inside the engine. (It overwrites
// gradients of the run just made; the next run computes them again.)
static double replay_sgemm(int threads, double *engine) {
  int engine_threads = openblas_get_num_threads();
  openblas_set_num_threads(threads);
  double total = 0;
  *engine = 0;
  for (int i = 0; i < lg.n; i++) {
    const op_call *c = &lg.calls[i];
    if (!c->batch || !in_backward(c)) continue;
    *engine += c->seconds;
    int lda = c->ta ? c->m : c->k, ldb = c->tb ? c->k : c->n;
    size_t sa = (size_t)c->m * c->k, sb = (size_t)c->k * c->n, so = (size_t)c->m * c->n;
    double t0 = bench_now();
    for (int j = 0; j < c->batch; j++)
      cblas_sgemm(CblasRowMajor, c->ta ? CblasTrans : CblasNoTrans, c->tb ? CblasTrans : CblasNoTrans, c->m, c->n, c->k,
                  1.0f, c->pa + j * sa, lda, c->pb + j * sb, ldb, c->beta, c->po + j * so, c->n);
    total += bench_now() - t0;
  }
  openblas_set_num_threads(engine_threads);
  return total;
}

// ---- the breakdown per step ------------------------------------------------------------------------
typedef struct {
  const op_call *first;
  int calls;
  double seconds;
} step_row;

// Adds the log's calls of one pass (the backward's, or the forward's) into rows (one per
// step, op and shape), keeping a copy of each row's first call in kept; returns the row count.
static int add_rows(step_row *rows, op_call *kept, int n_rows, int cap, bool backward) {
  for (int i = 0; i < lg.n; i++) {
    const op_call *c = &lg.calls[i];
    if (in_backward(c) != backward) continue;
    int r = 0;
    while (r < n_rows && !(strcmp(rows[r].first->step, c->step) == 0 && strcmp(rows[r].first->op, c->op) == 0 &&
                           strcmp(rows[r].first->shape, c->shape) == 0))
      r++;
    if (r == n_rows) {
      if (n_rows == cap) continue;
      kept[n_rows] = *c;
      rows[n_rows++] = (step_row){&kept[r], 0, 0};
    }
    rows[r].calls++;
    rows[r].seconds += c->seconds;
  }
  return n_rows;
}

// ---- the timed runs ------------------------------------------------------------------------------
typedef struct {
  tt_engine *eng;
  const int32_t *ids;
  int T;
} bench_run;

// One run with every op logged: seconds; with grad, *backward the seconds from the backward's
// first op to the run's end.
// The process's CPU seconds so far (every thread, user and system).
static double cpu_seconds(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
         ru.ru_stime.tv_usec * 1e-6;
}

static double timed_run(const bench_run *b, bool grad, double *backward, double *cpu) {
  tt_error err = {0};
  double c0 = cpu_seconds();
  tt_recorder rec = {.reserve = record_nothing, .op_done = on_op};
  lg.n = lg.labelled = 0;
  double t0 = bench_now();
  tt_status st =
      grad ? tt_engine_run_grad(b->eng, b->ids, b->T, &rec, &err) : tt_engine_run(b->eng, b->ids, b->T, &rec, &err);
  double end = bench_now();
  if (cpu) *cpu = cpu_seconds() - c0;
  if (st != TT_OK) die("run", &err);
  if (backward) {
    int i = 0;
    while (i < lg.n && !in_backward(&lg.calls[i])) i++;
    *backward = i < lg.n ? end - lg.calls[i].start : 0;
  }
  return end - t0;
}

static double median(double *v, int n) {
  qsort(v, n, sizeof *v, cmp_double);
  return v[n / 2];
}

typedef struct {
  double fwd[64], grad[64], ratio[64], mm[64], backward[64], cpu_ratio[64];
  double engine_ms, sgemm_ms, ops_ms;  // means per run
  int gemm_calls;
} times;

// The log's backward: time inside ops, and the matrix products counted.
static double backward_ops(int *gemm_calls) {
  double s = 0;
  *gemm_calls = 0;
  for (int i = 0; i < lg.n; i++)
    if (in_backward(&lg.calls[i])) s += lg.calls[i].seconds, *gemm_calls += lg.calls[i].batch > 0;
  return s;
}

static void bench_times(const bench_run *b, int reps) {
  enum { CAP = 512 };
  static step_row rows[CAP], frows[CAP];
  static op_call kept[CAP], fkept[CAP];  // the rows' first calls, copied out of the log
  static times tm;
  int n_rows = 0, n_frows = 0, threads = openblas_get_num_threads();
  timed_run(b, true, NULL, NULL);   // warm: tape, gradient pages, threads
  for (int r = 0; r < reps; r++) {  // interleaved, so others' load hits both alike
    double cpu_fwd, cpu_grad;
    tm.fwd[r] = timed_run(b, false, NULL, &cpu_fwd);
    n_frows = add_rows(frows, fkept, n_frows, CAP, false);
    tm.grad[r] = timed_run(b, true, &tm.backward[r], &cpu_grad);
    tm.ratio[r] = tm.grad[r] / tm.fwd[r], tm.cpu_ratio[r] = cpu_grad / cpu_fwd;
    tm.ops_ms += backward_ops(&tm.gemm_calls) * 1e3 / reps;
    n_rows = add_rows(rows, kept, n_rows, CAP, true);
    double engine, plain = replay_sgemm(threads, &engine);
    tm.mm[r] = engine / plain;
    tm.engine_ms += engine * 1e3 / reps, tm.sgemm_ms += plain * 1e3 / reps;
  }
  double fwd_ms = median(tm.fwd, reps) * 1e3, grad_ms = median(tm.grad, reps) * 1e3;  // both sorted now
  printf(
      "grad T %d reps %d forward_median_ms %.3f grad_median_ms %.3f ratio_median %.3f ratio_min %.3f "
      "cpu_ratio_median %.3f\n",
      b->T, reps, fwd_ms, grad_ms, median(tm.ratio, reps), tm.grad[0] / tm.fwd[0], median(tm.cpu_ratio, reps));
  printf("matmul calls %d engine_ms %.3f sgemm_ms %.3f ratio_median %.3f\n", tm.gemm_calls, tm.engine_ms, tm.sgemm_ms,
         median(tm.mm, reps));
  for (int i = 0; i < n_frows; i++)
    printf("forward_step %s op %s shape %s calls %d ms %.3f\n", frows[i].first->step, frows[i].first->op,
           frows[i].first->shape, frows[i].calls / reps, frows[i].seconds * 1e3 / reps);
  for (int i = 0; i < n_rows; i++)
    printf("step %s op %s shape %s calls %d ms %.3f\n", rows[i].first->step, rows[i].first->op, rows[i].first->shape,
           rows[i].calls / reps, rows[i].seconds * 1e3 / reps);
  printf("backward wall_median_ms %.3f ops_ms %.3f\n", median(tm.backward, reps) * 1e3, tm.ops_ms);
}

// The process's resident bytes now (VmRSS), 0 when /proc is not there.
static long long rss_now(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long long kb = 0;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmRSS: %lld kB", &kb) == 1) break;
  if (f) fclose(f);
  return kb * 1024;
}

// ---- peak memory of one gradient run ------------------------------------------------------------
// As `ttrace trace --grad` runs: every hook and gradient into a trace (all), or nothing (none).
static void bench_peak(const bench_run *b, const tt_model *m, bool all) {
  tt_error err = {0};
  long long before = rss_now();  // the engine set up, nothing run yet
  tt_trace *tr = all ? tt_trace_create() : NULL;
  char *json = all ? tt_config_to_json(&m->cfg) : NULL;
  if (all && (!tr || !json || tt_trace_set_meta(tr, "config", json)))
    fprintf(stderr, "bench_grad: out of memory\n"), exit(1);
  free(json);
  tt_recorder rec = all ? tt_trace_recorder(tr) : (tt_recorder){0};
  if (tt_engine_run_grad(b->eng, b->ids, b->T, all ? &rec : NULL, &err) != TT_OK) die("run", &err);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf(
      "peak T %d record %s rss_before_run_bytes %lld peak_rss_bytes %lld weights_bytes %zu trace_bytes %zu held_bytes "
      "%zu\n",
      b->T, all ? "all" : "none", before, (long long)ru.ru_maxrss * 1024, m->n_params * sizeof(float),
      tr ? tt_trace_bytes(tr) : 0, tr ? tt_trace_held_bytes(tr) : 0);
  tt_trace_destroy(tr);
}

int main(int argc, char **argv) {
  if (argc < 3) return fprintf(stderr, "usage: bench_grad MODEL_DIR T [REPS | peak none|all]\n"), 2;
  int T = atoi(argv[2]);
  bool peak = argc > 4 && strcmp(argv[3], "peak") == 0;
  int reps = argc > 3 && !peak ? atoi(argv[3]) : 5;
  if (reps < 1 || reps > 64) reps = 5;
  tt_error err = {0};
  tt_model *m = NULL;
  tt_backend *be = NULL;
  tt_engine *eng = NULL;
  if (tt_model_load(argv[1], &m, &err) || tt_backend_create("openblas", &be, NULL, 0, &err)) die("setup", &err);
  if (!peak) wrap_backend(be);
  if (tt_engine_create(m, be, peak ? m->cfg.n_positions : T, &eng, &err) || tt_engine_enable_grad(eng, &err))
    die("engine", &err);
  int32_t *ids = malloc((size_t)T * sizeof *ids);
  if (!ids) return 1;
  for (int t = 0; t < T; t++) ids[t] = (int32_t)(((int64_t)t * 7919 + 464) % m->cfg.vocab_size);
  bench_run b = {eng, ids, T};
  if (peak)
    bench_peak(&b, m, strcmp(argv[4], "all") == 0);
  else
    bench_times(&b, reps);
  free(ids);
  tt_engine_destroy(eng);
  tt_backend_destroy(be);
  tt_model_destroy(m);
  return 0;
}
