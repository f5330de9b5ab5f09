// token_text: the prompt's tokens as a learner reads them. Byte-level BPE splits a
// multi-byte character (a Hangul syllable is 3 bytes) across tokens; such a token is
// labelled with its bytes and the character they help spell (tokenizer.h, tt_bytes_label:
// "‹EB 82:나›"), and the tokens view brackets the tokens of one character under it.
#include <string.h>

#include "render_int.h"
#include "tokenizer/tokenizer.h"

size_t tt_token_bytes(const tt_trace *tr, int i, char *buf, size_t cap) {
  if (i < 0 || i >= tt_trace_n_tokens(tr)) return 0;
  const char *s = tt_trace_token(tr, i);
  return s ? tt_bytes_unescape(s, buf, cap) : 0;
}

// Up to 3 bytes of the text just before token i (or, after: just after it).
static size_t context(const tt_trace *tr, int i, bool after, char out[3]) {
  char tmp[3 * 64], b[256];
  size_t n = 0;
  for (int k = after ? i + 1 : i - 1; k >= 0 && k < tt_trace_n_tokens(tr) && n < 3; k += after ? 1 : -1) {
    size_t total = tt_token_bytes(tr, k, b, sizeof b), m = total > 3 ? 3 : total;
    if (after) {
      memcpy(tmp + n, b, m);  // its first bytes follow what is there
    } else {
      memmove(tmp + m, tmp, n);  // its last bytes go in front
      memcpy(tmp, b + total - m, m);
    }
    n += m;
  }
  if (n > 3) {
    if (!after) memmove(tmp, tmp + n - 3, 3);
    n = 3;
  }
  memcpy(out, tmp, n);
  return n;
}

const char *tt_token_label(const tt_trace *tr, int i, char *buf, size_t len) {
  char s[256], before[3], after[3];
  size_t n = tt_token_bytes(tr, i, s, sizeof s);
  size_t nb = context(tr, i, false, before), na = context(tr, i, true, after);
  return tt_bytes_label(before, nb, s, n, after, na, buf, len);
}

const char *tt_candidate_label(const tt_trace *tr, int pos, const char *display, char *buf, size_t len) {
  char s[256], before[3], tail[256];
  size_t n = tt_bytes_unescape(display, s, sizeof s), nb = 0;
  if (pos >= 0) {  // the candidate follows the prompt up to token pos
    nb = tt_token_bytes(tr, pos, tail, sizeof tail);
    if (nb >= 3) {
      memcpy(before, tail + nb - 3, 3);
      nb = 3;
    } else {
      char more[3];
      size_t m = context(tr, pos, false, more);
      size_t take = 3 - nb < m ? 3 - nb : m;
      memcpy(before, more + m - take, take);
      memcpy(before + take, tail, nb);
      nb += take;
    }
  }
  return tt_bytes_label(before, nb, s, n, "", 0, buf, len);
}

bool tt_token_splits_before(const tt_trace *tr, int i) {
  char b[256];
  if (i <= 0) return false;
  size_t n = tt_token_bytes(tr, i, b, sizeof b);
  return n > 0 && ((unsigned char)b[0] & 0xC0) == 0x80;
}
