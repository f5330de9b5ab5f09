// opencl_ops: the backend's operations, each one kernel launch on the in-order queue.
// Every buffer argument is checked against its allocation before the launch, so a wrong
// view fails with a message instead of reading past the end on the device.
#include <stdlib.h>
#include <string.h>

#include "opencl_internal.h"

static tt_cl *impl(tt_backend *be) {
  return (tt_cl *)be->impl;
}

// ---- kernel arguments ---------------------------------------------------------------
typedef struct {
  cl_kernel k;
  cl_uint i;
  cl_int rc;
} args;

static void arg(args *a, size_t size, const void *value) {
  if (a->rc == CL_SUCCESS) a->rc = clSetKernelArg(a->k, a->i, size, value);
  a->i++;
}
static void arg_buf(args *a, tt_buf b) {  // a buffer and its offset in floats
  cl_mem m = (cl_mem)b.handle;
  cl_ulong off = b.offset;
  arg(a, sizeof m, &m);
  arg(a, sizeof off, &off);
}
static void arg_int(args *a, int v) {
  arg(a, sizeof v, &v);
}
static void arg_float(args *a, float v) {
  arg(a, sizeof v, &v);
}
static void arg_ulong(args *a, size_t v) {
  cl_ulong u = v;
  arg(a, sizeof u, &u);
}

// Checks that view b can hold n floats: within its own n and within its allocation.
static tt_status need(tt_buf b, size_t n, const char *op, const char *name, tt_error *err) {
  if (!b.handle) return tt_fail(err, TT_ERR_ARG, "opencl %s: %s has no buffer", op, name);
  if (b.n < n) return tt_fail(err, TT_ERR_ARG, "opencl %s: %s is a view of %zu floats, needs %zu", op, name, b.n, n);
  size_t bytes = 0;
  cl_int rc = clGetMemObjectInfo((cl_mem)b.handle, CL_MEM_SIZE, sizeof bytes, &bytes, NULL);
  if (rc != CL_SUCCESS) return tt_cl_fail(err, rc, op);
  size_t cap = bytes / sizeof(float);
  if (b.offset > cap || n > cap - b.offset)
    return tt_fail(err, TT_ERR_ARG, "opencl %s: %s (%zu floats at offset %zu) runs past its buffer of %zu floats", op,
                   name, n, b.offset, cap);
  return TT_OK;
}
#define NEED(b, n, name)                                     \
  do {                                                       \
    tt_status st_ = need((b), (size_t)(n), op, (name), err); \
    if (st_ != TT_OK) return st_;                            \
  } while (0)

static tt_status launch(tt_cl *cl, args *a, cl_uint dims, const size_t *global, const size_t *local, const char *op,
                        tt_error *err) {
  if (a->rc != CL_SUCCESS) {
    char what[96];
    snprintf(what, sizeof what, "%s (argument %u)", op, a->i);
    return tt_cl_fail(err, a->rc, what);
  }
  cl_event ev = NULL;
  cl_int rc = clEnqueueNDRangeKernel(cl->queue, a->k, dims, NULL, global, local, 0, NULL, cl->profile ? &ev : NULL);
  if (rc != CL_SUCCESS) return tt_cl_fail(err, rc, op);
  if (ev) {  // profiling: wait for this kernel and add up its device time
    cl_ulong t0 = 0, t1 = 0;
    if (clWaitForEvents(1, &ev) == CL_SUCCESS &&
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL) == CL_SUCCESS &&
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL) == CL_SUCCESS)
      for (int i = 0; i < TT_K_COUNT; i++)
        if (cl->k[i] == a->k) cl->prof_s[i] += (double)(t1 - t0) * 1e-9, cl->prof_n[i]++;
    clReleaseEvent(ev);
  }
  return TT_OK;
}

static size_t round_up(size_t n, size_t m) {
  return (n + m - 1) / m * m;
}

// One work-item per element, in work-groups of cl->ew.
static tt_status launch_1d(tt_cl *cl, args *a, size_t n, const char *op, tt_error *err) {
  size_t global = round_up(n, cl->ew), local = cl->ew;
  return launch(cl, a, 1, &global, &local, op, err);
}

