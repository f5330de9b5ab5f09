// Tokenizer tests: GPT-2 ids from an independent fixture, UTF-8 errors, round trips, the
// merge steps against a naive BPE written here from merges.txt, display strings, bad files.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tokenizer/tokenizer.h"

static const char *env(const char *name) {
  const char *v = getenv(name);
  if (!v) fail_msg("%s is not set (run through meson test)", name);
  return v;
}

static int setup(void **state) {
  tt_error err = {0};
  tt_tokenizer *tok = NULL;
  if (tt_tokenizer_load(env("TT_TOKENIZER_DIR"), &tok, &err) != TT_OK) {
    fprintf(stderr, "load: %s\n", err.msg);
    return -1;
  }
  *state = tok;
  return 0;
}

static int teardown(void **state) {
  tt_tokenizer_destroy(*state);
  return 0;
}

static void encode_ok(const tt_tokenizer *tok, const char *text, size_t len, int32_t **ids, int *n) {
  tt_error err = {0};
  tt_status st = tt_tokenizer_encode(tok, text, len, ids, n, NULL, NULL, &err);
  if (st != TT_OK) fail_msg("encode failed: %s", err.msg);
}

static void test_vocab(void **state) {
  const tt_tokenizer *tok = *state;
  assert_string_equal(tt_tokenizer_source(tok), env("TT_TOKENIZER_SOURCE"));
  assert_int_equal(tt_tokenizer_bos(tok), 50256);
  assert_int_equal(tt_tokenizer_vocab_size(tok), 50257);
  assert_string_equal(tt_tokenizer_token_spelling(tok, 6193), "\xC4\xA0weather");  // Ġweather
  size_t len;
  const char *b = tt_tokenizer_token_bytes(tok, 50256, &len);
  assert_non_null(b);
  assert_int_equal(len, 13);
  assert_memory_equal(b, "<|endoftext|>", 13);
  assert_null(tt_tokenizer_token_bytes(tok, 50257, &len));
  assert_null(tt_tokenizer_token_bytes(tok, -1, &len));
  assert_null(tt_tokenizer_token_spelling(tok, 60000));
}

// The seed's example, as the design notes give it.
static void test_weather(void **state) {
  int32_t *ids;
  int n;
  encode_ok(*state, "The weather is nice", 19, &ids, &n);
  assert_int_equal(n, 4);
  const int32_t want[] = {464, 6193, 318, 3621};
  assert_memory_equal(ids, want, sizeof want);
  free(ids);
}

static void print_ids(const char *label, const int32_t *ids, int n) {
  fprintf(stderr, "  %s:", label);
  for (int i = 0; i < n; i++) fprintf(stderr, " %d", (int)ids[i]);
  fputc('\n', stderr);
}

static void test_fixture(void **state) {
  const tt_tokenizer *tok = *state;
  json_error_t jerr;
  json_t *root = json_load_file(env("TT_TOKENIZER_FIXTURE"), 0, &jerr);
  if (!root) fail_msg("fixture: %s (line %d)", jerr.text, jerr.line);
  json_t *cases = json_object_get(root, "cases");
  assert_true(json_is_array(cases));
  assert_true(json_array_size(cases) >= 60);
  size_t i, failures = 0;
  json_t *c;
  json_array_foreach(cases, i, c) {
    json_t *jtext = json_object_get(c, "text"), *jids = json_object_get(c, "ids");
    assert_true(json_is_string(jtext) && json_is_array(jids));
    const char *text = json_string_value(jtext);
    size_t len = json_string_length(jtext);
    int32_t *ids;
    int n;
    encode_ok(tok, text, len, &ids, &n);
    bool same = (size_t)n == json_array_size(jids);
    for (int k = 0; same && k < n; k++) same = json_integer_value(json_array_get(jids, (size_t)k)) == ids[k];
    if (!same) {
      failures++;
      fprintf(stderr, "case %zu \"%s\":\n", i, text);
      int32_t want[4096];
      int nw = 0;
      for (size_t k = 0; k < json_array_size(jids) && k < 4096; k++)
        want[nw++] = (int32_t)json_integer_value(json_array_get(jids, k));
      print_ids("want", want, nw);
      print_ids("got ", ids, n);
    }
    char *back = tt_tokenizer_decode(tok, ids, n);
    assert_non_null(back);
    assert_memory_equal(back, text, len);
    assert_int_equal(strlen(back), len);
    free(back);
    free(ids);
  }
  json_decref(root);
  assert_int_equal(failures, 0);
}

