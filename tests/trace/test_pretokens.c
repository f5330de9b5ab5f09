// pretokens: the tokenizer's work recorded in the trace (metadata "pretokens"): a round
// trip through a file, refusal of pre-tokens that do not tile the prompt and tokens, of
// malformed metadata at load, old traces without the key, and the recording itself
// against the tokenizer's own encoding and merges.txt.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session/session.h"
#include "trace/trace.h"

static char dir[] = "/tmp/tt_pretok_XXXXXX";

static tt_trace *two_token_trace(void) {
  tt_config cfg;
  tt_config_default(&cfg);
  cfg.n_layer = 1;
  tt_trace *tr = tt_trace_create();
  char *json = tt_config_to_json(&cfg);
  tt_trace_set_meta(tr, "config", json);
  free(json);
  tt_trace_set_meta(tr, "prompt", "Hi there");
  int32_t ids[2] = {17250, 612};
  const char *strs[2] = {"Hi", " there"};
  tt_error err;
  assert_int_equal(tt_trace_set_tokens(tr, ids, strs, 2, &err), TT_OK);
  return tr;
}

static const tt_trace_merge hi[] = {{"H", "i", "Hi", 17}};
static const tt_trace_merge there[] = {{"t", "h", "th", 5}, {"Ġ", "th", "Ġth", 6}, {"e", "r", "er", 1}};

static tt_status load_saved(tt_trace *tr, tt_trace **back, tt_error *err) {
  char path[512];
  snprintf(path, sizeof path, "%s/p.safetensors", dir);
  assert_int_equal(tt_trace_save(tr, path, err), TT_OK);
  return tt_trace_load(path, back, err);
}

static void test_round_trip(void **state) {
  (void)state;
  tt_trace *tr = two_token_trace();
  tt_trace_pretoken p[2] = {{"Hi", 0, 2, 0, 1, hi, 1}, {" there", 2, 6, 1, 1, there, 3}};
  tt_error err = {0};
  assert_int_equal(tt_trace_set_pretokens(tr, p, 2, &err), TT_OK);
  tt_trace *back = NULL;
  if (load_saved(tr, &back, &err)) fail_msg("%s", err.msg);
  assert_int_equal(tt_trace_n_pretokens(back), 2);
  const tt_trace_pretoken *q = tt_trace_pretoken_at(back, 1);
  assert_string_equal(q->text, " there");
  assert_int_equal(q->offset, 2);
  assert_int_equal(q->len, 6);
  assert_int_equal(q->first_token, 1);
  assert_int_equal(q->n_tokens, 1);
  assert_int_equal(q->n_merges, 3);
  assert_string_equal(q->merges[1].left, "Ġ");
  assert_string_equal(q->merges[1].merged, "Ġth");
  assert_int_equal(q->merges[1].rank, 6);
  assert_int_equal(tt_trace_pretoken_at(back, 0)->merges[0].rank, 17);
  assert_null(tt_trace_pretoken_at(back, 2));
  assert_null(tt_trace_pretoken_at(back, -1));
  tt_trace_destroy(back);
  tt_trace_destroy(tr);
  // A trace from before the key opens, with no pre-tokens.
  tr = two_token_trace();
  if (load_saved(tr, &back, &err)) fail_msg("%s", err.msg);
  assert_int_equal(tt_trace_n_pretokens(back), 0);
  tt_trace_destroy(back);
  tt_trace_destroy(tr);
}

static void test_refused(void **state) {
  (void)state;
  tt_trace *tr = two_token_trace();
  tt_error err = {0};
  tt_trace_pretoken gap[2] = {{"Hi", 0, 2, 0, 1, hi, 1}, {"there", 3, 5, 1, 1, there, 3}};
  assert_int_equal(tt_trace_set_pretokens(tr, gap, 2, &err), TT_ERR_ARG);
  assert_non_null(strstr(err.msg, "pre-token 1 is not the prompt's bytes 2.."));
  tt_trace_pretoken text[2] = {{"Ho", 0, 2, 0, 1, hi, 1}, {" there", 2, 6, 1, 1, there, 3}};
  assert_int_equal(tt_trace_set_pretokens(tr, text, 2, &err), TT_ERR_ARG);
  tt_trace_pretoken tokens[2] = {{"Hi", 0, 2, 0, 1, hi, 1}, {" there", 2, 6, 1, 2, there, 3}};
  assert_int_equal(tt_trace_set_pretokens(tr, tokens, 2, &err), TT_ERR_ARG);
  assert_non_null(strstr(err.msg, "pre-token 1 does not cover the tokens from 1 on"));
  tt_trace_pretoken short_[1] = {{"Hi", 0, 2, 0, 1, hi, 1}};
  assert_int_equal(tt_trace_set_pretokens(tr, short_, 1, &err), TT_ERR_ARG);
  assert_non_null(strstr(err.msg, "cover 2 of the prompt's 8 bytes and 1 of its 2 tokens"));
  tt_trace_merge bad_rank[1] = {{"H", "i", "Hi", -1}};
  tt_trace_pretoken rank[2] = {{"Hi", 0, 2, 0, 1, bad_rank, 1}, {" there", 2, 6, 1, 1, there, 3}};
  assert_int_equal(tt_trace_set_pretokens(tr, rank, 2, &err), TT_ERR_ARG);
  assert_int_equal(tt_trace_n_pretokens(tr), 0);
  // Malformed metadata in a file: the trace is refused with one line naming it.
  const char *bad[] = {
      "{}",
      "[1]",
      "[{\"text\":\"Hi there\",\"offset\":0,\"len\":8,\"tokens\":[0,1],\"merges\":[]}]",
      "[{\"text\":\"Hi there\",\"offset\":0,\"len\":8,\"tokens\":[0,2],\"merges\":[[\"a\",\"b\"]]}]",
      "[{\"text\":\"Hi there\",\"offset\":0,\"len\":8,\"tokens\":[0,2],\"merges\":[[\"a\",\"b\",\"ab\",-3]]}]",
      "[{\"text\":\"Hi there\",\"offset\":-1,\"len\":8,\"tokens\":[0,2],\"merges\":[]}]",
      "not json"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    tt_trace_set_meta(tr, "pretokens", bad[i]);
    tt_trace *back = NULL;
    tt_status st = load_saved(tr, &back, &err);
    if (st != TT_ERR_FORMAT || !strstr(err.msg, "p.safetensors: ") || strchr(err.msg, '\n'))
      fail_msg("'%s' gave %d '%s'", bad[i], st, err.msg);
    assert_null(back);
  }
  tt_trace_set_meta(tr, "pretokens", "[{\"text\":\"Hi there\",\"offset\":0,\"len\":8,\"tokens\":[0,2],\"merges\":[]}]");
  tt_trace *back = NULL;
  if (load_saved(tr, &back, &err)) fail_msg("one pre-token of both tokens: %s", err.msg);
  tt_trace_destroy(back);
  tt_trace_destroy(tr);
}

