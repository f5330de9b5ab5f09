// The scaled and masked attention scores a trace keeps as exact rules on the raw scores
// (src/trace/derived.c): with the real engine they hold no memory until read, read back
// bit for bit equal to a trace that stored them (--record of them alone), are written
// whole into the file, and in-place masking shares the scaled scores' buffer; a value the
// engine computed differently from the rule is stored as computed.
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

// Every layer's scaled and masked scores: derived in a full trace, stored in a trace that
// records only them; the same bits, the full trace holding them only once read.
static void test_engine_scores(void **state) {
  tt_session *s = *state;
  tt_trace *full = run(s, NULL, 0);
  const char *only[] = {"*attn_scores_scaled", "*hook_attn_scores"};
  tt_trace *kept = run(s, only, 2);
  tt_config cfg;
  assert_true(tt_trace_config(full, &cfg));
  const tt_tensor *raw0 = tt_trace_find(full, "blocks.0.attn.hook_attn_scores_raw");
  assert_non_null(raw0);
  size_t per = tt_tensor_nbytes(raw0);  // (H,T,T) floats
  // nothing derived is held yet: two score tensors per layer fewer than the file's bytes
  assert_int_equal(tt_trace_held_bytes(full), tt_trace_bytes(full) - 2 * (size_t)cfg.n_layer * per);
  assert_int_equal(tt_trace_held_bytes(kept), tt_trace_bytes(kept));
  for (int l = 0; l < cfg.n_layer; l++) {
    char a[64], b[64];
    snprintf(a, sizeof a, "blocks.%d.attn.hook_attn_scores_scaled", l);
    snprintf(b, sizeof b, "blocks.%d.attn.hook_attn_scores", l);
    assert_same_bits(tt_trace_find(full, a), tt_trace_find(kept, a));
    assert_same_bits(tt_trace_find(full, b), tt_trace_find(kept, b));
  }
  assert_int_equal(tt_trace_held_bytes(full), tt_trace_bytes(full));  // read once, now held
  tt_trace_destroy(full), tt_trace_destroy(kept);
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

// A trace of GPT-2 small's config (12 heads, C = 768: layer 0's factor is 1/8), and the
// (H,T,T) shape the hand-made scores below have.
enum { H = 2, T = 3, N = H * T * T };
static const int64_t shape[3] = {H, T, T};
static tt_trace *new_trace(void) {
  tt_trace *tr = tt_trace_create();
  tt_config cfg;
  tt_config_default(&cfg);
  char *json = tt_config_to_json(&cfg);
  tt_trace_set_meta(tr, "config", json);
  free(json);
  return tr;
}

// Records layer 0's raw scores and, as the engine does, the scaled ones (raw / 8).
static void record_scores(const tt_recorder *rec, float **raw, float **scaled) {
  *raw = rec->reserve(rec->ctx, "blocks.0.attn.hook_attn_scores_raw", TT_F32, 3, shape);
  for (int i = 0; i < N; i++) (*raw)[i] = (float)i - 4.5f;
  *scaled = rec->reserve(rec->ctx, "blocks.0.attn.hook_attn_scores_scaled", TT_F32, 3, shape);
  for (int i = 0; i < N; i++) (*scaled)[i] = (*raw)[i] * 0.125f;
}

// A recorder user that writes something else than raw · factor: the trace stores it.
static void test_mismatch_is_stored(void **state) {
  (void)state;
  tt_trace *tr = new_trace();
  tt_recorder rec = tt_trace_recorder(tr);
  float *raw, *scaled;
  record_scores(&rec, &raw, &scaled);
  scaled[5] = nextafterf(scaled[5], 1e9f);  // one ulp off the rule
  float *masked = rec.reserve(rec.ctx, "blocks.0.attn.hook_attn_scores", TT_F32, 3, shape);
  assert_true(masked != scaled);  // its source is stored now: masks into its own memory
  for (int i = 0; i < N; i++) masked[i] = (i % T) > (i / T) % T ? -INFINITY : scaled[i];
  const tt_tensor *got = tt_trace_find(tr, "blocks.0.attn.hook_attn_scores_scaled");
  assert_non_null(got->data);
  assert_memory_equal(&((float *)got->data)[5], &scaled[5], sizeof(float));
  assert_true(((float *)got->data)[5] != raw[5] * 0.125f);
  assert_int_equal(tt_trace_held_bytes(tr), tt_trace_bytes(tr));
  tt_trace_destroy(tr);
}

// The masked scores off the rule in one cell above the diagonal (the scaled value left,
// not -inf) and in one on it (a -0 for a +0): each is stored, with the engine's bits.
static void test_masked_mismatch_is_stored(void **state) {
  (void)state;
  for (int pass = 0; pass < 2; pass++) {
    tt_trace *tr = new_trace();
    tt_recorder rec = tt_trace_recorder(tr);
    float *raw, *scaled;
    record_scores(&rec, &raw, &scaled);
    raw[4] = 0.0f, scaled[4] = 0.0f;  // row 1, column 1: on the diagonal, kept
    float *masked = rec.reserve(rec.ctx, "blocks.0.attn.hook_attn_scores", TT_F32, 3, shape);
    assert_ptr_equal(masked, scaled);
    for (int i = 0; i < N; i++)
      if ((i % T) > (i / T) % T && !(pass == 0 && i == 1)) masked[i] = -INFINITY;  // i = 1: row 0, column 1
    if (pass == 1) masked[4] = -0.0f;
    float want = masked[pass == 0 ? 1 : 4];
    (void)rec.reserve(rec.ctx, "blocks.0.attn.hook_pattern", TT_F32, 3, shape);
    assert_int_equal(tt_trace_held_bytes(tr), tt_trace_bytes(tr) - N * sizeof(float));  // only the scaled derived
    const tt_tensor *m = tt_trace_find(tr, "blocks.0.attn.hook_attn_scores");
    assert_memory_equal(&((float *)m->data)[pass == 0 ? 1 : 4], &want, sizeof want);
    tt_trace_destroy(tr);
  }
}

// Exactly the rule: the masked scores reuse the scaled ones' buffer and neither is held.
static void test_rule_in_place(void **state) {
  (void)state;
  tt_trace *tr = new_trace();
  tt_recorder rec = tt_trace_recorder(tr);
  float *raw, *scaled;
  record_scores(&rec, &raw, &scaled);
  float *masked = rec.reserve(rec.ctx, "blocks.0.attn.hook_attn_scores", TT_F32, 3, shape);
  assert_ptr_equal(masked, scaled);
  for (int i = 0; i < N; i++)
    if ((i % T) > (i / T) % T) masked[i] = -INFINITY;
  (void)rec.reserve(rec.ctx, "blocks.0.attn.hook_pattern", TT_F32, 3, shape);
  assert_int_equal(tt_trace_held_bytes(tr), tt_trace_bytes(tr) - 2 * N * sizeof(float));
  const tt_tensor *m = tt_trace_find(tr, "blocks.0.attn.hook_attn_scores");
  for (int i = 0; i < N; i++) {
    float want = (i % T) > (i / T) % T ? -INFINITY : raw[i] * 0.125f;
    assert_memory_equal(&((float *)m->data)[i], &want, sizeof want);
  }
  tt_trace_destroy(tr);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_engine_scores), cmocka_unit_test(test_saved_file),
                                     cmocka_unit_test(test_mismatch_is_stored), cmocka_unit_test(test_rule_in_place),
                                     cmocka_unit_test(test_masked_mismatch_is_stored)};
  return cmocka_run_group_tests(tests, open_session, close_session);
}
