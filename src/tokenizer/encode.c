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
    if (!a->special && a->len <= len && (!best || a->len > best->len) && memcmp(text, a->content, a->len) == 0)
      best = a;
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
    if (!(md[k] = pcre2_match_data_create_from_pattern(tok->stages[k].re, NULL)))
      st = tt_fail(err, TT_ERR_NOMEM, "out of memory");
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

// ---- byte-pair merges in O(n log n) ------------------------------------------------
// The pieces of one pre-token form a linked list; every adjacent pair that has a merge is
// a candidate in a min-heap keyed by (rank, position). A round takes every candidate of
// the lowest rank and merges them left to right, skipping those a merge of this round
// already consumed; the pairs the round creates join the heap after it. That is
// encoder.py's bpe() (each round merges every left-to-right occurrence of the lowest-
// ranked pair), without rescanning the word for every merge.
typedef struct {
  int32_t rank, pos;    // pos: the list node of the pair's left piece
  int32_t left, right;  // the ids it joins, to recognise a candidate gone stale
  int32_t merged;
} bpe_candidate;

typedef struct {
  int32_t *id, *prev, *next;  // [n] the linked list; id -1 once a node is absorbed
  bpe_candidate *heap;        // [3n]: the pairs of the start plus two per merge
  bpe_candidate *fresh;       // [n]: the pairs made by the current round
  int n_heap, n_fresh;
  size_t cap;  // n the arrays have room for
} bpe_work;

static bool cand_less(const bpe_candidate *a, const bpe_candidate *b) {
  return a->rank != b->rank ? a->rank < b->rank : a->pos < b->pos;
}

