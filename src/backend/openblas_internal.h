// openblas_internal: what the OpenBLAS backend's two files share: the view accessors, the
// size checks and the thread choice. Not a public header.
#ifndef TT_OPENBLAS_INTERNAL_H
#define TT_OPENBLAS_INTERNAL_H

#include "backend.h"

typedef struct {
  int max_threads;  // OpenBLAS's thread count at creation
  int threads;      // the count currently set
} openblas_impl;

// The floats an op reads through view b (writable or read-only host memory).
static inline const float *in(tt_buf b) {
  TT_ASSERT(tt_buf_is_set(b));
  return (b.handle ? (const float *)b.handle : (const float *)b.read_only) + b.offset;
}
// The floats an op writes through view b.
static inline float *out_of(tt_buf b) {
  TT_ASSERT(b.handle != NULL);
  return (float *)b.handle + b.offset;
}
// View b holds at least the `count` floats an op reads or writes there (the OpenCL
// backend's need() in assert form: a wrong view is a bug in the engine, not bad input).
#define NEED(b, count) TT_ASSERT((b).n >= (size_t)(count))

// One thread for small products, every thread for large ones (openblas.c).
void tt_openblas_pick_threads(tt_backend *be, int M, int K, int N);
// Sets the backward pass's ops (openblas_backward.c).
void tt_openblas_set_backward(tt_backend *be);
// Sets the Llama block's and the position what-ifs' ops (openblas_llama.c).
void tt_openblas_set_llama(tt_backend *be);

#endif
