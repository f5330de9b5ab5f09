// kernels.cl: the OpenCL C 1.2 kernels of ttrace's OpenCL backend.
//
// Every buffer argument comes with an offset counted in floats (the engine's tt_buf
// views); the kernel adds it once at the start. All math is float, reductions too
// (double is optional in OpenCL 1.2): the row max, the softmax and loss sums and the norm
// statistics are spread over TT_RW work-items x 16 vector lanes and combined as a tree,
// so every partial sum is short. The OpenBLAS backend accumulates the same sums in
// double; the two agree to the parity tests' tolerance, not bit for bit.
//
// Compile-time constants (set by opencl_program.c through -D, per device type):
//   TT_TS   the matmul work-group is TT_TS x TT_TS work-items
//   TT_WPT  rows of out per work-item in the large-tile matmul (the small one has 1)
//   TT_VW   adjacent columns of out per work-item, held as one vector (4, 8 or 16)
//   TT_TK   depth of one K tile
//   TT_RW   work-group size of the row reductions (a power of two)
// A matmul work-group computes a (TT_TS * wpt) x (TT_TS * TT_VW) tile of out. GPUs get
// 16 x 16 work-items with 4 rows x float4 each; CPUs (PoCL) few work-items with long
// vectors, which their compilers turn into SIMD code.

#if TT_VW == 4
#define floatV float4
#define vloadV vload4
#define vstoreV vstore4
#elif TT_VW == 8
#define floatV float8
#define vloadV vload8
#define vstoreV vstore8
#else
#define floatV float16
#define vloadV vload16
#define vstoreV vstore16
#endif
#define TT_TN (TT_TS * TT_VW)

