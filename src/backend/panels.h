// panels: weights (K,N) kept for the products in column panels. Panel p holds columns
// [32p, 32p + 32) of b as one contiguous (K, 32) block, columns past N zero. A product
// reads each panel front to back, one stream per group of rows, and keeps the group's sums
// for the panel in registers while it does; on AVX-512 that streams the weights faster than
// any tiling of the row-major matrix (whose 32-column tiles are 128 bytes a row, each row in
// another page).
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
// The rows of a product go in blocks of TT_PANEL_ROWS: block b holds rows [12b, 12b + r),
// r = min(12, M − 12b). Its a is packed k-major, the r values of one k side by side (48
// bytes for a full block), so that the products broadcast them from one stream rather than
// from r rows K·4 bytes apart (rows 3072 floats apart all fall in one L1 set). A block is
// one register group of the products (panels.c).
#define TT_PANEL_ROWS 12
static inline int tt_panels_row_blocks(int M) {
  return (M + TT_PANEL_ROWS - 1) / TT_PANEL_ROWS;
}
// ap = row blocks [b0, b1) of a (M,K, row-major) packed: block b at ap + 12b·K as (K, r).
// ap holds M·K floats in all; one row (M = 1) packs as itself.
void tt_panels_pack_a(float *ap, const float *a, int M, int K, int b0, int b1);
// Columns of panels [p0, p1) of out (M,N) = a (M,K) · b + bias (N; NULL: none), a as packed
// by tt_panels_pack_a, b by tt_panels_pack; out row-major and dense, M >= 1. Threads may
// compute disjoint panel ranges of one product at once.
void tt_panels_matmul(float *out, const float *ap, const float *panels, const float *bias, int M, int K, int N, int p0,
                      int p1);

#endif
