// tokenizer_oracle: ids decode to exactly the given bytes (NUL bytes included): the tokens'
// bytes laid end to end, and tt_tokenizer_decode's text, both equal text[0..n).
#ifndef TT_FUZZ_TOKENIZER_ORACLE_H
#define TT_FUZZ_TOKENIZER_ORACLE_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tokenizer/tokenizer.h"

static inline bool fuzz_decodes_to(const tt_tokenizer *tok, const int32_t *ids, int k, const char *text, size_t n) {
  size_t at = 0;
  for (int i = 0; i < k; i++) {
    size_t len;
    const char *b = tt_tokenizer_token_bytes(tok, ids[i], &len);
    if (!b || len == 0 || at + len > n || memcmp(b, text + at, len)) return false;
    at += len;
  }
  if (at != n) return false;
  char *back = tt_tokenizer_decode(tok, ids, k);
  bool same = back && memcmp(back, text, n) == 0 && back[n] == 0;
  free(back);
  return same;
}

#endif
