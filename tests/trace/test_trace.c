// trace: glob matching, the hook catalogue, record filters, save → load round trips and
// malformed traces rejected.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "safetensors/safetensors.h"
#include "trace/hooks.h"
#include "trace/trace.h"

static char dir[] = "/tmp/tt_trace_XXXXXX";

static void test_glob(void **state) {
  (void)state;
  assert_true(tt_glob_match("*", "blocks.0.attn.hook_q"));
  assert_true(tt_glob_match("blocks.*.attn.*", "blocks.11.attn.hook_pattern"));
  assert_false(tt_glob_match("blocks.*.attn.*", "blocks.1.hook_attn_out"));
  assert_true(tt_glob_match("blocks.[0-2].ln?.hook_mean", "blocks.1.ln2.hook_mean"));
  assert_false(tt_glob_match("blocks.[0-2].ln?.hook_mean", "blocks.3.ln2.hook_mean"));
  assert_true(tt_glob_match("hook_*", "hook_logits"));
  assert_false(tt_glob_match("hook_*", "blocks.0.hook_resid_pre"));
  assert_true(tt_glob_match("*pattern", "blocks.0.attn.hook_pattern"));
  assert_false(tt_glob_match("tokens?", "tokens"));
}

typedef struct {
  char names[400][64];
  int n;
} name_list;

static void collect(void *ctx, const tt_hook *h) {
  name_list *l = ctx;
  snprintf(l->names[l->n++], 64, "%s", h->name);
}

static int index_of(const name_list *l, const char *name) {
  for (int i = 0; i < l->n; i++)
    if (strcmp(l->names[i], name) == 0) return i;
  return -1;
}

static void test_catalogue(void **state) {
  (void)state;
  tt_config cfg;
  tt_config_default(&cfg);
  cfg.n_layer = 2;
  name_list *l = calloc(1, sizeof *l);
  int n = tt_hooks_each(&cfg, collect, l);
  // tokens, embed, pos + per layer (resid_pre + 2 norms × 4 + 11 attention + 4 mlp) + final norm 4 + 3
  assert_int_equal(n, 3 + 2 * (1 + 8 + 11 + 4) + 4 + 3);
  assert_string_equal(l->names[0], "tokens");
  assert_string_equal(l->names[3], "blocks.0.hook_resid_pre");
  assert_string_equal(l->names[4], "blocks.0.ln1.hook_mean");
  assert_true(index_of(l, "blocks.0.attn.hook_attn_scores_raw") < index_of(l, "blocks.0.attn.hook_attn_scores_scaled"));
  assert_true(index_of(l, "blocks.0.attn.hook_attn_scores") < index_of(l, "blocks.0.attn.hook_pattern"));
  assert_string_equal(l->names[n - 1], "hook_loss");
  int64_t shape[4];
  assert_int_equal(tt_hook_shape("H,T,D", &cfg, 5, shape), 3);
  assert_int_equal(shape[0], 12);
  assert_int_equal(shape[2], 64);
  assert_int_equal(tt_hook_shape("T,3C", &cfg, 5, shape), 2);
  assert_int_equal(shape[1], 2304);
  assert_int_equal(tt_hook_shape("T-1", &cfg, 5, shape), 1);
  assert_int_equal(shape[0], 4);
  // post-LN: attention comes before ln1; no positions: no hook_pos_embed.
  cfg.post_ln = true;
  cfg.positions = TT_POS_NONE;
  l->n = 0;
  tt_hooks_each(&cfg, collect, l);
  assert_int_equal(index_of(l, "hook_pos_embed"), -1);
  assert_true(index_of(l, "blocks.0.hook_resid_mid") < index_of(l, "blocks.0.ln1.hook_mean"));
  free(l);
}

// A tiny trace as the engine would leave it: config, tokens, two hooks.
static tt_trace *small_trace(int T, int64_t embed_cols) {
  tt_config cfg;
  tt_config_default(&cfg);
  cfg.n_layer = 1, cfg.n_head = 2, cfg.n_embd = 4, cfg.n_inner = 16, cfg.vocab_size = 50257, cfg.n_positions = 16;
  tt_trace *tr = tt_trace_create();
  char *json = tt_config_to_json(&cfg);
  tt_trace_set_meta(tr, "config", json);
  tt_trace_set_meta(tr, "prompt", "The weather is nice");
  free(json);
  int32_t ids[4] = {464, 6193, 318, 3621};
  const char *strs[4] = {"The", " weather", " is", " nice"};
  tt_error err;
  assert_int_equal(tt_trace_set_tokens(tr, ids, strs, T, &err), TT_OK);
  tt_recorder rec = tt_trace_recorder(tr);
  int64_t tshape[1] = {T}, eshape[2] = {T, embed_cols};
  int32_t *tok = rec.reserve(rec.ctx, "tokens", TT_I32, 1, tshape);
  memcpy(tok, ids, (size_t)T * 4);
  float *emb = rec.reserve(rec.ctx, "hook_embed", TT_F32, 2, eshape);
  for (int i = 0; i < T * embed_cols; i++) emb[i] = (float)i * 0.5f - 1.0f;
  return tr;
}

