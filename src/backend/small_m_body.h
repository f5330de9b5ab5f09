// small_m_body: the small-M kernels, written once over a vector type. small_m.c includes
// this file once per instruction set, after defining:
//   SFX            name suffix (avx2, avx512)     TARGET  the function attribute
//   VEC            the vector type (W floats)     W       floats per vector
//   LOAD(p) STORE(p, v) FMA(a, b, c) (a·b + c) SET1(x) ZERO() HSUM(v)
//   MR NV          rows and vectors per register tile (MR·NV accumulators)
//   MR_TALL        (optional) the most rows of a tall tile (MR_TALL accumulators)
//   NV_FEW         vectors per tile without trans_b in wide tiles (below)
//   NB             B rows per tile with trans_b (MR·NB accumulators)
// The products without trans_b take wide tiles (NV_FEW vectors, one row group) up to
// ch.wide_up_to rows of a, deep blocks (KB_DEEP rows of b) from ch.deep_from rows on, and
// with MR_TALL defined tall tiles (every row in one group, one vector) from ch.tall_from
// rows on (nn_rows_choice, small_m.c): the best counts depend on the core, not only on its
// instruction set.
// Shape legend: M rows of a, K the shared width, N columns of the result.
#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)
// B rows per block below deep_from rows of a: a (KB, NV·W) tile of B stays in L1 for every
// row group, and only KB rows of B stream at once (64 rows, prefetched down the columns, ran
// M = 4 at half the speed: too many streams; deep blocks prefetch along the block instead).
#define KB 16
// B rows per block from deep_from rows of a on: each block's sums are added into out once,
// so 16 blocks of 16 rows re-read and rewrote out (M·N floats, past L1) 4x as often. M = 16
// on one core, 1 GiB of weights cycled, alternated: 1.2-1.4x the GFLOP/s (95-116 ->
// 129-147 at the pass's shapes); M = 8 and 12 1.3-1.7x. Since the prefetch in deep blocks
// runs along the block (below), not down the columns, deep blocks are also faster for 2..7
// rows on Zen 5 (whole passes, alternated, one core / two: T = 2 5 / 9 %, T = 4 11 / 8 %,
// T = 5 10 / 7 %, T = 6 6 / 6 %, T = 7 2 / 3 % faster), but not on Zen 4 (small_m.c); one
// row is not (level, the kernel alone slower).
#define KB_DEEP 64
// B rows per block in tall tiles (MR_TALL rows of a in one group, one vector wide; from
// ch.tall_from rows on): each tile's sums stay in registers over half a K segment
// (small_m.h), and a's block (12 KiB) in L1. Whole passes at T = 16 on Zen 4, record none,
// six alternated rounds, median ms, one core / two: blocks of 192 rows 42.0 / 23.4, of 384
// (a whole segment) 42.0 / 25.1, of 128 42.9 / 22.9, two groups of 8 rows in deep blocks
// (before tall tiles) 45.4 / 24.9. Two cores each streaming a segment were slower with
// blocks of 384 rows: 384 rows of b 12 KiB apart read a line at a time.
#define KB_TALL (TT_SMALL_M_KSEG / 2)
_Static_assert(KB_TALL >= KB_DEEP && KB_DEEP >= KB, "a's packed block holds the longest block");
// Software prefetch into L2, issued by the first row group only: without trans_b the same
// columns ch.plain_ahead blocks of KB rows further down (the hardware prefetcher does not
// follow a tile's 16 short row streams) or, in deep blocks, the same rows two tiles to the
// right, or one from ch.near_from rows on (two deep blocks down would be 0.4-1.5 MiB
// ahead, as much as L2 holds); with trans_b the B row PF_NT rows further on (two tiles
// ahead). Measured on 2 threads, cold weights: 1.3-2x the GB/s of no prefetch.
#define PF_NT (2 * NB)
#define AP_LD TT_SMALL_M_MAX  // floats per row of b in a's packed block (one per row of a)
#define NV_MAX (NV > NV_FEW ? NV : NV_FEW)

