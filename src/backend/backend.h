// backend: the numeric operations of the forward and backward passes, behind a struct of function
// pointers. A backend owns its buffers (host memory for OpenBLAS, cl_mem for OpenCL);
// the engine only holds tt_buf handles and moves data with upload/download.
// All tensors are row-major and contiguous; sizes are counted in floats.
#ifndef TT_BACKEND_H
#define TT_BACKEND_H

#include "core/core.h"
#include "build_config.h"
#include "model/model.h"

// A view of n floats starting `offset` floats into a backend allocation.
// For host backends, handle is the float* of the allocation, or NULL and read_only the
// const float* of host memory that no op may write (a weight used in place, see
// wrap_read_only). An unset buffer (an absent bias) has neither. panels: the buffer is a
// weight made by pack_weight, in the backend's own layout (trans_b: the weight is the b of
// products with trans_b); only matmul's b may be one, and embed's table when it was packed
// with trans_b (the tied unembedding).
typedef struct {
  void *handle;
  size_t offset, n;
  const void *read_only;
  bool panels, trans_b;
} tt_buf;

// The n floats `offset` floats into b; they must lie inside b.
static inline tt_buf tt_buf_view(tt_buf b, size_t offset, size_t n) {
  TT_ASSERT(offset <= b.n && n <= b.n - offset);
  TT_ASSERT(!b.panels);
  return (tt_buf){b.handle, b.offset + offset, n, b.read_only, false, false};
}

static inline bool tt_buf_is_set(tt_buf b) {
  return b.handle || b.read_only;
}

// The floats a host backend's buffer b views (NULL when b is unset).
static inline const float *tt_buf_host_floats(tt_buf b) {
  const float *base = b.handle ? (const float *)b.handle : (const float *)b.read_only;
  return base ? base + b.offset : NULL;
}

#define TT_ATTN_BLOCK_ROWS 64  // query rows per block of the causal attention ops

typedef struct tt_backend tt_backend;
struct tt_backend {
  const char *name;  // "openblas", "opencl"
  char device[256];  // what it runs on, for the trace metadata and `ttrace devices`
  char note[512];    // a one-time remark for the user (kernels compiled and cached); the
                     // caller decides whether to show it. Empty when there is none.
  bool host_memory;  // buffers are plain host memory: the engine may wrap recorder memory
  void *impl;

  // ---- memory ----
  tt_status (*alloc)(tt_backend *be, size_t n, tt_buf *out, tt_error *err);
  void (*release)(tt_backend *be, tt_buf *buf);
  // Host memory as a buffer without a copy (host backends only; may be NULL): writable
  // (an op's output), or read-only (a weight; only ever an op's input).
  tt_buf (*wrap)(tt_backend *be, float *host, size_t n);
  tt_buf (*wrap_read_only)(tt_backend *be, const float *host, size_t n);
  tt_status (*upload)(tt_backend *be, tt_buf dst, const float *src, size_t n, tt_error *err);
  tt_status (*download)(tt_backend *be, tt_buf src, float *dst, size_t n, tt_error *err);
  tt_status (*finish)(tt_backend *be, tt_error *err);  // wait for queued work; NULL if synchronous
  // A copy of the weight w in a buffer of its own (release it), in the layout this
  // backend's matmul streams fastest for the forward pass's products a (M,K) · w: w is
  // (K,N), or (N,K) with trans_b (a · wᵀ). matmul then takes the copy wherever it would
  // take w, with or without trans_b (the backward pass's products). NULL where the backend
  // has no such layout on this machine (then weights are used as they are stored).
  tt_status (*pack_weight)(tt_backend *be, const float *w, int K, int N, bool trans_b, tt_buf *out, tt_error *err);