// Copies ids (n) into the device id buffer, growing it when needed.
static tt_status upload_ids(tt_cl *cl, const int32_t *ids, size_t n, const char *op, tt_error *err) {
  if (n > cl->ids_cap) {
    size_t cap = cl->ids_cap ? cl->ids_cap : 1024;
    while (cap < n) cap *= 2;
    cl_int rc;
    cl_mem m = clCreateBuffer(cl->ctx, CL_MEM_READ_ONLY, cap * sizeof(int32_t), NULL, &rc);
    if (rc != CL_SUCCESS) return tt_cl_fail(err, rc, op);
    if (cl->ids) clReleaseMemObject(cl->ids);  // freed by the driver once queued work is done
    cl->ids = m;
    cl->ids_cap = cap;
  }
  // Blocking: the caller's ids may change once we return; the in-order queue keeps
  // earlier kernels that read the buffer ahead of this write.
  cl_int rc = clEnqueueWriteBuffer(cl->queue, cl->ids, CL_TRUE, 0, n * sizeof(int32_t), ids, 0, NULL, NULL);
  return rc == CL_SUCCESS ? TT_OK : tt_cl_fail(err, rc, op);
}

// ---- ops ----------------------------------------------------------------------------

static tt_status gemm(tt_cl *cl, tt_buf out, tt_buf a, tt_buf b, tt_buf bias, int batch, int M, int K, int N,
                      bool trans_b, float alpha, const char *op, tt_error *err) {
  if (batch < 0 || M < 0 || K < 0 || N < 0)
    return tt_fail(err, TT_ERR_ARG, "opencl %s: negative size (batch %d, M %d, K %d, N %d)", op, batch, M, K, N);
  if (batch == 0 || M == 0 || N == 0) return TT_OK;
  size_t bt = (size_t)batch;
  NEED(out, bt * M * N, "out");
  NEED(a, bt * M * K, "a");
  NEED(b, bt * K * N, "b");
  bool has_bias = tt_buf_is_set(bias);
  if (has_bias) NEED(bias, N, "bias");
  // Few rows (a short prompt): one row per work-item instead of a mostly empty large tile.
  int wpt = (size_t)M * 4 <= (size_t)cl->ts * cl->wpt ? 1 : cl->wpt;
  int kernel = wpt == 1 ? (trans_b ? TT_K_GEMM_NT_SMALL : TT_K_GEMM_NN_SMALL) : (trans_b ? TT_K_GEMM_NT : TT_K_GEMM_NN);
  args g = {cl->k[kernel], 0, CL_SUCCESS};
  arg_buf(&g, out);
  arg_buf(&g, a);
  arg_buf(&g, b);
  arg_buf(&g, has_bias ? bias : a);  // a stands in for the absent bias; never read
  arg_int(&g, M);
  arg_int(&g, K);
  arg_int(&g, N);
  arg_float(&g, alpha);
  arg_int(&g, has_bias);
  size_t tm = (size_t)cl->ts * wpt, tn = (size_t)cl->ts * cl->vw;
  size_t global[3] = {(N + tn - 1) / tn * cl->ts, (M + tm - 1) / tm * cl->ts, bt};
  size_t local[3] = {(size_t)cl->ts, (size_t)cl->ts, 1};
  return launch(cl, &g, 3, global, local, op, err);
}

// out (M,N) = a (M,K) · b (K,N) + bias (N); with trans_b, b is (N,K).
static tt_status cl_matmul(tt_backend *be, tt_buf out, tt_buf a, tt_buf b, tt_buf bias, int M, int K, int N,
                           bool trans_b, tt_error *err) {
  return gemm(impl(be), out, a, b, bias, 1, M, K, N, trans_b, 1.0f, "matmul", err);
}

// out[i] (M,N) = alpha · a[i] (M,K) · b[i] (K,N), i < batch; with trans_b, b[i] is (N,K).
static tt_status cl_matmul_batched(tt_backend *be, tt_buf out, tt_buf a, tt_buf b, int batch, int M, int K, int N,
                                   bool trans_b, float alpha, tt_error *err) {
  tt_buf none = {0};
  return gemm(impl(be), out, a, b, none, batch, M, K, N, trans_b, alpha, "matmul_batched", err);
}

