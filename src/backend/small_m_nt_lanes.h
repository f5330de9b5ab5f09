// small_m_nt_lanes: the trans_b product with more rows than the dot-product tiles take
// (small_m.c: 4..16 or 9..16 rows, by core) on AVX-512, included by small_m.c inside its
// AVX-512 target region. a's rows are transposed into the lanes of one vector (at: (k, 16),
// row m in lane m, lanes past M zero), so each column n of out, for every row at once, is
// Σ_k at[k] · b[n][k]: one FMA per k with b's element broadcast from
// memory, LANE_COLS columns of b at a time. No horizontal sums, and a's rows come from L1
// or L2 once per k instead of once per row group (the dot-product tiles' 16 rows read 48
// KiB of a for every B tile, more than L1 holds). Each element is one lane's sum in k
// order, whatever M and the column range.
// Shape legend: M rows of a (M <= 16), K the shared width, N columns of the result.
#define LANE_COLS 8   // columns per tile: 8 independent sums in flight, 8 rows of b streamed
#define LANE_KC 1024  // k per chunk of at on the stack (64 KiB); longer K goes chunk by chunk
// b's rows prefetched this many rows ahead (the next tile), one line at a time: two tiles
// ahead ran the unembedding at M = 16, cold, ~5 % slower on Zen 5 (alternated in one process)
#define LANE_PF LANE_COLS

// out[m][n0 + j] for j < nb, m < M: the sums of one tile over at's chunk [0, kn) (b at
// column kc0), continued from the partial sums in out unless first; last: alpha·s + bias.
static inline __attribute__((always_inline)) void lane_tile(int nb, float *out, const float *at, const float *b,
                                                            const float *bias, int M, int K, int N, int n0, int kc0,
                                                            int kn, bool first, bool last, float alpha) {
  __m512 acc[LANE_COLS];
  float part[LANE_COLS][16] __attribute__((aligned(64)));
  for (int j = 0; j < LANE_COLS; j++) {
    acc[j] = _mm512_setzero_ps();
    if (first) continue;
    for (int m = 0; m < 16; m++) part[j][m] = j < nb && m < M ? out[(size_t)m * N + n0 + j] : 0.0f;
    acc[j] = _mm512_load_ps(part[j]);
  }
  const float *row[LANE_COLS];
  const char *ahead[LANE_COLS];
  for (int j = 0; j < LANE_COLS; j++) {
    int n = n0 + (j < nb ? j : 0);  // a short tile repeats its first row (its sums unused)
    row[j] = b + (size_t)n * K + kc0;
    ahead[j] = (const char *)(row[j] + (n + LANE_PF < N ? (size_t)LANE_PF * K : 0));
  }
  int k = 0;
  for (; k + 16 <= kn; k += 16) {  // one prefetch per cache line of each row, then its 16 k
#pragma GCC unroll 8
    for (int j = 0; j < LANE_COLS; j++) _mm_prefetch(ahead[j] + (size_t)k * 4, _MM_HINT_T1);
#pragma GCC unroll 16
    for (int i = k; i < k + 16; i++) {
      __m512 ai = _mm512_load_ps(at + (size_t)i * 16);
#pragma GCC unroll 8
      for (int j = 0; j < LANE_COLS; j++) acc[j] = _mm512_fmadd_ps(ai, _mm512_set1_ps(row[j][i]), acc[j]);
    }
  }
  for (; k < kn; k++) {
    __m512 ak = _mm512_load_ps(at + (size_t)k * 16);
#pragma GCC unroll 8
    for (int j = 0; j < LANE_COLS; j++) acc[j] = _mm512_fmadd_ps(ak, _mm512_set1_ps(row[j][k]), acc[j]);
  }
  for (int j = 0; j < LANE_COLS; j++) {
    __m512 r = acc[j];
    if (last) {
      r = _mm512_mul_ps(r, _mm512_set1_ps(alpha));
      if (bias && j < nb) r = _mm512_add_ps(r, _mm512_set1_ps(bias[n0 + j]));
    }
    _mm512_store_ps(part[j], r);
  }
  for (int m = 0; m < M; m++)
    for (int j = 0; j < nb; j++) out[(size_t)m * N + n0 + j] = part[j][m];
}

// Columns [c0, c1) of out (M,N) = alpha · a (M,K) · b (N,K)ᵀ + bias, 1 <= M <= 16.
static void matmul_nt_lanes_avx512(float *out, const float *a, const float *b, const float *bias, int M, int K, int N,
                                   float alpha, int c0, int c1) {
  if (K == 0) {  // alpha · 0 + bias
    matmul_scalar(out, a, K, b, bias, M, K, N, true, alpha, c0, c1);
    return;
  }
  float at[LANE_KC * 16] __attribute__((aligned(64)));
  for (int kc0 = 0; kc0 < K; kc0 += LANE_KC) {
    int kn = K - kc0 < LANE_KC ? K - kc0 : LANE_KC;
    for (int k = 0; k < kn; k++)
      for (int m = 0; m < 16; m++) at[(size_t)k * 16 + m] = m < M ? a[(size_t)m * K + kc0 + k] : 0.0f;
    bool first = kc0 == 0, last = kc0 + kn == K;
    for (int n0 = c0; n0 < c1; n0 += LANE_COLS) {
      if (c1 - n0 >= LANE_COLS)
        lane_tile(LANE_COLS, out, at, b, bias, M, K, N, n0, kc0, kn, first, last, alpha);
      else
        lane_tile(c1 - n0, out, at, b, bias, M, K, N, n0, kc0, kn, first, last, alpha);
    }
  }
}

#undef LANE_COLS
#undef LANE_KC
#undef LANE_PF
