// escape: text from files made safe to print on a terminal: every byte a terminal acts on
// (C0 controls, DEL, C1 controls, bytes that are not UTF-8) written as an escape; and bytes
// made valid UTF-8 for a JSON string (only the bytes that are not UTF-8 escaped).
#include <stdlib.h>
#include <string.h>

#include "core.h"

// The escape for the character at s (k bytes, code point cp, k 0 when not UTF-8) into esc;
// 0 when it prints as it is.
static int escape_one(const unsigned char *s, int k, uint32_t cp, bool keep_newlines, char esc[8]) {
  if (k == 0) return snprintf(esc, 8, "\\x%02X", s[0]);
  if (cp == '\n') return keep_newlines ? 0 : snprintf(esc, 8, "\\n");
  if (cp == '\t') return snprintf(esc, 8, "\\t");
  if (cp == '\r') return snprintf(esc, 8, "\\r");
  if (cp < 0x20 || cp == 0x7f) return snprintf(esc, 8, "\\x%02X", (unsigned)cp);
  if (cp >= 0x80 && cp <= 0x9f) return snprintf(esc, 8, "\\u%04X", (unsigned)cp);
  return 0;
}

const char *tt_escape_text(const char *src, char *dst, size_t cap, bool keep_newlines) {
  if (!cap) return dst;
  const unsigned char *s = (const unsigned char *)src;
  size_t len = strlen(src), j = 0;
  for (size_t i = 0; i < len;) {
    uint32_t cp = 0;
    int k = tt_utf8_decode((const char *)s + i, len - i, &cp);
    char esc[8];
    int n = escape_one(s + i, k, cp, keep_newlines, esc);
    size_t used = n ? (size_t)n : (size_t)k;
    if (j + used + 1 > cap) break;
    memcpy(dst + j, n ? esc : (const char *)s + i, used);
    j += used;
    i += k ? (size_t)k : 1;
  }
  dst[j] = 0;
  return dst;
}

char *tt_escape_text_dup(const char *s) {
  size_t cap = 6 * strlen(s) + 1;  // the longest escape, \u0080, is 6 bytes for 2
  char *out = malloc(cap);
  return out ? (char *)tt_escape_text(s, out, cap, false) : NULL;
}

char *tt_utf8_escape_invalid_dup(const char *src, size_t len) {
  char *out = malloc(4 * len + 1);  // at most \xNN for each byte
  if (!out) return NULL;
  size_t j = 0;
  for (size_t i = 0; i < len;) {
    uint32_t cp;
    int k = tt_utf8_decode(src + i, len - i, &cp);
    if (k == 0) {
      j += (size_t)snprintf(out + j, 5, "\\x%02X", (unsigned char)src[i]);
      i++;
    } else {
      memcpy(out + j, src + i, (size_t)k);
      j += (size_t)k, i += (size_t)k;
    }
  }
  out[j] = 0;
  char *fit = realloc(out, j + 1);  // kept as long as the trace: not at four times its length
  return fit ? fit : out;
}
