// panels: the panel layout of the weights and its products on AVX-512 (panels.h).
// Shape legend: M rows of a, K the shared width, N columns of the result; panels (K, 32).
#include "panels.h"

#include "core/core.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define TT_PANELS_X86 1
#endif

#define ROW_BLOCK TT_PANEL_ROWS  // rows packed together (panels.h): one register group
#define PF_ROWS 16               // a panel row is prefetched this far ahead into L1
// block_sums_of has a case for each row count up to 12, and transpose_block fills 16 lanes.
_Static_assert(ROW_BLOCK == 12, "a block is 12 rows: block_sums_of's cases and transpose_block's lanes");

// A block's sums (12 × 2 vectors) stay in registers over the whole of K, beside the panel
// row (2) and a broadcast value: 27 of the 32. Each block reads the panel itself (from L2
// after the first). Blocks of 16 rows went as a group of 12 and one of 4; the 4 read the
// panel again for 8 sums, too few to hide the FMA's latency: at T = 256 on the Intel host
// GPT-2 small's products ran at 145-171 GFLOP/s, and blocks of 12 run them at 171-202
// (blocks of 14, 28 sums, 178-199 but level in the pass; of 24, two groups of 12, 153-183;
// bench/RESULTS.md, "Blocks of 12 rows"). Groups that took the panel in chunks
// of 32 rows while in L1, their sums stored and loaded again for each chunk, lost 17 % of the
// FMA rate to it on Zen 4.

// Panel p of a (K,N) matrix: the float it starts at, and how many of its 32 columns are real.
static size_t panel_start(int K, int p) {
  return (size_t)p * K * TT_PANEL_COLS;
}
static int panel_width(int N, int p) {
  return N - p * TT_PANEL_COLS < TT_PANEL_COLS ? N - p * TT_PANEL_COLS : TT_PANEL_COLS;
}

#define PACK_ROWS 64  // b's rows packed at a time: read once from memory, written 8 KiB a panel

void tt_panels_pack(float *panels, const float *b, int K, int N) {
  for (int k0 = 0; k0 < K; k0 += PACK_ROWS)
    for (int p = 0; p < tt_panels_count(N); p++) {
      float *dst = panels + panel_start(K, p);
      int w = panel_width(N, p);
      for (int k = k0; k < K && k < k0 + PACK_ROWS; k++) {
        float *row = dst + (size_t)k * TT_PANEL_COLS;
        memcpy(row, b + (size_t)k * N + p * TT_PANEL_COLS, sizeof(float) * (size_t)w);
        memset(row + w, 0, sizeof(float) * (size_t)(TT_PANEL_COLS - w));
      }
    }
}

void tt_panels_pack_transposed(float *panels, const float *w, int K, int N) {
  for (int p = 0; p < tt_panels_count(N); p++) {  // 32 rows of w read side by side
    float *dst = panels + panel_start(K, p);
    int c0 = p * TT_PANEL_COLS, width = panel_width(N, p);
    for (int k = 0; k < K; k++)
      for (int c = 0; c < TT_PANEL_COLS; c++)
        dst[(size_t)k * TT_PANEL_COLS + c] = c < width ? w[(size_t)(c0 + c) * K + k] : 0.0f;
  }
}

void tt_panels_column(float *out, const float *panels, int K, int n) {
  const float *src = panels + panel_start(K, n / TT_PANEL_COLS) + n % TT_PANEL_COLS;
  for (int k = 0; k < K; k++) out[k] = src[(size_t)k * TT_PANEL_COLS];
}

void tt_panels_unpack(float *b, const float *panels, int K, int N) {
  for (int p = 0; p < tt_panels_count(N); p++) {
    const float *src = panels + panel_start(K, p);
    int w = panel_width(N, p);
    for (int k = 0; k < K; k++)
      memcpy(b + (size_t)k * N + p * TT_PANEL_COLS, src + (size_t)k * TT_PANEL_COLS, sizeof(float) * (size_t)w);
  }
}

// Block b of a (rows r0 + [0, r)) packed the plain way from k = k0 on: r values per k.
static void pack_a_rows(float *blk, const float *a, int K, int r0, int r, int k0) {
  for (int k = k0; k < K; k++)
    for (int i = 0; i < r; i++) blk[(size_t)k * r + i] = a[(size_t)(r0 + i) * K + k];
}

#ifdef TT_PANELS_X86
#define TARGET __attribute__((target("avx512f")))
#define INLINE __attribute__((always_inline)) inline

// sums (R,32) = a (K, R: the R values of one k side by side) · panel (K, 32), in k order;
// the panel is prefetched into L1 PF_ROWS rows ahead.
TARGET static INLINE void block_sums(int R, float *sums, const float *a, const float *panel, int K) {
  __m512 s[ROW_BLOCK][2];
#pragma GCC unroll 12
  for (int r = 0; r < R; r++) s[r][0] = s[r][1] = _mm512_setzero_ps();
  for (int k = 0; k < K; k++) {
    const float *ahead = panel + (size_t)(k + PF_ROWS) * TT_PANEL_COLS;  // (past the end: a harmless hint)
    _mm_prefetch((const char *)ahead, _MM_HINT_T0);
    _mm_prefetch((const char *)(ahead + 16), _MM_HINT_T0);
    __m512 b0 = _mm512_load_ps(panel + (size_t)k * TT_PANEL_COLS);
    __m512 b1 = _mm512_load_ps(panel + (size_t)k * TT_PANEL_COLS + 16);
#pragma GCC unroll 12
    for (int r = 0; r < R; r++) {
      __m512 x = _mm512_set1_ps(a[(size_t)k * R + r]);
      s[r][0] = _mm512_fmadd_ps(x, b0, s[r][0]);
      s[r][1] = _mm512_fmadd_ps(x, b1, s[r][1]);
    }
  }
#pragma GCC unroll 12
  for (int r = 0; r < R; r++) {
    _mm512_store_ps(sums + r * TT_PANEL_COLS, s[r][0]);
    _mm512_store_ps(sums + r * TT_PANEL_COLS + 16, s[r][1]);
  }
}

