// small_m: the small-M products (small_m.h): one body (small_m_body.h) compiled for AVX2
// with FMA and for AVX-512, a plain loop for other CPUs, and the run-time choice.
// Shape legend: M rows of a, K the shared width, N columns of the result.
#include "small_m.h"

#include "core/core.h"

#include <stddef.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define TT_SMALL_M_X86 1
#endif

// The kernels' choices by the number of rows M. On AVX-512 they differ between cores that
// have whole 512-bit FMA units (Zen 5), cores that run each 512-bit operation as two 256-bit
// halves (Zen 4: half the FMAs per cycle, so a kernel that wastes FMAs becomes bound by them)
// and Intel's cores (where plain blocks of 16 rows of b stream faster than deep blocks,
// below):
// - nt_tiles_up_to: up to this many rows, a trans_b product (the unembedding) takes tiles of
//   dot products with 4 B rows streamed at once; more rows are lanes of one vector
//   (small_m_nt_lanes.h), whose FMAs do M of 16 lanes' work. On Zen 5, one core, the tiles
//   ran M = 1..4 at 28 / 28 / 25 / 24 GB/s, and 4 rows faster as lanes, which prefetch one
//   tile ahead (a whole T = 4 pass 2-3 % faster on one core and on two; the unembedding 8.2
//   -> 7.3 ms). On Zen 4 the lanes' wasted FMAs bind below 9 rows: the unembedding at T = 4 /
//   6 / 8 took 11.6 / 11.8 / 11.9 ms as lanes and 7.5 / 6.6 / 8.4 as tiles (one core), level
//   at 10-12 rows, and 12.0 against 13.5-15.3 as lanes at 14-16. On Intel (a Xeon guest with
//   AVX-512 and AMX, one core, in the pass, alternated) the unembedding at T = 4 / 6 took
//   10.9-11.2 / 11.8 ms as tiles against 12.0-12.4 / 12.5-12.6 as lanes; level at 8 rows,
//   20.8 against 13.1-13.7 at 16.
// - nn.wide_up_to (at most ROWS_FEW): products without trans_b of at most ROWS_FEW rows (one
//   row group) take tiles NV_FEW vectors wide up to this many rows, NV above: up to 4 on
//   Zen 5 (1 and 2 rows ran at 1.1-1.3x the GB/s); up to 2 on Zen 4, where 3 and 4 rows in
//   the narrower tiles made whole passes 6 % and 3-8 % faster, and 1 row 3-8 % slower (one
//   core, alternated).
// - nn.deep_from: products without trans_b take deep blocks of b from this many rows on
//   (small_m_body.h). From 2 rows on Zen 5; from 8 on Zen 4, where deep blocks for 2..7 rows
//   made whole passes slower (T = 2 / 4, one core, alternated: 3 / 5 %). Never on Intel: there
//   64 rows of b 9-12 KiB apart, read a tile at a time, ran at 7-8 GB/s where plain blocks of
//   16 rows (prefetched 32 rows down) stream at 10-13 (the Xeon guest, streaming read 13.6 /
//   26.4 GB/s on one / two cores; in the pass, record none, two alternated rounds, one core:
//   T = 8 qkv 10.7-11.1 -> 6.6-7.0 ms, the MLP's first product 14.5-14.9 -> 9.4-9.8, whole
//   passes 51.8-53.8 -> 41.6-42.8; T = 16 61.3-63.3 -> 52.5-54.5; two cores T = 8 28.8-29.6
//   -> 23.8-24.1, T = 16 33.6-35.2 -> 29.6-30.5; T = 2 / 4 level). Blocks of 8 or 32 rows
//   instead of 16 were slower there (T = 16 57.5-58.6 and 67.1-67.8 ms, one core).
// - nn.tall_from (AVX-512 only): products without trans_b take tall tiles from this many rows
//   on (small_m_body.h: every row in one group, one vector of columns, a K segment's sums in
//   registers): each b vector feeds M FMAs with no copy of the tile for a second group of
//   rows. From 11 rows on Zen 4, where FMAs bind: one core, weights cycled from memory,
//   GFLOP/s tall against two groups of 8 rows: (384, 2304) M = 11 / 12 / 13 / 15: 84-88 /
//   93-95 / 97-99 / 101-102 against 80-81 / 88-91 / 90-91 / 91-92; (768, 3072) M = 14 / 16:
//   99 / 101 against 89 / 92; M = 8 / 10 62 / 75 against 90 / 78. On cores with two 512-bit
//   FMA units the M + 1 loads per M FMAs would bind instead: on Zen 5, one core, whole
//   passes at T = 16 took 34.6-37.2 ms with tall tiles from 11 rows against 30.8-34.2
//   without (alternated), so never there; nor on Intel (T = 16 87.8-92.5 against 52.9-54.5 ms).
// - nn.near_from: deep blocks prefetch one tile ahead from this many rows on, two tiles
//   below (small_m_body.h). A tile of two row groups takes twice as long as one of one
//   group, so one tile ahead is as early in time, and half the lines wait in L2: at N =
//   3072 (rows 12 KiB apart, every row of a tile in the same L1 set and in few L2 sets)
//   two tiles ahead made the product the slowest of the pass. On Zen 5, one core, M = 16,
//   in the pass, (768, 3072) ran at 114-154 GFLOP/s against 83-106, and whole passes
//   (alternated, record none, one core / two) T = 12 23.6-30.8 / 14.1-19.7 ms against
//   32.7-41.6 / 18.3-21.0, T = 16 27.6-37.4 / 17.3-21.6 against 33.4-42.2 / 19.3-22.9;
//   M = 8 was level or slower with one tile ahead. From 9 rows (MR + 1) on Zen 5; never on
//   Zen 4, whose deep blocks (8-10 rows) were tuned two tiles ahead (not measured there).
// - nn.plain_ahead: plain blocks (below deep_from rows) prefetch the same columns this many
//   blocks of b down (small_m_body.h). Two on Zen 5 and Zen 4; one on Intel, where whole
//   passes (record none, alternated, three rounds, median of 31) at T = 16 took 48.0-49.1 /
//   26.1-26.3 ms against 50.9-51.2 / 27.0-27.9 two blocks ahead (one core / two), at T = 2,
//   4 and 8 on one core level or up to 6 % faster.
typedef struct {
  int wide_up_to, deep_from, tall_from, near_from, plain_ahead;
} nn_rows_choice;
// Without trans_b, products with up to this many rows take one row group.
#define ROWS_FEW 4
#define NEVER (TT_SMALL_M_MAX + 1)  // a row count no product has