static void expect_bad_utf8(const tt_tokenizer *tok, const char *text, size_t len, size_t offset) {
  int32_t *ids = (int32_t *)1;
  int n = -1;
  tt_error err = {0};
  assert_int_equal(tt_tokenizer_encode(tok, text, len, &ids, &n, NULL, NULL, &err), TT_ERR_ARG);
  assert_null(ids);
  assert_int_equal(n, 0);
  char want[64];
  snprintf(want, sizeof want, "byte offset %zu", offset);
  if (!strstr(err.msg, want)) fail_msg("message \"%s\" lacks \"%s\"", err.msg, want);
  tt_span *spans;
  assert_int_equal(tt_tokenizer_pretokenize(tok, text, len, &spans, &n, &err), TT_ERR_ARG);
}

static void test_invalid_utf8(void **state) {
  expect_bad_utf8(*state, "abc\xFF", 4, 3);
  expect_bad_utf8(*state, "\x80", 1, 0);
  expect_bad_utf8(*state, "ok \xC0\xAF", 5, 3);           // overlong '/'
  expect_bad_utf8(*state, "x\xE2\x82", 3, 1);             // truncated euro sign
  expect_bad_utf8(*state, "\xED\xA0\x80 y", 5, 0);        // a surrogate
  expect_bad_utf8(*state, "\xF4\x90\x80\x80", 4, 0);      // above U+10FFFF
  expect_bad_utf8(*state, "\xEB\x82\x98\xEB\x82", 5, 3);  // 나 then half a syllable
}

static void test_empty(void **state) {
  int32_t *ids;
  int n = -1;
  encode_ok(*state, "", 0, &ids, &n);
  assert_int_equal(n, 0);
  free(ids);
}

// A NUL byte is valid UTF-8 and is a token of its own (byte 0 → "Ā", id 188).
static void test_nul_byte(void **state) {
  int32_t *ids;
  int n;
  encode_ok(*state, "a\0b", 3, &ids, &n);
  assert_int_equal(n, 3);
  assert_int_equal(ids[1], 188);
  free(ids);
}

// Random valid UTF-8 from all planes decodes back to itself.
static void test_round_trip_random(void **state) {
  const tt_tokenizer *tok = *state;
  uint64_t rng = 0x9E3779B97F4A7C15ULL;
  static const uint32_t ranges[][2] = {{0x20, 0x7E},     {0x09, 0x0D},     {0xA0, 0x24F},      {0x370, 0x3FF},
                                       {0x400, 0x4FF},   {0x600, 0x6FF},   {0x3040, 0x30FF},   {0x4E00, 0x9FFF},
                                       {0xAC00, 0xD7A3}, {0x2000, 0x206F}, {0x1F300, 0x1FAFF}, {0x10000, 0x10FFFF}};
  char text[4096];
  for (int round = 0; round < 200; round++) {
    size_t len = 0;
    int chars = 1 + round % 120;
    for (int c = 0; c < chars; c++) {
      rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
      const uint32_t *r = ranges[(rng >> 33) % (sizeof ranges / sizeof *ranges)];
      uint32_t cp = r[0] + (uint32_t)((rng >> 13) % (r[1] - r[0] + 1));
      if (cp >= 0xD800 && cp <= 0xDFFF) cp = 'x';
      if (cp < 0x80)
        text[len++] = (char)cp;
      else if (cp < 0x800)
        text[len++] = (char)(0xC0 | cp >> 6), text[len++] = (char)(0x80 | (cp & 63));
      else if (cp < 0x10000)
        text[len++] = (char)(0xE0 | cp >> 12), text[len++] = (char)(0x80 | (cp >> 6 & 63)),
        text[len++] = (char)(0x80 | (cp & 63));
      else
        text[len++] = (char)(0xF0 | cp >> 18), text[len++] = (char)(0x80 | (cp >> 12 & 63)),
        text[len++] = (char)(0x80 | (cp >> 6 & 63)), text[len++] = (char)(0x80 | (cp & 63));
    }
    int32_t *ids;
    int n;
    encode_ok(tok, text, len, &ids, &n);
    assert_true(n >= 1 && (size_t)n <= len);
    char *back = tt_tokenizer_decode(tok, ids, n);
    assert_non_null(back);
    assert_int_equal(strlen(back), len);
    assert_memory_equal(back, text, len);
    // encode = pretokenize, then bpe on each piece
    tt_span *spans;
    int ns, total = 0;
    tt_error err = {0};
    assert_int_equal(tt_tokenizer_pretokenize(tok, text, len, &spans, &ns, &err), TT_OK);
    size_t covered = 0;
    for (int s = 0; s < ns; s++) {
      assert_int_equal(spans[s].offset, covered);  // the pieces tile the text
      covered += spans[s].len;
      int32_t *pids;
      int pn;
      assert_int_equal(tt_tokenizer_bpe(tok, text + spans[s].offset, spans[s].len, &pids, &pn, NULL, NULL, &err),
                       TT_OK);
      assert_true(total + pn <= n);
      assert_memory_equal(pids, ids + total, (size_t)pn * sizeof *pids);
      total += pn;
      free(pids);
    }
    assert_int_equal(covered, len);
    assert_int_equal(total, n);
    free(spans);
    free(back);
    free(ids);
  }
}