// block_sums with R a constant in each case, so that its loops unroll.
TARGET static void block_sums_of(int R, float *sums, const float *a, const float *panel, int K) {
  switch (R) {  // clang-format off
#define ROWS(n) case n: block_sums(n, sums, a, panel, K); return;
    ROWS(1) ROWS(2) ROWS(3) ROWS(4) ROWS(5) ROWS(6) ROWS(7) ROWS(8) ROWS(9) ROWS(10) ROWS(11) ROWS(12)
#undef ROWS
    default: TT_ASSERT(0 && "a block has 1 to ROW_BLOCK rows");  // clang-format on
  }
}

// out rows (rows <= ROW_BLOCK, N apart), columns [c0, c0 + w) = a (rows, K; packed: K
// rows of `rows` floats) · panel + bias.
TARGET static void block_product(float *out, const float *a, const float *panel, const float *bias, int rows, int K,
                                 int N, int c0, int w) {
  float sums[ROW_BLOCK * TT_PANEL_COLS] __attribute__((aligned(64)));
  block_sums_of(rows, sums, a, panel, K);
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < w; c++)
      out[(size_t)r * N + c0 + c] = sums[r * TT_PANEL_COLS + c] + (bias ? bias[c0 + c] : 0.0f);
}

// dst (16, ROW_BLOCK) = the (ROW_BLOCK, 16) block at src (rows lds floats apart) transposed:
// as a (16, 16) block whose last rows are zero, its rows unpacked by pairs of floats, then of
// doubles, then exchanged by 128-bit lanes twice; ROW_BLOCK lanes of each row stored.
TARGET static void transpose_block(float *dst, const float *src, size_t lds) {
  __m512 r[16], t[16];
  for (int i = 0; i < 16; i++) r[i] = i < ROW_BLOCK ? _mm512_loadu_ps(src + (size_t)i * lds) : _mm512_setzero_ps();
  for (int i = 0; i < 8; i++) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 4; i++) {
    __m512d a = _mm512_castps_pd(t[4 * i]), b = _mm512_castps_pd(t[4 * i + 1]);
    __m512d c = _mm512_castps_pd(t[4 * i + 2]), d = _mm512_castps_pd(t[4 * i + 3]);
    r[4 * i] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, c));
    r[4 * i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, c));
    r[4 * i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(b, d));
    r[4 * i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(b, d));
  }
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 4; j++) {
      t[8 * i + j] = _mm512_shuffle_f32x4(r[8 * i + j], r[8 * i + j + 4], 0x88);
      t[8 * i + j + 4] = _mm512_shuffle_f32x4(r[8 * i + j], r[8 * i + j + 4], 0xdd);
    }
  for (int j = 0; j < 8; j++) {
    r[j] = _mm512_shuffle_f32x4(t[j], t[j + 8], 0x88);
    r[j + 8] = _mm512_shuffle_f32x4(t[j], t[j + 8], 0xdd);
  }
  for (int i = 0; i < 16; i++) _mm512_mask_storeu_ps(dst + i * ROW_BLOCK, (__mmask16)((1u << ROW_BLOCK) - 1), r[i]);
}
#endif

void tt_panels_pack_a(float *ap, const float *a, int M, int K, int b0, int b1) {
  TT_ASSERT(b0 >= 0 && b0 <= b1 && b1 <= tt_panels_row_blocks(M));
#ifdef TT_PANELS_X86
  bool by_16 = tt_panels_available();  // full blocks 16 k's at a time (transpose_block)
#endif
  for (int b = b0; b < b1; b++) {
    int r0 = b * ROW_BLOCK, r = M - r0 < ROW_BLOCK ? M - r0 : ROW_BLOCK, k0 = 0;
    float *blk = ap + (size_t)r0 * K;
#ifdef TT_PANELS_X86
    if (r == ROW_BLOCK && by_16)
      for (; k0 + 16 <= K; k0 += 16) transpose_block(blk + (size_t)k0 * ROW_BLOCK, a + (size_t)r0 * K + k0, (size_t)K);
#endif
    pack_a_rows(blk, a, K, r0, r, k0);
  }
}

bool tt_panels_available(void) {
#ifdef TT_PANELS_X86
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f");
#else
  return false;
#endif
}

void tt_panels_matmul(float *out, const float *ap, const float *panels, const float *bias, int M, int K, int N, int p0,
                      int p1) {
  TT_ASSERT(M >= 1 && p0 >= 0 && p0 <= p1 && p1 <= tt_panels_count(N));
#ifdef TT_PANELS_X86
  for (int p = p0; p < p1; p++) {  // a panel stays in L2 while every block of rows reads it
    for (int m0 = 0; m0 < M; m0 += ROW_BLOCK)
      block_product(out + (size_t)m0 * N, ap + (size_t)m0 * K, panels + panel_start(K, p), bias,
                    M - m0 < ROW_BLOCK ? M - m0 : ROW_BLOCK, K, N, p * TT_PANEL_COLS, panel_width(N, p));
  }
#else
  (void)out, (void)ap, (void)panels, (void)bias, (void)K;
  TT_ASSERT(0 && "panel products need AVX-512");
#endif
}