// call(r) with a constant r equal to mr (1..MR): each row count gets its own tile code, its
// accumulators in registers and no test of mr in the loops (the counts 4..7 that are not
// below MR are never taken and compile away).
#define SMALL_M_ROWS_SWITCH(mr, call) \
  do {                                \
    if ((mr) == MR)                   \
      call(MR);                       \
    else if ((mr) == 1)               \
      call(1);                        \
    else if ((mr) == 2)               \
      call(2);                        \
    else if ((mr) == 3)               \
      call(3);                        \
    else if (4 < MR && (mr) == 4)     \
      call(4);                        \
    else if (5 < MR && (mr) == 5)     \
      call(5);                        \
    else if (6 < MR && (mr) == 6)     \
      call(6);                        \
    else if (7 < MR && (mr) == 7)     \
      call(7);                        \
  } while (0)

// One vector of sums into out at o (its columns' bias at bias_n, or NULL): stored, or added
// to what o holds unless first; last: alpha·sum + bias.
static inline __attribute__((always_inline)) void CAT(store_sums, SFX)(float *o, VEC r, const float *bias_n, bool first,
                                                                       bool last, float alpha) {
  if (!first) r = r + LOAD(o);
  if (last) {
    r = r * SET1(alpha);
    if (bias_n) r = r + LOAD(bias_n);
  }
  STORE(o, r);
}

// One register tile without trans_b: rows [0, mr) of a's packed block ap (row m at
// ap[i·AP_LD + m] for the block's row i of b), columns [n0, n0 + nv·W) of out, the block's
// kn rows of b from bt (ldb floats apart), summed from 0, then stored (first) or added to
// out; last: alpha·sum + bias. pack: where to copy the tile's rows of b for the next row
// groups (or NULL). With row i, the nv vectors at ahead + i·ldb are prefetched, for
// i < ahead_rows (ahead NULL: none).
static inline __attribute__((always_inline)) void CAT(tile_nn, SFX)(int mr, int nv, float *out, const float *ap,
                                                                    const float *bt, size_t ldb, float *pack,
                                                                    const float *bias, int N, int n0, int kn,
                                                                    const float *ahead, int ahead_rows, bool first,
                                                                    bool last, float alpha) {
  VEC acc[MR][NV_MAX];
#pragma GCC unroll 16
  for (int m = 0; m < MR; m++)
#pragma GCC unroll 8
    for (int v = 0; v < NV_MAX; v++) acc[m][v] = ZERO();  // each block summed from 0 (two-level sum along K)
  for (int i = 0; i < kn; i++) {
    const float *brow = bt + (size_t)i * ldb;
    if (ahead && i < ahead_rows) {
      const char *line = (const char *)(ahead + (size_t)i * ldb);
#pragma GCC unroll 8
      for (int v = 0; v < nv; v += 16 / W) _mm_prefetch(line + v * W * 4, _MM_HINT_T1);  // one per cache line
    }
    VEC bv[NV_MAX];
#pragma GCC unroll 8
    for (int v = 0; v < nv; v++) bv[v] = LOAD(brow + v * W);
    if (pack)
#pragma GCC unroll 8
      for (int v = 0; v < nv; v++) STORE(pack + (size_t)i * nv * W + v * W, bv[v]);
#pragma GCC unroll 16
    for (int m = 0; m < MR; m++) {
      if (m >= mr) break;
      VEC am = SET1(ap[(size_t)i * AP_LD + m]);
#pragma GCC unroll 8
      for (int v = 0; v < NV_MAX; v++) {
        if (v >= nv) break;
        acc[m][v] = FMA(am, bv[v], acc[m][v]);
      }
    }
  }
#pragma GCC unroll 16
  for (int m = 0; m < MR; m++)
#pragma GCC unroll 8
    for (int v = 0; v < NV_MAX; v++) {
      if (m >= mr || v >= nv) break;
      CAT(store_sums, SFX)
      (out + (size_t)m * N + n0 + v * W, acc[m][v], bias ? bias + n0 + v * W : NULL, first, last, alpha);
    }
}

