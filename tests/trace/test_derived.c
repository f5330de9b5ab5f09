// The tensors a trace keeps as exact rules (src/trace/derived.c): the scaled and masked
// attention scores and the pattern on the raw scores, the activation's output on its input
// (GPT-2's mlp.hook_post), the probabilities on the logits, the residual stream as sums, q,
// k and v as the heads of the fused qkv, the norms' rows on their input (hand-made chains
// of them: test_derived_chains.c; every rule of other configurations: tests/engine).
// With the real engine they hold no memory until read, read back bit for bit equal to a
// trace that stored them (--record of them alone), and are written whole into the file; a
// rule the trace cannot keep is refused (then stored).
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
#include "session/session.h"
#include "trace/trace.h"

static const char *prompt = "The quick brown fox jumps over the lazy dog again";

static tt_trace *run(tt_session *s, const char *const *record, int n) {
  tt_trace *tr = NULL;
  tt_error err = {0};
  if (tt_session_trace(s, prompt, record, n, &tr, &err)) fail_msg("%s", err.msg);
  return tr;
}

static void assert_same_bits(const tt_tensor *a, const tt_tensor *b) {
  assert_non_null(a), assert_non_null(b);
  assert_int_equal(tt_tensor_nbytes(a), tt_tensor_nbytes(b));
  assert_memory_equal(a->data, b->data, tt_tensor_nbytes(a));
}

// The default model's session, shared by the tests that run the engine.
static int open_session(void **state) {
  tt_session *s;
  tt_error err = {0};
  tt_session_opts opts = {0};
  if (tt_session_open(&opts, &s, &err)) {
    fprintf(stderr, "%s\n", err.msg);
    return -1;
  }
  *state = s;
  return 0;
}
static int close_session(void **state) {
  tt_session_close(*state);
  return 0;
}

// Hooks that a trace of the full run keeps as rules, each group stored in a trace that
// records it without its sources (`record`), so the engine goes another way: the scores op
// by op, the probabilities with the loss, the raw scores alone in a one-op attention that
// keeps them. A hook name with %d is every layer's. Groups of hooks that are not rules
// (z, the FFN output, the loss) show those other ways give the same bits too.
typedef struct {
  const char *record[8];  // the storing trace's --record, NULL-terminated
  const char *hooks[8];   // compared, NULL-terminated
} stored_group;

static const stored_group groups[] = {
    {{"*attn_scores_scaled", "*hook_attn_scores", "*hook_pattern", "*hook_z", "*mlp.hook_post", "*hook_mlp_out",
      "hook_probs", "hook_loss"},
     {"blocks.%d.attn.hook_attn_scores_scaled", "blocks.%d.attn.hook_attn_scores", "blocks.%d.attn.hook_pattern",
      "blocks.%d.attn.hook_z", "blocks.%d.mlp.hook_post", "blocks.%d.hook_mlp_out", "hook_probs", "hook_loss"}},
    {{"*attn_scores_raw"}, {"blocks.%d.attn.hook_attn_scores_raw"}},  // q and k not recorded
    // the residual stream: without the embeddings and branches, and resid_pre apart from
    // resid_post (of which each later resid_pre is a copy)
    {{"*hook_resid_pre"}, {"blocks.%d.hook_resid_pre"}},
    {{"*hook_resid_mid", "*hook_resid_post"}, {"blocks.%d.hook_resid_mid", "blocks.%d.hook_resid_post"}},
    {{"*hook_q", "*hook_k", "*hook_v"}, {"blocks.%d.attn.hook_q", "blocks.%d.attn.hook_k", "blocks.%d.attn.hook_v"}},
    // the norms, without the stream they normalize
    {{"*hook_normalized", "*.hook_out"},
     {"blocks.%d.ln1.hook_normalized", "blocks.%d.ln1.hook_out", "blocks.%d.ln2.hook_normalized",
      "blocks.%d.ln2.hook_out", "ln_final.hook_normalized", "ln_final.hook_out"}},
};