// ---- merge steps against a naive BPE on strings, written from merges.txt here ------------
typedef struct {
  char **left, **right;
  int n;
} merge_list;

static merge_list read_merges(void) {
  char path[4096];
  snprintf(path, sizeof path, "%s/merges.txt", env("TT_TOKENIZER_DIR"));
  if (getenv("TT_TOKENIZER_MERGES")) snprintf(path, sizeof path, "%s", getenv("TT_TOKENIZER_MERGES"));
  FILE *fp = fopen(path, "r");
  assert_non_null(fp);
  merge_list m = {malloc(60000 * sizeof(char *)), malloc(60000 * sizeof(char *)), 0};
  char line[512];
  int line_no = 0;
  while (fgets(line, sizeof line, fp)) {
    line_no++;
    line[strcspn(line, "\r\n")] = 0;
    if (line_no == 1 || !line[0]) continue;  // "#version: 0.2"
    char *sp = strchr(line, ' ');
    assert_non_null(sp);
    *sp = 0;
    assert_int_equal(m.n, line_no - 2);  // rank r is on line r + 2
    m.left[m.n] = strdup(line);
    m.right[m.n] = strdup(sp + 1);
    m.n++;
  }
  fclose(fp);
  assert_int_equal(m.n, 50000);
  return m;
}

static void free_merges(merge_list *m) {
  for (int i = 0; i < m->n; i++) free(m->left[i]), free(m->right[i]);
  free(m->left);
  free(m->right);
}

static int naive_rank(const merge_list *m, const char *l, const char *r) {
  for (int i = 0; i < m->n; i++)
    if (strcmp(m->left[i], l) == 0 && strcmp(m->right[i], r) == 0) return i;
  return -1;
}

typedef struct {
  char text[64][320];  // "left|right|merged|rank"
  int n;
} step_log;

static void log_step(void *ctx, const tt_merge_step *s) {
  step_log *log = ctx;
  assert_int_equal(s->step, log->n + 1);
  snprintf(log->text[log->n++], sizeof log->text[0], "%s|%s|%s|%d", s->left, s->right, s->merged, s->rank);
}

