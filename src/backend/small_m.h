// small_m: matrix products with few rows (M <= 16: decode steps and short prompts), which
// are bound by reading the weights. Each weight is read from memory once for all rows
// (blocks of B rows stay in L1 while every row group uses them, and the rows further on are
// prefetched into L2), with FMA on AVX2 or AVX-512, chosen at run time for the CPU.
// Internal to the backend.
// Shape legend: M rows of a, K the shared width, N columns of the result.
#ifndef TT_SMALL_M_H
#define TT_SMALL_M_H

#include <stdbool.h>

#define TT_SMALL_M_MAX 16         // the most rows a small-M product serves
#define TT_SMALL_M_COL_ALIGN 192  // column ranges start here: whole tiles of every kernel

// The kernel sets: plain loops, AVX2 with FMA, AVX-512, and AVX-512 tuned for cores that run
// each 512-bit operation as two 256-bit halves (Zen 4) or for Intel's cores (the same
// instructions, other choices of kernel by row count, small_m.c). Every AVX-512 CPU can run
// all three AVX-512 sets.
typedef enum { TT_ISA_SCALAR, TT_ISA_AVX2, TT_ISA_AVX512, TT_ISA_AVX512_HALVES, TT_ISA_AVX512_INTEL } tt_small_m_isa;

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
// A product without trans_b in segments along K, for threads: segment s is rows
// [s·TT_SMALL_M_KSEG, (s+1)·TT_SMALL_M_KSEG) of b (the last one shorter), one contiguous range of
// memory. Two cores streaming one such range each read b at 1.9-2x the GB/s of two that
// split its columns (each row's halves interleaved). The product is then
// out = alpha · (P_0 + P_1 + … + P_{S-1}) + bias, P_s the segment's partial product, added
// in that order whatever the thread count (its bits differ from tt_small_m_matmul's).
#define TT_SMALL_M_KSEG 384
// How many segments K has (1 when K <= TT_SMALL_M_KSEG: then use tt_small_m_matmul_cols).
int tt_small_m_segments(int K);
// Columns [c0, c1) of part (M,N) = P_s = a[:, rows of s] · b[rows of s, :], unscaled, no
// bias (c0, c1 as for tt_small_m_matmul_cols). Threads may compute any segments and
// column ranges at once.
void tt_small_m_segment_cols(float *part, const float *a, const float *b, int M, int K, int N, int s, int c0, int c1);
bool tt_small_m_segment_isa_cols(tt_small_m_isa isa, float *part, const float *a, const float *b, int M, int K, int N,
                                 int s, int c0, int c1);
// Columns [c0, c1) of out (M,N) = alpha · (out + parts[0] + … + parts[S-2]) + bias: out
// holds P_0 and parts + (s-1)·M·N holds P_s, each (M,N).
void tt_small_m_sum_segments(float *out, const float *parts, const float *bias, int M, int N, int S, float alpha,
                             int c0, int c1);
bool tt_small_m_sum_segments_isa(tt_small_m_isa isa, float *out, const float *parts, const float *bias, int M, int N,
                                 int S, float alpha, int c0, int c1);
// The kernel set tt_small_m_matmul uses on this CPU.
tt_small_m_isa tt_small_m_best_isa(void);
// The same product with a given kernel (tests run every kernel the CPU has); false, and
// nothing written, when this CPU lacks it.
bool tt_small_m_matmul_isa(tt_small_m_isa isa, float *out, const float *a, const float *b, const float *bias, int M,
                           int K, int N, bool trans_b, float alpha);
bool tt_small_m_matmul_isa_cols(tt_small_m_isa isa, float *out, const float *a, const float *b, const float *bias,
                                int M, int K, int N, bool trans_b, float alpha, int c0, int c1);

#endif
