// decode: ids → bytes, spellings and display strings.
#include <stdlib.h>
#include <string.h>

#include "tokenizer_internal.h"

static bool known(const tt_tokenizer *tok, int32_t id) {
  return id >= 0 && id < tok->n_vocab;
}

const char *tt_tokenizer_token_bytes(const tt_tokenizer *tok, int32_t id, size_t *len) {
  if (!known(tok, id)) return NULL;
  *len = tok->nbytes[id];
  return tok->bytes[id];
}

const char *tt_tokenizer_token_spelling(const tt_tokenizer *tok, int32_t id) {
  return known(tok, id) ? tok->spelling[id] : NULL;
}

// Appends s (n bytes) when it fits whole; false when it does not.
static bool put(char *buf, size_t cap, size_t *at, const char *s, size_t n) {
  if (*at + n + 1 > cap) return false;
  memcpy(buf + *at, s, n);
  *at += n;
  buf[*at] = 0;
  return true;
}

const char *tt_tokenizer_spell(const tt_tokenizer *tok, const char *bytes, size_t n, char *buf, size_t cap) {
  if (cap == 0) return buf;
  buf[0] = 0;
  size_t at = 0;
  for (size_t i = 0; i < n; i++) {
    const char *c = tok->table.utf8[(unsigned char)bytes[i]];
    if (!put(buf, cap, &at, c, strlen(c))) break;
  }
  return buf;
}

static const char *display_bytes(const char *s, size_t n, char *buf, size_t cap, bool visible) {
  if (cap == 0) return buf;
  buf[0] = 0;
  size_t at = 0;
  for (size_t i = 0; i < n;) {
    uint32_t cp;
    int k = tt_utf8_decode(s + i, n - i, &cp);
    char esc[8];
    const char *out = s + i;
    size_t len = (size_t)k;
    if (k == 0) {  // a byte that is not a whole UTF-8 character: \xNN
      snprintf(esc, sizeof esc, "\\x%02X", (unsigned char)s[i]);
      out = esc, len = 4, k = 1;
    } else if (cp == '\n' || cp == '\t' || cp == '\r') {
      out = cp == '\n' ? "\\n" : cp == '\t' ? "\\t" : "\\r", len = 2;
    } else if (cp < 0x20 || cp == 0x7F) {
      snprintf(esc, sizeof esc, "\\x%02X", (unsigned)cp);
      out = esc, len = 4;
    } else if (visible && cp == ' ') {
      out = "\xE2\x90\xA3", len = 3;  // U+2423 OPEN BOX
    }
    if (!put(buf, cap, &at, out, len)) break;
    i += (size_t)k;
  }
  return buf;
}

static const char *display(const tt_tokenizer *tok, int32_t id, char *buf, size_t cap, bool visible) {
  if (cap > 0 && !known(tok, id)) {
    snprintf(buf, cap, "<id %d>", (int)id);
    return buf;
  }
  return display_bytes(tok->bytes[id], tok->nbytes[id], buf, cap, visible);
}

const char *tt_tokenizer_spelling_visible(const tt_tokenizer *tok, const char *spelling, char *buf, size_t len) {
  size_t n = strlen(spelling);
  char *raw = malloc(n + 1);
  if (!raw) {
    if (len) buf[0] = 0;
    return buf;
  }
  // Byte-to-unicode characters back to their bytes; other characters stay as they are.
  size_t k = 0;
  for (size_t i = 0; i < n;) {
    uint32_t cp;
    int c = tt_utf8_decode(spelling + i, n - i, &cp);
    if (c == 0) c = 1, cp = 0xFFFFFFFFu;
    if (cp < TT_BYTE_CP_LIMIT && tok->table.byte[cp] >= 0)
      raw[k++] = (char)tok->table.byte[cp];
    else
      memcpy(raw + k, spelling + i, (size_t)c), k += (size_t)c;
    i += (size_t)c;
  }
  display_bytes(raw, k, buf, len, true);
  free(raw);
  return buf;
}

const char *tt_tokenizer_token_display(const tt_tokenizer *tok, int32_t id, char *buf, size_t len) {
  return display(tok, id, buf, len, false);
}

const char *tt_tokenizer_token_visible(const tt_tokenizer *tok, int32_t id, char *buf, size_t len) {
  return display(tok, id, buf, len, true);
}

char *tt_tokenizer_decode(const tt_tokenizer *tok, const int32_t *ids, int n) {
  size_t total = 0;
  for (int i = 0; i < n; i++) {
    if (!known(tok, ids[i])) return NULL;
    total += tok->nbytes[ids[i]];
  }
  char *out = malloc(total + 1);
  if (!out) return NULL;
  size_t at = 0;
  for (int i = 0; i < n; i++) {
    memcpy(out + at, tok->bytes[ids[i]], tok->nbytes[ids[i]]);
    at += tok->nbytes[ids[i]];
  }
  out[at] = 0;
  return out;
}