// ---- matmul -------------------------------------------------------------------------
// out[g] (M,N) = alpha * a[g] (M,K) . b[g] (K,N) + bias (N), for g = get_global_id(2).
// With trans_b, b[g] is (N,K). Tiles of a and b are staged in local memory, k-major:
// As is (TT_TK, tm), Bs is (TT_TK, TT_TN). Work-item (lx, ly) computes rows ly + TT_TS*i
// (i < wpt) and columns TT_VW*lx .. TT_VW*lx + TT_VW-1 of the tile. wpt is a constant
// at every call site, so each kernel gets its own fully unrolled copy.
inline void tt_gemm_tile(__global float *out, __global const float *a, __global const float *b,
                         __global const float *bias, int M, int K, int N, float alpha, int has_bias,
                         const int trans_b, const int wpt, __local float *As, __local float *Bs) {
  const int tm = TT_TS * wpt;
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int lid = ly * TT_TS + lx;
  const int n0 = get_group_id(0) * TT_TN, m0 = get_group_id(1) * tm;
  floatV acc[TT_WPT];
  for (int i = 0; i < wpt; i++) acc[i] = (floatV)(0.0f);

  for (int k0 = 0; k0 < K; k0 += TT_TK) {
    // Stage a's tile (tm rows x TT_TK), read along k; zeros past the edges.
    for (int e = lid; e < tm * TT_TK; e += TT_TS * TT_TS) {
      int kk = e % TT_TK, r = e / TT_TK;
      int gm = m0 + r, gk = k0 + kk;
      As[kk * tm + r] = (gm < M && gk < K) ? a[(size_t)gm * K + gk] : 0.0f;
    }
    // Stage b's tile (TT_TK x TT_TN), read along b's rows.
    if (trans_b) {
      for (int e = lid; e < TT_TN * TT_TK; e += TT_TS * TT_TS) {
        int kk = e % TT_TK, c = e / TT_TK;
        int gn = n0 + c, gk = k0 + kk;
        Bs[kk * TT_TN + c] = (gn < N && gk < K) ? b[(size_t)gn * K + gk] : 0.0f;
      }
    } else {
      for (int e = lid; e < TT_TN * TT_TK; e += TT_TS * TT_TS) {
        int c = e % TT_TN, kk = e / TT_TN;
        int gn = n0 + c, gk = k0 + kk;
        Bs[kk * TT_TN + c] = (gn < N && gk < K) ? b[(size_t)gk * N + gn] : 0.0f;
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int kk = 0; kk < TT_TK; kk++) {
      floatV bv = vloadV(lx, Bs + kk * TT_TN);
      for (int i = 0; i < wpt; i++) acc[i] = fma((floatV)(As[kk * tm + ly + TT_TS * i]), bv, acc[i]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  for (int i = 0; i < wpt; i++) {
    int gm = m0 + ly + TT_TS * i;
    if (gm >= M) continue;
    float r[TT_VW];
    vstoreV(acc[i], 0, r);
    for (int j = 0; j < TT_VW; j++) {
      int gn = n0 + TT_VW * lx + j;
      if (gn >= N) break;
      float v = alpha * r[j];
      if (has_bias) v += bias[gn];
      out[(size_t)gm * N + gn] = v;
    }
  }
}

#define TT_GEMM_KERNEL(NAME, TRANS_B, WPT)                                                      \
  __kernel __attribute__((reqd_work_group_size(TT_TS, TT_TS, 1))) void NAME(                    \
      __global float *out, ulong out_off, __global const float *a, ulong a_off,                 \
      __global const float *b, ulong b_off, __global const float *bias, ulong bias_off,         \
      int M, int K, int N, float alpha, int has_bias) {                                         \
    __local float As[TT_TK * TT_TS * (WPT)];                                                    \
    __local float Bs[TT_TK * TT_TN];                                                            \
    const size_t g = get_global_id(2);                                                          \
    tt_gemm_tile(out + out_off + g * (size_t)M * N, a + a_off + g * (size_t)M * K,              \
                 b + b_off + g * (size_t)K * N, bias + bias_off, M, K, N, alpha, has_bias,      \
                 TRANS_B, WPT, As, Bs);                                                         \
  }

// Large tiles for many rows; one row per work-item when out has only a few rows.
TT_GEMM_KERNEL(tt_gemm_nn, 0, TT_WPT)
TT_GEMM_KERNEL(tt_gemm_nt, 1, TT_WPT)
TT_GEMM_KERNEL(tt_gemm_nn_small, 0, 1)
TT_GEMM_KERNEL(tt_gemm_nt_small, 1, 1)

// ---- gathers and element-wise ops (one work-item per element; n may be padded) ------
// out (T,C) = table[ids[t]] rows.
__kernel void tt_embed(__global float *out, ulong out_off, __global const float *table, ulong table_off,
                       __global const int *ids, int T, int C) {
  size_t i = get_global_id(0);
  if (i >= (size_t)T * C) return;
  int t = (int)(i / C), c = (int)(i % C);
  out[out_off + i] = table[table_off + (size_t)ids[t] * C + c];
}

__kernel void tt_add(__global float *out, ulong out_off, __global const float *a, ulong a_off,
                     __global const float *b, ulong b_off, ulong n) {
  size_t i = get_global_id(0);
  if (i < n) out[out_off + i] = a[a_off + i] + b[b_off + i];
}

__kernel void tt_scale(__global float *out, ulong out_off, __global const float *x, ulong x_off,
                       float alpha, ulong n) {
  size_t i = get_global_id(0);
  if (i < n) out[out_off + i] = alpha * x[x_off + i];
}

// out (H,T,T) = x with -inf where column > row. Work-item (col, h*T + row): the row part
// is the same along a work-group's first dimension, so no per-element division.
__kernel void tt_causal_mask(__global float *out, ulong out_off, __global const float *x, ulong x_off,
                             int H, int T) {
  const int col = get_global_id(0), hr = get_global_id(1);
  if (col >= T) return;
  const int row = hr % T;
  const size_t i = (size_t)hr * T + col;
  out[out_off + i] = col > row ? -INFINITY : x[x_off + i];
}

// act: 0 gelu (tanh form, GPT-2's gelu_new), 1 gelu (erf), 2 relu, 3 silu, 4 identity
// (the order of tt_act_kind in model.h). Written once for float and once for float16:
// each work-item takes 16 adjacent elements (vector math on CPUs), the last one the rest.
#define TT_ACT_BODY(T, v, act, r)                                                             \
  switch (act) {                                                                              \
    case 0: r = (T)(0.5f) * v * ((T)(1.0f) + tanh((T)(0.7978845608028654f) *                  \
                                                    (v + (T)(0.044715f) * v * v * v)));        \
      break;                                                                                  \
    case 1: r = (T)(0.5f) * v * ((T)(1.0f) + erf(v * (T)(0.7071067811865476f))); break;       \
    case 2: r = fmax(v, (T)(0.0f)); break;                                                    \
    case 3: r = v / ((T)(1.0f) + exp(-v)); break;                                             \
    default: r = v; break;                                                                    \
  }

__kernel void tt_activation(__global float *out, ulong out_off, __global const float *x, ulong x_off,
                            ulong n, int act) {
  size_t i = get_global_id(0);  // elements 16i .. 16i+15
  __global const float *xs = x + x_off;
  __global float *os = out + out_off;
  if (16 * i + 16 <= n) {
    float16 v = vload16(i, xs), r;
    TT_ACT_BODY(float16, v, act, r)
    vstore16(r, i, os);
  } else {
    for (size_t j = 16 * i; j < n; j++) {
      float v = xs[j], r;
      TT_ACT_BODY(float, v, act, r)
      os[j] = r;
    }
  }
}

// qkv (T,3C) -> q, k, v (H,T,D), head-major. One work-item per element of q.
__kernel void tt_split_heads(__global float *q, ulong q_off, __global float *k, ulong k_off,
                             __global float *v, ulong v_off, __global const float *qkv, ulong qkv_off,
                             int T, int H, int D) {
  size_t i = get_global_id(0);  // index into (H,T,D)
  if (i >= (size_t)H * T * D) return;
  int d = (int)(i % D), t = (int)((i / D) % T), h = (int)(i / ((size_t)D * T));
  int C = H * D;
  size_t src = qkv_off + (size_t)t * 3 * C + (size_t)h * D + d;
  q[q_off + i] = qkv[src];
  k[k_off + i] = qkv[src + C];
  v[v_off + i] = qkv[src + 2 * C];
}

// z (H,T,D) -> out (T,C), heads side by side. One work-item per element of out.
__kernel void tt_merge_heads(__global float *out, ulong out_off, __global const float *z, ulong z_off,
                             int T, int H, int D) {
  size_t i = get_global_id(0);  // index into (T,C)
  int C = H * D;
  if (i >= (size_t)T * C) return;
  int t = (int)(i / C), c = (int)(i % C), h = c / D, d = c % D;
  out[out_off + i] = z[z_off + ((size_t)h * T + t) * D + d];
}

// ---- the Llama block's and the position what-ifs' kernels ----------------------------
__kernel void tt_mul(__global float *out, ulong out_off, __global const float *a, ulong a_off,
                     __global const float *b, ulong b_off, ulong n) {
  size_t i = get_global_id(0);
  if (i < n) out[out_off + i] = a[a_off + i] * b[b_off + i];
}

// Rotary positions (rotate-half): x, out (heads,T,D); table row t = cos (D/2), sin (D/2).
// One work-item per pair (head, t, i < D/2).
__kernel void tt_rope(__global float *out, ulong out_off, __global const float *x, ulong x_off,
                      __global const float *table, ulong table_off, int heads, int T, int D) {
  size_t p = get_global_id(0);
  int h2 = D / 2;  // ("half" is a type in OpenCL C)
  if (p >= (size_t)heads * T * h2) return;
  size_t row = p / h2;  // head * T + t
  int i = (int)(p % h2), t = (int)(row % T);
  float c = table[table_off + (size_t)t * D + i], s = table[table_off + (size_t)t * D + h2 + i];
  float a = x[x_off + row * D + i], b = x[x_off + row * D + h2 + i];
  out[out_off + row * D + i] = a * c - b * s;
  out[out_off + row * D + h2 + i] = b * c + a * s;
}

// ALiBi for the last T query positions of Tk: out (H,T,Tk)[h][r][j] = -slopes[h] * |i - j|,
// i = Tk - T + r.
__kernel void tt_alibi(__global float *out, ulong out_off, __global const float *slopes, ulong slopes_off, int H,
                       int T, int Tk) {
  size_t e = get_global_id(0);
  if (e >= (size_t)H * T * Tk) return;
  int j = (int)(e % Tk), r = (int)((e / Tk) % T), h = (int)(e / ((size_t)T * Tk));
  out[out_off + e] = -slopes[slopes_off + h] * (float)abs(Tk - T + r - j);
}

// x (T,C) -> z (H,T,D), C = H*D: the inverse of tt_merge_heads. One work-item per element.
__kernel void tt_unmerge_heads(__global float *z, ulong z_off, __global const float *x, ulong x_off, int T, int H,
                               int D) {
  size_t i = get_global_id(0);  // index into (T,C)
  int C = H * D;
  if (i >= (size_t)T * C) return;
  int t = (int)(i / C), c = (int)(i % C), h = c / D, d = c % D;
  z[z_off + ((size_t)h * T + t) * D + d] = x[x_off + i];
}

// ---- row reductions: one work-group of TT_RW work-items per row -----------------------
// Work-item l reads the row's 16-float blocks l, l + TT_RW, ... as vectors, then its
// share of the tail (the last cols % 16 entries); its 16 lanes are added (or maxed)
// pairwise, then the group combines its TT_RW values as a tree in local memory, in float.
inline float tt_reduce_max(__local float *s, float v) {
  const int l = get_local_id(0);
  s[l] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int w = TT_RW / 2; w > 0; w >>= 1) {
    if (l < w) s[l] = fmax(s[l], s[l + w]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  float r = s[0];
  barrier(CLK_LOCAL_MEM_FENCE);  // s is reused by the next reduction
  return r;
}

inline float tt_reduce_sum(__local float *s, float v) {
  const int l = get_local_id(0);
  s[l] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int w = TT_RW / 2; w > 0; w >>= 1) {
    if (l < w) s[l] += s[l + w];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  float r = s[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  return r;
}

inline float tt_hmax(float16 v) {
  float8 a = fmax(v.lo, v.hi);
  float4 b = fmax(a.lo, a.hi);
  float2 c = fmax(b.lo, b.hi);
  return fmax(c.x, c.y);
}
inline float tt_hsum(float16 v) {
  float8 a = v.lo + v.hi;
  float4 b = a.lo + a.hi;
  float2 c = b.lo + b.hi;
  return c.x + c.y;
}

// The row maximum of xr (n).
inline float tt_row_max(__local float *s, __global const float *xr, int n) {
  const int l = get_local_id(0), nv = n / 16;
  float16 mv = (float16)(-INFINITY);
  for (int v = l; v < nv; v += TT_RW) mv = fmax(mv, vload16(v, xr));
  float m = tt_hmax(mv);
  for (int j = 16 * nv + l; j < n; j += TT_RW) m = fmax(m, xr[j]);
  return tt_reduce_max(s, m);
}

// Row-wise softmax of x (rows, cols): exp(x - max) / sum; -inf entries become exactly 0
// (a row that is all -inf becomes all 0). out may alias x: every work-item reads and
// writes only its own entries.
__kernel __attribute__((reqd_work_group_size(TT_RW, 1, 1))) void tt_softmax(
    __global float *out, ulong out_off, __global const float *x, ulong x_off, int cols) {
  __local float s[TT_RW];
  const int l = get_local_id(0), nv = cols / 16;
  const size_t row = get_group_id(0);
  __global const float *xr = x + x_off + row * cols;
  __global float *o = out + out_off + row * cols;
  const float m = tt_row_max(s, xr, cols);
  const float16 ninf = (float16)(-INFINITY), zero = (float16)(0.0f);
  // o = exp(x - m) (0 where x is -inf), and its sum.
  float16 sv = zero;
  float sum = 0.0f;
  for (int v = l; v < nv; v += TT_RW) {
    float16 xv = vload16(v, xr);
    float16 e = m == -INFINITY ? zero : select(exp(xv - m), zero, isequal(xv, ninf));
    vstore16(e, v, o);
    sv += e;
  }
  for (int j = 16 * nv + l; j < cols; j += TT_RW) {
    float xv = xr[j];
    float e = (m == -INFINITY || xv == -INFINITY) ? 0.0f : exp(xv - m);
    o[j] = e;
    sum += e;
  }
  sum = tt_reduce_sum(s, sum + tt_hsum(sv));
  if (m == -INFINITY) return;  // all zeros already
  for (int v = l; v < nv; v += TT_RW) vstore16(vload16(v, o) / sum, v, o);
  for (int j = 16 * nv + l; j < cols; j += TT_RW) o[j] = o[j] / sum;
}

// x (T,C) -> mean (T), scale (T) = sqrt(var + eps), normalized (T,C) = (x - mean) / scale,
// out (T,C) = normalized * gamma + beta. With rms: mean = 0, scale = sqrt(mean(x^2) + eps),
// normalized = x / scale, out = normalized * gamma. One work-group per row t; the
// variance is a second pass over (x - mean), as the OpenBLAS backend computes it.
__kernel __attribute__((reqd_work_group_size(TT_RW, 1, 1))) void tt_norm(
    __global float *out, ulong out_off, __global float *normalized, ulong norm_off,
    __global float *mean, ulong mean_off, __global float *scale, ulong scale_off,
    __global const float *x, ulong x_off, __global const float *gamma, ulong gamma_off,
    __global const float *beta, ulong beta_off, int C, float eps, int rms) {
  __local float s[TT_RW];
  const int l = get_local_id(0), nv = C / 16;
  const size_t t = get_group_id(0);
  __global const float *xr = x + x_off + t * C;
  __global const float *g = gamma + gamma_off;
  __global const float *bt = beta + beta_off;
  float mu = 0.0f;
  if (!rms) {
    float16 sv = (float16)(0.0f);
    float sum = 0.0f;
    for (int v = l; v < nv; v += TT_RW) sv += vload16(v, xr);
    for (int j = 16 * nv + l; j < C; j += TT_RW) sum += xr[j];
    mu = tt_reduce_sum(s, sum + tt_hsum(sv)) / C;
  }
  float16 qv = (float16)(0.0f);
  float sq = 0.0f;
  for (int v = l; v < nv; v += TT_RW) {
    float16 d = vload16(v, xr) - mu;
    qv = fma(d, d, qv);
  }
  for (int j = 16 * nv + l; j < C; j += TT_RW) {
    float d = xr[j] - mu;
    sq = fma(d, d, sq);
  }
  const float sc = sqrt(tt_reduce_sum(s, sq + tt_hsum(qv)) / C + eps);
  if (l == 0) {
    mean[mean_off + t] = mu;
    scale[scale_off + t] = sc;
  }
  __global float *nr = normalized + norm_off + t * C;
  __global float *o = out + out_off + t * C;
  for (int v = l; v < nv; v += TT_RW) {
    float16 nv16 = (vload16(v, xr) - mu) / sc;
    float16 ov = rms ? nv16 * vload16(v, g) : fma(nv16, vload16(v, g), vload16(v, bt));
    vstore16(nv16, v, nr);
    vstore16(ov, v, o);
  }
  for (int j = 16 * nv + l; j < C; j += TT_RW) {
    float nvj = (xr[j] - mu) / sc;
    float ov = rms ? nvj * g[j] : fma(nvj, g[j], bt[j]);
    nr[j] = nvj;
    o[j] = ov;
  }
}

// loss (T-1): loss[t] = logsumexp(logits[t]) - logits[t][ids[t+1]]. One work-group per t.
__kernel __attribute__((reqd_work_group_size(TT_RW, 1, 1))) void tt_nll(
    __global float *loss, ulong loss_off, __global const float *logits, ulong logits_off,
    __global const int *ids, int V) {
  __local float s[TT_RW];
  const int l = get_local_id(0), nv = V / 16;
  const size_t t = get_group_id(0);
  __global const float *xr = logits + logits_off + t * V;
  const float m = tt_row_max(s, xr, V);
  float16 sv = (float16)(0.0f);
  float sum = 0.0f;
  for (int v = l; v < nv; v += TT_RW) sv += exp(vload16(v, xr) - m);
  for (int j = 16 * nv + l; j < V; j += TT_RW) sum += exp(xr[j] - m);
  sum = tt_reduce_sum(s, sum + tt_hsum(sv));
  if (l == 0) loss[loss_off + t] = m + log(sum) - xr[ids[t + 1]];
}
