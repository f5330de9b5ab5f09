// tables: the vocabulary map, the merge-pair map and the pre-tokenizer stages that both
// loaders (vocab.json + merges.txt, tokenizer.json) fill.
#include <stdlib.h>
#include <string.h>

#include "tokenizer_internal.h"

// GPT-2's pre-tokenizer. encoder.py runs it with Python's `regex` module, whose \s is the
// Unicode White_Space property; PCRE2's \s differs at the edges (it takes U+180E, which
// White_Space does not), so \s is spelled out as White_Space here.
#define WS "\\t-\\r\\x{20}\\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}"
const char tt_gpt2_pattern[] =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^" WS "\\p{L}\\p{N}]+|[" WS "]+(?![^" WS "])|[" WS "]+";

static uint32_t hash_str(const char *s) {
  uint64_t h = tt_fnv1a64(TT_FNV1A64_BASIS, s, strlen(s));  // core's FNV-1a, folded to 32 bits
  return (uint32_t)(h ^ (h >> 32));
}

static uint32_t hash_u64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  return (uint32_t)k;
}

static uint32_t table_size(size_t n) {
  uint32_t size = 16;
  while (size < 2 * n) size <<= 1;
  return size;
}

int32_t tt_tok_lookup(const tt_tokenizer *tok, const char *key) {
  const tt_strmap *m = &tok->vocab;
  for (uint32_t i = hash_str(key) & m->mask;; i = (i + 1) & m->mask) {
    if (!m->keys[i]) return -1;
    if (strcmp(m->keys[i], key) == 0) return m->vals[i];
  }
}

// Inserts a key that is not there yet.
static void strmap_put(tt_strmap *m, const char *key, int32_t val) {
  uint32_t i = hash_str(key) & m->mask;
  while (m->keys[i]) i = (i + 1) & m->mask;
  m->keys[i] = key;
  m->vals[i] = val;
}

static uint64_t pair_key(int32_t left, int32_t right) {
  return ((uint64_t)(uint32_t)left << 32 | (uint32_t)right) + 1;
}

bool tt_tokenizer_find_pair(const tt_tokenizer *tok, int32_t left, int32_t right, int32_t *rank, int32_t *merged) {
  uint64_t key = pair_key(left, right);
  for (uint32_t i = hash_u64(key) & tok->pair_mask;; i = (i + 1) & tok->pair_mask) {
    const tt_pair_slot *s = &tok->pairs[i];
    if (s->key == 0) return false;
    if (s->key == key) {
      *rank = s->rank;
      *merged = s->merged;
      return true;
    }
  }
}

// A later merge of the same pair replaces the earlier one, as in encoder.py's dict and in
// Hugging Face's map of merges.
static void pair_put(tt_tokenizer *tok, int32_t left, int32_t right, int32_t rank, int32_t merged) {
  uint64_t key = pair_key(left, right);
  uint32_t i = hash_u64(key) & tok->pair_mask;
  while (tok->pairs[i].key != 0 && tok->pairs[i].key != key) i = (i + 1) & tok->pair_mask;
  tok->pairs[i] = (tt_pair_slot){key, rank, merged};
}

// Turns a byte-to-unicode spelling into raw bytes (at most as long as the spelling).
// A character outside the table is kept as its UTF-8 bytes.
static size_t unspell(const tt_byte_table *t, const char *s, char *out) {
  size_t n = 0, len = strlen(s);
  for (size_t i = 0; i < len;) {
    uint32_t cp;
    int k = tt_utf8_decode(s + i, len - i, &cp);
    if (k == 0) k = 1, cp = 0xFFFFFFFFu;
    if (cp < TT_BYTE_CP_LIMIT && t->byte[cp] >= 0)
      out[n++] = (char)t->byte[cp];
    else
      memcpy(out + n, s + i, (size_t)k), n += (size_t)k;
    i += (size_t)k;
  }
  out[n] = 0;
  return n;
}

tt_tokenizer *tt_tok_new(void) {
  tt_tokenizer *tok = calloc(1, sizeof *tok);
  if (!tok || !(tok->arena = tt_arena_create(1 << 20))) {
    free(tok);
    return NULL;
  }
  tt_byte_table_init(&tok->table);
  tok->bos = -1;
  return tok;
}

tt_status tt_tok_set_token(tt_tokenizer *tok, int32_t id, const char *spelling, bool raw, const char *path,
                           tt_error *err) {
  if (tok->spelling[id])
    return tt_fail(err, TT_ERR_FORMAT, "%s: id %d is used by both \"%s\" and \"%s\"", path, (int)id, tok->spelling[id],
                   spelling);
  size_t len = strlen(spelling);
  char *sp = tt_arena_alloc(tok->arena, len + 1, 1), *bytes = raw ? sp : tt_arena_alloc(tok->arena, len + 1, 1);
  if (!sp || !bytes) return tt_fail(err, TT_ERR_NOMEM, "out of memory reading %s", path);
  memcpy(sp, spelling, len + 1);
  tok->spelling[id] = sp;
  tok->bytes[id] = bytes;
  tok->nbytes[id] = raw ? (uint32_t)len : (uint32_t)unspell(&tok->table, sp, bytes);
  if (!raw) strmap_put(&tok->vocab, sp, id);  // spellings are unique (JSON_REJECT_DUPLICATES)
  return TT_OK;
}