// Group g's hooks: the bits of `full` (read, so made from its rules) in a trace that stores them.
static void assert_group_stored_alike(tt_session *s, tt_trace *full, int n_layer, const stored_group *g) {
  int n_record = 0;
  while (n_record < 8 && g->record[n_record]) n_record++;
  tt_trace *stored = run(s, g->record, n_record);
  assert_int_equal(tt_trace_held_bytes(stored), tt_trace_bytes(stored));  // no rule there
  for (int i = 0; i < 8 && g->hooks[i]; i++)
    for (int l = 0; l < (strstr(g->hooks[i], "%d") ? n_layer : 1); l++) {
      char name[64];
      snprintf(name, sizeof name, g->hooks[i], l);
      assert_same_bits(tt_trace_find(full, name), tt_trace_find(stored, name));
    }
  tt_trace_destroy(stored);
}

// Nothing derived is held in a full trace until read: per layer four score tensors, the
// activation's output, and ten tensors of the stream's shape (the three residuals, q, k,
// v, each norm's normalized rows and output), the final norm's two and the probabilities
// (the logits' shape). Read, each has the bits of a trace that stores it.
static void test_engine_rules(void **state) {
  tt_session *s = *state;
  tt_trace *full = run(s, NULL, 0);
  tt_config cfg;
  assert_true(tt_trace_config(full, &cfg));
  // stored, so finding them makes nothing
  const tt_tensor *qkv0 = tt_trace_find(full, "blocks.0.attn.hook_qkv");  // (T,3C)
  const tt_tensor *logits = tt_trace_find(full, "hook_logits"), *pre0 = tt_trace_find(full, "blocks.0.mlp.hook_pre");
  assert_non_null(qkv0), assert_non_null(logits), assert_non_null(pre0);
  size_t per = (size_t)(cfg.n_head * qkv0->shape[0] * qkv0->shape[0]) * sizeof(float);  // (H,T,T) floats
  size_t post = tt_tensor_nbytes(pre0);                                                 // (T,F) floats
  size_t stream = tt_tensor_nbytes(tt_trace_find(full, "hook_embed"));                  // (T,C) floats
  assert_int_equal(tt_trace_held_bytes(full), tt_trace_bytes(full) -
                                                  (size_t)cfg.n_layer * (4 * per + post + 10 * stream) - 2 * stream -
                                                  tt_tensor_nbytes(logits));
  for (size_t g = 0; g < sizeof groups / sizeof *groups; g++)
    assert_group_stored_alike(s, full, cfg.n_layer, &groups[g]);
  assert_int_equal(tt_trace_held_bytes(full), tt_trace_bytes(full));  // read once, now held
  tt_trace_destroy(full);
}

// A saved full trace holds every tensor, the derived ones with the bits of a stored run.
static void test_saved_file(void **state) {
  tt_session *s = *state;
  tt_trace *full = run(s, NULL, 0);
  tt_error err = {0};
  size_t held = tt_trace_held_bytes(full);
  char path[] = "/tmp/tt-derived-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  if (tt_trace_save(full, path, &err)) fail_msg("%s", err.msg);
  assert_int_equal(tt_trace_held_bytes(full), held);  // saving computed nothing into the trace
  tt_trace *back = NULL;
  if (tt_trace_load(path, &back, &err)) fail_msg("%s", err.msg);
  unlink(path);
  assert_int_equal(tt_trace_count(back), tt_trace_count(full));
  for (size_t i = 0; i < tt_trace_count(full); i++) {
    const tt_tensor *a = tt_trace_get(full, i), *b = tt_trace_get(back, i);
    assert_string_equal(a->name, b->name);
    assert_same_bits(a, b);
  }
  tt_trace_destroy(back), tt_trace_destroy(full);
}

// Hand-made scores (H,T,T) offered as the engine offers them.
enum { H = 2, T = 3, N = H * T * T };
static const int64_t shape[3] = {H, T, T};

// Records raw scores under `raw_name` (F32, `shape`): i − 4.5 in cell i.
static float *record_raw(const tt_recorder *rec, const char *raw_name) {
  float *raw = rec->reserve(rec->ctx, raw_name, TT_F32, 3, shape);
  if (raw)
    for (int i = 0; i < N; i++) raw[i] = (float)i - 4.5f;
  return raw;
}