static void test_filter(void **state) {
  (void)state;
  tt_trace *tr = tt_trace_create();
  tt_error err;
  const char *none[] = {"none"}, *some[] = {"blocks.0.attn.*", "hook_logits"}, *mixed[] = {"none", "hook_q"};
  assert_true(tt_trace_wants(tr, "anything"));
  assert_int_equal(tt_trace_set_filter(tr, some, 2, &err), TT_OK);
  assert_true(tt_trace_wants(tr, "blocks.0.attn.hook_pattern"));
  assert_true(tt_trace_wants(tr, "hook_logits"));
  assert_false(tt_trace_wants(tr, "blocks.1.attn.hook_pattern"));
  tt_recorder rec = tt_trace_recorder(tr);
  int64_t shape[1] = {3};
  assert_null(rec.reserve(rec.ctx, "hook_probs", TT_F32, 1, shape));
  assert_non_null(rec.reserve(rec.ctx, "hook_logits", TT_F32, 1, shape));
  assert_int_equal(tt_trace_count(tr), 1);
  assert_int_equal(tt_trace_set_filter(tr, none, 1, &err), TT_OK);
  assert_false(tt_trace_wants(tr, "tokens"));
  assert_int_equal(tt_trace_set_filter(tr, mixed, 2, &err), TT_ERR_ARG);
  tt_trace_destroy(tr);
}

static void test_round_trip(void **state) {
  (void)state;
  tt_trace *tr = small_trace(4, 4);
  char path[512];
  snprintf(path, sizeof path, "%s/t.safetensors", dir);
  tt_error err = {0};
  assert_int_equal(tt_trace_save(tr, path, &err), TT_OK);
  tt_trace *back = NULL;
  if (tt_trace_load(path, &back, &err)) fail_msg("%s", err.msg);
  assert_int_equal(tt_trace_count(back), 2);
  assert_string_equal(tt_trace_get(back, 0)->name, "tokens");
  assert_string_equal(tt_trace_get(back, 1)->name, "hook_embed");
  assert_memory_equal(tt_trace_get(back, 1)->data, tt_trace_get(tr, 1)->data, 64);
  assert_string_equal(tt_trace_meta(back, "prompt"), "The weather is nice");
  assert_string_equal(tt_trace_meta(back, "format"), TT_TRACE_FORMAT);
  assert_int_equal(tt_trace_n_tokens(back), 4);
  assert_string_equal(tt_trace_token(back, 1), " weather");
  assert_int_equal(tt_trace_token_id(back, 3), 3621);
  tt_config cfg;
  assert_true(tt_trace_config(back, &cfg));
  assert_int_equal(cfg.n_embd, 4);
  tt_trace_destroy(back);
  tt_trace_destroy(tr);
}

static void expect_load_error(const char *path, tt_status want, const char *fragment) {
  tt_trace *tr = NULL;
  tt_error err = {0};
  tt_status st = tt_trace_load(path, &tr, &err);
  if (st != want || !strstr(err.msg, fragment))
    fail_msg("got %d '%s', wanted %d with '%s'", st, err.msg, want, fragment);
  assert_null(tr);
}

static void test_malformed(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s/bad.safetensors", dir);
  tt_error err;
  tt_trace *tr = small_trace(4, 5);  // hook_embed should be (4, 4)
  assert_int_equal(tt_trace_save(tr, path, &err), TT_OK);
  expect_load_error(path, TT_ERR_FORMAT, "'hook_embed' is F32 (4, 5), expected F32 (4, 4)");
  tt_trace_destroy(tr);
  float x[1] = {0};
  tt_tensor t = {"x", TT_F32, 1, {1}, x};
  tt_st_meta other[1] = {{"format", "pt"}};
  assert_int_equal(tt_st_write(path, &t, 1, other, 1, &err), TT_OK);
  expect_load_error(path, TT_ERR_FORMAT, "not a ttrace trace");
  tt_st_meta future[2] = {{"format", TT_TRACE_FORMAT}, {"format_version", "99"}};
  assert_int_equal(tt_st_write(path, &t, 1, future, 2, &err), TT_OK);
  expect_load_error(path, TT_ERR_UNSUPPORTED, "version 99");
  tt_st_meta no_tokens[2] = {{"format", TT_TRACE_FORMAT}, {"format_version", TT_TRACE_VERSION}};
  assert_int_equal(tt_st_write(path, &t, 1, no_tokens, 2, &err), TT_OK);
  expect_load_error(path, TT_ERR_FORMAT, "token_ids");
  FILE *fp = fopen(path, "wb");
  fwrite("\x10\0\0\0\0\0\0\0{\"a\":", 1, 13, fp);
  fclose(fp);
  expect_load_error(path, TT_ERR_FORMAT, "runs past the end");
  expect_load_error("/nonexistent.safetensors", TT_ERR_IO, "/nonexistent.safetensors");
}

int main(void) {
  if (!mkdtemp(dir)) return 1;
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_glob), cmocka_unit_test(test_catalogue),
                                     cmocka_unit_test(test_filter), cmocka_unit_test(test_round_trip),
                                     cmocka_unit_test(test_malformed)};
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd)) return 1;
  return rc;
}
