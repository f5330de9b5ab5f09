// encode: text → pre-tokens (PCRE2) → byte-pair merges by rank → token ids.
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "tokenizer_internal.h"

static tt_status check_text(const char *text, size_t len, tt_error *err) {
  size_t bad;
  if (len > INT_MAX) return tt_fail(err, TT_ERR_ARG, "text too long (%zu bytes)", len);
  if (!tt_utf8_valid(text, len, &bad))
    return tt_fail(err, TT_ERR_ARG, "text is not valid UTF-8 (bad byte 0x%02X at byte offset %zu)",
                   (unsigned char)text[bad], bad);
  return TT_OK;
}

typedef tt_status (*piece_fn)(void *ctx, size_t off, size_t len, tt_error *err);

// Splits text[off, off + len) by pre-tokenizer stage k and hands each piece on to stage
// k + 1, past the last stage to fn. Each stage sees only its piece, as in Hugging Face's
// Split; an ISOLATED stage keeps the text between matches as pieces too (GPT-2's pattern
// matches every character, so there is none), a REMOVED stage drops the matches.
static tt_status split_stage(const tt_tokenizer *tok, int k, pcre2_match_data **md, const char *text, size_t off,
                             size_t len, piece_fn fn, void *ctx, tt_error *err) {
  if (len == 0) return TT_OK;
  if (k == tok->n_stages) return fn(ctx, off, len, err);
  const tt_pretok_stage *s = &tok->stages[k];
  const char *sub = text + off;
  tt_status st = TT_OK;
  size_t pos = 0, gap = 0;  // gap: where the text not yet handed on starts
  while (pos < len && st == TT_OK) {
    int rc = pcre2_match(s->re, (PCRE2_SPTR)sub, len, pos, PCRE2_NO_UTF_CHECK, md[k], NULL);
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) {
      PCRE2_UCHAR msg[256];
      pcre2_get_error_message(rc, msg, sizeof msg);
      return tt_fail(err, TT_ERR_ARG, "pre-tokenizer failed at byte offset %zu: %s", off + pos, (char *)msg);
    }
    const PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md[k]);
    size_t a = ov[0], b = ov[1];
    if (b <= a) {  // an empty match: step on by one character
      pos = a + 1;
      while (pos < len && ((unsigned char)sub[pos] & 0xC0) == 0x80) pos++;
      continue;
    }
    if (a > gap) st = split_stage(tok, k + 1, md, text, off + gap, a - gap, fn, ctx, err);
    if (!st && s->kind == TT_SPLIT_ISOLATED) st = split_stage(tok, k + 1, md, text, off + a, b - a, fn, ctx, err);
    gap = pos = b;
  }
  if (!st && gap < len) st = split_stage(tok, k + 1, md, text, off + gap, len - gap, fn, ctx, err);
  return st;
}

// The longest non-special added token that text starts with, or NULL.
static const tt_added_token *added_at(const tt_tokenizer *tok, const char *text, size_t len) {
  const tt_added_token *best = NULL;
  for (int i = 0; i < tok->n_added; i++) {
    const tt_added_token *a = &tok->added[i];
    if (!a->special && a->len <= len && (!best || a->len > best->len) && memcmp(text, a->content, a->len) == 0) best = a;
  }
  return best;
}

// Calls fn for each pre-token of text (already checked as UTF-8): the non-special added
// tokens are found first (leftmost, longest), each a piece of its own; the text between
// them goes through the pre-tokenizer stages.
static tt_status split(const tt_tokenizer *tok, const char *text, size_t len, piece_fn fn, void *ctx, tt_error *err) {
  pcre2_match_data *md[TT_MAX_STAGES] = {0};
  tt_status st = TT_OK;
  for (int k = 0; k < tok->n_stages && !st; k++)
    if (!(md[k] = pcre2_match_data_create_from_pattern(tok->stages[k].re, NULL))) st = tt_fail(err, TT_ERR_NOMEM, "out of memory");
  size_t seg = 0;  // the start of the text since the last added token
  for (size_t i = 0; i < len && !st;) {
    const tt_added_token *a = tok->n_added ? added_at(tok, text + i, len - i) : NULL;
    if (!a) {
      i++;
      continue;
    }
    st = split_stage(tok, 0, md, text, seg, i - seg, fn, ctx, err);
    if (!st) st = fn(ctx, i, a->len, err);
    seg = i += a->len;
  }
  if (!st) st = split_stage(tok, 0, md, text, seg, len - seg, fn, ctx, err);
  for (int k = 0; k < tok->n_stages; k++) pcre2_match_data_free(md[k]);
  return st;
}

// Byte-pair merges inside one pre-token, in place: w holds n ids (one per byte at first);
// returns the new count. Each round merges every left-to-right occurrence of the pair with
// the lowest rank, as encoder.py's bpe() does. spelled is the pre-token's spelling for on_merge.
static int merge_word(const tt_tokenizer *tok, int32_t *w, int n, tt_merge_fn on_merge, void *ctx,
                      const char *spelled) {
  int step = 0;
  while (n > 1) {
    int32_t best_rank = INT32_MAX, merged = -1, rank, m;
    int first = -1;
    for (int i = 0; i + 1 < n; i++)
      if (tt_tokenizer_find_pair(tok, w[i], w[i + 1], &rank, &m) && rank < best_rank)
        best_rank = rank, merged = m, first = i;
    if (first < 0) break;
    int32_t a = w[first], b = w[first + 1];
    int j = first;
    for (int i = first; i < n;) {
      if (i + 1 < n && w[i] == a && w[i + 1] == b) {
        w[j++] = merged;
        i += 2;
      } else {
        w[j++] = w[i++];
      }
    }
    n = j;
    if (on_merge) {
      tt_merge_step s = {spelled, tok->spelling[a], tok->spelling[b], tok->spelling[merged], best_rank, ++step};
      on_merge(ctx, &s);
    }
  }
  return n;
}