#ifdef TT_SMALL_M_X86
typedef struct {
  int nt_tiles_up_to;
  nn_rows_choice nn;
} kernel_choice;

// AVX2 (not measured on an AVX2 machine): tiles for every trans_b product, wide tiles up to
// ROWS_FEW rows, deep blocks never.
static kernel_choice choice_for(tt_small_m_isa isa) {
  switch (isa) {
  case TT_ISA_AVX512_HALVES:
    return (kernel_choice){8, {2, 8, 11, NEVER, 2}};
  case TT_ISA_AVX512:
    return (kernel_choice){3, {ROWS_FEW, 2, NEVER, 9, 2}};
  case TT_ISA_AVX512_INTEL:
    return (kernel_choice){6, {ROWS_FEW, NEVER, NEVER, NEVER, 1}};
  default:
    return (kernel_choice){TT_SMALL_M_MAX, {ROWS_FEW, NEVER, NEVER, NEVER, 2}};
  }
}
#endif

// Columns [n0, N) of out (M,N) = alpha · a (M,K; rows lda apart) · b (K,N) + bias, plain loops.
static void tail_nn(float *out, const float *a, int lda, const float *b, const float *bias, int M, int K, int N, int n0,
                    float alpha) {
  for (int m = 0; m < M; m++)
    for (int n = n0; n < N; n++) {
      float s = 0.0f;
      for (int k = 0; k < K; k++) s += a[(size_t)m * lda + k] * b[(size_t)k * N + n];
      out[(size_t)m * N + n] = alpha * s + (bias ? bias[n] : 0.0f);
    }
}

// Columns [c0, c1) of the product (a's rows lda apart), plain loops.
static void matmul_scalar(float *out, const float *a, int lda, const float *b, const float *bias, int M, int K, int N,
                          bool trans_b, float alpha, int c0, int c1) {
  for (int m = 0; m < M; m++)
    for (int n = c0; n < c1; n++) {
      float s = 0.0f;
      for (int k = 0; k < K; k++) s += a[(size_t)m * lda + k] * (trans_b ? b[(size_t)n * K + k] : b[(size_t)k * N + n]);
      out[(size_t)m * N + n] = alpha * s + (bias ? bias[n] : 0.0f);
    }
}