// out (T,C) = table[ids[t]] rows.
static tt_status cl_embed(tt_backend *be, tt_buf out, tt_buf table, const int32_t *ids, int T, int C, tt_error *err) {
  const char *op = "embed";
  tt_cl *cl = impl(be);
  if (T <= 0 || C <= 0) return T == 0 ? TT_OK : tt_fail(err, TT_ERR_ARG, "opencl embed: T %d, C %d", T, C);
  NEED(out, (size_t)T * C, "out");
  size_t rows = table.n / (size_t)C;
  for (int t = 0; t < T; t++)
    if (ids[t] < 0 || (size_t)ids[t] >= rows)
      return tt_fail(err, TT_ERR_ARG, "opencl embed: token id %d is outside the table's %zu rows", ids[t], rows);
  NEED(table, rows * C, "table");
  tt_status st = upload_ids(cl, ids, (size_t)T, op, err);
  if (st != TT_OK) return st;
  args g = {cl->k[TT_K_EMBED], 0, CL_SUCCESS};
  arg_buf(&g, out);
  arg_buf(&g, table);
  arg(&g, sizeof cl->ids, &cl->ids);
  arg_int(&g, T);
  arg_int(&g, C);
  return launch_1d(cl, &g, (size_t)T * C, op, err);
}

static tt_status cl_add(tt_backend *be, tt_buf out, tt_buf a, tt_buf b, size_t n, tt_error *err) {
  const char *op = "add";
  if (n == 0) return TT_OK;
  NEED(out, n, "out");
  NEED(a, n, "a");
  NEED(b, n, "b");
  args g = {impl(be)->k[TT_K_ADD], 0, CL_SUCCESS};
  arg_buf(&g, out);
  arg_buf(&g, a);
  arg_buf(&g, b);
  arg_ulong(&g, n);
  return launch_1d(impl(be), &g, n, op, err);
}

static tt_status cl_scale(tt_backend *be, tt_buf out, tt_buf x, float alpha, size_t n, tt_error *err) {
  const char *op = "scale";
  if (n == 0) return TT_OK;
  NEED(out, n, "out");
  NEED(x, n, "x");
  args g = {impl(be)->k[TT_K_SCALE], 0, CL_SUCCESS};
  arg_buf(&g, out);
  arg_buf(&g, x);
  arg_float(&g, alpha);
  arg_ulong(&g, n);
  return launch_1d(impl(be), &g, n, op, err);
}

// out (H,T,T) = x with -inf where column > row.
static tt_status cl_causal_mask(tt_backend *be, tt_buf out, tt_buf x, int H, int T, tt_error *err) {
  const char *op = "causal_mask";
  if (H <= 0 || T <= 0) return TT_OK;
  size_t n = (size_t)H * T * T;
  NEED(out, n, "out");
  NEED(x, n, "x");
  args g = {impl(be)->k[TT_K_CAUSAL_MASK], 0, CL_SUCCESS};
  arg_buf(&g, out);
  arg_buf(&g, x);
  arg_int(&g, H);
  arg_int(&g, T);
  tt_cl *cl = impl(be);
  size_t local[2] = {cl->ew, 1}, global[2] = {round_up((size_t)T, cl->ew), (size_t)H * T};
  return launch(cl, &g, 2, global, local, op, err);
}

// One work-group of cl->rw work-items per row.
static tt_status launch_rows(tt_cl *cl, args *a, int rows, const char *op, tt_error *err) {
  size_t local = (size_t)cl->rw, global = (size_t)rows * local;
  return launch(cl, a, 1, &global, &local, op, err);
}

// Row-wise softmax of x (rows, cols).
static tt_status cl_softmax(tt_backend *be, tt_buf out, tt_buf x, int rows, int cols, tt_error *err) {
  const char *op = "softmax";
  if (rows <= 0 || cols <= 0) return TT_OK;
  NEED(out, (size_t)rows * cols, "out");
  NEED(x, (size_t)rows * cols, "x");
  args g = {impl(be)->k[TT_K_SOFTMAX], 0, CL_SUCCESS};
  arg_buf(&g, out);
  arg_buf(&g, x);
  arg_int(&g, cols);
  return launch_rows(impl(be), &g, rows, op, err);
}