// The state of one encode call: ids (room for one per byte) and the spelling buffer.
typedef struct {
  const tt_tokenizer *tok;
  const unsigned char *text;
  int32_t *ids;
  int n;
  tt_merge_fn on_merge;
  void *ctx;
  char *spelled;  // room for 2 bytes per text byte + NUL, when on_merge or ignore_merges is set
} encode_state;

// One pre-token → ids: an added token is its id; with ignore_merges a pre-token that is a
// whole vocabulary entry is that entry; otherwise its bytes, merged.
static tt_status encode_piece(void *p, size_t off, size_t len, tt_error *err) {
  (void)err;
  encode_state *e = p;
  const tt_tokenizer *tok = e->tok;
  int32_t *w = e->ids + e->n;
  const tt_added_token *a = tok->n_added ? added_at(tok, (const char *)e->text + off, len) : NULL;
  if (a && a->len == len) {
    e->ids[e->n++] = a->id;
    return TT_OK;
  }
  for (size_t i = 0; i < len; i++) w[i] = tok->byte_id[e->text[off + i]];
  if (e->spelled) {
    char *q = e->spelled;
    for (size_t i = 0; i < len; i++)
      for (const char *c = tok->table.utf8[e->text[off + i]]; *c; c++) *q++ = *c;
    *q = 0;
  }
  int32_t whole = tok->ignore_merges && len > 1 ? tt_tok_lookup(tok, e->spelled) : -1;
  if (whole >= 0) {
    e->ids[e->n++] = whole;
    return TT_OK;
  }
  e->n += merge_word(tok, w, (int)len, e->on_merge, e->ctx, e->spelled);
  return TT_OK;
}

static tt_status encode_bytes(const tt_tokenizer *tok, const char *text, size_t len, bool whole_piece,
                              int32_t **ids, int *n, tt_merge_fn on_merge, void *ctx, tt_error *err) {
  *ids = NULL;
  *n = 0;
  bool spell = on_merge || tok->ignore_merges;
  encode_state e = {tok, (const unsigned char *)text, malloc((len ? len : 1) * sizeof(int32_t)), 0, on_merge,
                    ctx, spell ? malloc(2 * len + 1) : NULL};
  if (!e.ids || (spell && !e.spelled)) {
    free(e.ids);
    free(e.spelled);
    return tt_fail(err, TT_ERR_NOMEM, "out of memory encoding %zu bytes", len);
  }
  tt_status st = whole_piece ? (len ? encode_piece(&e, 0, len, err) : TT_OK)
                             : split(tok, text, len, encode_piece, &e, err);
  free(e.spelled);
  if (st != TT_OK) {
    free(e.ids);
    return st;
  }
  int32_t *shrunk = realloc(e.ids, (size_t)(e.n ? e.n : 1) * sizeof(int32_t));
  *ids = shrunk ? shrunk : e.ids;
  *n = e.n;
  return TT_OK;
}

tt_status tt_tokenizer_encode(const tt_tokenizer *tok, const char *text, size_t len, int32_t **ids, int *n,
                              tt_merge_fn on_merge, void *ctx, tt_error *err) {
  *ids = NULL;
  *n = 0;
  tt_status st = check_text(text, len, err);
  if (st != TT_OK) return st;
  return encode_bytes(tok, text, len, false, ids, n, on_merge, ctx, err);
}

tt_status tt_tokenizer_bpe(const tt_tokenizer *tok, const char *piece, size_t len, int32_t **ids, int *n,
                           tt_merge_fn on_merge, void *ctx, tt_error *err) {
  *ids = NULL;
  *n = 0;
  if (len > INT_MAX) return tt_fail(err, TT_ERR_ARG, "piece too long (%zu bytes)", len);
  return encode_bytes(tok, piece, len, true, ids, n, on_merge, ctx, err);
}

typedef struct {
  tt_span *spans;
  int n, cap;
} span_list;

static tt_status add_span(void *p, size_t off, size_t len, tt_error *err) {
  span_list *l = p;
  if (l->n == l->cap) {
    int cap = l->cap ? 2 * l->cap : 64;
    tt_span *grown = realloc(l->spans, (size_t)cap * sizeof *grown);
    if (!grown) return tt_fail(err, TT_ERR_NOMEM, "out of memory splitting text");
    l->spans = grown;
    l->cap = cap;
  }
  l->spans[l->n++] = (tt_span){off, len};
  return TT_OK;
}

tt_status tt_tokenizer_pretokenize(const tt_tokenizer *tok, const char *text, size_t len, tt_span **spans,
                                   int *n, tt_error *err) {
  *spans = NULL;
  *n = 0;
  tt_status st = check_text(text, len, err);
  if (st != TT_OK) return st;
  span_list l = {NULL, 0, 0};
  st = split(tok, text, len, add_span, &l, err);
  if (st != TT_OK) {
    free(l.spans);
    return st;
  }
  *spans = l.spans;
  *n = l.n;
  return TT_OK;
}
