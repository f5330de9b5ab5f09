// utf8_oracle: UTF-8 validity written from RFC 3629 (no overlong forms, no surrogates,
// nothing above U+10FFFF), independently of core's tt_utf8_valid.
#ifndef TT_FUZZ_UTF8_ORACLE_H
#define TT_FUZZ_UTF8_ORACLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline bool oracle_utf8_valid(const uint8_t *s, size_t n) {
  for (size_t i = 0; i < n;) {
    uint8_t c = s[i];
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (!len || i + len > n) return false;
    uint32_t cp = len == 1 ? c : c & (0x7F >> len);
    for (size_t k = 1; k < len; k++) {
      if ((s[i + k] & 0xC0) != 0x80) return false;
      cp = cp << 6 | (s[i + k] & 0x3F);
    }
    static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += len;
  }
  return true;
}

#endif
