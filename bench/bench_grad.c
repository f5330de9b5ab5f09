// bench_grad: forward + backward against the forward alone, on the OpenBLAS backend.
//
//   bench_grad MODEL_DIR T [REPS]
//
// Prints (key value ... lines, for a script):
//   grad T .. reps .. forward_median_ms .. grad_median_ms .. ratio ..   (nothing recorded)
//   matmul_tn calls .. engine_ms .. sgemm_ms .. ratio ..   the backward's aᵀ·b products,
//                                   timed inside the runs, against plain cblas_sgemm on the same shapes
//   peak peak_rss_bytes .. weights_bytes ..
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "engine/engine.h"
#include "model/model.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

// The backward's matmul_tn calls: shapes and time spent, for the sgemm comparison.
#define MAX_CALLS 4096
typedef struct {
  int batch, M, K, N;
} tn_shape;
typedef struct {
  tn_shape shapes[MAX_CALLS];
  int n;
  double seconds;
  bool on;
  tt_status (*real)(tt_backend *, tt_buf, tt_buf, tt_buf, int, int, int, int, bool, tt_error *);
} tn_log;
static tn_log tn;  // one benchmark process, one log

static tt_status timed_tn(tt_backend *be, tt_buf out, tt_buf a, tt_buf b, int batch, int M, int K, int N, bool acc,
                          tt_error *err) {
  double t0 = now();
  tt_status st = tn.real(be, out, a, b, batch, M, K, N, acc, err);
  if (tn.on) {
    tn.seconds += now() - t0;
    if (tn.n < MAX_CALLS) tn.shapes[tn.n++] = (tn_shape){batch, M, K, N};
  }
  return st;
}

// Plain sgemm on the logged shapes (aᵀ·b, accumulating), on buffers of the largest size.
static double plain_sgemm(void) {
  size_t big = 1;
  for (int i = 0; i < tn.n; i++) {
    size_t m = (size_t)tn.shapes[i].M, k = (size_t)tn.shapes[i].K, n = (size_t)tn.shapes[i].N;
    size_t need = (m * k > k * n ? m * k : k * n) > m * n ? (m * k > k * n ? m * k : k * n) : m * n;
    if (need > big) big = need;
  }
  float *a = calloc(big, sizeof *a), *b = calloc(big, sizeof *b), *o = calloc(big, sizeof *o);
  double t0 = now();
  for (int i = 0; i < tn.n; i++) {
    tn_shape s = tn.shapes[i];
    for (int j = 0; j < s.batch; j++)
      cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, s.K, s.N, s.M, 1.0f, a, s.K, b, s.N, 1.0f, o, s.N);
  }
  double dt = now() - t0;
  free(a), free(b), free(o);
  return dt;
}

int main(int argc, char **argv) {
  if (argc < 3) return fprintf(stderr, "usage: bench_grad MODEL_DIR T [REPS]\n"), 2;
  int T = atoi(argv[2]), reps = argc > 3 ? atoi(argv[3]) : 5;
  if (reps < 1 || reps > 64) reps = 5;
  tt_error err = {0};
  tt_model *m = NULL;
  tt_backend *be = NULL;
  tt_engine *eng = NULL;
  if (tt_model_load(argv[1], &m, &err) || tt_backend_create("openblas", &be, NULL, 0, &err) ||
      tt_engine_create(m, be, T, &eng, &err) || tt_engine_enable_grad(eng, &err))
    return fprintf(stderr, "bench_grad: %s\n", err.msg), 1;
  tn.real = be->matmul_tn;
  be->matmul_tn = timed_tn;
  int32_t *ids = malloc((size_t)T * sizeof *ids);
  for (int t = 0; t < T; t++) ids[t] = (int32_t)(((int64_t)t * 7919 + 464) % m->cfg.vocab_size);
  double fwd[64], grad[64];
  tt_engine_run_grad(eng, ids, T, NULL, &err);  // warm: tape, gradient pages, threads
  for (int r = 0; r < reps; r++) {              // interleaved, so others' load hits both alike
    double t0 = now();
    if (tt_engine_run(eng, ids, T, NULL, &err)) return fprintf(stderr, "bench_grad: %s\n", err.msg), 1;
    fwd[r] = now() - t0;
    tn.on = r == 0;
    t0 = now();
    if (tt_engine_run_grad(eng, ids, T, NULL, &err)) return fprintf(stderr, "bench_grad: %s\n", err.msg), 1;
    grad[r] = now() - t0;
    tn.on = false;
  }
  qsort(fwd, reps, sizeof *fwd, cmp_double);
  qsort(grad, reps, sizeof *grad, cmp_double);
  printf("grad T %d reps %d forward_median_ms %.3f grad_median_ms %.3f ratio %.3f\n", T, reps, fwd[reps / 2] * 1e3,
         grad[reps / 2] * 1e3, grad[reps / 2] / fwd[reps / 2]);
  double plain = plain_sgemm();
  printf("matmul_tn calls %d engine_ms %.3f sgemm_ms %.3f ratio %.3f\n", tn.n, tn.seconds * 1e3, plain * 1e3,
         tn.seconds / plain);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("peak peak_rss_bytes %lld weights_bytes %zu\n", (long long)ru.ru_maxrss * 1024, m->n_params * sizeof(float));
  free(ids);
  tt_engine_destroy(eng);
  tt_backend_destroy(be);
  tt_model_destroy(m);
  return 0;
}