tt_status tt_tok_vocab_from_json(tt_tokenizer *tok, json_t *obj, int extra, const char *path, tt_error *err) {
  if (!json_is_object(obj) || json_object_size(obj) == 0)
    return tt_fail(err, TT_ERR_FORMAT, "%s: expected an object mapping tokens to ids", path);
  int V = (int)json_object_size(obj);
  tok->n_vocab = V + extra;
  size_t n = (size_t)tok->n_vocab;
  tok->spelling = calloc(n, sizeof *tok->spelling);
  tok->bytes = calloc(n, sizeof *tok->bytes);
  tok->nbytes = calloc(n, sizeof *tok->nbytes);
  tok->vocab.mask = table_size(n) - 1;
  tok->vocab.keys = calloc((size_t)tok->vocab.mask + 1, sizeof *tok->vocab.keys);
  tok->vocab.vals = calloc((size_t)tok->vocab.mask + 1, sizeof *tok->vocab.vals);
  if (!tok->spelling || !tok->bytes || !tok->nbytes || !tok->vocab.keys || !tok->vocab.vals)
    return tt_fail(err, TT_ERR_NOMEM, "out of memory reading %s", path);
  const char *key;
  json_t *val;
  json_object_foreach(obj, key, val) {
    json_int_t id = json_is_integer(val) ? json_integer_value(val) : -1;
    if (id < 0 || id >= V)
      return tt_fail(err, TT_ERR_FORMAT, "%s: token \"%s\" has id %s, expected an integer in 0..%d", path, key,
                     json_is_integer(val) ? "out of range" : "that is not an integer", V - 1);
    tt_status st = tt_tok_set_token(tok, (int32_t)id, key, false, path, err);
    if (st) return st;
  }
  return TT_OK;
}

tt_status tt_tok_check_bytes(tt_tokenizer *tok, const char *path, tt_error *err) {
  for (int b = 0; b < 256; b++) {
    tok->byte_id[b] = tt_tok_lookup(tok, tok->table.utf8[b]);
    if (tok->byte_id[b] < 0)
      return tt_fail(err, TT_ERR_FORMAT,
                     "%s: no token for the single byte 0x%02X (\"%s\"): not a byte-level vocabulary", path, b,
                     tok->table.utf8[b]);
  }
  return TT_OK;
}

tt_status tt_tok_alloc_merges(tt_tokenizer *tok, size_t n, const char *path, tt_error *err) {
  tok->pair_mask = table_size(n) - 1;
  tok->pairs = calloc((size_t)tok->pair_mask + 1, sizeof *tok->pairs);
  return tok->pairs ? TT_OK : tt_fail(err, TT_ERR_NOMEM, "out of memory reading %s", path);
}

bool tt_tok_add_merge(tt_tokenizer *tok, const char *left, const char *right, const char **missing) {
  static _Thread_local char joined[1024];
  int32_t l = tt_tok_lookup(tok, left), r = tt_tok_lookup(tok, right), m = -1;
  if ((size_t)snprintf(joined, sizeof joined, "%s%s", left, right) < sizeof joined) m = tt_tok_lookup(tok, joined);
  if (l < 0 || r < 0 || m < 0) {
    *missing = l < 0 ? left : r < 0 ? right : joined;
    return false;
  }
  pair_put(tok, l, r, tok->n_merges++, m);
  return true;
}

// pattern with \s and \S as Unicode White_Space (malloc'd), the \s of Python's `regex`
// and of Oniguruma, which Hugging Face's tokenizers runs; PCRE2's own \s also takes U+180E.
// \Q...\E quotes are copied as they are.
static char *white_space_classes(const char *pattern) {
  size_t n = strlen(pattern);
  char *out = malloc(8 * n + 1), *o = out;
  if (!out) return NULL;
  for (size_t i = 0; i < n; i++) {
    if (pattern[i] != '\\' || i + 1 == n) {
      *o++ = pattern[i];
      continue;
    }
    char c = pattern[++i];
    if (c == 's' || c == 'S') {
      o += sprintf(o, "\\%c{White_Space}", c == 's' ? 'p' : 'P');
    } else if (c == 'Q') {  // copy up to and with the closing \E
      const char *end = strstr(pattern + i, "\\E");
      size_t k = end ? (size_t)(end - (pattern + i)) + 2 : n - i;
      *o++ = '\\';
      memcpy(o, pattern + i, k);
      o += k;
      i += k - 1;
    } else {
      *o++ = '\\';
      *o++ = c;
    }
  }
  *o = 0;
  return out;
}

tt_status tt_tok_add_stage(tt_tokenizer *tok, const char *pattern, bool literal, tt_split_kind kind, const char *path,
                           tt_error *err) {
  if (tok->n_stages == TT_MAX_STAGES)
    return tt_fail(err, TT_ERR_UNSUPPORTED, "%s: more than %d pre-tokenizer steps", path, TT_MAX_STAGES);
  char *translated = literal ? NULL : white_space_classes(pattern);
  if (!literal && !translated) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  int code;
  PCRE2_SIZE at;
  pcre2_code *re = pcre2_compile((PCRE2_SPTR)(literal ? pattern : translated), PCRE2_ZERO_TERMINATED,
                                 PCRE2_UTF | PCRE2_UCP | (literal ? PCRE2_LITERAL : 0), &code, &at, NULL);
  free(translated);
  if (!re) {
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(code, msg, sizeof msg);
    return tt_fail(err, TT_ERR_UNSUPPORTED, "%s: PCRE2 rejects the pre-tokenizer pattern %s: %s", path, pattern,
                   (char *)msg);
  }
  pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);  // optional: the interpreter is the fallback
  tok->stages[tok->n_stages++] = (tt_pretok_stage){re, kind};
  return TT_OK;
}