// encoder.py's bpe() on a word spelled in byte-to-unicode characters (split by character).
static void naive_bpe(const merge_list *m, const char *spelled, step_log *log) {
  char parts[128][128];
  int n = 0;
  for (const char *p = spelled; *p;) {
    int k = 1;
    while ((p[k] & 0xC0) == 0x80) k++;
    snprintf(parts[n++], sizeof parts[0], "%.*s", k, p);
    p += k;
  }
  log->n = 0;
  while (n > 1) {
    int best = -1, at = -1;
    for (int i = 0; i + 1 < n; i++) {
      int r = naive_rank(m, parts[i], parts[i + 1]);
      if (r >= 0 && (best < 0 || r < best)) best = r, at = i;
    }
    if (best < 0) break;
    char a[64], b[64];
    snprintf(a, sizeof a, "%.63s", parts[at]);
    snprintf(b, sizeof b, "%.63s", parts[at + 1]);
    int j = 0;
    for (int i = 0; i < n;) {
      if (i + 1 < n && strcmp(parts[i], a) == 0 && strcmp(parts[i + 1], b) == 0) {
        snprintf(parts[j++], sizeof parts[0], "%s%s", a, b);
        i += 2;
      } else {
        if (j != i) memcpy(parts[j], parts[i], sizeof parts[0]);
        j++, i++;
      }
    }
    n = j;
    snprintf(log->text[log->n++], sizeof log->text[0], "%s|%s|%s%s|%d", a, b, a, b, best);
  }
}

static void check_merges(const tt_tokenizer *tok, const merge_list *m, const char *word) {
  step_log got = {.n = 0}, want;
  int32_t *ids;
  int n;
  tt_error err = {0};
  assert_int_equal(tt_tokenizer_bpe(tok, word, strlen(word), &ids, &n, log_step, &got, &err), TT_OK);
  char spelled[512];
  tt_tokenizer_spell(tok, word, strlen(word), spelled, sizeof spelled);
  naive_bpe(m, spelled, &want);
  if (got.n != want.n) fail_msg("\"%s\": %d steps, naive BPE has %d", word, got.n, want.n);
  int last_rank = -1;
  for (int i = 0; i < got.n; i++) {
    assert_string_equal(got.text[i], want.text[i]);
    int rank = atoi(strrchr(got.text[i], '|') + 1);
    assert_true(rank > last_rank);  // each merge's pair did not exist or ranked higher before
    last_rank = rank;
  }
  free(ids);
}

static void test_merges_weather(void **state) {
  const tt_tokenizer *tok = *state;
  merge_list m = read_merges();
  // "weather": the steps and ranks, each rank checked against its line in merges.txt
  step_log got = {.n = 0};
  int32_t *ids;
  int n;
  tt_error err = {0};
  assert_int_equal(tt_tokenizer_encode(tok, "weather", 7, &ids, &n, log_step, &got, &err), TT_OK);
  assert_true(got.n >= 3);
  char last[128];
  for (int i = 0; i < got.n; i++) {
    char l[64], r[64], merged[128];
    int rank;
    assert_int_equal(sscanf(got.text[i], "%63[^|]|%63[^|]|%127[^|]|%d", l, r, merged, &rank), 4);
    assert_int_equal(naive_rank(&m, l, r), rank);
    char joined[128];
    snprintf(joined, sizeof joined, "%s%s", l, r);
    assert_string_equal(merged, joined);
    snprintf(last, sizeof last, "%s", merged);
  }
  assert_string_equal(last, "weather");
  assert_int_equal(n, 1);
  assert_string_equal(tt_tokenizer_token_spelling(tok, ids[0]), "weather");
  free(ids);
  const char *words[] = {"weather",      " weather", "The",
                         "aaaa",         "aaaaaaa",  " internationalization",
                         "Transformers", " 12345",   "\xEC\xB2\xA0\xEC\x88\x98\xEB\x8A\x94",
                         "    ",         "!!!!!!"};
  for (size_t i = 0; i < sizeof words / sizeof *words; i++) check_merges(tok, &m, words[i]);
  free_merges(&m);
}

// A pre-token's steps all carry the same pre-token spelling.
static void check_pretoken(void *ctx, const tt_merge_step *s) {
  assert_string_equal(s->pretoken, (const char *)ctx);
}

static void test_merge_pretoken(void **state) {
  int32_t *ids;
  int n;
  tt_error err = {0};
  assert_int_equal(tt_tokenizer_encode(*state, " weather", 8, &ids, &n, check_pretoken, "\xC4\xA0weather", &err),
                   TT_OK);
  free(ids);
}

