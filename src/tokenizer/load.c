// load: vocab.json (spelling → id) and merges.txt (ranked pairs) → tt_tokenizer.
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "tokenizer_internal.h"

// GPT-2's pre-tokenizer. encoder.py runs it with Python's `regex` module, whose \s is the
// Unicode White_Space property; PCRE2's \s differs at the edges (it takes U+180E, which
// White_Space does not), so \s is spelled out as White_Space here.
#define WS "\\t-\\r\\x{20}\\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}"
static const char pretokenizer_pattern[] =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^" WS "\\p{L}\\p{N}]+|[" WS "]+(?![^" WS "])|[" WS "]+";

static uint32_t hash_str(const char *s) {
  uint32_t h = 2166136261u;  // FNV-1a
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
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

static int32_t strmap_get(const tt_strmap *m, const char *key) {
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

bool tt_tokenizer_find_pair(const tt_tokenizer *tok, int32_t left, int32_t right, int32_t *rank,
                            int32_t *merged) {
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

// A later line for the same pair replaces the earlier one, as in encoder.py's dict.
static void pair_put(tt_tokenizer *tok, int32_t left, int32_t right, int32_t rank, int32_t merged) {
  uint64_t key = pair_key(left, right);
  uint32_t i = hash_u64(key) & tok->pair_mask;
  while (tok->pairs[i].key != 0 && tok->pairs[i].key != key) i = (i + 1) & tok->pair_mask;
  tok->pairs[i] = (tt_pair_slot){key, rank, merged};
}

// Turns a byte-to-unicode spelling into raw bytes (at most as long as the spelling).
// A character outside the table (possible in an added token) is kept as its UTF-8 bytes.
static size_t unspell(const tt_byte_table *t, const char *s, char *out) {
  size_t n = 0, len = strlen(s);
  for (size_t i = 0; i < len;) {
    uint32_t cp;
    int k = tt_utf8_decode(s + i, len - i, &cp);
    if (k == 0) k = 1, cp = 0xFFFFFFFFu;
    if (cp < TT_BYTE_CP_LIMIT && t->byte[cp] >= 0) out[n++] = (char)t->byte[cp];
    else memcpy(out + n, s + i, (size_t)k), n += (size_t)k;
    i += (size_t)k;
  }
  out[n] = 0;
  return n;
}

static tt_status load_vocab(tt_tokenizer *tok, const char *path, tt_error *err) {
  char *text;
  size_t len;
  tt_status rs = tt_read_file(path, &text, &len, err);
  if (rs != TT_OK) return rs;
  json_error_t jerr;
  json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
  free(text);
  if (!root) return tt_fail(err, TT_ERR_FORMAT, "%s: bad JSON at line %d: %s", path, jerr.line, jerr.text);
  tt_status st = TT_OK;
  if (!json_is_object(root) || json_object_size(root) == 0) {
    st = tt_fail(err, TT_ERR_FORMAT, "%s: expected an object mapping tokens to ids", path);
    goto done;
  }
  int V = (int)json_object_size(root);
  tok->n_vocab = V;
  tok->spelling = calloc((size_t)V, sizeof *tok->spelling);
  tok->bytes = calloc((size_t)V, sizeof *tok->bytes);
  tok->nbytes = calloc((size_t)V, sizeof *tok->nbytes);
  tok->vocab.mask = table_size((size_t)V) - 1;
  tok->vocab.keys = calloc((size_t)tok->vocab.mask + 1, sizeof *tok->vocab.keys);
  tok->vocab.vals = calloc((size_t)tok->vocab.mask + 1, sizeof *tok->vocab.vals);
  if (!tok->spelling || !tok->bytes || !tok->nbytes || !tok->vocab.keys || !tok->vocab.vals) {
    st = tt_fail(err, TT_ERR_NOMEM, "out of memory reading %s", path);
    goto done;
  }
  const char *key;
  json_t *val;
  json_object_foreach(root, key, val) {
    json_int_t id = json_is_integer(val) ? json_integer_value(val) : -1;
    if (id < 0 || id >= V) {
      st = tt_fail(err, TT_ERR_FORMAT, "%s: token \"%s\" has id %s, expected an integer in 0..%d", path, key,
                   json_is_integer(val) ? "out of range" : "that is not an integer", V - 1);
      goto done;
    }
    if (tok->spelling[id]) {
      st = tt_fail(err, TT_ERR_FORMAT, "%s: id %d is used by both \"%s\" and \"%s\"", path, (int)id,
                   tok->spelling[id], key);
      goto done;
    }
    size_t klen = strlen(key);
    char *sp = tt_arena_alloc(tok->arena, klen + 1, 1);
    char *raw = tt_arena_alloc(tok->arena, klen + 1, 1);
    if (!sp || !raw) {
      st = tt_fail(err, TT_ERR_NOMEM, "out of memory reading %s", path);
      goto done;
    }
    memcpy(sp, key, klen + 1);
    tok->spelling[id] = sp;
    tok->bytes[id] = raw;
    tok->nbytes[id] = (uint32_t)unspell(&tok->table, sp, raw);
    strmap_put(&tok->vocab, sp, (int32_t)id);  // keys are unique (JSON_REJECT_DUPLICATES)
  }
  for (int b = 0; b < 256; b++) {
    tok->byte_id[b] = strmap_get(&tok->vocab, tok->table.utf8[b]);
    if (tok->byte_id[b] < 0) {
      st = tt_fail(err, TT_ERR_FORMAT, "%s: no token for the single byte 0x%02X (\"%s\"): not a byte-level vocabulary",
                   path, b, tok->table.utf8[b]);
      goto done;
    }
  }
done:
  json_decref(root);
  return st;
}

static tt_status load_merges(tt_tokenizer *tok, const char *path, tt_error *err) {
  char *text;
  size_t len;
  tt_status rs = tt_read_file(path, &text, &len, err);
  if (rs != TT_OK) return rs;
  size_t lines = 1;
  for (size_t i = 0; i < len; i++) lines += text[i] == '\n';
  tok->pair_mask = table_size(lines) - 1;
  tok->pairs = calloc((size_t)tok->pair_mask + 1, sizeof *tok->pairs);
  if (!tok->pairs) {
    free(text);
    return tt_fail(err, TT_ERR_NOMEM, "out of memory reading %s", path);
  }
  tt_status st = TT_OK;
  char joined[1024];
  int line_no = 0;
  for (char *line = text, *next; line && *line; line = next) {
    line_no++;
    next = strchr(line, '\n');
    if (next) *next++ = 0;
    size_t n = strlen(line);
    if (n && line[n - 1] == '\r') line[--n] = 0;
    if (line_no == 1 && strncmp(line, "#version", 8) == 0) continue;
    if (n == 0 && (!next || !*next)) break;  // the final newline
    char *space = strchr(line, ' ');
    if (n == 0 || !space || space == line || !space[1] || strchr(space + 1, ' ')) {
      st = tt_fail(err, TT_ERR_FORMAT, "%s:%d: expected two tokens separated by one space", path, line_no);
      break;
    }
    *space = 0;
    const char *left = line, *right = space + 1;
    int32_t l = strmap_get(&tok->vocab, left), r = strmap_get(&tok->vocab, right);
    int32_t m = -1;
    if ((size_t)snprintf(joined, sizeof joined, "%s%s", left, right) < sizeof joined)
      m = strmap_get(&tok->vocab, joined);
    if (l < 0 || r < 0 || m < 0) {
      st = tt_fail(err, TT_ERR_FORMAT, "%s:%d: token \"%s\" is not in vocab.json", path, line_no,
                   l < 0 ? left : r < 0 ? right : joined);
      break;
    }
    pair_put(tok, l, r, tok->n_merges++, m);
  }
  free(text);
  return st;
}

tt_status tt_tokenizer_load(const char *dir, tt_tokenizer **out, tt_error *err) {
  *out = NULL;
  tt_tokenizer *tok = calloc(1, sizeof *tok);
  if (!tok || !(tok->arena = tt_arena_create(1 << 20))) {
    free(tok);
    return tt_fail(err, TT_ERR_NOMEM, "out of memory loading the tokenizer");
  }
  tt_byte_table_init(&tok->table);
  char path[4096];
  snprintf(path, sizeof path, "%s/vocab.json", dir);
  tt_status st = load_vocab(tok, path, err);
  if (st == TT_OK) {
    snprintf(path, sizeof path, "%s/merges.txt", dir);
    st = load_merges(tok, path, err);
  }
  if (st == TT_OK) {
    int code;
    PCRE2_SIZE at;
    tok->re = pcre2_compile((PCRE2_SPTR)pretokenizer_pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP,
                            &code, &at, NULL);
    if (!tok->re) {
      PCRE2_UCHAR msg[256];
      pcre2_get_error_message(code, msg, sizeof msg);
      st = tt_fail(err, TT_ERR_UNSUPPORTED, "PCRE2 rejects the pre-tokenizer pattern at %zu: %s", (size_t)at,
                   (char *)msg);
    } else {
      pcre2_jit_compile(tok->re, PCRE2_JIT_COMPLETE);  // optional: the interpreter is the fallback
    }
  }
  if (st != TT_OK) {
    tt_tokenizer_destroy(tok);
    return st;
  }
  *out = tok;
  return TT_OK;
}

void tt_tokenizer_destroy(tt_tokenizer *tok) {
  if (!tok) return;
  pcre2_code_free(tok->re);
  free(tok->pairs);
  free(tok->vocab.keys);
  free(tok->vocab.vals);
  free(tok->spelling);
  free(tok->bytes);
  free(tok->nbytes);
  tt_arena_destroy(tok->arena);
  free(tok);
}

int tt_tokenizer_vocab_size(const tt_tokenizer *tok) { return tok->n_vocab; }