// x (T,C) → mean (T), scale (T), normalized (T,C), out (T,C); see backend.h.
static tt_status cl_norm(tt_backend *be, tt_buf out, tt_buf normalized, tt_buf mean, tt_buf scale, tt_buf x,
                         tt_buf gamma, tt_buf beta, int T, int C, float eps, bool rms, tt_error *err) {
  const char *op = "norm";
  if (T <= 0 || C <= 0) return TT_OK;
  size_t n = (size_t)T * C;
  NEED(out, n, "out");
  NEED(normalized, n, "normalized");
  NEED(mean, T, "mean");
  NEED(scale, T, "scale");
  NEED(x, n, "x");
  NEED(gamma, C, "gamma");
  if (!rms) NEED(beta, C, "beta");
  args g = {impl(be)->k[TT_K_NORM], 0, CL_SUCCESS};
  arg_buf(&g, out);
  arg_buf(&g, normalized);
  arg_buf(&g, mean);
  arg_buf(&g, scale);
  arg_buf(&g, x);
  arg_buf(&g, gamma);
  arg_buf(&g, rms ? gamma : beta);  // gamma stands in for the unused beta of RMSNorm
  arg_int(&g, C);
  arg_float(&g, eps);
  arg_int(&g, rms);
  return launch_rows(impl(be), &g, T, op, err);
}

static tt_status cl_activation(tt_backend *be, tt_buf out, tt_buf x, size_t n, tt_act_kind act, tt_error *err) {
  const char *op = "activation";
  if (n == 0) return TT_OK;
  if ((int)act < TT_ACT_GELU_TANH || act > TT_ACT_IDENTITY)
    return tt_fail(err, TT_ERR_UNSUPPORTED, "opencl activation: unknown kind %d", (int)act);
  NEED(out, n, "out");
  NEED(x, n, "x");
  if (act == TT_ACT_IDENTITY && out.handle == x.handle && out.offset == x.offset) return TT_OK;
  args g = {impl(be)->k[TT_K_ACTIVATION], 0, CL_SUCCESS};
  arg_buf(&g, out);
  arg_buf(&g, x);
  arg_ulong(&g, n);
  arg_int(&g, (int)act);
  return launch_1d(impl(be), &g, (n + 15) / 16, op, err);  // 16 elements per work-item
}

// qkv (T,3C) → q, k, v (H,T,D).
static tt_status cl_split_heads(tt_backend *be, tt_buf q, tt_buf k, tt_buf v, tt_buf qkv, int T, int H, int D,
                                tt_error *err) {
  const char *op = "split_heads";
  if (T <= 0 || H <= 0 || D <= 0) return TT_OK;
  size_t n = (size_t)H * T * D;
  NEED(q, n, "q");
  NEED(k, n, "k");
  NEED(v, n, "v");
  NEED(qkv, 3 * n, "qkv");
  args g = {impl(be)->k[TT_K_SPLIT_HEADS], 0, CL_SUCCESS};
  arg_buf(&g, q);
  arg_buf(&g, k);
  arg_buf(&g, v);
  arg_buf(&g, qkv);
  arg_int(&g, T);
  arg_int(&g, H);
  arg_int(&g, D);
  return launch_1d(impl(be), &g, n, op, err);
}

// z (H,T,D) → out (T,C).
static tt_status cl_merge_heads(tt_backend *be, tt_buf out, tt_buf z, int T, int H, int D, tt_error *err) {
  const char *op = "merge_heads";
  if (T <= 0 || H <= 0 || D <= 0) return TT_OK;
  size_t n = (size_t)H * T * D;
  NEED(out, n, "out");
  NEED(z, n, "z");
  args g = {impl(be)->k[TT_K_MERGE_HEADS], 0, CL_SUCCESS};
  arg_buf(&g, out);
  arg_buf(&g, z);
  arg_int(&g, T);
  arg_int(&g, H);
  arg_int(&g, D);
  return launch_1d(impl(be), &g, n, op, err);
}

// loss (T-1): logsumexp(logits[t]) - logits[t][ids[t+1]].
static tt_status cl_nll(tt_backend *be, tt_buf loss, tt_buf logits, const int32_t *ids, int T, int V, tt_error *err) {
  const char *op = "nll";
  tt_cl *cl = impl(be);
  if (T <= 1 || V <= 0) return TT_OK;
  NEED(loss, T - 1, "loss");
  NEED(logits, (size_t)T * V, "logits");
  for (int t = 1; t < T; t++)
    if (ids[t] < 0 || ids[t] >= V)
      return tt_fail(err, TT_ERR_ARG, "opencl nll: token id %d is outside the vocabulary of %d", ids[t], V);
  tt_status st = upload_ids(cl, ids, (size_t)T, op, err);
  if (st != TT_OK) return st;
  args g = {cl->k[TT_K_NLL], 0, CL_SUCCESS};
  arg_buf(&g, loss);
  arg_buf(&g, logits);
  arg(&g, sizeof cl->ids, &cl->ids);
  arg_int(&g, V);
  return launch_rows(cl, &g, T - 1, op, err);
}