static void test_pretokenize(void **state) {
  const struct {
    const char *text;
    const char *pieces[8];
  } cases[] = {
      {"a   b", {"a", "  ", " b"}},
      {"I'm they'll", {"I", "'m", " they", "'ll"}},
      {"2024\xEB\x85\x84", {"2024", "\xEB\x85\x84"}},
      {"x \xE1\xA0\x8E"
       "y",
       {"x", " \xE1\xA0\x8E", "y"}},                 // U+180E is not White_Space
      {"x \xC2\x85y", {"x", " ", "\xC2\x85", "y"}},  // U+0085 is
      {"end  ", {"end", "  "}},
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    tt_span *spans;
    int n;
    tt_error err = {0};
    const char *t = cases[c].text;
    assert_int_equal(tt_tokenizer_pretokenize(*state, t, strlen(t), &spans, &n, &err), TT_OK);
    int want = 0;
    while (want < 8 && cases[c].pieces[want]) want++;
    assert_int_equal(n, want);
    for (int i = 0; i < n; i++) {
      assert_int_equal(spans[i].len, strlen(cases[c].pieces[i]));
      assert_memory_equal(t + spans[i].offset, cases[c].pieces[i], spans[i].len);
    }
    free(spans);
  }
}

// A Hangul syllable is 3 bytes; GPT-2 often splits it across tokens.
static void test_display_split_hangul(void **state) {
  const tt_tokenizer *tok = *state;
  int32_t *ids;
  int n;
  encode_ok(tok, "\xEB\x82\x98", 3, &ids, &n);  // 나 = EB 82 98
  assert_true(n >= 2);
  char all[64] = "", buf[64];
  for (int i = 0; i < n; i++) strcat(all, tt_tokenizer_token_display(tok, ids[i], buf, sizeof buf));
  assert_string_equal(all, "\\xEB\\x82\\x98");
  free(ids);
  // the first piece of "철수는" in the fixture is id 168 (byte EC): shown as \xEC
  assert_string_equal(tt_tokenizer_token_display(tok, 168, buf, sizeof buf), "\\xEC");
  // a piece with a whole character and half of another: " \xEC" is id 23821
  assert_string_equal(tt_tokenizer_token_display(tok, 23821, buf, sizeof buf), " \\xEC");
  assert_string_equal(tt_tokenizer_token_visible(tok, 23821, buf, sizeof buf), "\xE2\x90\xA3\\xEC");
}

static void test_display(void **state) {
  const tt_tokenizer *tok = *state;
  char buf[64];
  assert_string_equal(tt_tokenizer_token_display(tok, 6193, buf, sizeof buf), " weather");
  assert_string_equal(tt_tokenizer_token_visible(tok, 6193, buf, sizeof buf), "\xE2\x90\xA3weather");
  assert_string_equal(tt_tokenizer_token_display(tok, 198, buf, sizeof buf), "\\n");    // "Ċ"
  assert_string_equal(tt_tokenizer_token_display(tok, 197, buf, sizeof buf), "\\t");    // "ĉ"
  assert_string_equal(tt_tokenizer_token_display(tok, 188, buf, sizeof buf), "\\x00");  // "Ā"
  assert_string_equal(tt_tokenizer_token_display(tok, 99999, buf, sizeof buf), "<id 99999>");
  // a short buffer cuts at a character boundary
  assert_string_equal(tt_tokenizer_token_visible(tok, 6193, buf, 5), "\xE2\x90\xA3w");
  assert_string_equal(tt_tokenizer_token_visible(tok, 6193, buf, 3), "");
  assert_string_equal(tt_tokenizer_spell(tok, " a\n", 3, buf, sizeof buf),
                      "\xC4\xA0"
                      "a\xC4\x8A");
  const int32_t bad[] = {464, 70000};
  assert_null(tt_tokenizer_decode(tok, bad, 2));
}

// ---- bad tokenizer folders ------------------------------------------------------------
static void write_file(const char *dir, const char *name, const char *text) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *fp = fopen(path, "w");
  assert_non_null(fp);
  fputs(text, fp);
  fclose(fp);
}

