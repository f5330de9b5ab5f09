// bench_opencl_gemm: GFLOP/s of the OpenCL matmul kernels on GPT-2-small shapes, with
// cblas_sgemm on the same shapes for comparison. A benchmark (`meson test --benchmark`
// or run directly), not a test. Argument: repetitions (default 3; the best is kept).
#include <cblas.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/backend.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct {
  const char *what;
  int batch, M, K, N;
  bool trans_b;
} shape;

static int die(const tt_error *err) {
  fprintf(stderr, "bench_opencl_gemm: %s\n", err->msg);
  return 1;
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 3;
  if (reps < 1) reps = 1;
  tt_backend *be;
  tt_error err;
  if (tt_backend_opencl_create(-1, -1, &be, &err) != TT_OK) return die(&err);
  printf("device: %s\n", be->device);
  // The products of one GPT-2-small block (C 768, F 3072, H 12, D 64) and of the head.
  static const shape shapes[] = {
      {"qkv T=256", 1, 256, 768, 2304, false},
      {"attn proj T=256", 1, 256, 768, 768, false},
      {"fc T=256", 1, 256, 768, 3072, false},
      {"fc proj T=256", 1, 256, 3072, 768, false},
      {"scores 12x T=256 (trans_b)", 12, 256, 64, 256, true},
      {"z 12x T=256", 12, 256, 256, 64, false},
      {"logits T=256 (trans_b)", 1, 256, 768, 50257, true},
      {"qkv T=1024", 1, 1024, 768, 2304, false},
      {"fc T=1024", 1, 1024, 768, 3072, false},
      {"fc proj T=1024", 1, 1024, 3072, 768, false},
      {"scores 12x T=1024 (trans_b)", 12, 1024, 64, 1024, true},
      {"z 12x T=1024", 12, 1024, 1024, 64, false},
      {"qkv T=4 (small tiles)", 1, 4, 768, 2304, false},
  };
  printf("%-30s %8s %10s %10s %10s\n", "shape", "GFLOP", "opencl s", "GFLOP/s", "sgemm GF/s");
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
    const shape *sh = &shapes[s];
    size_t na = (size_t)sh->batch * sh->M * sh->K, nb = (size_t)sh->batch * sh->K * sh->N,
           no = (size_t)sh->batch * sh->M * sh->N;
    float *a = malloc(na * sizeof *a), *b = malloc(nb * sizeof *b), *o = malloc(no * sizeof *o);
    for (size_t i = 0; i < na; i++) a[i] = (float)(i % 7) * 0.1f;
    for (size_t i = 0; i < nb; i++) b[i] = (float)(i % 5) * 0.1f;
    tt_buf da, db, dout, bias = {0};
    if (be->alloc(be, na, &da, &err) || be->alloc(be, nb, &db, &err) || be->alloc(be, no, &dout, &err) ||
        be->upload(be, da, a, na, &err) || be->upload(be, db, b, nb, &err))
      return die(&err);
    double best = 1e30;
    for (int r = 0; r <= reps; r++) {  // the first run warms up (PoCL compiles work-group code)
      if (be->finish(be, &err)) return die(&err);
      double t0 = now_s();
      tt_status st = sh->batch == 1 ? be->matmul(be, dout, da, db, bias, sh->M, sh->K, sh->N, sh->trans_b, &err)
                                    : be->matmul_batched(be, dout, da, db, sh->batch, sh->M, sh->K, sh->N, sh->trans_b,
                                                         1.0f, &err);
      if (st || be->finish(be, &err)) return die(&err);
      double dt = now_s() - t0;
      if (r > 0 && dt < best) best = dt;
    }
    double best_blas = 1e30;
    for (int r = 0; r <= reps; r++) {
      double t0 = now_s();
      for (int g = 0; g < sh->batch; g++)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, sh->trans_b ? CblasTrans : CblasNoTrans, sh->M, sh->N, sh->K, 1.0f,
                    a + (size_t)g * sh->M * sh->K, sh->K, b + (size_t)g * sh->K * sh->N, sh->trans_b ? sh->K : sh->N,
                    0.0f, o + (size_t)g * sh->M * sh->N, sh->N);
      double dt = now_s() - t0;
      if (r > 0 && dt < best_blas) best_blas = dt;
    }
    double gflop = 2.0 * sh->batch * sh->M * sh->K * (double)sh->N * 1e-9;
    printf("%-30s %8.2f %10.4f %10.1f %10.1f\n", sh->what, gflop, best, gflop / best, gflop / best_blas);
    fflush(stdout);
    be->release(be, &da), be->release(be, &db), be->release(be, &dout);
    free(a), free(b), free(o);
  }
  tt_backend_destroy(be);
  return 0;
}