  // ---- ops (out may alias x for the element-wise ones) ----
  // out (M,N) = a (M,K) · b (K,N) + bias (N);  with trans_b, b is (N,K).  bias may be unset.
  tt_status (*matmul)(tt_backend *be, tt_buf out, tt_buf a, tt_buf b, tt_buf bias, int M, int K, int N, bool trans_b,
                      tt_error *err);
  // for i < batch: out[i] (M,N) = alpha · a[i] (M,K) · b[i] (K,N)   (b[i] is (N,K) with trans_b)
  tt_status (*matmul_batched)(tt_backend *be, tt_buf out, tt_buf a, tt_buf b, int batch, int M, int K, int N,
                              bool trans_b, float alpha, tt_error *err);
  // out (T,C) = table[ids[t]] rows; ids are host memory, checked < rows by the engine.
  tt_status (*embed)(tt_backend *be, tt_buf out, tt_buf table, const int32_t *ids, int T, int C, tt_error *err);
  tt_status (*add)(tt_backend *be, tt_buf out, tt_buf a, tt_buf b, size_t n, tt_error *err);
  tt_status (*scale)(tt_backend *be, tt_buf out, tt_buf x, float alpha, size_t n, tt_error *err);
  // out (H,T,T) = x with -inf where column > row.
  tt_status (*causal_mask)(tt_backend *be, tt_buf out, tt_buf x, int H, int T, tt_error *err);
  // Row-wise softmax of x (rows, cols); -inf entries become exactly 0.
  tt_status (*softmax)(tt_backend *be, tt_buf out, tt_buf x, int rows, int cols, tt_error *err);
  // The host function that softmax, softmax_nll and causal_attention's pattern compute each
  // row with (NULL on a device backend): a trace may keep the probabilities and the pattern
  // as rules that call it (tt_hook_rule.row_fn).
  tt_row_fn softmax_row;
  // x (T,C) → mean (T), scale (T) = sqrt(var + eps), normalized (T,C) = (x - mean) / scale,
  // out (T,C) = normalized · gamma + beta.  For RMSNorm (rms = true): mean is written as 0,
  // scale = sqrt(mean(x²) + eps), normalized = x / scale, beta is ignored. On a backend
  // with norm_row, normalized may be unset (nobody reads it): out alone is written.
  tt_status (*norm)(tt_backend *be, tt_buf out, tt_buf normalized, tt_buf mean, tt_buf scale, tt_buf x, tt_buf gamma,
                    tt_buf beta, int T, int C, float eps, bool rms, tt_error *err);
  // The host function that norm computes each row with (NULL on a device backend): a trace
  // may keep the normalized rows and the norm's out as rules that call it on the norm's
  // input (tt_hook_rule.norm_fn).
  tt_norm_row_fn norm_row;
  tt_status (*activation)(tt_backend *be, tt_buf out, tt_buf x, size_t n, tt_act_kind act, tt_error *err);
  // The host function that activation computes act with (NULL on a device backend): each
  // element alone, the same bits for any run of elements handed to it, so a trace may keep
  // GPT-2's mlp.hook_post as a rule that calls it on each row (tt_hook_rule.row_fn).
  tt_row_fn (*activation_row)(tt_act_kind act);
  // qkv (T,3C) → q, k, v (H,T,D) each, head-major.
  tt_status (*split_heads)(tt_backend *be, tt_buf q, tt_buf k, tt_buf v, tt_buf qkv, int T, int H, int D,
                           tt_error *err);
  // z (H,T,D) → out (T,C), heads side by side.
  tt_status (*merge_heads)(tt_backend *be, tt_buf out, tt_buf z, int T, int H, int D, tt_error *err);
  // loss (T-1): loss[t] = logsumexp(logits[t]) - logits[t][ids[t+1]]   (= -log p of the next token)
  tt_status (*nll)(tt_backend *be, tt_buf loss, tt_buf logits, const int32_t *ids, int T, int V, tt_error *err);
  // probs (T,V) = softmax and loss (T-1) = nll of logits (T,V), the bits of the two ops, in
  // one pass over each row; probs may be logits (in place). NULL where a backend lacks it.
  tt_status (*softmax_nll)(tt_backend *be, tt_buf probs, tt_buf loss, tt_buf logits, const int32_t *ids, int T, int V,
                           tt_error *err);

