// BPE merge loop: the heap-based merges give exactly the ids and merge steps of encoder.py's
// round-by-round algorithm (written here the slow way), on words made to stress it (long
// runs of one letter, two-letter alternations, random letters, Hangul bytes); an 80 KB word
// takes well under a second instead of being quadratic; encode_at_most stops at the limit.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tokenizer/tokenizer_internal.h"

static int setup(void **state) {
  tt_error err = {0};
  tt_tokenizer *tok = NULL;
  const char *dir = getenv("TT_TOKENIZER_DIR");
  if (!dir || tt_tokenizer_load(dir, &tok, &err) != TT_OK) return -1;
  *state = tok;
  return 0;
}

static int teardown(void **state) {
  tt_tokenizer_destroy(*state);
  return 0;
}

typedef struct {
  int ranks[4096];
  int n;
} step_log;

static void log_step(void *ctx, const tt_merge_step *s) {
  step_log *l = ctx;
  if (l->n < 4096) l->ranks[l->n++] = s->rank;
}

// encoder.py's bpe(): each round merges every left-to-right occurrence of the lowest pair.
static int slow_bpe(const tt_tokenizer *tok, const char *s, int n, int32_t *w, step_log *log) {
  for (int i = 0; i < n; i++) w[i] = tok->byte_id[(unsigned char)s[i]];
  while (n > 1) {
    int32_t best = INT32_MAX, merged = -1, rank, m, a = 0, b = 0;
    for (int i = 0; i + 1 < n; i++)
      if (tt_tokenizer_find_pair(tok, w[i], w[i + 1], &rank, &m) && rank < best)
        best = rank, merged = m, a = w[i], b = w[i + 1];
    if (merged < 0) break;
    int j = 0;
    for (int i = 0; i < n;) {
      if (i + 1 < n && w[i] == a && w[i + 1] == b)
        w[j++] = merged, i += 2;
      else
        w[j++] = w[i++];
    }
    n = j;
    if (log->n < 4096) log->ranks[log->n++] = best;
  }
  return n;
}

static void same_as_slow(const tt_tokenizer *tok, const char *word, int n) {
  int32_t *want = malloc((size_t)n * sizeof *want), *got = NULL;
  step_log want_log = {{0}, 0}, got_log = {{0}, 0};
  int nw = slow_bpe(tok, word, n, want, &want_log), ng = 0;
  tt_error err = {0};
  assert_int_equal(tt_tokenizer_bpe(tok, word, (size_t)n, &got, &ng, log_step, &got_log, &err), TT_OK);
  if (ng != nw || memcmp(got, want, (size_t)nw * sizeof *got)) fail_msg("ids differ for '%.40s' (%d bytes)", word, n);
  assert_int_equal(got_log.n, want_log.n);
  assert_memory_equal(got_log.ranks, want_log.ranks, (size_t)want_log.n * sizeof(int));
  free(want);
  free(got);
}

static void test_same_as_encoder_py(void **state) {
  const tt_tokenizer *tok = *state;
  static const char *const alphabets[] = {"a", "ab", "abc", "eiounst", "abcdefghijklmnopqrstuvwxyz", "\xea\xb0\x80"};
  char word[600];
  unsigned seed = 7;
  for (int round = 0; round < 300; round++) {
    const char *al = alphabets[round % 6];
    size_t k = strlen(al);
    int n = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 500;
    word[0] = ' ';
    for (int i = round & 1; i < n; i++) word[i] = al[((seed = seed * 1103515245u + 12345u) >> 16) % k];
    same_as_slow(tok, word, n);
  }
}

static double seconds_since(const struct timespec *t0) {
  struct timespec t1;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return (double)(t1.tv_sec - t0->tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0->tv_nsec);
}

static char *random_word(size_t n) {
  char *w = malloc(n + 1);
  unsigned seed = 1;
  for (size_t i = 0; i < n; i++) w[i] = (char)('a' + ((seed = seed * 1103515245u + 12345u) >> 16) % 26);
  w[n] = 0;
  return w;
}

// 80 KB of one word: the quadratic loop took 12 s on this machine, the heap 0.3 s.
static void test_long_word_is_fast(void **state) {
  const tt_tokenizer *tok = *state;
  char *w = random_word(80000);
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int32_t *ids = NULL;
  int n = 0;
  tt_error err = {0};
  assert_int_equal(tt_tokenizer_encode(tok, w, 80000, &ids, &n, NULL, NULL, &err), TT_OK);
  double s = seconds_since(&t0);
  if (s > 4.0) fail_msg("80 KB word took %.2f s", s);
  assert_true(n > 80000 / 8 && n < 80000);
  free(ids);
  free(w);
}

// A limit (the model's context) stops the work: 1 MiB is refused at once; exactly N
// tokens pass with limit N and fail with N - 1.
static void test_encode_at_most(void **state) {
  const tt_tokenizer *tok = *state;
  size_t big = 1u << 20;
  char *w = random_word(big);
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int32_t *ids = NULL;
  int n = 0;
  tt_error err = {0};
  assert_int_equal(tt_tokenizer_encode_at_most(tok, w, big, 1024, &ids, &n, NULL, NULL, &err), TT_ERR_ARG);
  assert_string_equal(err.msg, "the text is more than 1024 tokens long");
  assert_null(ids);
  if (seconds_since(&t0) > 1.0) fail_msg("refusing 1 MiB took %.2f s", seconds_since(&t0));
  const char *text = "The weather is nice today, and the sun is out.";
  assert_int_equal(tt_tokenizer_encode(tok, text, strlen(text), &ids, &n, NULL, NULL, &err), TT_OK);
  free(ids);
  int exact = n;
  assert_int_equal(tt_tokenizer_encode_at_most(tok, text, strlen(text), exact, &ids, &n, NULL, NULL, &err), TT_OK);
  assert_int_equal(n, exact);
  free(ids);
  assert_int_equal(tt_tokenizer_encode_at_most(tok, text, strlen(text), exact - 1, &ids, &n, NULL, NULL, &err),
                   TT_ERR_ARG);
  free(w);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_same_as_encoder_py),
                                     cmocka_unit_test(test_long_word_is_fast), cmocka_unit_test(test_encode_at_most)};
  return cmocka_run_group_tests(tests, setup, teardown);
}
