// small_m_body: the small-M kernels, written once over a vector type. small_m.c includes
// this file once per instruction set, after defining:
//   SFX            name suffix (avx2, avx512)     TARGET  the function attribute
//   VEC            the vector type (W floats)     W       floats per vector
//   LOAD(p) STORE(p, v) FMA(a, b, c) (a·b + c) SET1(x) ZERO() HSUM(v)
//   MR NV          rows and vectors per register tile (MR·NV accumulators)
// Shape legend: M rows of a, K the shared width, N columns of the result.
#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)
#define KB 64  // B rows per block: a (KB, NV·W) tile of B stays in L1 for every row group

// One register tile without trans_b: rows a[0..mr), columns [n0, n0 + NV·W), B rows
// [k0, k1). first: start from 0 (else from out); last: finish as alpha·acc + bias.
static inline __attribute__((always_inline)) void CAT(tile_nn, SFX)(int mr, float *out, const float *a, const float *b,
                                                                    const float *bias, int K, int N, int n0, int k0,
                                                                    int k1, bool first, bool last, float alpha) {
  VEC acc[MR][NV];
#pragma GCC unroll 16
  for (int m = 0; m < MR; m++)
#pragma GCC unroll 4
    for (int v = 0; v < NV; v++) acc[m][v] = (first || m >= mr) ? ZERO() : LOAD(out + (size_t)m * N + n0 + v * W);
  for (int k = k0; k < k1; k++) {
    const float *brow = b + (size_t)k * N + n0;
    VEC bv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; v++) bv[v] = LOAD(brow + v * W);
#pragma GCC unroll 16
    for (int m = 0; m < MR; m++) {
      if (m >= mr) break;
      VEC am = SET1(a[(size_t)m * K + k]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; v++) acc[m][v] = FMA(am, bv[v], acc[m][v]);
    }
  }
#pragma GCC unroll 16
  for (int m = 0; m < MR; m++)
#pragma GCC unroll 4
    for (int v = 0; v < NV; v++) {
      if (m >= mr) break;
      VEC r = acc[m][v];
      if (last) {
        r = r * SET1(alpha);
        if (bias) r = r + LOAD(bias + n0 + v * W);
      }
      STORE(out + (size_t)m * N + n0 + v * W, r);
    }
}

// Row groups of MR over one (k-block, column tile); each instance has a constant mr.
static void CAT(rows_nn, SFX)(float *out, const float *a, const float *b, const float *bias, int M, int K, int N,
                              int n0, int k0, int k1, bool first, bool last, float alpha) TARGET;
static void CAT(rows_nn, SFX)(float *out, const float *a, const float *b, const float *bias, int M, int K, int N,
                              int n0, int k0, int k1, bool first, bool last, float alpha) {
  for (int m0 = 0; m0 < M; m0 += MR) {
    int mr = M - m0 < MR ? M - m0 : MR;
    float *o = out + (size_t)m0 * N;
    const float *am = a + (size_t)m0 * K;
    if (mr == MR)
      CAT(tile_nn, SFX)(MR, o, am, b, bias, K, N, n0, k0, k1, first, last, alpha);
    else
      CAT(tile_nn, SFX)(mr, o, am, b, bias, K, N, n0, k0, k1, first, last, alpha);
  }
}

// out (M,N) = alpha · a (M,K) · b (K,N) + bias: B is read block by block of KB rows, each
// block left to right, so it streams once from memory; the last N % (NV·W) columns are a
// plain loop.
static void CAT(matmul_nn, SFX)(float *out, const float *a, const float *b, const float *bias, int M, int K, int N,
                                float alpha) TARGET;
static void CAT(matmul_nn, SFX)(float *out, const float *a, const float *b, const float *bias, int M, int K, int N,
                                float alpha) {
  int tile = NV * W, n_main = N / tile * tile;
  for (int k0 = 0; k0 < K; k0 += KB) {
    int k1 = K - k0 < KB ? K : k0 + KB;
    for (int n0 = 0; n0 < n_main; n0 += tile)
      CAT(rows_nn, SFX)(out, a, b, bias, M, K, N, n0, k0, k1, k0 == 0, k1 == K, alpha);
  }
  if (n_main < N || K == 0) tail_nn(out, a, b, bias, M, K, N, K == 0 ? 0 : n_main, alpha);
}

// out (M,N) = alpha · a (M,K) · b (N,K)ᵀ + bias: one B row at a time (in L1 for every row
// group), MR dot products along K; the last K % W entries are a plain loop.
static void CAT(matmul_nt, SFX)(float *out, const float *a, const float *b, const float *bias, int M, int K, int N,
                                float alpha) TARGET;
static void CAT(matmul_nt, SFX)(float *out, const float *a, const float *b, const float *bias, int M, int K, int N,
                                float alpha) {
  int k_main = K / W * W;
  for (int n = 0; n < N; n++) {
    const float *brow = b + (size_t)n * K;
    for (int m0 = 0; m0 < M; m0 += MR) {
      int mr = M - m0 < MR ? M - m0 : MR;
      VEC acc[MR];
#pragma GCC unroll 16
      for (int m = 0; m < MR; m++) acc[m] = ZERO();
      for (int k = 0; k < k_main; k += W) {
        VEC bv = LOAD(brow + k);
#pragma GCC unroll 16
        for (int m = 0; m < MR; m++)
          if (m < mr) acc[m] = FMA(LOAD(a + (size_t)(m0 + m) * K + k), bv, acc[m]);
      }
      for (int m = 0; m < mr; m++) {
        const float *ar = a + (size_t)(m0 + m) * K;
        float s = HSUM(acc[m]);
        for (int k = k_main; k < K; k++) s += ar[k] * brow[k];
        out[(size_t)(m0 + m) * N + n] = alpha * s + (bias ? bias[n] : 0.0f);
      }
    }
  }
}

#undef KB
#undef CAT
#undef CAT_