  // ---- the Llama block's and the position what-ifs' ops (NULL where a backend lacks them) ----
  // out (n) = a · b, element by element.
  tt_status (*mul)(tt_backend *be, tt_buf out, tt_buf a, tt_buf b, size_t n, tt_error *err);
  // Rotary positions, rotate-half layout: x, out (heads,T,D); table (≥T, D) with row t =
  // cos(t·f_0..f_{D/2−1}), sin(t·f_0..f_{D/2−1}). For i < D/2:
  // out[i] = x[i]·cos_i − x[i+D/2]·sin_i, out[i+D/2] = x[i+D/2]·cos_i + x[i]·sin_i.
  tt_status (*rope)(tt_backend *be, tt_buf out, tt_buf x, tt_buf table, int heads, int T, int D, tt_error *err);
  // ALiBi for the last T query positions of Tk (T = Tk for a whole pass, T = 1 for a decode
  // step): out (H,T,Tk)[h][r][j] = −slopes[h]·|Tk − T + r − j|.
  tt_status (*alibi)(tt_backend *be, tt_buf out, tt_buf slopes, int H, int T, int Tk, tt_error *err);

  // ---- causal attention of a whole pass, block by block of query rows (NULL where a backend
  // lacks them; then the engine uses matmul_batched, scale, causal_mask and softmax) ----
  // Query head h (H,T,D) attends with key/value head h / (H/G) of k, v (G,T,D). Rows are
  // taken in blocks of TT_ATTN_BLOCK_ROWS: a block's scores against the keys up to its last
  // row, then (if wanted) against the rest; its z sums over the keys up to its last row
  // only. The three ops make the same products, so they give the same bits in any mix.
  // raw (H,T,T) = q·kᵀ per head, every entry.
  tt_status (*causal_scores)(tt_backend *be, tt_buf raw, tt_buf q, tt_buf k, int H, int G, int T, int D, tt_error *err);
  // z (H,T,D) = pattern (H,T,T; zero above the diagonal) · v per head.
  tt_status (*causal_mix)(tt_backend *be, tt_buf z, tt_buf pattern, tt_buf v, int H, int G, int T, int D,
                          tt_error *err);
  // All in one, each block while it is in cache: raw as causal_scores, pattern = the row
  // softmax of alpha·raw with −inf above the diagonal (the bits of scale, causal_mask and
  // softmax in turn), z as causal_mix. raw and pattern may be unset (not wanted: then only
  // what z needs is computed, in scratch memory).
  tt_status (*causal_attention)(tt_backend *be, tt_buf raw, tt_buf pattern, tt_buf z, tt_buf q, tt_buf k, tt_buf v,
                                int H, int G, int T, int D, float alpha, tt_error *err);
  // The host function causal_scores and causal_attention make the raw scores with, on the
  // calling thread (every entry, or only the blocks on and below the diagonal; NULL where a
  // backend has none): a trace may keep the raw scores as a rule that calls it on the
  // recorded q and k (tt_hook_rule.scores_fn).
  tt_scores_fn causal_scores_fn;