#ifdef TT_SMALL_M_X86
// ---- AVX2 + FMA: 16 registers, tiles of 4 rows × 2 vectors (8 accumulators), 4 × 2 rows of B with trans_b -------------
__attribute__((target("avx2,fma"))) static inline float hsum256(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}
#define SFX avx2
#define TARGET __attribute__((target("avx2,fma")))
#define VEC __m256
#define W 8
#define LOAD(p) _mm256_loadu_ps(p)
#define STORE(p, v) _mm256_storeu_ps((p), (v))
#define FMA(a, b, c) _mm256_fmadd_ps((a), (b), (c))
#define SET1(x) _mm256_set1_ps(x)
#define ZERO() _mm256_setzero_ps()
#define HSUM(v) hsum256(v)
#define MR 4
#define NV 2
#define NV_FEW 4
#define NB 2
#ifdef __clang__  // the target for every function of the body
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif
#include "small_m_body.h"
#ifdef __clang__
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#undef SFX
#undef TARGET
#undef VEC
#undef W
#undef LOAD
#undef STORE
#undef FMA
#undef SET1
#undef ZERO
#undef HSUM
#undef MR
#undef NV
#undef NV_FEW
#undef NB

// ---- AVX-512: 32 registers, tiles of 8 rows × 2 vectors (16 accumulators), up to 4 rows × 4 rows of B with trans_b ----
#define SFX avx512
#define TARGET __attribute__((target("avx512f")))
#define VEC __m512
#define W 16
#define LOAD(p) _mm512_loadu_ps(p)
#define STORE(p, v) _mm512_storeu_ps((p), (v))
#define FMA(a, b, c) _mm512_fmadd_ps((a), (b), (c))
#define SET1(x) _mm512_set1_ps(x)
#define ZERO() _mm512_setzero_ps()
#define HSUM(v) _mm512_reduce_add_ps(v)
#define MR 8
#define NV 2
#define NV_FEW 4
#define NB 4
#define MR_TALL 16
#ifdef __clang__  // the target for every function of the body
#pragma clang attribute push(__attribute__((target("avx512f"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f")
#endif
#include "small_m_body.h"
#undef SFX
#undef MR
#undef MR_TALL
#undef NB
#include "small_m_nt_lanes.h"
#ifdef __clang__
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif

static bool has_isa(tt_small_m_isa isa) {
#ifdef TT_SMALL_M_X86
  __builtin_cpu_init();
  if (isa == TT_ISA_AVX512 || isa == TT_ISA_AVX512_HALVES || isa == TT_ISA_AVX512_INTEL)
    return __builtin_cpu_supports("avx512f");
  if (isa == TT_ISA_AVX2) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
  return isa == TT_ISA_SCALAR;
}

// The AVX-512 set for this core: Zen 4 executes each 512-bit operation as two 256-bit
// halves (AMD's family 19h, whose only members with AVX-512 are Zen 4), Intel's cores have
// choices of their own, others (Zen 5) the plain set. libgcc reads vendor and family once.
static tt_small_m_isa avx512_set_for_core(void) {
#ifdef TT_SMALL_M_X86
  __builtin_cpu_init();
  if (__builtin_cpu_is("amdfam19h")) return TT_ISA_AVX512_HALVES;
  if (__builtin_cpu_is("intel")) return TT_ISA_AVX512_INTEL;
#endif
  return TT_ISA_AVX512;
}

tt_small_m_isa tt_small_m_best_isa(void) {
  if (has_isa(TT_ISA_AVX512)) return avx512_set_for_core();
  return has_isa(TT_ISA_AVX2) ? TT_ISA_AVX2 : TT_ISA_SCALAR;
}

// Columns [c0, c1) of out (M,N) = alpha · a (M,K; rows lda apart) · b + bias with one kernel;
// b has pf_rows rows from its first without trans_b (it may be a segment of a longer one).
static void product_cols(tt_small_m_isa isa, float *out, const float *a, int lda, const float *b, const float *bias,
                         int M, int K, int N, bool trans_b, float alpha, int c0, int c1, int pf_rows) {
  TT_ASSERT(c0 % TT_SMALL_M_COL_ALIGN == 0 && (c1 % TT_SMALL_M_COL_ALIGN == 0 || c1 == N) && c0 <= c1 && c1 <= N);
  TT_ASSERT(M >= 1 && M <= TT_SMALL_M_MAX && (lda == K || !trans_b));
#ifdef TT_SMALL_M_X86
  kernel_choice choice = choice_for(isa);
#endif
  switch (isa) {
#ifdef TT_SMALL_M_X86
  case TT_ISA_AVX512:
  case TT_ISA_AVX512_HALVES:
  case TT_ISA_AVX512_INTEL:
    if (!trans_b)
      matmul_nn_avx512(out, a, lda, b, bias, M, K, N, alpha, c0, c1, pf_rows, choice.nn);
    else
      (M > choice.nt_tiles_up_to ? matmul_nt_lanes_avx512 : matmul_nt_avx512)(out, a, b, bias, M, K, N, alpha, c0, c1);
    return;
  case TT_ISA_AVX2:
    if (!trans_b)
      matmul_nn_avx2(out, a, lda, b, bias, M, K, N, alpha, c0, c1, pf_rows, choice.nn);
    else
      matmul_nt_avx2(out, a, b, bias, M, K, N, alpha, c0, c1);
    return;
#endif
  default:
    matmul_scalar(out, a, lda, b, bias, M, K, N, trans_b, alpha, c0, c1);
    return;
  }
}