static bool offer(const tt_recorder *rec, const char *name, const char *src, bool mask, const int64_t *dims) {
  tt_hook_rule rule = {.src = src, .factor = 0.125f, .causal_mask = mask};
  return rec->derive(rec->ctx, name, &rule, 3, dims);
}

static const char *RAW = "blocks.0.attn.hook_attn_scores_raw", *SCALED = "blocks.0.attn.hook_attn_scores_scaled",
                  *MASKED = "blocks.0.attn.hook_attn_scores";

// Both rules kept: no memory until read, then raw · 1/8 and −inf above the diagonal, bit
// for bit, in the trace and in its file.
static void test_rules_kept(void **state) {
  (void)state;
  tt_trace *tr = tt_trace_create();
  tt_recorder rec = tt_trace_recorder(tr);
  float *raw = record_raw(&rec, RAW);
  assert_true(offer(&rec, SCALED, RAW, false, shape));
  assert_true(offer(&rec, MASKED, RAW, true, shape));
  assert_int_equal(tt_trace_count(tr), 3);
  assert_int_equal(tt_trace_held_bytes(tr), tt_trace_bytes(tr) - 2 * N * sizeof(float));
  const tt_tensor *scaled = tt_trace_find(tr, SCALED), *masked = tt_trace_find(tr, MASKED);
  for (int i = 0; i < N; i++) {
    int row = (i / T) % T, col = i % T;
    float want_s = raw[i] / 8.0f, want_m = col > row ? -INFINITY : raw[i] / 8.0f;
    assert_memory_equal(&((float *)scaled->data)[i], &want_s, sizeof want_s);
    assert_memory_equal(&((float *)masked->data)[i], &want_m, sizeof want_m);
  }
  assert_int_equal(tt_trace_held_bytes(tr), tt_trace_bytes(tr));
  tt_trace_destroy(tr);
}

// A row function for the softmax rule: each entry becomes its row's running count of
// finite entries so far, plus 100 times the length it was handed, plus the entry, so the
// test sees which entries, how many and in what order the rule handed over (and that they
// were scaled first).
static void mark_row(float *out, const float *in, size_t cols) {
  float finite = 0.0f;
  for (size_t j = 0; j < cols; j++) {
    if (isfinite(in[j])) finite += 1.0f;
    out[j] = finite + 100.0f * (float)cols + (isfinite(in[j]) ? in[j] : -1000.0f);
  }
}

// A rule with a row function: the scaled row, then the function on each masked row's
// entries up to the diagonal (only those: cols is row + 1), 0 beyond it.
static void test_rule_with_rows(void **state) {
  (void)state;
  tt_trace *tr = tt_trace_create();
  tt_recorder rec = tt_trace_recorder(tr);
  float *raw = record_raw(&rec, RAW);
  const char *PATTERN = "blocks.0.attn.hook_pattern";
  tt_hook_rule rule = {.src = RAW, .factor = 0.125f, .causal_mask = true, .row_fn = mark_row};
  assert_true(rec.derive(rec.ctx, PATTERN, &rule, 3, shape));
  assert_int_equal(tt_trace_held_bytes(tr), tt_trace_bytes(tr) - N * sizeof(float));
  const float *got = tt_trace_find(tr, PATTERN)->data;
  for (int i = 0; i < N; i++) {
    int row = (i / T) % T, col = i % T;
    float want = col <= row ? (float)(col + 1) + 100.0f * (float)(row + 1) + raw[i] / 8.0f : 0.0f;
    assert_memory_equal(&got[i], &want, sizeof want);
  }
  tt_trace_destroy(tr);
}

