// small_m: matrix products with few rows (M <= 16: decode steps and short prompts), which
// are bound by reading the weights. Each weight is read from memory once for all rows
// (blocks of B rows stay in L1 while every row group uses them, and the rows further on are
// prefetched into L2), with FMA on AVX2 or AVX-512, chosen at run time for the CPU.
// Internal to the backend.
// Shape legend: M rows of a, K the shared width, N columns of the result.
#ifndef TT_SMALL_M_H
#define TT_SMALL_M_H

#include <stdbool.h>

#define TT_SMALL_M_MAX 16        // the most rows a small-M product serves
#define TT_SMALL_M_COL_ALIGN 96  // column ranges start here: whole tiles of every kernel

typedef enum { TT_ISA_SCALAR, TT_ISA_AVX2, TT_ISA_AVX512 } tt_small_m_isa;

// out (M,N) = alpha · a (M,K) · b + bias (N; NULL: none), b (K,N), or (N,K) with trans_b;
// all row-major and dense. M in 1..TT_SMALL_M_MAX. out must not alias a or b. Accumulates
// in float (the order differs from a naive loop: relative error ~1e-7·√K).
void tt_small_m_matmul(float *out, const float *a, const float *b, const float *bias, int M, int K, int N, bool trans_b,
                       float alpha);
// Columns [c0, c1) of the same product (the rest of out untouched), bit for bit those
// columns of the whole: c0 a multiple of TT_SMALL_M_COL_ALIGN, c1 one too or N. Threads
// may compute disjoint ranges of one product at once.
void tt_small_m_matmul_cols(float *out, const float *a, const float *b, const float *bias, int M, int K, int N,
                            bool trans_b, float alpha, int c0, int c1);
// The kernel tt_small_m_matmul uses on this CPU.
tt_small_m_isa tt_small_m_best_isa(void);
// The same product with a given kernel (tests run every kernel the CPU has); false, and
// nothing written, when this CPU lacks it.
bool tt_small_m_matmul_isa(tt_small_m_isa isa, float *out, const float *a, const float *b, const float *bias, int M,
                           int K, int N, bool trans_b, float alpha);
bool tt_small_m_matmul_isa_cols(tt_small_m_isa isa, float *out, const float *a, const float *b, const float *bias,
                                int M, int K, int N, bool trans_b, float alpha, int c0, int c1);

#endif