bool tt_small_m_matmul_isa_cols(tt_small_m_isa isa, float *out, const float *a, const float *b, const float *bias,
                                int M, int K, int N, bool trans_b, float alpha, int c0, int c1) {
  if (!has_isa(isa)) return false;
  product_cols(isa, out, a, K, b, bias, M, K, N, trans_b, alpha, c0, c1, K);
  return true;
}

int tt_small_m_segments(int K) {
  return K <= TT_SMALL_M_KSEG ? 1 : (K + TT_SMALL_M_KSEG - 1) / TT_SMALL_M_KSEG;
}

bool tt_small_m_segment_isa_cols(tt_small_m_isa isa, float *part, const float *a, const float *b, int M, int K, int N,
                                 int s, int c0, int c1) {
  if (!has_isa(isa)) return false;
  TT_ASSERT(s >= 0 && s < tt_small_m_segments(K));
  int k0 = s * TT_SMALL_M_KSEG, k1 = K - k0 < TT_SMALL_M_KSEG ? K : k0 + TT_SMALL_M_KSEG;
  product_cols(isa, part, a + k0, K, b + (size_t)k0 * N, NULL, M, k1 - k0, N, false, 1.0f, c0, c1, K - k0);
  return true;
}

void tt_small_m_segment_cols(float *part, const float *a, const float *b, int M, int K, int N, int s, int c0, int c1) {
  tt_small_m_segment_isa_cols(tt_small_m_best_isa(), part, a, b, M, K, N, s, c0, c1);
}

void tt_small_m_sum_segments(float *out, const float *parts, const float *bias, int M, int N, int S, float alpha,
                             int c0, int c1) {
  tt_small_m_sum_segments_isa(tt_small_m_best_isa(), out, parts, bias, M, N, S, alpha, c0, c1);
}

bool tt_small_m_sum_segments_isa(tt_small_m_isa isa, float *out, const float *parts, const float *bias, int M, int N,
                                 int S, float alpha, int c0, int c1) {
  if (!has_isa(isa)) return false;
  switch (isa) {
#ifdef TT_SMALL_M_X86
  case TT_ISA_AVX512:
  case TT_ISA_AVX512_HALVES:
  case TT_ISA_AVX512_INTEL:
    sum_segments_avx512(out, parts, bias, M, N, S, alpha, c0, c1);
    return true;
  case TT_ISA_AVX2:
    sum_segments_avx2(out, parts, bias, M, N, S, alpha, c0, c1);
    return true;
#endif
  default:
    for (int m = 0; m < M; m++)
      for (int n = c0; n < c1; n++) {
        size_t i = (size_t)m * N + n;
        float r = out[i];
        for (int j = 0; j + 1 < S; j++) r += parts[(size_t)j * M * N + i];
        out[i] = r * alpha + (bias ? bias[n] : 0.0f);
      }
    return true;
  }
}

bool tt_small_m_matmul_isa(tt_small_m_isa isa, float *out, const float *a, const float *b, const float *bias, int M,
                           int K, int N, bool trans_b, float alpha) {
  return tt_small_m_matmul_isa_cols(isa, out, a, b, bias, M, K, N, trans_b, alpha, 0, N);
}

void tt_small_m_matmul(float *out, const float *a, const float *b, const float *bias, int M, int K, int N, bool trans_b,
                       float alpha) {
  tt_small_m_matmul_isa(tt_small_m_best_isa(), out, a, b, bias, M, K, N, trans_b, alpha);
}

void tt_small_m_matmul_cols(float *out, const float *a, const float *b, const float *bias, int M, int K, int N,
                            bool trans_b, float alpha, int c0, int c1) {
  tt_small_m_matmul_isa_cols(tt_small_m_best_isa(), out, a, b, bias, M, K, N, trans_b, alpha, c0, c1);
}