// What the tile at column n (tile floats wide) of a block of kn rows of b (bk: its first
// row; pf_rows rows from it on) prefetches: in deep blocks the same rows pf_dist tiles on,
// past n1 the next block's first tiles; else the same columns pf_dist blocks down. *rows:
// how many of its rows.
static inline __attribute__((always_inline)) const float *CAT(ahead_nn, SFX)(const float *bk, int N, int n, int n0,
                                                                             int n1, int tile, int kn, int pf_rows,
                                                                             bool deep, int pf_dist, int *rows) {
  if (!deep) {
    *rows = pf_rows - pf_dist * KB;  // the rows that have a row pf_dist·KB further down
    return bk + n + (size_t)pf_dist * KB * N;
  }
  int col = n + pf_dist * tile,
      next_rows = pf_rows - kn < kn ? pf_rows - kn : kn;  // the next block's rows, up to kn
  *rows = col < n1 ? kn : next_rows;
  return col < n1 ? bk + col : bk + (size_t)kn * N + n0 + (col - n1);
}

// Every column tile [n0, n1) (whole tiles of NV·W, or NV_FEW·W when wide: on Zen 5 one or
// two rows of a ran at 1.1-1.3x the GB/s in wider tiles) of one block of kn rows of
// b (bk: its first row), row groups of MR in each; each tile call has a constant mr and
// nv. The first row group reads
// the tile from b and, when more groups follow, copies it into one contiguous buffer for
// them: b's rows N·4 bytes apart can all fall in one L1 set (N = 3072: 12 KiB), and 16 of
// them then evict each other before the second group reads them (M = 16 ran at half speed).
static void CAT(rows_nn, SFX)(float *out, const float *ap, const float *bk, const float *bias, int M, int N, int n0,
                              int n1, int kn, int pf_rows, bool wide, bool deep, int pf_dist, bool first, bool last,
                              float alpha) TARGET;
static void CAT(rows_nn, SFX)(float *out, const float *ap, const float *bk, const float *bias, int M, int N, int n0,
                              int n1, int kn, int pf_rows, bool wide, bool deep, int pf_dist, bool first, bool last,
                              float alpha) {
  if (M <= ROWS_FEW) {  // one row group
    int tile = (wide ? NV_FEW : NV) * W;
    for (int n = n0; n < n1; n += tile) {
      int ahead_rows;
      const float *ahead = CAT(ahead_nn, SFX)(bk, N, n, n0, n1, tile, kn, pf_rows, deep, pf_dist, &ahead_rows);
#define TILE_FEW(r, nv) \
  CAT(tile_nn, SFX)(r, nv, out, ap, bk + n, N, NULL, bias, N, n, kn, ahead, ahead_rows, first, last, alpha)
#define TILE_WIDE(r) TILE_FEW(r, NV_FEW)
#define TILE_NARROW(r) TILE_FEW(r, NV)
      if (wide)
        SMALL_M_ROWS_SWITCH(M, TILE_WIDE);
      else
        SMALL_M_ROWS_SWITCH(M, TILE_NARROW);
#undef TILE_NARROW
#undef TILE_WIDE
#undef TILE_FEW
    }
    return;
  }
  VEC packed[KB_DEEP * NV];  // (kn, NV·W): the tile's rows of b
  float *pk = (float *)packed;
  for (int n = n0; n < n1; n += NV * W) {
    int ahead_rows;
    const float *ahead = CAT(ahead_nn, SFX)(bk, N, n, n0, n1, NV * W, kn, pf_rows, deep, pf_dist, &ahead_rows);
    for (int m0 = 0; m0 < M; m0 += MR) {
      int mr = M - m0 < MR ? M - m0 : MR;
      float *o = out + (size_t)m0 * N;
      bool lead = m0 == 0;
      const float *bt = lead ? bk + n : pk;
      size_t ldb = lead ? (size_t)N : NV * W;
      float *pack = lead && M > MR ? pk : NULL;
      const float *pf = lead ? ahead : NULL;
#define TILE_NN(r) \
  CAT(tile_nn, SFX)(r, NV, o, ap + m0, bt, ldb, pack, bias, N, n, kn, pf, ahead_rows, first, last, alpha)
      SMALL_M_ROWS_SWITCH(mr, TILE_NN);
#undef TILE_NN
    }
  }
}

