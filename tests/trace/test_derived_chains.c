// Rules on rules (src/trace/derived.c), on hand-made tensors: the residual stream as sum
// rules (out = a + b, one float add per entry) and copies (1 · a) down a chain, q, k, v as
// heads rules on the fused qkv under a product rule, and a norm's rows as norm rules on the
// stream (with a sum on one, as post-LN's stream has). Nothing is held until read; read in
// any order and saved, each tensor is the definition's value bit for bit; a rule the trace
// cannot keep is refused (then stored). The engine's own against stored ones: test_derived.c.
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "safetensors/safetensors.h"
#include "trace/trace.h"

enum { T = 3, C = 5, N = T * C };
static const int64_t shape[2] = {T, C};

static const char *EMB = "hook_embed", *POS = "hook_pos_embed", *PRE0 = "blocks.0.hook_resid_pre",
                  *ATTN0 = "blocks.0.hook_attn_out", *MID0 = "blocks.0.hook_resid_mid", *MLP0 = "blocks.0.hook_mlp_out",
                  *POST0 = "blocks.0.hook_resid_post", *PRE1 = "blocks.1.hook_resid_pre",
                  *ATTN1 = "blocks.1.hook_attn_out", *MID1 = "blocks.1.hook_resid_mid";

// Records `name` (T,C) with entry i = scale · (i − 7) + 0.1 (values whose sums round).
static const float *record(const tt_recorder *rec, const char *name, float scale) {
  float *x = rec->reserve(rec->ctx, name, TT_F32, 2, shape);
  assert_non_null(x);
  for (int i = 0; i < N; i++) x[i] = scale * (float)(i - 7) + 0.1f;
  return x;
}

static bool sum(const tt_recorder *rec, const char *name, const char *a, const char *b, const int64_t *dims) {
  tt_hook_rule rule = {.src = a, .factor = 1.0f, .addend = b};
  return rec->derive(rec->ctx, name, &rule, 2, dims);
}

static bool copy(const tt_recorder *rec, const char *name, const char *a) {
  tt_hook_rule rule = {.src = a, .factor = 1.0f};
  return rec->derive(rec->ctx, name, &rule, 2, shape);
}

// Two blocks' stream as the engine records it: the embeddings and positions, the
// branches' outputs stored; resid_pre 0, resid_mid 0, resid_post 0, resid_pre 1 (a copy of
// resid_post 0) and resid_mid 1 kept as rules. want[k] gets the five rules' values, each
// one float add from the one before, in recording order.
static tt_trace *record_stream(float want[5][N]) {
  tt_trace *tr = tt_trace_create();
  tt_recorder rec = tt_trace_recorder(tr);
  const float *emb = record(&rec, EMB, 0.37f), *pos = record(&rec, POS, -0.0113f);
  assert_true(sum(&rec, PRE0, EMB, POS, shape));
  const float *attn0 = record(&rec, ATTN0, 1.0e-3f);
  assert_true(sum(&rec, MID0, PRE0, ATTN0, shape));
  const float *mlp0 = record(&rec, MLP0, 3.3f);
  assert_true(sum(&rec, POST0, MID0, MLP0, shape));
  assert_true(copy(&rec, PRE1, POST0));
  const float *attn1 = record(&rec, ATTN1, -7.1e-4f);
  assert_true(sum(&rec, MID1, PRE1, ATTN1, shape));
  for (int i = 0; i < N; i++) {
    want[0][i] = emb[i] + pos[i];
    want[1][i] = want[0][i] + attn0[i];
    want[2][i] = want[1][i] + mlp0[i];
    want[3][i] = want[2][i];
    want[4][i] = want[3][i] + attn1[i];
  }
  return tr;
}

// tr saved and opened again: the file's tensors as they are (its path already unlinked).
static tt_st_file *saved(const tt_trace *tr) {
  char path[] = "/tmp/tt-chains-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  tt_error err = {0};
  if (tt_trace_save(tr, path, &err)) fail_msg("%s", err.msg);
  tt_st_file *back = NULL;
  if (tt_st_open(path, &back, &err)) fail_msg("%s", err.msg);
  unlink(path);
  return back;
}

static const char *const *rule_names(void) {
  static const char *names[5];
  names[0] = PRE0, names[1] = MID0, names[2] = POST0, names[3] = PRE1, names[4] = MID1;
  return names;
}