// ---- the Llama block's and the position what-ifs' ops ---------------------------------
static tt_status cl_mul(tt_backend *be, tt_buf out, tt_buf a, tt_buf b, size_t n, tt_error *err) {
  const char *op = "mul";
  if (n == 0) return TT_OK;
  NEED(out, n, "out");
  NEED(a, n, "a");
  NEED(b, n, "b");
  args g = {impl(be)->k[TT_K_MUL], 0, CL_SUCCESS};
  arg_buf(&g, out);
  arg_buf(&g, a);
  arg_buf(&g, b);
  arg_ulong(&g, n);
  return launch_1d(impl(be), &g, n, op, err);
}

// x, out (heads,T,D); table (≥T, D).
static tt_status cl_rope(tt_backend *be, tt_buf out, tt_buf x, tt_buf table, int heads, int T, int D, tt_error *err) {
  const char *op = "rope";
  if (heads <= 0 || T <= 0 || D <= 1) return TT_OK;
  size_t n = (size_t)heads * T * D;
  NEED(out, n, "out");
  NEED(x, n, "x");
  NEED(table, (size_t)T * D, "table");
  args g = {impl(be)->k[TT_K_ROPE], 0, CL_SUCCESS};
  arg_buf(&g, out);
  arg_buf(&g, x);
  arg_buf(&g, table);
  arg_int(&g, heads);
  arg_int(&g, T);
  arg_int(&g, D);
  return launch_1d(impl(be), &g, n / 2, op, err);
}

// out (H,T,Tk) = −slopes[h]·|i − j| for query positions i = Tk−T.., keys j < Tk.
static tt_status cl_alibi(tt_backend *be, tt_buf out, tt_buf slopes, int H, int T, int Tk, tt_error *err) {
  const char *op = "alibi";
  if (H <= 0 || T <= 0 || Tk <= 0) return TT_OK;
  size_t n = (size_t)H * T * Tk;
  NEED(out, n, "out");
  NEED(slopes, H, "slopes");
  args g = {impl(be)->k[TT_K_ALIBI], 0, CL_SUCCESS};
  arg_buf(&g, out);
  arg_buf(&g, slopes);
  arg_int(&g, H);
  arg_int(&g, T);
  arg_int(&g, Tk);
  return launch_1d(impl(be), &g, n, op, err);
}

// x (T,C) → z (H,T,D).
static tt_status cl_unmerge_heads(tt_backend *be, tt_buf z, tt_buf x, int T, int H, int D, tt_error *err) {
  const char *op = "unmerge_heads";
  if (T <= 0 || H <= 0 || D <= 0) return TT_OK;
  size_t n = (size_t)H * T * D;
  NEED(z, n, "z");
  NEED(x, n, "x");
  args g = {impl(be)->k[TT_K_UNMERGE_HEADS], 0, CL_SUCCESS};
  arg_buf(&g, z);
  arg_buf(&g, x);
  arg_int(&g, T);
  arg_int(&g, H);
  arg_int(&g, D);
  return launch_1d(impl(be), &g, n, op, err);
}

void tt_cl_install_ops(tt_backend *be) {
  be->mul = cl_mul;
  be->rope = cl_rope;
  be->alibi = cl_alibi;
  be->unmerge_heads = cl_unmerge_heads;  // the Llama block's forward uses it too
  be->matmul = cl_matmul;
  be->matmul_batched = cl_matmul_batched;
  be->embed = cl_embed;
  be->add = cl_add;
  be->scale = cl_scale;
  be->causal_mask = cl_causal_mask;
  be->softmax = cl_softmax;
  be->norm = cl_norm;
  be->activation = cl_activation;
  be->split_heads = cl_split_heads;
  be->merge_heads = cl_merge_heads;
  be->nll = cl_nll;
}
