// Text arriving in pieces (src/core/utf8.c, escape.c): tt_utf8_incomplete_tail against every
// string of up to 3 bytes, judged by an oracle built here from the encoding itself (every
// code point encoded, every proper prefix of an encoding marked); tt_utf8_escape_invalid_dup
// keeps whole characters and writes each other byte as \xNN.
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/core.h"

// UTF-8 of code point c into out; returns its length (RFC 3629's table).
static int encode(uint32_t c, unsigned char out[4]) {
  if (c < 0x80) return out[0] = (unsigned char)c, 1;
  if (c < 0x800) return out[0] = 0xC0 | c >> 6, out[1] = 0x80 | (c & 0x3F), 2;
  if (c < 0x10000) return out[0] = 0xE0 | c >> 12, out[1] = 0x80 | (c >> 6 & 0x3F), out[2] = 0x80 | (c & 0x3F), 3;
  out[0] = 0xF0 | c >> 18, out[1] = 0x80 | (c >> 12 & 0x3F), out[2] = 0x80 | (c >> 6 & 0x3F),
  out[3] = 0x80 | (c & 0x3F);
  return 4;
}

// A string of k bytes (1..3) as an index into the oracle's bitmaps.
static uint32_t key(const unsigned char *s, int k) {
  uint32_t v = 0;
  for (int i = 0; i < k; i++) v = v << 8 | s[i];
  return v;
}

typedef struct {
  unsigned char *prefix[4];  // prefix[k]: bit key(s) set when s (k bytes) begins an encoding without ending it
} oracle;

static void mark(unsigned char *bits, uint32_t v) {
  bits[v >> 3] |= (unsigned char)(1u << (v & 7));
}

static bool marked(const unsigned char *bits, uint32_t v) {
  return bits[v >> 3] >> (v & 7) & 1;
}

static oracle make_oracle(void) {
  oracle o;
  for (int k = 1; k <= 3; k++) o.prefix[k] = calloc((size_t)1 << (8 * k - 3), 1);
  for (uint32_t c = 0; c <= 0x10FFFF; c++) {
    if (c >= 0xD800 && c <= 0xDFFF) continue;  // surrogates are not characters
    unsigned char e[4];
    int n = encode(c, e);
    for (int k = 1; k < n; k++) mark(o.prefix[k], key(e, k));
  }
  return o;
}

// The expected tail of s (len bytes): the one suffix of up to 3 bytes that begins an encoding
// without ending it, or none.
static size_t expected_tail(const oracle *o, const unsigned char *s, size_t len) {
  for (size_t k = 1; k <= 3 && k <= len; k++)
    if (marked(o->prefix[k], key(s + len - k, (int)k))) return k;
  return 0;
}

static void test_incomplete_tail_every_short_string(void **state) {
  (void)state;
  oracle o = make_oracle();
  size_t tails[4] = {0};
  for (uint32_t v = 0; v < (1u << 24); v++) {  // every 3-byte string, and its last 1 and 2 bytes
    unsigned char s[3] = {(unsigned char)(v >> 16), (unsigned char)(v >> 8), (unsigned char)v};
    for (size_t len = 1; len <= 3; len++) {
      if (len < 3 && (v >> (8 * len)) != 0) continue;  // each shorter string once
      const unsigned char *t = s + 3 - len;
      size_t want = expected_tail(&o, t, len), got = tt_utf8_incomplete_tail((const char *)t, len);
      if (got != want) fail_msg("tail of %zu bytes %06X: %zu, want %zu", len, (unsigned)v, got, want);
      tails[want]++;
    }
  }
  assert_true(tails[1] > 0 && tails[2] > 0 && tails[3] > 0);  // the oracle is not empty
  assert_int_equal(tt_utf8_incomplete_tail("", 0), 0);
  assert_int_equal(tt_utf8_incomplete_tail("\xEC\x98\xA4\xEC\x98", 5), 2);  // 오 then half of one
  assert_int_equal(tt_utf8_incomplete_tail("\xF0\x9F\x98\x80", 4), 0);      // a whole emoji
  for (int k = 1; k <= 3; k++) free(o.prefix[k]);
}

static void test_escape_invalid_keeps_characters(void **state) {
  (void)state;
  const char in[] = "I\n\xEC\x98\xA4\xEC\x98 \xFF\t\x01\xC2\x80";  // 오, half a syllable, FF, controls, U+0080
  char *out = tt_utf8_escape_invalid_dup(in, sizeof in - 1);
  assert_non_null(out);
  assert_string_equal(out, "I\n\xEC\x98\xA4\\xEC\\x98 \\xFF\t\x01\xC2\x80");
  size_t bad;
  assert_true(tt_utf8_valid(out, strlen(out), &bad));
  free(out);
  out = tt_utf8_escape_invalid_dup("", 0);
  assert_string_equal(out, "");
  free(out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_incomplete_tail_every_short_string),
      cmocka_unit_test(test_escape_invalid_keeps_characters),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
