// mid_m: matrix products with a few dozen rows (prompts of TT_MID_M_MIN to TT_MID_M_MAX
// tokens) and b as the weights are stored, (K,N), on AVX-512. At these sizes OpenBLAS
// spends much of a product packing b; here a is packed once per product and b one block of
// (KC, NC) at a time into the caller's scratch, for a 12 × 32 register tile (BLIS' loop
// order). Internal to the backend.
// Shape legend: M rows of a, K the shared width, N columns of the result.
#ifndef TT_MID_M_H
#define TT_MID_M_H

#include <stdbool.h>
#include <stddef.h>

#define TT_MID_M_MIN 17           // fewer rows go to small_m (each weight read once for all rows)
#define TT_MID_M_MAX 128          // more rows to cblas_sgemm (as fast there, or faster)
#define TT_MID_M_COL_ALIGN 32     // column ranges start on whole register tiles
#define TT_MID_M_B_FLOATS 131072  // scratch for b's blocks, per thread (512 KiB, 64-byte aligned)

// Whether this CPU runs the kernel (AVX-512F); when not, nothing here may be called.
bool tt_mid_m_available(void);
// Floats of a packed: tt_mid_m_pack_a's ap (64-byte aligned).
size_t tt_mid_m_a_floats(int M, int K);
// ap = a (M,K), row-major, packed for tt_mid_m_cols (rows padded with zeros to whole tiles).
void tt_mid_m_pack_a(float *ap, const float *a, int M, int K);
// Columns [c0, c1) of out (M,N) = a · b (K,N) + bias (N; NULL: none), a as packed by
// tt_mid_m_pack_a, all row-major and dense; bpack: TT_MID_M_B_FLOATS of scratch. A
// column's bits do not depend on [c0, c1), so threads may compute disjoint ranges of one
// product at once. Accumulates in float (relative error ~1e-7·√K).
void tt_mid_m_cols(float *out, const float *ap, const float *b, const float *bias, int M, int K, int N, int c0, int c1,
                   float *bpack);

#endif