static void heap_push(bpe_work *w, bpe_candidate c) {
  int i = w->n_heap++;
  while (i > 0 && cand_less(&c, &w->heap[(i - 1) / 2])) {
    w->heap[i] = w->heap[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  w->heap[i] = c;
}

static bpe_candidate heap_pop(bpe_work *w) {
  bpe_candidate top = w->heap[0], last = w->heap[--w->n_heap];
  int i = 0;
  for (;;) {
    int c = 2 * i + 1;
    if (c >= w->n_heap) break;
    if (c + 1 < w->n_heap && cand_less(&w->heap[c + 1], &w->heap[c])) c++;
    if (!cand_less(&w->heap[c], &last)) break;
    w->heap[i] = w->heap[c];
    i = c;
  }
  w->heap[i] = last;
  return top;
}

// The pair starting at node pos, when it has a right neighbour and a merge.
static bool pair_at(const tt_tokenizer *tok, const bpe_work *w, int32_t pos, bpe_candidate *c) {
  int32_t r = pos >= 0 ? w->next[pos] : -1, rank, merged;
  if (r < 0 || !tt_tokenizer_find_pair(tok, w->id[pos], w->id[r], &rank, &merged)) return false;
  *c = (bpe_candidate){rank, pos, w->id[pos], w->id[r], merged};
  return true;
}

static bool still_there(const bpe_work *w, const bpe_candidate *c) {
  int32_t r = w->next[c->pos];
  return w->id[c->pos] == c->left && r >= 0 && w->id[r] == c->right;
}

// One round: every candidate of the lowest rank, by position. Returns whether one merged
// (*first is then the merge, for on_merge).
static bool merge_round(const tt_tokenizer *tok, bpe_work *w, bpe_candidate *first) {
  int32_t rank = w->heap[0].rank;
  bool any = false;
  w->n_fresh = 0;
  while (w->n_heap && w->heap[0].rank == rank) {
    bpe_candidate c = heap_pop(w);
    if (!still_there(w, &c)) continue;
    if (!any) *first = c;
    any = true;
    int32_t r = w->next[c.pos];
    w->id[c.pos] = c.merged;
    w->next[c.pos] = w->next[r];
    if (w->next[r] >= 0) w->prev[w->next[r]] = c.pos;
    w->id[r] = -1;
    if (pair_at(tok, w, w->prev[c.pos], &w->fresh[w->n_fresh])) w->n_fresh++;
    if (pair_at(tok, w, c.pos, &w->fresh[w->n_fresh])) w->n_fresh++;
  }
  for (int i = 0; i < w->n_fresh; i++) heap_push(w, w->fresh[i]);
  return any;
}

// Room for a pre-token of n bytes.
static bool bpe_reserve(bpe_work *w, size_t n) {
  if (n <= w->cap) return true;
  free(w->id);
  free(w->heap);
  free(w->fresh);
  w->id = malloc(3 * n * sizeof *w->id);
  w->heap = malloc(3 * n * sizeof *w->heap);
  w->fresh = malloc((n + 2) * sizeof *w->fresh);
  w->cap = w->id && w->heap && w->fresh ? n : 0;
  w->prev = w->id ? w->id + n : NULL;
  w->next = w->id ? w->id + 2 * n : NULL;
  return w->cap != 0;
}

static void bpe_release(bpe_work *w) {
  free(w->id);
  free(w->heap);
  free(w->fresh);
}

// Byte-pair merges inside one pre-token, in place: ids holds n ids (one per byte at first);
// returns the new count. spelled is the pre-token's spelling for on_merge (one call a round).
static int merge_word(const tt_tokenizer *tok, bpe_work *w, int32_t *ids, int n, tt_merge_fn on_merge, void *ctx,
                      const char *spelled) {
  w->n_heap = 0;
  for (int i = 0; i < n; i++) w->id[i] = ids[i], w->prev[i] = i - 1, w->next[i] = i + 1 < n ? i + 1 : -1;
  bpe_candidate c = {0, 0, 0, 0, 0};
  for (int i = 0; i + 1 < n; i++)
    if (pair_at(tok, w, i, &c)) heap_push(w, c);
  int step = 0;
  while (w->n_heap) {
    if (!merge_round(tok, w, &c) || !on_merge) continue;
    tt_merge_step s = {spelled, tok->spelling[c.left], tok->spelling[c.right], tok->spelling[c.merged], c.rank, ++step};
    on_merge(ctx, &s);
  }
  int k = 0;
  for (int i = 0; i >= 0 && n > 0; i = w->next[i]) ids[k++] = w->id[i];
  return k;
}

// The state of one encode call: ids (room for one per byte) and the spelling buffer.
typedef struct {
  const tt_tokenizer *tok;
  const unsigned char *text;
  int32_t *ids;
  int n;
  int max_tokens;  // stop once the ids would be more than this
  size_t longest;  // bytes of the vocabulary's longest token (a bound on each id's bytes)
  tt_merge_fn on_merge;
  void *ctx;
  char *spelled;  // room for 2 bytes per text byte + NUL, when on_merge or ignore_merges is set
  bpe_work work;
} encode_state;

static tt_status too_many(const encode_state *e, tt_error *err) {
  return tt_fail(err, TT_ERR_ARG, "the text is more than %d tokens long", e->max_tokens);
}

// One pre-token → ids: an added token is its id; with ignore_merges a pre-token that is a
// whole vocabulary entry is that entry; otherwise its bytes, merged.
static tt_status encode_piece(void *p, size_t off, size_t len, tt_error *err) {
  encode_state *e = p;
  const tt_tokenizer *tok = e->tok;
  int32_t *w = e->ids + e->n;
  const tt_added_token *a = tok->n_added ? added_at(tok, (const char *)e->text + off, len) : NULL;
  if (a && a->len == len) {
    e->ids[e->n++] = a->id;
    return e->n > e->max_tokens ? too_many(e, err) : TT_OK;
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
    return e->n > e->max_tokens ? too_many(e, err) : TT_OK;
  }
  // A piece of len bytes becomes at least len / longest tokens: stop before merging it.
  if ((size_t)e->n + (len + e->longest - 1) / e->longest > (size_t)e->max_tokens) return too_many(e, err);
  if (!bpe_reserve(&e->work, len)) return tt_fail(err, TT_ERR_NOMEM, "out of memory encoding %zu bytes", len);
  e->n += merge_word(tok, &e->work, w, (int)len, e->on_merge, e->ctx, e->spelled);
  return e->n > e->max_tokens ? too_many(e, err) : TT_OK;
}

static size_t longest_token(const tt_tokenizer *tok) {
  size_t longest = 1;
  for (int i = 0; i < tok->n_vocab; i++)
    if (tok->nbytes[i] > longest) longest = tok->nbytes[i];
  return longest;
}

static tt_status encode_bytes(const tt_tokenizer *tok, const char *text, size_t len, bool whole_piece, int max_tokens,
                              int32_t **ids, int *n, tt_merge_fn on_merge, void *ctx, tt_error *err) {
  *ids = NULL;
  *n = 0;
  bool spell = on_merge || tok->ignore_merges;
  encode_state e = {tok,
                    (const unsigned char *)text,
                    malloc((len ? len : 1) * sizeof(int32_t)),
                    0,
                    max_tokens,
                    max_tokens < INT_MAX ? longest_token(tok) : 1,
                    on_merge,
                    ctx,
                    spell ? malloc(2 * len + 1) : NULL,
                    {0}};
  if (!e.ids || (spell && !e.spelled)) {
    free(e.ids);
    free(e.spelled);
    return tt_fail(err, TT_ERR_NOMEM, "out of memory encoding %zu bytes", len);
  }
  tt_status st =
      whole_piece ? (len ? encode_piece(&e, 0, len, err) : TT_OK) : split(tok, text, len, encode_piece, &e, err);
  free(e.spelled);
  bpe_release(&e.work);
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
  return tt_tokenizer_encode_at_most(tok, text, len, INT_MAX, ids, n, on_merge, ctx, err);
}

tt_status tt_tokenizer_encode_at_most(const tt_tokenizer *tok, const char *text, size_t len, int max_tokens,
                                      int32_t **ids, int *n, tt_merge_fn on_merge, void *ctx, tt_error *err) {
  *ids = NULL;
  *n = 0;
  tt_status st = check_text(text, len, err);
  if (st != TT_OK) return st;
  return encode_bytes(tok, text, len, false, max_tokens, ids, n, on_merge, ctx, err);
}

tt_status tt_tokenizer_bpe(const tt_tokenizer *tok, const char *piece, size_t len, int32_t **ids, int *n,
                           tt_merge_fn on_merge, void *ctx, tt_error *err) {
  *ids = NULL;
  *n = 0;
  if (len > INT_MAX) return tt_fail(err, TT_ERR_ARG, "piece too long (%zu bytes)", len);
  return encode_bytes(tok, piece, len, true, INT_MAX, ids, n, on_merge, ctx, err);
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

tt_status tt_tokenizer_pretokenize(const tt_tokenizer *tok, const char *text, size_t len, tt_span **spans, int *n,
                                   tt_error *err) {
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