  // ---- the backward pass's ops (NULL on a backend that has no backward pass yet) ----
  // out (n) = 0.
  tt_status (*zero)(tt_backend *be, tt_buf out, size_t n, tt_error *err);
  // for i < batch: out[i] (K,N) = a[i]ᵀ · b[i] with a[i] (M,K), b[i] (M,N); with accumulate
  // the product is added to out[i] (weight gradients), else it replaces it.
  tt_status (*matmul_tn)(tt_backend *be, tt_buf out, tt_buf a, tt_buf b, int batch, int M, int K, int N,
                         bool accumulate, tt_error *err);
  // out (N) += the sum of the M rows of x (M,N)   (bias gradients).
  tt_status (*add_row_sums)(tt_backend *be, tt_buf out, tt_buf x, int M, int N, tt_error *err);
  // The norm's backward from d_out (T,C) and the forward's normalized (T,C) and scale (T):
  // d_normalized = d_out·γ; dx = (d_normalized − mean(d_normalized) − normalized·mean(d_normalized·normalized)) / scale
  // per row (RMSNorm: without the first mean); d_gamma (C) += Σ_t d_out·normalized and,
  // unless rms, d_beta (C) += Σ_t d_out. dx may not alias d_out.
  tt_status (*norm_backward)(tt_backend *be, tt_buf dx, tt_buf d_normalized, tt_buf d_gamma, tt_buf d_beta,
                             tt_buf d_out, tt_buf normalized, tt_buf scale, tt_buf gamma, int T, int C, bool rms,
                             tt_error *err);
  // dx (n) = act'(x) · dy; with y set, also y (n) = act(x), bit for bit the forward's
  // activation (y may be dy: each element is read before it is written).
  tt_status (*activation_backward)(tt_backend *be, tt_buf dx, tt_buf y, tt_buf x, tt_buf dy, size_t n, tt_act_kind act,
                                   tt_error *err);
  // Row-wise softmax backward from its output y (rows, cols): dx = y · (dy − Σ_j dy·y).
  tt_status (*softmax_backward)(tt_backend *be, tt_buf dx, tt_buf y, tt_buf dy, int rows, int cols, tt_error *err);
  // x (T,C) → z (H,T,D): the inverse of merge_heads.
  tt_status (*unmerge_heads)(tt_backend *be, tt_buf z, tt_buf x, int T, int H, int D, tt_error *err);
  // q, k, v (H,T,D) each → qkv (T,3C): the inverse of split_heads.
  tt_status (*join_heads)(tt_backend *be, tt_buf qkv, tt_buf q, tt_buf k, tt_buf v, int T, int H, int D, tt_error *err);
  // d_logits (T,V) of L = mean over t < T−1 of nll[t]: (probs[t] − onehot(ids[t+1])) / (T−1)
  // for t < T−1, and 0 in the last row (whose next token is unknown). T ≥ 2. Entries of
  // p/(T−1) below tiny are written as 0 (tiny = 0: none). d_logits may be probs (in place).
  tt_status (*nll_backward)(tt_backend *be, tt_buf d_logits, tt_buf probs, const int32_t *ids, int T, int V, float tiny,
                            tt_error *err);
  // d_table (rows,C): row ids[t] += dx[t] (T,C) for each t (a token seen twice gets both).
  tt_status (*embed_backward)(tt_backend *be, tt_buf d_table, tt_buf dx, const int32_t *ids, int T, int C,
                              tt_error *err);

  void (*destroy)(tt_backend *be);
};

tt_status tt_backend_openblas_create(tt_backend **out, tt_error *err);
// OpenBLAS picks its kernels once, as it loads, from the CPU it knows; one that is too
// old for it (OpenBLAS 0.3.21 on Zen 5) gets the SSE3 kernels, several times slower. The
// kernel set this CPU should use instead ("SkylakeX" with AVX-512, "Haswell" with AVX2 and
// FMA) when OPENBLAS_CORETYPE is unset and OpenBLAS chose something older; else NULL.
// It takes effect only in a new process with OPENBLAS_CORETYPE set (src/cli/main.c).
const char *tt_openblas_better_coretype(void);
#if TT_HAVE_OPENCL
// platform/device < 0 picks the first GPU, else the first device.
tt_status tt_backend_opencl_create(int platform, int device, tt_backend **out, tt_error *err);
#endif
// name: "openblas", "opencl" or "auto" (OpenCL when a device is there, else OpenBLAS).
// note (may be NULL) receives a one-line remark: which backend "auto" chose and why, and the
// backend's own note (be->note), joined by "; ".
tt_status tt_backend_create(const char *name, tt_backend **out, char *note, size_t note_len, tt_error *err);
void tt_backend_destroy(tt_backend *be);

#endif