// Read last first: resid_mid 1 makes the whole chain into its own memory (holding none of
// it), then each of the others from its own chain; every value the definition's.
static void test_chain_read(void **state) {
  (void)state;
  float want[5][N];
  tt_trace *tr = record_stream(want);
  size_t rules_bytes = 5 * N * sizeof(float);
  assert_int_equal(tt_trace_count(tr), 10);
  assert_int_equal(tt_trace_held_bytes(tr), tt_trace_bytes(tr) - rules_bytes);
  assert_memory_equal(tt_trace_find(tr, MID1)->data, want[4], sizeof want[4]);
  assert_int_equal(tt_trace_held_bytes(tr), tt_trace_bytes(tr) - rules_bytes + N * sizeof(float));
  for (int k = 0; k < 4; k++) assert_memory_equal(tt_trace_find(tr, rule_names()[k])->data, want[k], sizeof want[k]);
  assert_int_equal(tt_trace_held_bytes(tr), tt_trace_bytes(tr));
  tt_trace_destroy(tr);
}

// Saved: every tensor in the file, the rules' with the definition's bits, nothing made
// into the trace; a tensor read before the save is the chain's start for the ones after.
static void test_chain_saved(void **state) {
  (void)state;
  for (int read_first = 0; read_first < 2; read_first++) {
    float want[5][N];
    tt_trace *tr = record_stream(want);
    if (read_first) assert_non_null(tt_trace_find(tr, MID0));
    size_t held = tt_trace_held_bytes(tr);
    tt_st_file *back = saved(tr);
    assert_int_equal(tt_trace_held_bytes(tr), held);
    for (int k = 0; k < 5; k++) assert_memory_equal(tt_st_find(back, rule_names()[k])->data, want[k], sizeof want[k]);
    assert_memory_equal(tt_st_find(back, ATTN1)->data, tt_trace_find(tr, ATTN1)->data, N * sizeof(float));
    tt_st_close(back), tt_trace_destroy(tr);
  }
}

// An element rule on an element rule (scores scaled, then masked and scaled again):
// made down the chain, the definition's bits.
static void test_rule_on_rule(void **state) {
  (void)state;
  tt_trace *tr = tt_trace_create();
  tt_recorder rec = tt_trace_recorder(tr);
  const int64_t sq[2] = {3, 3};
  float *raw = rec.reserve(rec.ctx, "raw", TT_F32, 2, sq);
  for (int i = 0; i < 9; i++) raw[i] = (float)i * 0.3f - 1.1f;
  tt_hook_rule scaled = {.src = "raw", .factor = 0.125f},
               masked = {.src = "scaled", .factor = 3.0f, .causal_mask = true};
  assert_true(rec.derive(rec.ctx, "scaled", &scaled, 2, sq));
  assert_true(rec.derive(rec.ctx, "masked", &masked, 2, sq));
  const float *got = tt_trace_find(tr, "masked")->data;
  for (int i = 0; i < 9; i++) {
    float want = i % 3 > i / 3 ? -INFINITY : 3.0f * (0.125f * raw[i]);
    assert_memory_equal(&got[i], &want, sizeof want);
  }
  tt_trace_destroy(tr);
}

// Refused, so the engine stores the bytes: an addend that is a rule itself (a chain runs
// down the src alone), an addend or a src not recorded, another shape, an I32 addend.
static void test_sums_refused(void **state) {
  (void)state;
  float want[5][N];
  tt_trace *tr = record_stream(want);
  tt_recorder rec = tt_trace_recorder(tr);
  assert_false(sum(&rec, "x", ATTN1, MID1, shape));
  assert_false(sum(&rec, "x", MID1, "blocks.1.hook_mlp_out", shape));
  assert_false(sum(&rec, "x", "blocks.2.hook_resid_pre", ATTN1, shape));
  const int64_t other[2] = {C, T};
  assert_false(sum(&rec, "x", MID1, ATTN1, other));
  assert_non_null(rec.reserve(rec.ctx, "ids", TT_I32, 2, shape));
  assert_false(sum(&rec, "x", MID1, "ids", shape));
  assert_true(sum(&rec, "x", MID1, ATTN1, shape));
  assert_int_equal(tt_trace_count(tr), 12);
  tt_trace_destroy(tr);
}

// Hand-made heads: qkv (HT,3·HH·HD) with entry (t,c) = t − c/8; q, k, v (HH,HT,HD) its thirds.
enum { HH = 2, HT = 3, HD = 2, HC = HH * HD, HN = HH * HT * HD, RAW_N = HH * HT * HT };
static const int64_t qkv_shape[2] = {HT, 3 * HC}, head_shape[3] = {HH, HT, HD}, raw_shape[3] = {HH, HT, HT};
static int products;  // how often dot_scores ran