#ifdef MR_TALL
// One tall tile: rows [0, mr) of a's packed block ap (as tile_nn), all in one group, times
// the one vector of columns [n0, n0 + W) of the block's kn rows of b (bt, ldb floats
// apart); stored or added, and scaled, as by tile_nn. Row i prefetches ahead + i·ldb for
// i < ahead_rows.
static inline __attribute__((always_inline)) void CAT(tile_tall, SFX)(int mr, float *out, const float *ap,
                                                                      const float *bt, size_t ldb, const float *bias,
                                                                      int N, int n0, int kn, const float *ahead,
                                                                      int ahead_rows, bool first, bool last,
                                                                      float alpha) {
  VEC acc[MR_TALL];
#pragma GCC unroll 16
  for (int m = 0; m < MR_TALL; m++) acc[m] = ZERO();
  for (int i = 0; i < kn; i++) {
    if (i < ahead_rows) _mm_prefetch((const char *)(ahead + (size_t)i * ldb), _MM_HINT_T1);
    VEC bv = LOAD(bt + (size_t)i * ldb);
#pragma GCC unroll 16
    for (int m = 0; m < MR_TALL; m++) {
      if (m >= mr) break;
      acc[m] = FMA(SET1(ap[(size_t)i * AP_LD + m]), bv, acc[m]);
    }
  }
#pragma GCC unroll 16
  for (int m = 0; m < MR_TALL; m++) {
    if (m >= mr) break;
    CAT(store_sums, SFX)(out + (size_t)m * N + n0, acc[m], bias ? bias + n0 : NULL, first, last, alpha);
  }
}

// Every one-vector column tile [n0, n1) of one block of kn rows of b (bk: its first row)
// with all M rows of a in a tall tile (a constant row count from 11 rows on); each tile
// prefetches the block's rows two tiles on, as deep blocks do below ch.near_from rows. Not
// inlined into matmul_nn: inlined, the kernel alone ran 3-7 % slower on Zen 4 (M = 16 / 12,
// one core).
static __attribute__((noinline)) void CAT(rows_tall, SFX)(float *out, const float *ap, const float *bk,
                                                          const float *bias, int M, int N, int n0, int n1, int kn,
                                                          int pf_rows, bool first, bool last, float alpha) TARGET;
static void CAT(rows_tall, SFX)(float *out, const float *ap, const float *bk, const float *bias, int M, int N, int n0,
                                int n1, int kn, int pf_rows, bool first, bool last, float alpha) {
  for (int n = n0; n < n1; n += W) {
    int ahead_rows;
    const float *ahead = CAT(ahead_nn, SFX)(bk, N, n, n0, n1, W, kn, pf_rows, true, 2, &ahead_rows);
#define TILE_TALL(r) \
  CAT(tile_tall, SFX)(r, out, ap, bk + n, (size_t)N, bias, N, n, kn, ahead, ahead_rows, first, last, alpha)
    switch (M) {  // clang-format off
      case 16: TILE_TALL(16); break;  case 15: TILE_TALL(15); break;  case 14: TILE_TALL(14); break;
      case 13: TILE_TALL(13); break;  case 12: TILE_TALL(12); break;  case 11: TILE_TALL(11); break;
      default: TILE_TALL(M); break;  // clang-format on
    }
#undef TILE_TALL
  }
}
#endif

