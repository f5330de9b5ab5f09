// panels: weights (K,N) kept for the products in column panels. Panel p holds columns
// [32p, 32p + 32) of b as one contiguous (K, 32) block, columns past N zero. A product
// reads each panel front to back, one stream, and keeps the sums of its rows for the panel
// in L1 while it does; on AVX-512 that streams the weights faster than any tiling of the
// row-major matrix (whose 32-column tiles are 128 bytes a row, each row in another page).
// Each result is Σ_k a[m][k]·b[k][n] added in k order, one FMA at a time, then + bias: the
// same bits for any M, any row block and any panel range. Internal to the backend.
// Shape legend: M rows of a, K the shared width, N columns of the result.
#ifndef TT_PANELS_H
#define TT_PANELS_H

#include <stdbool.h>
#include <stddef.h>

#define TT_PANEL_COLS 32  // columns per panel

// Whether this CPU runs the panel products (AVX-512F); when not, tt_panels_matmul may not
// be called (the layout's functions may).
bool tt_panels_available(void);
static inline int tt_panels_count(int N) {
  return (N + TT_PANEL_COLS - 1) / TT_PANEL_COLS;
}
// Floats of b (K,N) in panels: ⌈N/32⌉ · K · 32.
static inline size_t tt_panels_floats(int K, int N) {
  return (size_t)tt_panels_count(N) * (size_t)K * TT_PANEL_COLS;
}
// panels = b (K,N, row-major) in panel order.
void tt_panels_pack(float *panels, const float *b, int K, int N);
// panels = the (K,N) matrix wᵀ in panel order, w (N,K) row-major.
void tt_panels_pack_transposed(float *panels, const float *w, int K, int N);
// out (K) = column n of the (K,N) matrix in panels: row n of w after tt_panels_pack_transposed.
void tt_panels_column(float *out, const float *panels, int K, int n);
// b (K,N, row-major) = panels, the inverse of tt_panels_pack.
void tt_panels_unpack(float *b, const float *panels, int K, int N);
// Columns of panels [p0, p1) of out (M,N) = a (M,K) · b + bias (N; NULL: none), b as
// packed by tt_panels_pack; a and out row-major and dense, M >= 1. Threads may compute
// disjoint panel ranges of one product at once.
void tt_panels_matmul(float *out, const float *a, const float *panels, const float *bias, int M, int K, int N, int p0,
                      int p1);

#endif
