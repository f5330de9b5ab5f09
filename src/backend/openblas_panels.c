// openblas_panels: the OpenBLAS backend's weights in column panels (panels.h) on AVX-512:
// pack_weight, and the products that read them, on the pool's threads, each thread
// streaming one contiguous range of panels. The backward pass's products (the transpose of
// what the panels were made for) take the weight back in row-major order first (scratch),
// then go the way of any other product.
// Shape legend: M rows of a, K the shared width, N columns of the result.
#include "openblas_internal.h"
#include "panels.h"

#include <sys/mman.h>

#define MIN_PART_PANEL_FLOATS 65536  // a thread's panels hold at least 256 KiB: waking it pays

tt_status tt_openblas_pack_weight(tt_backend *be, const float *w, int K, int N, bool trans_b, tt_buf *out,
                                  tt_error *err) {
  (void)be;
  size_t n = tt_panels_floats(K, N);
  // Pages of their own, made in one call (MAP_POPULATE) rather than a fault at a time.
  float *p =
      mmap(NULL, n ? n * sizeof(float) : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (p == MAP_FAILED)
    return tt_fail(err, TT_ERR_NOMEM, "openblas: cannot allocate a (%d, %d) weight's panels (%.1f MiB)", K, N,
                   (double)n * 4.0 / 1048576.0);
  (trans_b ? tt_panels_pack_transposed : tt_panels_pack)(p, w, K, N);
  *out = (tt_buf){.handle = p, .n = n, .panels = true, .trans_b = trans_b};
  return TT_OK;
}

void tt_openblas_release_panels(tt_buf *b) {
  munmap(b->handle, b->n ? b->n * sizeof(float) : 1);
  *b = (tt_buf){0};
}

typedef struct {
  float *o, *ap;
  const float *a, *panels, *bias;
  int M, K, N;
} panels_job;

static void pack_a_body(void *args, size_t b0, size_t b1) {
  const panels_job *j = args;
  tt_panels_pack_a(j->ap, j->a, j->M, j->K, (int)b0, (int)b1);
}

static void panels_body(void *args, size_t p0, size_t p1) {
  const panels_job *j = args;
  tt_panels_matmul(j->o, j->ap, j->panels, j->bias, j->M, j->K, j->N, (int)p0, (int)p1);
}

tt_status tt_openblas_panels_matmul(tt_backend *be, float *o, const float *a, const float *panels, const float *bias,
                                    int M, int K, int N, tt_error *err) {
  openblas_impl *im = be->impl;
  panels_job j = {o, (float *)a, a, panels, bias, M, K, N};  // one row packs as itself
  tt_openblas_single_thread(be);
  if (M > 1) {
    if (!(j.ap = tt_openblas_scratch(&im->panels_a, &im->panels_a_floats, (size_t)M * K)))
      return tt_fail(err, TT_ERR_NOMEM, "openblas: cannot allocate a (%d, %d) product's rows in blocks (%.1f MiB)", M,
                     K, (double)M * K * 4.0 / 1048576.0);
    tt_openblas_parallel_parts(be, (size_t)tt_panels_row_blocks(M), tt_openblas_min_rows((size_t)TT_PANEL_ROWS * K), 1,
                               1, pack_a_body, &j);
  }
  size_t panel_floats = (size_t)K * TT_PANEL_COLS * (size_t)(M < 16 ? 1 : M / 16);  // work per panel, in b's floats
  size_t min_panels = panel_floats ? (MIN_PART_PANEL_FLOATS + panel_floats - 1) / panel_floats : (size_t)N + 1;
  tt_openblas_parallel_parts(be, (size_t)tt_panels_count(N), min_panels, 1, 1, panels_body, &j);
  return TT_OK;
}

const float *tt_openblas_unpacked(tt_backend *be, const float *panels, int K, int N) {
  openblas_impl *im = be->impl;
  float *b = tt_openblas_scratch(&im->unpacked, &im->unpacked_floats, (size_t)K * N);
  if (b) tt_panels_unpack(b, panels, K, N);
  return b;
}
