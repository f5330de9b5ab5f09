// bytes_label: tokens that hold only part of a character, written so a learner can read
// them. Byte-level BPE splits a Hangul syllable (3 UTF-8 bytes) across tokens; a piece of
// a character is written as its bytes in hexadecimal inside ‹ › followed by the character
// it helps spell: ‹EB 82:나› is bytes EB 82 of 나 (U+B098). Where the neighbouring bytes
// are not known (a next-token candidate), the characters the piece may begin are given as
// a range, ‹EB:뀀…뿿›, or nothing when it begins none, ‹98›.
#include <string.h>

#include "tokenizer_internal.h"

static bool continuation(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

// Length of the UTF-8 sequence a lead byte starts (0: not a lead byte).
static int seq_len(unsigned char c) {
  return c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
}

typedef struct {
  char *buf;
  size_t cap, at;
} out_buf;

static void put(out_buf *o, const char *s, size_t n) {
  if (o->at + n + 1 > o->cap) {
    o->cap = o->at + 1;  // full: nothing more, not even part of a character
    return;
  }
  memcpy(o->buf + o->at, s, n);
  o->at += n;
  o->buf[o->at] = 0;
}

static void put_s(out_buf *o, const char *s) {
  put(o, s, strlen(s));
}

// One whole character (k bytes at s) as the views show it: a space as ␣, newline ↵, tab ⇥,
// other control characters as \xNN.
static void put_char(out_buf *o, const char *s, int k, uint32_t cp) {
  char esc[8];
  if (cp == ' ')
    put_s(o, "\xE2\x90\xA3");
  else if (cp == '\n')
    put_s(o, "\xE2\x86\xB5");
  else if (cp == '\t')
    put_s(o, "\xE2\x87\xA5");
  else if (cp < 0x20 || cp == 0x7F) {
    snprintf(esc, sizeof esc, "\\x%02X", (unsigned)cp);
    put_s(o, esc);
  } else
    put(o, s, (size_t)k);
}

// The UTF-8 encoding of a code point (not a surrogate, at most U+10FFFF); its length.
static int encode(uint32_t cp, char u[4]) {
  int n = 0;
  if (cp < 0x80) return u[0] = (char)cp, 1;
  if (cp < 0x800)
    u[n++] = (char)(0xC0 | cp >> 6);
  else if (cp < 0x10000)
    u[n++] = (char)(0xE0 | cp >> 12), u[n++] = (char)(0x80 | ((cp >> 6) & 0x3F));
  else
    u[n++] = (char)(0xF0 | cp >> 18), u[n++] = (char)(0x80 | ((cp >> 12) & 0x3F)),
    u[n++] = (char)(0x80 | ((cp >> 6) & 0x3F));
  u[n++] = (char)(0x80 | (cp & 0x3F));
  return n;
}

static void put_cp(out_buf *o, uint32_t cp) {
  char u[4];
  put(o, u, (size_t)encode(cp, u));
}

// The characters k bytes b (a lead byte and continuation bytes) may begin: the lowest and
// the highest code point whose encoding starts with them, among those the lead allows.
static bool completions(const unsigned char *b, int k, int len, uint32_t *lo, uint32_t *hi) {
  int shift = len == 2 ? 6 : len == 3 ? 12 : 18;
  uint32_t mask = len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07, base = (b[0] & mask) << shift;
  bool any = false;
  for (uint32_t cp = base; cp < base + (1u << shift) && cp < 0x110000; cp++) {
    char u[4];
    if ((cp >= 0xD800 && cp < 0xE000) || encode(cp, u) != len || memcmp(u, b, (size_t)k) != 0) continue;
    if (!any) *lo = cp;
    *hi = cp;
    any = true;
  }
  return any;
}

static bool hangul(uint32_t cp) {
  return cp >= 0xAC00 && cp <= 0xD7A3;
}

// ‹HEX HEX:what› for the bytes [from, to) of ctx, a part of the character at start (len
// bytes, or 0 when ctx does not hold its start).
static void put_part(out_buf *o, const unsigned char *ctx, size_t n_ctx, size_t start, int len, size_t from,
                     size_t to) {
  char hex[16];
  put_s(o, "\xE2\x80\xB9");  // ‹
  for (size_t i = from; i < to; i++) {
    snprintf(hex, sizeof hex, i > from ? " %02X" : "%02X", ctx[i]);
    put_s(o, hex);
  }
  uint32_t cp, lo, hi;
  if (len > 0 && start + (size_t)len <= n_ctx && tt_utf8_decode((const char *)ctx + start, (size_t)len, &cp) == len) {
    put_s(o, ":");
    put_cp(o, cp);
  } else if (len > 0 && start == from && completions(ctx + from, (int)(to - from), len, &lo, &hi)) {
    put_s(o, ":");
    if (hangul(lo) && hangul(hi)) {
      put_cp(o, lo);
      put_s(o, "\xE2\x80\xA6");  // …
      put_cp(o, hi);
    } else {
      snprintf(hex, sizeof hex, "U+%04X", lo);
      put_s(o, hex);
      put_s(o, "\xE2\x80\xA6");
      snprintf(hex, sizeof hex, "U+%04X", hi);
      put_s(o, hex);
    }
  }
  put_s(o, "\xE2\x80\xBA");  // ›
}

// Where the character holding byte j of ctx starts (its lead byte within 3 bytes before),
// and its length; *len 0 when j belongs to no character.
static size_t char_start(const unsigned char *ctx, size_t j, int *len) {
  size_t s = j;
  while (s > 0 && j - s < 3 && continuation(ctx[s])) s--;
  int L = seq_len(ctx[s]);
  if (continuation(ctx[j]) && (s == j || L == 0 || s + (size_t)L <= j)) {
    *len = 0;  // a continuation byte whose lead is not in sight
    return j;
  }
  *len = continuation(ctx[j]) || L > 0 ? L : ctx[j] < 0x80 ? 1 : 0;  // 0: a byte no character starts with
  return s;
}

const char *tt_bytes_label(const char *before, size_t nb, const char *s, size_t n, const char *after, size_t na,
                           char *buf, size_t cap) {
  out_buf o = {buf, cap, 0};
  if (cap) buf[0] = 0;
  if (nb > 3) before += nb - 3, nb = 3;
  if (na > 3) na = 3;
  unsigned char ctx[3 + 256 + 3];
  if (n > 256) n = 256;
  memcpy(ctx, before, nb);
  memcpy(ctx + nb, s, n);
  memcpy(ctx + nb + n, after, na);
  size_t n_ctx = nb + n + na, end = nb + n;
  for (size_t j = nb; j < end && o.at + 1 < o.cap;) {
    int len;
    size_t st = char_start(ctx, j, &len);
    uint32_t cp;
    if (len == 1 || (len > 1 && st == j && j + (size_t)len <= end &&
                     tt_utf8_decode((const char *)ctx + j, (size_t)len, &cp) == len)) {
      if (len == 1) cp = ctx[j];
      put_char(&o, (const char *)ctx + j, len, cp);
      j += (size_t)len;
      continue;
    }
    // Part of a character. Its bytes run from its lead at st over continuation bytes to e:
    // complete (e = st + len, a valid character), cut off where the known bytes end (a
    // candidate's last bytes), or not a character at all (one byte alone).
    size_t e = st + 1;
    while (len > 0 && e < n_ctx && e < st + (size_t)len && continuation(ctx[e])) e++;
    bool whole = len > 0 && e == st + (size_t)len && tt_utf8_decode((const char *)ctx + st, (size_t)len, &cp) == len;
    bool cut = len > 0 && e == n_ctx && e < st + (size_t)len;
    if (!whole && !cut) len = 0;
    size_t to = len > 0 ? (e < end ? e : end) : j + 1;
    put_part(&o, ctx, n_ctx, st, len, j, to);
    j = to;
  }
  return buf;
}

size_t tt_bytes_unescape(const char *display, char *out, size_t cap) {
  size_t k = 0;
  for (const char *p = display; *p && k < cap; p++) {
    unsigned v;
    if (p[0] == '\\' && p[1] == 'x' && sscanf(p + 2, "%2X", &v) == 1 && (v >= 0x80 || v < 0x20 || v == 0x7F) && p[2] &&
        p[3]) {
      out[k++] = (char)v;
      p += 3;
    } else if (p[0] == '\\' && (p[1] == 'n' || p[1] == 't' || p[1] == 'r')) {
      out[k++] = p[1] == 'n' ? '\n' : p[1] == 't' ? '\t' : '\r';
      p++;
    } else {
      out[k++] = *p;
    }
  }
  return k;
}

size_t tt_tokenizer_spelling_bytes(const tt_tokenizer *tok, const char *spelling, char *out, size_t cap) {
  size_t n = strlen(spelling), k = 0;
  for (size_t i = 0; i < n && k < cap;) {
    uint32_t cp;
    int c = tt_utf8_decode(spelling + i, n - i, &cp);
    if (c == 0) c = 1, cp = 0xFFFFFFFFu;
    if (cp < TT_BYTE_CP_LIMIT && tok->table.byte[cp] >= 0) {
      out[k++] = (char)tok->table.byte[cp];
    } else {
      size_t m = (size_t)c < cap - k ? (size_t)c : cap - k;
      memcpy(out + k, spelling + i, m);
      k += m;
    }
    i += (size_t)c;
  }
  return k;
}

void tt_merge_labels(const tt_tokenizer *tok, const tt_merge_step *s, char *left, char *right, char *merged,
                     size_t cap) {
  char pre[512], l[256], r[256];
  size_t np = tt_tokenizer_spelling_bytes(tok, s->pretoken, pre, sizeof pre);
  size_t nl = tt_tokenizer_spelling_bytes(tok, s->left, l, sizeof l);
  size_t nr = tt_tokenizer_spelling_bytes(tok, s->right, r, sizeof r);
  // Where the pair first stands in the pre-token: its neighbours complete the characters.
  size_t at = 0;
  bool found = false;
  for (size_t i = 0; !found && i + nl + nr <= np; i++)
    if (memcmp(pre + i, l, nl) == 0 && memcmp(pre + i + nl, r, nr) == 0) at = i, found = true;
  if (!found) {  // not in the pre-token (cannot happen for a real merge): no context
    np = 0;
    at = 0;
  }
  size_t end = found ? at + nl + nr : 0;
  tt_bytes_label(pre, at, l, nl, pre + at + nl, np - (at + nl < np ? at + nl : np), left, cap);
  tt_bytes_label(pre, at + nl, r, nr, pre + end, np - (end < np ? end : np), right, cap);
  char both[512];
  memcpy(both, l, nl);
  memcpy(both + nl, r, nr);
  tt_bytes_label(pre, at, both, nl + nr, pre + end, np - (end < np ? end : np), merged, cap);
}
