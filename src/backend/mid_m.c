// mid_m: the products with a few dozen rows (mid_m.h). Packed a: for each block of KC rows
// of b (k0 = pc), the row tiles one after the other, each (kc, MR) with the tile's MR
// values of one k side by side. Packed b: one block of (kc, nc) as panels of (kc, NR).
// The register tile is MR × NR = 12 × 32: 24 accumulators, 2 loads of b and 12
// broadcasts of a for every 24 FMA. Loop order (outer to inner): column blocks of NC,
// row blocks of KC (b's block packed), panels of NR (in L1), row tiles of MR (a's block
// in L2), k.
// Shape legend: M rows of a, K the shared width, N columns of the result.
#include "mid_m.h"

#include "core/core.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define TT_MID_M_X86 1
#endif

#define MR 12   // rows per register tile
#define NR 32   // columns per register tile: two vectors of 16
#define KC 256  // rows of b per block: a (KC, NR) panel is 32 KiB, in L1 for every row tile
#define NC 512  // columns per block: (KC, NC) is 512 KiB, in L2
_Static_assert(KC *NC == TT_MID_M_B_FLOATS, "the scratch holds one block of b");
_Static_assert(TT_MID_M_COL_ALIGN % NR == 0, "column ranges start on whole panels");

static int min_int(int a, int b) {
  return a < b ? a : b;
}

size_t tt_mid_m_a_floats(int M, int K) {
  return (size_t)((M + MR - 1) / MR) * MR * (size_t)K;
}

void tt_mid_m_pack_a(float *ap, const float *a, int M, int K) {
  int tiles = (M + MR - 1) / MR;
  for (int pc = 0; pc < K; pc += KC) {
    int kc = min_int(KC, K - pc);
    float *blk = ap + (size_t)tiles * MR * pc;
    for (int m = 0; m < tiles * MR; m++) {
      float *dst = blk + (size_t)(m / MR) * kc * MR + m % MR;
      const float *src = m < M ? a + (size_t)m * K + pc : NULL;  // NULL: a padding row
      for (int k = 0; k < kc; k++) dst[(size_t)k * MR] = src ? src[k] : 0.0f;
    }
  }
}

#ifdef TT_MID_M_X86
#ifdef __clang__  // the target for every function below
#pragma clang attribute push(__attribute__((target("avx512f"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f")
#endif

// The lanes of a panel's two vectors that hold its first w of NR columns.
static inline void panel_masks(int w, __mmask16 *m0, __mmask16 *m1) {
  *m0 = w >= 16 ? 0xFFFF : (__mmask16)((1u << w) - 1);
  *m1 = w >= 32 ? 0xFFFF : w > 16 ? (__mmask16)((1u << (w - 16)) - 1) : 0;
}