// tt_scores_fn for HH query heads on as many key heads: raw[h][i][j] = q[h][i]·k[h][j].
static void dot_scores(float *raw, const float *q, const float *k, int heads, int G, int len, int D, bool every) {
  assert_int_equal(heads, G);
  (void)every;
  products++;
  for (int h = 0; h < heads; h++)
    for (int i = 0; i < len; i++)
      for (int j = 0; j < len; j++) {
        float s = 0.0f;
        for (int d = 0; d < D; d++) s += q[(h * len + i) * D + d] * k[(h * len + j) * D + d];
        raw[(h * len + i) * len + j] = s;
      }
}

static bool heads(const tt_recorder *rec, const char *name, const char *src, int64_t column, const int64_t *dims) {
  tt_hook_rule rule = {.src = src, .heads = true, .column = column};
  return rec->derive(rec->ctx, name, &rule, 3, dims);
}

// qkv stored, q, k, v heads rules on it, the raw scores a product rule on q and k; want
// gets q, k and v as the definition gives them.
static tt_trace *record_heads(float want[3][HN]) {
  tt_trace *tr = tt_trace_create();
  tt_recorder rec = tt_trace_recorder(tr);
  float *qkv = rec.reserve(rec.ctx, "qkv", TT_F32, 2, qkv_shape);
  for (int t = 0; t < HT; t++)
    for (int c = 0; c < 3 * HC; c++) qkv[t * 3 * HC + c] = (float)t - (float)c / 8.0f;
  const char *names[3] = {"q", "k", "v"};
  for (int part = 0; part < 3; part++) {
    assert_true(heads(&rec, names[part], "qkv", part * HC, head_shape));
    for (int h = 0; h < HH; h++)
      for (int t = 0; t < HT; t++)
        for (int d = 0; d < HD; d++) want[part][(h * HT + t) * HD + d] = qkv[t * 3 * HC + part * HC + h * HD + d];
  }
  tt_hook_rule product = {.src = "q", .keys = "k", .scores_fn = dot_scores};
  assert_true(rec.derive(rec.ctx, "raw", &product, 3, raw_shape));
  return tr;
}

// Read: the raw scores make q and k for the while (they stay unheld), then q, k, v read are
// the qkv's columns; saved: every tensor right in the file, nothing made into the trace.
static void test_heads(void **state) {
  (void)state;
  float want[3][HN], raw[RAW_N];
  tt_trace *tr = record_heads(want);
  size_t rules_bytes = (3 * HN + RAW_N) * sizeof(float);
  assert_int_equal(tt_trace_held_bytes(tr), tt_trace_bytes(tr) - rules_bytes);
  products = 0;
  dot_scores(raw, want[0], want[1], HH, HH, HT, HD, true);
  assert_memory_equal(tt_trace_find(tr, "raw")->data, raw, sizeof raw);
  assert_int_equal(products, 2);
  assert_int_equal(tt_trace_held_bytes(tr), tt_trace_bytes(tr) - 3 * HN * sizeof(float));

  tt_st_file *back = saved(tr);
  const char *names[3] = {"q", "k", "v"};
  for (int part = 0; part < 3; part++) {
    assert_memory_equal(tt_st_find(back, names[part])->data, want[part], sizeof want[part]);
    assert_memory_equal(tt_trace_find(tr, names[part])->data, want[part], sizeof want[part]);
  }
  assert_memory_equal(tt_st_find(back, "raw")->data, raw, sizeof raw);
  assert_int_equal(tt_trace_held_bytes(tr), tt_trace_bytes(tr));
  tt_st_close(back), tt_trace_destroy(tr);
}

// Heads refused (then stored): columns past the source's, another length, a source that is
// a rule or not of two dimensions, a tensor not of three.
static void test_heads_refused(void **state) {
  (void)state;
  float want[3][HN];
  tt_trace *tr = record_heads(want);
  tt_recorder rec = tt_trace_recorder(tr);
  assert_false(heads(&rec, "x", "qkv", 2 * HC + 1, head_shape));
  assert_false(heads(&rec, "x", "qkv", -1, head_shape));
  const int64_t longer[3] = {HH, HT + 1, HD};
  assert_false(heads(&rec, "x", "qkv", 0, longer));
  assert_false(heads(&rec, "x", "q", 0, head_shape));
  assert_false(heads(&rec, "x", "raw", 0, head_shape));
  tt_hook_rule flat = {.src = "qkv", .heads = true};
  assert_false(rec.derive(rec.ctx, "x", &flat, 2, qkv_shape));
  assert_true(heads(&rec, "x", "qkv", 2 * HC, head_shape));
  assert_int_equal(tt_trace_count(tr), 6);
  tt_trace_destroy(tr);
}