// Columns [c0, c1) of out (M,N) = alpha · a (M,K; rows lda apart) · b (K,N) + bias: b is
// read block by block of KB (or KB_DEEP) rows, each block left to right, so it streams once from memory;
// a's block is copied k-major first (its rows lda·4 bytes apart share L1 sets too, and one
// line then holds a column of every row); the columns past the last whole tile are a plain
// loop. pf_rows: how many rows b has from its first, for the prefetch (b may be a segment of
// a longer matrix). ch: which rows take wide tiles and deep blocks. c0 is a multiple of the
// tile width, c1 one too or N.
static void CAT(matmul_nn, SFX)(float *out, const float *a, int lda, const float *b, const float *bias, int M, int K,
                                int N, float alpha, int c0, int c1, int pf_rows, nn_rows_choice ch) TARGET;
static void CAT(matmul_nn, SFX)(float *out, const float *a, int lda, const float *b, const float *bias, int M, int K,
                                int N, float alpha, int c0, int c1, int pf_rows, nn_rows_choice ch) {
  if (K == 0) {  // alpha · 0 + bias
    matmul_scalar(out, a, lda, b, bias, M, K, N, false, alpha, c0, c1);
    return;
  }
  bool wide = M <= ch.wide_up_to, deep = M >= ch.deep_from;          // wide_up_to <= ROWS_FEW
  int pf_dist = !deep ? ch.plain_ahead : M >= ch.near_from ? 1 : 2;  // blocks down or tiles on
#ifdef MR_TALL
  bool tall = M >= ch.tall_from;
#else
  bool tall = false;
#endif
  int tile = tall ? W : (wide ? NV_FEW : NV) * W, n_main = N / tile * tile, end = c1 < n_main ? c1 : n_main;
  float ap[KB_TALL * AP_LD];
  int kb = tall ? KB_TALL : deep ? KB_DEEP : KB;
  for (int k0 = 0; k0 < K; k0 += kb) {
    int kn = K - k0 < kb ? K - k0 : kb;
    for (int i = 0; i < kn; i++)
      for (int m = 0; m < M; m++) ap[i * AP_LD + m] = a[(size_t)m * lda + k0 + i];
    const float *bk = b + (size_t)k0 * N;
#ifdef MR_TALL
    if (tall) {
      CAT(rows_tall, SFX)(out, ap, bk, bias, M, N, c0, end, kn, pf_rows - k0, k0 == 0, k0 + kn == K, alpha);
      continue;
    }
#endif
    CAT(rows_nn, SFX)
    (out, ap, bk, bias, M, N, c0, end, kn, pf_rows - k0, wide, deep, pf_dist, k0 == 0, k0 + kn == K, alpha);
  }
  if (c1 == N && n_main < N) tail_nn(out, a, lda, b, bias, M, K, N, n_main > c0 ? n_main : c0, alpha);
}

// Columns [c0, c1) of out (M,N) = alpha · (out + P_1 + … + P_{S-1}) + bias, P_s at
// parts + (s-1)·M·N (tt_small_m_sum_segments): each element gets the partials in order.
static void CAT(sum_segments, SFX)(float *out, const float *parts, const float *bias, int M, int N, int S, float alpha,
                                   int c0, int c1) TARGET;
static void CAT(sum_segments, SFX)(float *out, const float *parts, const float *bias, int M, int N, int S, float alpha,
                                   int c0, int c1) {
  size_t plane = (size_t)M * N;
  VEC va = SET1(alpha);
  for (int m = 0; m < M; m++) {
    float *o = out + (size_t)m * N;
    const float *p = parts + (size_t)m * N;
    int n = c0;
    for (; n + W <= c1; n += W) {
      VEC r = LOAD(o + n);
      for (int j = 0; j + 1 < S; j++) r = r + LOAD(p + j * plane + n);
      r = r * va;
      if (bias) r = r + LOAD(bias + n);
      STORE(o + n, r);
    }
    for (; n < c1; n++) {
      float r = o[n];
      for (int j = 0; j + 1 < S; j++) r += p[j * plane + n];
      o[n] = r * alpha + (bias ? bias[n] : 0.0f);
    }
  }
}