// Refused, so the engine stores the bytes: a source not recorded, another shape, a mask on a
// matrix that is not square, a hook not recorded. (A source that is a rule itself is kept:
// test_derived_chains.c.)
static void test_rules_refused(void **state) {
  (void)state;
  tt_trace *tr = tt_trace_create();
  tt_recorder rec = tt_trace_recorder(tr);
  record_raw(&rec, RAW);
  assert_false(offer(&rec, SCALED, "blocks.1.attn.hook_attn_scores_raw", false, shape));
  const int64_t other[3] = {H, T, T + 1};
  assert_false(offer(&rec, SCALED, RAW, false, other));
  assert_true(offer(&rec, SCALED, RAW, false, shape));
  assert_false(offer(&rec, MASKED, SCALED, true, other));
  assert_int_equal(tt_trace_count(tr), 2);
  tt_trace_destroy(tr);

  tr = tt_trace_create();
  rec = tt_trace_recorder(tr);
  const int64_t wide[3] = {1, 2, 9};  // (H,T,Tk) of N floats, Tk ≠ T
  float *raw = rec.reserve(rec.ctx, RAW, TT_F32, 3, wide);
  for (int i = 0; i < N; i++) raw[i] = (float)i;
  assert_false(offer(&rec, MASKED, RAW, true, wide));
  assert_true(offer(&rec, SCALED, RAW, false, wide));  // a decode step's scaled scores
  assert_float_equal(((float *)tt_trace_find(tr, SCALED)->data)[17], 17.0f / 8.0f, 0.0f);
  tt_trace_destroy(tr);

  tr = tt_trace_create();
  const char *only[] = {"*raw", "*hook_pattern"};
  tt_error err = {0};
  assert_int_equal(tt_trace_set_filter(tr, only, 2, &err), TT_OK);
  rec = tt_trace_recorder(tr);
  record_raw(&rec, RAW);
  assert_false(offer(&rec, SCALED, RAW, false, shape));
  assert_null(rec.reserve(rec.ctx, SCALED, TT_F32, 3, shape));
  assert_int_equal(tt_trace_count(tr), 1);
  tt_trace_destroy(tr);
}

// A product rule on hand-made q (4,3,2) and k (2,3,2): two query heads per key head.
enum { PH = 4, PG = 2, PT = 3, PD = 2 };
static const int64_t q_shape[3] = {PH, PT, PD}, k_shape[3] = {PG, PT, PD}, raw_shape[3] = {PH, PT, PT};
static int products_made;  // how often the rule's function ran

// tt_scores_fn: raw[h][i][j] = Σ_d q[h][i][d]·k[h/(H/G)][j][d], written from the definition.
// Without every, NaN above the diagonal: a rule that read those entries would show it.
static void plain_scores(float *raw, const float *q, const float *k, int heads, int G, int len, int D, bool every) {
  products_made++;
  for (int h = 0; h < heads; h++)
    for (int i = 0; i < len; i++)
      for (int j = 0; j < len; j++) {
        float sum = 0.0f;
        for (int d = 0; d < D; d++) sum += q[(h * len + i) * D + d] * k[((h / (heads / G)) * len + j) * D + d];
        raw[(h * len + i) * len + j] = every || j <= i ? sum : NAN;
      }
}

static const char *Q = "blocks.0.attn.hook_q", *K = "blocks.0.attn.hook_k";

// Records q (cell i: i + 1) and, unless without_k, k (cell i: 1 − i / 4); raw offered as
// the product rule, with `dims`.
static bool record_product(tt_trace *tr, bool without_k, const int64_t *dims) {
  tt_recorder rec = tt_trace_recorder(tr);
  float *q = rec.reserve(rec.ctx, Q, TT_F32, 3, q_shape);
  for (int i = 0; i < PH * PT * PD; i++) q[i] = (float)i + 1.0f;
  if (!without_k) {
    float *k = rec.reserve(rec.ctx, K, TT_F32, 3, k_shape);
    for (int i = 0; i < PG * PT * PD; i++) k[i] = 1.0f - (float)i / 4.0f;
  }
  tt_hook_rule rule = {.src = Q, .keys = K, .scores_fn = plain_scores};
  return rec.derive(rec.ctx, RAW, &rule, 3, dims);
}

