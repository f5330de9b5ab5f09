// openblas_internal: what the OpenBLAS backend's files share: the view accessors, the
// size checks, the thread choice and the thread pool. Not a public header.
#ifndef TT_OPENBLAS_INTERNAL_H
#define TT_OPENBLAS_INTERNAL_H

#include "backend.h"
#include "host_pool.h"

typedef struct {
  int max_threads;     // OpenBLAS's thread count at creation
  int threads;         // the count currently set
  tt_host_pool *pool;  // max_threads threads for the row loops and batches of products
  float *scratch;      // the causal attention's blocks: scratch_floats per pool thread
  size_t scratch_floats;
  bool mid_m;    // products of 17..128 rows go to mid_m.c (AVX-512)
  float *mid_a;  // a packed for mid_m: mid_a_floats
  size_t mid_a_floats;
  float *mid_b;     // b's blocks for mid_m: TT_MID_M_B_FLOATS per pool thread
  float *segments;  // small-M products' partial products along K: segment_floats
  size_t segment_floats;
  float *unpacked;  // a packed weight in row-major order again, for a · wᵀ: unpacked_floats
  size_t unpacked_floats;
  float *panels_a;  // a in row blocks for the products with weights in panels: panels_a_floats
  size_t panels_a_floats;
} openblas_impl;

// The floats an op reads through view b (writable or read-only host memory).
static inline const float *in(tt_buf b) {
  TT_ASSERT(tt_buf_is_set(b));
  return tt_buf_host_floats(b);
}
// The floats an op writes through view b.
static inline float *out_of(tt_buf b) {
  TT_ASSERT(b.handle != NULL);
  return (float *)b.handle + b.offset;
}
// View b holds at least the `count` floats an op reads or writes there (the OpenCL
// backend's need() in assert form: a wrong view is a bug in the engine, not bad input).
#define NEED(b, count) TT_ASSERT((b).n >= (size_t)(count))

// The weights in column panels (openblas_panels.c, on AVX-512): be->pack_weight (panels of
// the (K,N) matrix P = w, or wᵀ with trans_b); out (M,N) = a (M,K) · P + bias (NULL: none);
// P (K,N) in row-major order in the backend's scratch (NULL when out of memory), valid
// until the next call.
tt_status tt_openblas_pack_weight(tt_backend *be, const float *w, int K, int N, bool trans_b, tt_buf *out,
                                  tt_error *err);
void tt_openblas_release_panels(tt_buf *b);  // be->release of a buffer from pack_weight
tt_status tt_openblas_panels_matmul(tt_backend *be, float *o, const float *a, const float *panels, const float *bias,
                                    int M, int K, int N, tt_error *err);
const float *tt_openblas_unpacked(tt_backend *be, const float *panels, int K, int N);

// One thread for small products, every thread for large ones (openblas.c).
void tt_openblas_pick_threads(tt_backend *be, int M, int K, int N);
// OpenBLAS on one thread (before products run in the pool's threads, one each).
void tt_openblas_single_thread(tt_backend *be);
// body(args, begin, end) over [0, n) in parts across the pool's threads; every part but the
// last starts and ends at a multiple of `align`, and none is smaller than min_part (so small
// loops stay in the caller). Each item's result must not depend on the split.
// o (cols) = the softmax of v (cols), max-subtracted; trailing -inf entries (a causal row's
// masked part) are skipped and give exactly 0, as does a row of -inf only. o may be v.
void tt_openblas_softmax_row(float *o, const float *v, size_t cols);
void tt_openblas_norm_row(float *out, const float *x, size_t cols, const tt_norm_params *p);
typedef void (*tt_range_body)(void *args, size_t begin, size_t end);
#define MIN_PART_FLOATS 16384  // below this a loop stays in the caller: waking a thread costs more
#define ALIGN_FLOATS 16        // element-wise parts start on whole vectors
// Rows per part for rows of `cols` floats: at least one, and MIN_PART_FLOATS floats.
static inline size_t tt_openblas_min_rows(size_t cols) {
  return cols >= MIN_PART_FLOATS ? 1 : (MIN_PART_FLOATS + cols - 1) / (cols ? cols : 1);
}
void tt_openblas_parallel_for(tt_backend *be, size_t n, size_t min_part, size_t align, tt_range_body body, void *args);
// The same in about parts_per_thread parts per thread (tt_openblas_parallel_for: 4, so a
// busy core's share moves to the other; 1 where each thread should stream one range).
void tt_openblas_parallel_parts(tt_backend *be, size_t n, size_t min_part, size_t align, size_t parts_per_thread,
                                tt_range_body body, void *args);
// *buf holds at least `need` floats (64-byte aligned), grown when it holds fewer and kept
// for the next op; NULL, with *floats 0, when out of memory.
float *tt_openblas_scratch(float **buf, size_t *floats, size_t need);
// out (M,N) = a (M,K) · b + bias (N; NULL: none) for M <= TT_SMALL_M_MAX (openblas_small_m.c),
// b (K,N), or (N,K) with trans_b.
tt_status tt_openblas_small_m_matmul(tt_backend *be, float *o, const float *a, const float *b, const float *bias, int M,
                                     int K, int N, bool trans_b, tt_error *err);
// Sets the backward pass's ops (openblas_backward.c).
void tt_openblas_set_backward(tt_backend *be);
// Sets the Llama block's and the position what-ifs' ops (openblas_llama.c).
void tt_openblas_set_llama(tt_backend *be);
// Sets the causal attention ops (openblas_attention.c).
void tt_openblas_set_attention(tt_backend *be);

#endif