typedef struct {
  char lines[256][96];
  int n;
} merge_log;

static void log_merge(void *ctx, const tt_merge_step *s) {
  merge_log *l = ctx;
  if (l->n < 256) snprintf(l->lines[l->n++], 96, "%s %s %s %d", s->left, s->right, s->merged, s->rank);
}

// Line rank + 2 of merges.txt (1-based; line 1 is the version header).
static void merges_line(int rank, char *buf, size_t len) {
  char path[4096];
  assert_true(tt_asset_path("tokenizer/merges.txt", path, sizeof path));
  FILE *fp = fopen(path, "r");
  assert_non_null(fp);
  for (int i = 0; i < rank + 2 && fgets(buf, (int)len, fp); i++) {}
  fclose(fp);
  buf[strcspn(buf, "\n")] = 0;
}

static void test_recorded(void **state) {
  (void)state;
  char tokdir[4096];
  assert_true(tt_asset_path("tokenizer", tokdir, sizeof tokdir));
  tt_tokenizer *tok = NULL;
  tt_error err = {0};
  assert_int_equal(tt_tokenizer_load(tokdir, &tok, &err), TT_OK);
  const char *prompt = "The weather is nice, isn't it?  한국어";
  int32_t *ids = NULL;
  int T = 0;
  merge_log *want = calloc(1, sizeof *want);
  assert_int_equal(tt_tokenizer_encode(tok, prompt, strlen(prompt), &ids, &T, log_merge, want, &err), TT_OK);
  tt_trace *tr = tt_trace_create();
  tt_trace_set_meta(tr, "prompt", prompt);
  const char **strs = calloc((size_t)T, sizeof *strs);
  for (int i = 0; i < T; i++) strs[i] = "x";
  assert_int_equal(tt_trace_set_tokens(tr, ids, strs, T, &err), TT_OK);
  if (tt_session_record_pretokens(tok, tr, prompt, &err)) fail_msg("%s", err.msg);
  // The merges, read pre-token by pre-token, are the encoder's, in its order.
  int k = 0, tokens = 0;
  size_t bytes = 0;
  for (int i = 0; i < tt_trace_n_pretokens(tr); i++) {
    const tt_trace_pretoken *p = tt_trace_pretoken_at(tr, i);
    assert_int_equal(p->first_token, tokens);
    assert_int_equal(p->offset, bytes);
    assert_memory_equal(p->text, prompt + bytes, p->len);
    for (int m = 0; m < p->n_merges; m++, k++) {
      char line[96];
      snprintf(line, sizeof line, "%s %s %s %d", p->merges[m].left, p->merges[m].right, p->merges[m].merged,
               p->merges[m].rank);
      assert_true(k < want->n);
      assert_string_equal(line, want->lines[k]);
      char file_line[1024], pair[200];
      merges_line(p->merges[m].rank, file_line, sizeof file_line);
      snprintf(pair, sizeof pair, "%s %s", p->merges[m].left, p->merges[m].right);
      assert_string_equal(file_line, pair);
    }
    tokens += p->n_tokens;
    bytes += p->len;
  }
  assert_int_equal(k, want->n);
  assert_int_equal(tokens, T);
  assert_int_equal(bytes, strlen(prompt));
  assert_string_equal(tt_trace_pretoken_at(tr, 1)->text, " weather");
  assert_int_equal(tt_trace_pretoken_at(tr, 1)->merges[2].rank, 10);  // "Ġ w" is line 12 of merges.txt
  free(strs);
  free(ids);
  free(want);
  tt_trace_destroy(tr);
  tt_tokenizer_destroy(tok);
}

int main(void) {
  if (!mkdtemp(dir)) return 1;
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_round_trip), cmocka_unit_test(test_refused),
                                     cmocka_unit_test(test_recorded)};
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd)) return 1;
  return rc;
}