// c (mr, w) = (first ? 0 : c) + at (kc, MR) · bp (kc, NR), + bias (w; NULL: none); w ≤ NR
// columns written, row stride ldc.
static inline __attribute__((always_inline)) void tile(int mr, int kc, const float *at, const float *bp, float *c,
                                                       size_t ldc, int w, bool first, const float *bias) {
  __m512 acc[MR][2];
#pragma GCC unroll 12
  for (int r = 0; r < MR; r++) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
  for (int k = 0; k < kc; k++) {
    __m512 b0 = _mm512_load_ps(bp + (size_t)k * NR), b1 = _mm512_load_ps(bp + (size_t)k * NR + 16);
#pragma GCC unroll 12
    for (int r = 0; r < MR; r++) {
      if (r >= mr) break;
      __m512 av = _mm512_set1_ps(at[(size_t)k * MR + r]);
      acc[r][0] = _mm512_fmadd_ps(av, b0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(av, b1, acc[r][1]);
    }
  }
  __mmask16 m0, m1;
  panel_masks(w, &m0, &m1);
  __m512 bias0 = bias ? _mm512_maskz_loadu_ps(m0, bias) : _mm512_setzero_ps();
  __m512 bias1 = bias ? _mm512_maskz_loadu_ps(m1, bias + 16) : _mm512_setzero_ps();
#pragma GCC unroll 12
  for (int r = 0; r < MR; r++) {
    if (r >= mr) break;
    float *cr = c + (size_t)r * ldc;
    __m512 v0 = acc[r][0], v1 = acc[r][1];
    if (!first) v0 = v0 + _mm512_maskz_loadu_ps(m0, cr), v1 = v1 + _mm512_maskz_loadu_ps(m1, cr + 16);
    if (bias) v0 = v0 + bias0, v1 = v1 + bias1;
    _mm512_mask_storeu_ps(cr, m0, v0);
    _mm512_mask_storeu_ps(cr + 16, m1, v1);
  }
}

// The tile with every row, and with fewer (each count its own code, accumulators in
// registers).
static void tile_full(int kc, const float *at, const float *bp, float *c, size_t ldc, int w, bool first,
                      const float *bias) {
  tile(MR, kc, at, bp, c, ldc, w, first, bias);
}

static void tile_part(int mr, int kc, const float *at, const float *bp, float *c, size_t ldc, int w, bool first,
                      const float *bias) {
  switch (mr) {
#define TILE_ROWS(n)                             \
  case n:                                        \
    tile(n, kc, at, bp, c, ldc, w, first, bias); \
    break
    TILE_ROWS(1);
    TILE_ROWS(2);
    TILE_ROWS(3);
    TILE_ROWS(4);
    TILE_ROWS(5);
    TILE_ROWS(6);
    TILE_ROWS(7);
    TILE_ROWS(8);
    TILE_ROWS(9);
    TILE_ROWS(10);
    TILE_ROWS(11);
#undef TILE_ROWS
  default:
    break;
  }
}

// bp = panels p of (kc, NR): b's rows [0, kc) and columns [p·NR, p·NR + NR) (b points at
// the block's first element, row stride N), zeros past column nc.
static void pack_b(float *bp, const float *b, int N, int kc, int nc) {
  int panels = (nc + NR - 1) / NR;
  for (int k = 0; k < kc; k++) {
    const float *src = b + (size_t)k * N;
    for (int p = 0; p < panels; p++) {
      int w = nc - p * NR;
      float *d = bp + ((size_t)p * kc + k) * NR;
      __mmask16 m0, m1;
      panel_masks(w, &m0, &m1);
      _mm512_store_ps(d, _mm512_maskz_loadu_ps(m0, src + p * NR));
      _mm512_store_ps(d + 16, _mm512_maskz_loadu_ps(m1, src + p * NR + 16));
    }
  }
}

// Columns [jc, jc + nc) (nc ≤ NC) of the product.
static void column_block(float *out, const float *ap, const float *b, const float *bias, int M, int K, int N, int jc,
                         int nc, float *bpack) {
  int tiles = (M + MR - 1) / MR;
  for (int pc = 0; pc < K; pc += KC) {
    int kc = min_int(KC, K - pc);
    bool first = pc == 0, last = pc + kc == K;
    pack_b(bpack, b + (size_t)pc * N + jc, N, kc, nc);
    for (int jr = 0; jr < nc; jr += NR) {
      int w = min_int(NR, nc - jr), p = jr / NR;
      const float *bp = bpack + (size_t)p * kc * NR, *bj = last && bias ? bias + jc + jr : NULL;
      for (int t = 0; t < tiles; t++) {
        const float *at = ap + (size_t)tiles * MR * pc + (size_t)t * kc * MR;
        float *c = out + (size_t)t * MR * N + jc + jr;
        int mr = min_int(MR, M - t * MR);
        if (mr == MR)
          tile_full(kc, at, bp, c, (size_t)N, w, first, bj);
        else
          tile_part(mr, kc, at, bp, c, (size_t)N, w, first, bj);
      }
    }
  }
}

#ifdef __clang__
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif

bool tt_mid_m_available(void) {
#ifdef TT_MID_M_X86
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f");
#else
  return false;
#endif
}

void tt_mid_m_cols(float *out, const float *ap, const float *b, const float *bias, int M, int K, int N, int c0, int c1,
                   float *bpack) {
  TT_ASSERT(c0 % TT_MID_M_COL_ALIGN == 0 && c0 <= c1 && c1 <= N);
  if (K == 0) {  // no products: the bias
    for (int m = 0; m < M; m++)
      for (int n = c0; n < c1; n++) out[(size_t)m * N + n] = bias ? bias[n] : 0.0f;
    return;
  }
#ifdef TT_MID_M_X86
  for (int jc = c0; jc < c1; jc += NC) column_block(out, ap, b, bias, M, K, N, jc, min_int(NC, c1 - jc), bpack);
#else
  (void)ap, (void)b, (void)bpack;
  TT_ASSERT(!"tt_mid_m_cols without AVX-512");
#endif
}
