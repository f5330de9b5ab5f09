// utf8: validation and decoding (strict: no overlongs, no surrogates, max U+10FFFF).
#include <string.h>

#include "core.h"

int tt_utf8_decode(const char *str, size_t len, uint32_t *cp) {
  const unsigned char *s = (const unsigned char *)str;
  if (len == 0) return 0;
  if (s[0] < 0x80) {
    *cp = s[0];
    return 1;
  }
  int n;
  uint32_t c, min;
  if ((s[0] & 0xe0) == 0xc0)
    n = 2, c = s[0] & 0x1f, min = 0x80;
  else if ((s[0] & 0xf0) == 0xe0)
    n = 3, c = s[0] & 0x0f, min = 0x800;
  else if ((s[0] & 0xf8) == 0xf0)
    n = 4, c = s[0] & 0x07, min = 0x10000;
  else
    return 0;
  if ((size_t)n > len) return 0;
  for (int i = 1; i < n; i++) {
    if ((s[i] & 0xc0) != 0x80) return 0;
    c = (c << 6) | (s[i] & 0x3f);
  }
  if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) return 0;
  *cp = c;
  return n;
}

bool tt_utf8_valid(const char *s, size_t len, size_t *bad_offset) {
  size_t i = 0;
  while (i < len) {
    uint32_t cp;
    int n = tt_utf8_decode(s + i, len - i, &cp);
    if (n == 0) {
      if (bad_offset) *bad_offset = i;
      return false;
    }
    i += (size_t)n;
  }
  return true;
}

size_t tt_utf8_length(const char *s) {
  size_t n = 0;
  for (; *s; s++)
    if (((unsigned char)*s & 0xc0) != 0x80) n++;
  return n;
}

int tt_utf8_columns(const char *s) {
  int w = 0;
  size_t len = strlen(s);
  for (size_t i = 0; i < len;) {
    uint32_t cp;
    int k = tt_utf8_decode(s + i, len - i, &cp);
    if (k == 0) k = 1, cp = '?';
    bool wide = (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) || (cp >= 0xAC00 && cp <= 0xD7A3) ||
                (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFF00 && cp <= 0xFF60) || (cp >= 0xFFE0 && cp <= 0xFFE6) ||
                (cp >= 0x1F300 && cp <= 0x1FAFF) || (cp >= 0x20000 && cp <= 0x3FFFD);
    bool zero = (cp >= 0x300 && cp <= 0x36F) || cp == 0x200D || (cp >= 0xFE00 && cp <= 0xFE0F);
    w += zero ? 0 : wide ? 2 : 1;
    i += (size_t)k;
  }
  return w;
}

// A lead byte and up to two of its continuation bytes begin a character when some ending
// completes them: the decoder is asked with the endings that meet every lead's range for
// the second byte (E0: A0.., ED: ..9F, F0: 90.., F4: ..8F) and 80 after it.
static bool begins_character(const unsigned char *s, size_t k) {
  static const unsigned char second[] = {0x80, 0x90, 0xA0};
  for (size_t t = 0; t < sizeof second; t++) {
    unsigned char buf[4];
    memcpy(buf, s, k);
    for (size_t i = k; i < 4; i++) buf[i] = i == 1 ? second[t] : 0x80;
    uint32_t cp;
    int n = tt_utf8_decode((const char *)buf, 4, &cp);
    if ((size_t)n > k) return true;
  }
  return false;
}

size_t tt_utf8_incomplete_tail(const char *str, size_t len) {
  const unsigned char *s = (const unsigned char *)str;
  for (size_t k = 1; k <= 3 && k <= len; k++) {
    const unsigned char *lead = s + len - k;
    if ((lead[0] & 0xc0) == 0x80) continue;  // a continuation byte: its lead is further back
    return lead[0] >= 0xc0 && begins_character(lead, k) ? k : 0;
  }
  return 0;
}
