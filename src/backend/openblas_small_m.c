// openblas_small_m: the OpenBLAS backend's products of at most TT_SMALL_M_MAX rows (the
// kernels of small_m.c) on the pool's threads, each thread streaming its own part of b.
// With trans_b, or K within one segment, a part is a range of columns (with trans_b, a
// range of b's rows). Without trans_b and a longer K, the parts are runs of consecutive K
// segments (each segment a contiguous range of b's rows), one run per thread, and the
// segments' partial products are added in segment order afterwards (small_m.h), so the
// bits do not depend on the thread count.
// Shape legend: M rows of a, K the shared width, N columns of the result.
#include "openblas_internal.h"
#include "small_m.h"

#define MIN_PART_B_FLOATS 65536  // a part streams at least 256 KiB of b, so that waking a thread pays

typedef struct {
  float *o, *parts;  // out (M,N); the partial products of segments 1.. (S-1, each (M,N))
  const float *a, *b, *bias;
  int M, K, N, S;
  int runs;     // runs of consecutive segments
  int cols;     // column ranges per run
  size_t part;  // columns per range
  bool trans_b;
} small_m_job;

static void columns_body(void *args, size_t c0, size_t c1) {
  const small_m_job *j = args;
  tt_small_m_matmul_cols(j->o, j->a, j->b, j->bias, j->M, j->K, j->N, j->trans_b, 1.0f, (int)c0, (int)c1);
}

// Item i: run i / cols of segments, its column range i % cols; segment 0 into out, s into
// parts. A thread streams its run's rows of b as one range: two cores claiming the 8
// segments of K = 3072 in turn (each thread's segments interleaved with the other's) ran
// M = 16 at 0.7x the GFLOP/s of two halves.
static void segment_item(void *ctx, int i, int thread) {
  (void)thread;
  const small_m_job *j = ctx;
  int run = i / j->cols, s0 = run * j->S / j->runs, s1 = (run + 1) * j->S / j->runs;
  size_t c0 = (size_t)(i % j->cols) * j->part, c1 = c0 + j->part < (size_t)j->N ? c0 + j->part : (size_t)j->N;
  for (int s = s0; s < s1; s++) {
    float *dst = s == 0 ? j->o : j->parts + (size_t)(s - 1) * j->M * j->N;
    tt_small_m_segment_cols(dst, j->a, j->b, j->M, j->K, j->N, s, (int)c0, (int)c1);
  }
}

static void sum_body(void *args, size_t c0, size_t c1) {
  const small_m_job *j = args;
  tt_small_m_sum_segments(j->o, j->parts, j->bias, j->M, j->N, j->S, 1.0f, (int)c0, (int)c1);
}

// Columns per part that stream at least MIN_PART_B_FLOATS of b (rows of it each): never
// split when b has no rows.
static size_t min_columns(int rows, int N) {
  return rows > 0 ? ((size_t)MIN_PART_B_FLOATS + rows - 1) / rows : (size_t)N + 1;
}

// Columns per range when each of `segments` segments is split so that there are parts
// for every thread: whole kernel tiles, and at least min_columns each.
static size_t columns_per_part(int threads, int segments, int N) {
  int per_segment = (threads + segments - 1) / segments;
  size_t part = ((size_t)N + per_segment - 1) / per_segment, least = min_columns(TT_SMALL_M_KSEG, N);
  if (part < least) part = least;
  return (part + TT_SMALL_M_COL_ALIGN - 1) / TT_SMALL_M_COL_ALIGN * TT_SMALL_M_COL_ALIGN;
}

tt_status tt_openblas_small_m_matmul(tt_backend *be, float *o, const float *a, const float *b, const float *bias, int M,
                                     int K, int N, bool trans_b, tt_error *err) {
  openblas_impl *im = be->impl;
  int threads = tt_host_pool_threads(im->pool);
  small_m_job j = {.o = o, .a = a, .b = b, .bias = bias, .M = M, .K = K, .N = N, .trans_b = trans_b};
  j.S = trans_b ? 1 : tt_small_m_segments(K);
  if (j.S == 1) {  // one range of columns per thread
    tt_openblas_parallel_parts(be, (size_t)N, min_columns(K, N), TT_SMALL_M_COL_ALIGN, 1, columns_body, &j);
    return TT_OK;
  }
  j.parts = tt_openblas_scratch(&im->segments, &im->segment_floats, (size_t)(j.S - 1) * M * N);
  if (!j.parts)
    return tt_fail(err, TT_ERR_NOMEM, "openblas: cannot allocate %d partial products of (%d, %d)", j.S - 1, M, N);
  j.runs = j.S < threads ? j.S : threads;
  j.part = columns_per_part(threads, j.S, N);
  j.cols = (int)(((size_t)N + j.part - 1) / j.part);
  tt_host_pool_run(im->pool, j.runs * j.cols, segment_item, &j);
  size_t min_cols = (MIN_PART_FLOATS + (size_t)M * j.S - 1) / ((size_t)M * j.S);
  tt_openblas_parallel_parts(be, (size_t)N, min_cols, ALIGN_FLOATS, 1, sum_body, &j);
  return TT_OK;
}