// Columns [n0, n0 + nb) of one row group (rows [m0, m0 + mr) of a) with:
// MR × NB dot products along K, each B row read once from memory (in L1 for the next row
// group); the last K % W entries are a plain loop.
static inline __attribute__((always_inline)) void CAT(tile_nt, SFX)(int mr, int nb, float *out, const float *a,
                                                                    const float *b, const float *bias, int K, int N,
                                                                    int m0, int n0, float alpha, bool prefetch) {
  int k_main = K / W * W;
  VEC acc[MR][NB];
#pragma GCC unroll 16
  for (int m = 0; m < MR; m++)
#pragma GCC unroll 4
    for (int j = 0; j < NB; j++) acc[m][j] = ZERO();
  // the B rows PF_NT further on (rows past N: this tile's own, already on their way)
  const char *ahead[NB];
#pragma GCC unroll 4
  for (int j = 0; j < NB; j++) ahead[j] = (const char *)(b + (size_t)(n0 + j + (n0 + j + PF_NT < N ? PF_NT : 0)) * K);
  for (int k = 0; k < k_main; k += W) {
    VEC bv[NB];
#pragma GCC unroll 4
    for (int j = 0; j < NB; j++) bv[j] = j < nb ? LOAD(b + (size_t)(n0 + j) * K + k) : ZERO();
    if (prefetch && (k * 4) % 64 < W * 4)  // one per cache line
#pragma GCC unroll 4
      for (int j = 0; j < NB; j++) _mm_prefetch(ahead[j] + (size_t)k * 4, _MM_HINT_T1);
#pragma GCC unroll 16
    for (int m = 0; m < MR; m++) {
      if (m >= mr) break;
      VEC av = LOAD(a + (size_t)(m0 + m) * K + k);
#pragma GCC unroll 4
      for (int j = 0; j < NB; j++) acc[m][j] = FMA(av, bv[j], acc[m][j]);
    }
  }
  for (int m = 0; m < mr; m++)
    for (int j = 0; j < nb; j++) {
      const float *ar = a + (size_t)(m0 + m) * K, *br = b + (size_t)(n0 + j) * K;
      float s = HSUM(acc[m][j]);
      for (int k = k_main; k < K; k++) s += ar[k] * br[k];
      out[(size_t)(m0 + m) * N + n0 + j] = alpha * s + (bias ? bias[n0 + j] : 0.0f);
    }
}

// Columns [c0, c1) of out (M,N) = alpha · a (M,K) · b (N,K)ᵀ + bias: NB rows of B at a
// time, every row group (a column's sum does not depend on its neighbours).
static void CAT(matmul_nt, SFX)(float *out, const float *a, const float *b, const float *bias, int M, int K, int N,
                                float alpha, int c0, int c1) TARGET;
static void CAT(matmul_nt, SFX)(float *out, const float *a, const float *b, const float *bias, int M, int K, int N,
                                float alpha, int c0, int c1) {
  for (int n0 = c0; n0 < c1; n0 += NB) {
    int nb = c1 - n0 < NB ? c1 - n0 : NB;
    for (int m0 = 0; m0 < M; m0 += MR) {
      int mr = M - m0 < MR ? M - m0 : MR;
      bool pf = m0 == 0;
      if (nb == NB) {
#define TILE_NT(r) CAT(tile_nt, SFX)(r, NB, out, a, b, bias, K, N, m0, n0, alpha, pf)
        SMALL_M_ROWS_SWITCH(mr, TILE_NT);
#undef TILE_NT
      } else {
        CAT(tile_nt, SFX)(mr, nb, out, a, b, bias, K, N, m0, n0, alpha, pf);
      }
    }
  }
}

#undef KB
#undef KB_DEEP
#undef KB_TALL
#undef PF_NT
#undef AP_LD
#undef NV_MAX
#undef SMALL_M_ROWS_SWITCH
#undef CAT
#undef CAT_