// A tiny byte-level vocabulary: the 256 byte tokens plus the given extra JSON entries.
static char *tiny_vocab(const char *extra) {
  static const char hex[] = "0123456789abcdef";
  size_t cap = 256 * 16 + strlen(extra) + 8, at = 0;
  char *s = malloc(cap);
  s[at++] = '{';
  for (int b = 0; b < 256; b++) {
    // the byte's code point in GPT-2's table
    int cp = b, next = 256;
    for (int x = 0; x <= b; x++) {
      bool printable = (x >= 0x21 && x <= 0x7E) || (x >= 0xA1 && x <= 0xAC) || (x >= 0xAE);
      if (!printable) {
        if (x == b) cp = next;
        next++;
      }
    }
    at += (size_t)snprintf(s + at, cap - at, "%s\"\\u%c%c%c%c\":%d", b ? "," : "", hex[cp >> 12 & 15],
                           hex[cp >> 8 & 15], hex[cp >> 4 & 15], hex[cp & 15], b);
  }
  at += (size_t)snprintf(s + at, cap - at, "%s}", extra);
  return s;
}

static void expect_load_error(const char *dir, tt_status want, const char *needle) {
  tt_tokenizer *tok = (tt_tokenizer *)1;
  tt_error err = {0};
  assert_int_equal(tt_tokenizer_load(dir, &tok, &err), want);
  assert_null(tok);
  if (!strstr(err.msg, needle)) fail_msg("message \"%s\" lacks \"%s\"", err.msg, needle);
}

static void test_bad_files(void **state) {
  (void)state;
  char dir[] = "/tmp/tt_tok_XXXXXX";
  assert_non_null(mkdtemp(dir));
  expect_load_error(dir, TT_ERR_IO, "vocab.json");  // nothing there
  char *vocab = tiny_vocab(",\"ab\":256,\"abc\":257");
  write_file(dir, "vocab.json", vocab);
  expect_load_error(dir, TT_ERR_IO, "merges.txt");
  write_file(dir, "merges.txt", "#version: 0.2\na b\nab c\n");
  tt_tokenizer *tok = NULL;
  tt_error err = {0};
  assert_int_equal(tt_tokenizer_load(dir, &tok, &err), TT_OK);
  int32_t *ids;
  int n;
  encode_ok(tok, "abc abd", 7, &ids, &n);  // "abc" | " abd": a+b, then ab+c; " " and "d" stay
  const int32_t want[] = {257, ' ', 256, 'd'};
  assert_int_equal(n, 4);
  assert_memory_equal(ids, want, sizeof want);
  free(ids);
  tt_tokenizer_destroy(tok);
  write_file(dir, "merges.txt", "#version: 0.2\na b\nab x\n");
  expect_load_error(dir, TT_ERR_FORMAT, "merges.txt:3");
  write_file(dir, "merges.txt", "#version: 0.2\na b c\n");
  expect_load_error(dir, TT_ERR_FORMAT, "merges.txt:2");
  write_file(dir, "merges.txt", "#version: 0.2\na b\n");
  write_file(dir, "vocab.json", "{\"a\": 0,");
  expect_load_error(dir, TT_ERR_FORMAT, "bad JSON");
  write_file(dir, "vocab.json", "{\"a\": 0, \"b\": 1}");
  expect_load_error(dir, TT_ERR_FORMAT, "single byte");
  write_file(dir, "vocab.json", "{\"a\": 0, \"b\": 5}");
  expect_load_error(dir, TT_ERR_FORMAT, "\"b\"");
  write_file(dir, "vocab.json", "[1, 2]");
  expect_load_error(dir, TT_ERR_FORMAT, "object");
  free(vocab);
  char path[4096];
  snprintf(path, sizeof path, "%s/vocab.json", dir);
  unlink(path);
  snprintf(path, sizeof path, "%s/merges.txt", dir);
  unlink(path);
  rmdir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_vocab),
      cmocka_unit_test(test_weather),
      cmocka_unit_test(test_fixture),
      cmocka_unit_test(test_invalid_utf8),
      cmocka_unit_test(test_empty),
      cmocka_unit_test(test_nul_byte),
      cmocka_unit_test(test_round_trip_random),
      cmocka_unit_test(test_merges_weather),
      cmocka_unit_test(test_merge_pretoken),
      cmocka_unit_test(test_pretokenize),
      cmocka_unit_test(test_display_split_hangul),
      cmocka_unit_test(test_display),
      cmocka_unit_test(test_bad_files),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