// tt_norm_row_fn for the tests: each entry from its own and the parameters, so the test
// sees what the rule handed over (the row, its length, ε, RMS or not, γ and β).
static void mark_norm(float *out, const float *x, size_t cols, const tt_norm_params *p) {
  for (size_t j = 0; j < cols; j++) {
    float v = x[j] * p->eps + (p->rms ? 0.5f : 0.0f) + 100.0f * (float)cols;
    out[j] = p->gamma ? v * p->gamma[j] + (p->beta ? p->beta[j] : 0.0f) : v;
  }
}

static bool norm(const tt_recorder *rec, const char *name, const char *src, const float *gamma, const float *beta,
                 bool rms) {
  tt_hook_rule rule = {.src = src, .norm_fn = mark_norm, .norm = {0.25f, rms, gamma, beta}};
  return rec->derive(rec->ctx, name, &rule, 2, shape);
}

// The stream's last rule normalized (γ none), normalized·γ + β, RMS-normalized·γ, and a sum
// on the normalized·γ + β (post-LN's resid_post on ln1's output): γ and β copied at the
// offer; read last first, in the file, the definition's bits.
static void test_norms(void **state) {
  (void)state;
  float want[5][N], gamma[C], beta[C];
  tt_trace *tr = record_stream(want);
  tt_recorder rec = tt_trace_recorder(tr);
  for (int j = 0; j < C; j++) gamma[j] = 1.5f - 0.25f * (float)j, beta[j] = 0.125f * (float)j;
  float g_then[C], b_then[C];
  memcpy(g_then, gamma, sizeof gamma), memcpy(b_then, beta, sizeof beta);
  assert_true(norm(&rec, "nrm", MID1, NULL, NULL, false));
  assert_true(norm(&rec, "out", MID1, gamma, beta, false));
  assert_true(norm(&rec, "rms_out", MID1, gamma, NULL, true));
  const float *mlp1 = record(&rec, "mlp1", 0.77f);
  assert_true(sum(&rec, "post", "out", "mlp1", shape));
  memset(gamma, 0, sizeof gamma), memset(beta, 0, sizeof beta);  // read at the offer only
  float nrm[N], out[N], rms_out[N], post[N];
  for (int i = 0; i < N; i++) {
    int j = i % C;
    float v = want[4][i] * 0.25f + 100.0f * C, r = want[4][i] * 0.25f + 0.5f + 100.0f * C;
    nrm[i] = v, out[i] = v * g_then[j] + b_then[j], rms_out[i] = r * g_then[j], post[i] = out[i] + mlp1[i];
  }
  assert_int_equal(tt_trace_held_bytes(tr), tt_trace_bytes(tr) - 9 * N * sizeof(float));
  const char *names[4] = {"post", "rms_out", "out", "nrm"};
  const float *wants[4] = {post, rms_out, out, nrm};
  tt_st_file *back = saved(tr);
  for (int k = 0; k < 4; k++) {
    assert_memory_equal(tt_st_find(back, names[k])->data, wants[k], N * sizeof(float));
    assert_memory_equal(tt_trace_find(tr, names[k])->data, wants[k], N * sizeof(float));
  }
  tt_st_close(back), tt_trace_destroy(tr);
}

// Norms refused (then stored): a source not recorded, or of another shape.
static void test_norms_refused(void **state) {
  (void)state;
  float want[5][N];
  tt_trace *tr = record_stream(want);
  tt_recorder rec = tt_trace_recorder(tr);
  assert_false(norm(&rec, "x", "blocks.2.hook_resid_pre", NULL, NULL, false));
  const int64_t other[2] = {C, T};
  assert_non_null(rec.reserve(rec.ctx, "other", TT_F32, 2, other));
  assert_false(norm(&rec, "x", "other", NULL, NULL, false));
  assert_true(norm(&rec, "x", MID1, NULL, NULL, false));
  assert_int_equal(tt_trace_count(tr), 12);
  tt_trace_destroy(tr);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_chain_read),   cmocka_unit_test(test_chain_saved),
                                     cmocka_unit_test(test_rule_on_rule), cmocka_unit_test(test_sums_refused),
                                     cmocka_unit_test(test_heads),        cmocka_unit_test(test_heads_refused),
                                     cmocka_unit_test(test_norms),        cmocka_unit_test(test_norms_refused)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