// Raw scores kept as the product of q and k, the scaled and masked scores as rules on them:
// nothing held until read; saved, every tensor right, the product made once for the file
// however many rules read it; read, the raw scores are what the function makes.
static void test_product_rule(void **state) {
  (void)state;
  tt_trace *tr = tt_trace_create();
  tt_error err = {0};
  assert_true(record_product(tr, false, raw_shape));
  tt_recorder rec = tt_trace_recorder(tr);
  assert_true(offer(&rec, SCALED, RAW, false, raw_shape));
  assert_true(offer(&rec, MASKED, RAW, true, raw_shape));
  size_t n_raw = (size_t)PH * PT * PT;
  assert_int_equal(tt_trace_held_bytes(tr), tt_trace_bytes(tr) - 3 * n_raw * sizeof(float));
  float want[PH * PT * PT];
  const float *q = tt_trace_find(tr, Q)->data, *k = tt_trace_find(tr, K)->data;
  plain_scores(want, q, k, PH, PG, PT, PD, true);

  char path[] = "/tmp/tt-product-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  products_made = 0;
  if (tt_trace_save(tr, path, &err)) fail_msg("%s", err.msg);
  assert_int_equal(products_made, 1);
  tt_st_file *back = NULL;  // the file's tensors as they are (not a whole trace: no tokens, no config)
  if (tt_st_open(path, &back, &err)) fail_msg("%s", err.msg);
  unlink(path);
  const float *raw = tt_st_find(back, RAW)->data, *scaled = tt_st_find(back, SCALED)->data,
              *masked = tt_st_find(back, MASKED)->data;
  for (size_t i = 0; i < n_raw; i++) {
    size_t row = (i / PT) % PT, col = i % PT;
    float s = want[i] * 0.125f, m = col > row ? -INFINITY : s;
    assert_memory_equal(&raw[i], &want[i], sizeof want[i]);
    assert_memory_equal(&scaled[i], &s, sizeof s);
    assert_memory_equal(&masked[i], &m, sizeof m);
  }
  // in memory: the scaled scores, then the masked ones, each making the raw scores into its
  // own memory first (for the masked ones only what the mask keeps: the rest NaN here), then
  // the raw scores themselves
  assert_memory_equal(tt_trace_find(tr, SCALED)->data, scaled, sizeof want);
  assert_int_equal(products_made, 2);
  assert_memory_equal(tt_trace_find(tr, MASKED)->data, masked, sizeof want);
  assert_int_equal(products_made, 3);
  assert_int_equal(tt_trace_held_bytes(tr), tt_trace_bytes(tr) - n_raw * sizeof(float));
  assert_memory_equal(tt_trace_find(tr, RAW)->data, want, sizeof want);
  assert_int_equal(products_made, 4);
  assert_int_equal(tt_trace_held_bytes(tr), tt_trace_bytes(tr));
  tt_st_close(back), tt_trace_destroy(tr);
}

// Product rules refused (the raw scores then stored): keys not recorded, a query head count
// the key heads do not divide, a tensor that is not (H,T,T).
static void test_product_refused(void **state) {
  (void)state;
  tt_trace *tr = tt_trace_create();
  assert_false(record_product(tr, true, raw_shape));
  tt_trace_destroy(tr);
  tr = tt_trace_create();
  const int64_t wide[3] = {PH, PT, PT + 1};
  assert_false(record_product(tr, false, wide));
  tt_trace_destroy(tr);
  tr = tt_trace_create();
  tt_recorder rec = tt_trace_recorder(tr);
  const int64_t q3[3] = {3, PT, PD};
  rec.reserve(rec.ctx, Q, TT_F32, 3, q3);
  rec.reserve(rec.ctx, K, TT_F32, 3, k_shape);
  const int64_t raw3[3] = {3, PT, PT};
  tt_hook_rule rule = {.src = Q, .keys = K, .scores_fn = plain_scores};
  assert_false(rec.derive(rec.ctx, RAW, &rule, 3, raw3));
  assert_int_equal(tt_trace_count(tr), 2);
  tt_trace_destroy(tr);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_engine_rules),   cmocka_unit_test(test_saved_file),
                                     cmocka_unit_test(test_rules_kept),     cmocka_unit_test(test_rule_with_rows),
                                     cmocka_unit_test(test_rules_refused),  cmocka_unit_test(test_product_rule),
                                     cmocka_unit_test(test_product_refused)};
  return cmocka_run_group_tests(tests, open_session, close_session);
}
