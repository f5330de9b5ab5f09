// tokenizer: GPT-2's byte-level BPE (vocab.json + merges.txt), identical ids to GPT-2.
// Pre-tokenizer regex (PCRE2, Unicode classes):
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// where \s is the Unicode White_Space property, as in OpenAI's encoder.py (Python `regex`)
// and tiktoken. (JavaScript ports differ: their \s misses U+0085 and adds U+FEFF.)
// Each pre-token's UTF-8 bytes become one token each, then pairs merge by rank, lowest first.
// "<|endoftext|>" in a prompt is ordinary text (it is split like any other characters),
// exactly as GPT-2's encoder does by default; id 50256 is never produced from text.
#ifndef TT_TOKENIZER_H
#define TT_TOKENIZER_H

#include "core/core.h"

typedef struct tt_tokenizer tt_tokenizer;

// Loads vocab.json and merges.txt from dir (a model folder or assets/tokenizer).
tt_status tt_tokenizer_load(const char *dir, tt_tokenizer **out, tt_error *err);
void tt_tokenizer_destroy(tt_tokenizer *tok);
int tt_tokenizer_vocab_size(const tt_tokenizer *tok);

// One merge step inside one pre-token: the pair (left, right) of rank `rank` became `merged`.
// Pieces are shown in GPT-2's byte-to-unicode spelling (a space is "Ġ").
// The rank is the merge's 0-based index in merges.txt (rank r is on line r + 2).
// A step merges every occurrence of the pair in the pre-token, left to right.
typedef struct {
  const char *pretoken;  // the pre-token being merged, in byte-to-unicode spelling
  const char *left, *right, *merged;
  int rank;
  int step;  // 1, 2, ... within this pre-token
} tt_merge_step;
typedef void (*tt_merge_fn)(void *ctx, const tt_merge_step *step);

// text must be valid UTF-8 (checked: TT_ERR_ARG names the byte offset otherwise).
// *ids is malloc'd; on_merge may be NULL. Empty text gives *n = 0.
tt_status tt_tokenizer_encode(const tt_tokenizer *tok, const char *text, size_t len, int32_t **ids,
                              int *n, tt_merge_fn on_merge, void *ctx, tt_error *err);

// As encode, but stops as soon as the text is known to need more than max_tokens ids (a
// model's context): TT_ERR_ARG "the text is more than N tokens long", without merging the
// rest (a 1 MiB word is refused at once).
tt_status tt_tokenizer_encode_at_most(const tt_tokenizer *tok, const char *text, size_t len, int max_tokens,
                                      int32_t **ids, int *n, tt_merge_fn on_merge, void *ctx, tt_error *err);

// The pre-tokenizer alone: the pieces of text (valid UTF-8, checked) as byte spans.
typedef struct {
  size_t offset, len;
} tt_span;
tt_status tt_tokenizer_pretokenize(const tt_tokenizer *tok, const char *text, size_t len,
                                   tt_span **spans, int *n, tt_error *err);
// The merges alone: one pre-token's bytes → ids (*ids malloc'd), with no splitting.
// Encoding = pretokenize, then bpe on each piece.
tt_status tt_tokenizer_bpe(const tt_tokenizer *tok, const char *piece, size_t len, int32_t **ids,
                           int *n, tt_merge_fn on_merge, void *ctx, tt_error *err);

// The raw bytes of one token (not NUL-terminated; *len set). NULL for an unknown id.
const char *tt_tokenizer_token_bytes(const tt_tokenizer *tok, int32_t id, size_t *len);
// The token as vocab.json spells it (byte-to-unicode, e.g. "Ġweather"). NULL if unknown.
const char *tt_tokenizer_token_spelling(const tt_tokenizer *tok, int32_t id);
// Spells bytes as vocab.json would (byte-to-unicode: " weather" → "Ġweather") into buf,
// truncated at a character boundary when buf is short; returns buf.
const char *tt_tokenizer_spell(const tt_tokenizer *tok, const char *bytes, size_t n, char *buf, size_t len);
// A display string for one token: its bytes where they form whole UTF-8 characters; each
// other byte as \xNN (a Hangul syllable split across tokens shows as "\xEB\x82"); newline,
// tab and carriage return as \n \t \r, other control characters as \xNN. An unknown id
// shows as "<id N>". Writes buf (truncated at a character boundary when short).
const char *tt_tokenizer_token_display(const tt_tokenizer *tok, int32_t id, char *buf, size_t len);
// As token_display, with each space shown as U+2423 "␣" (" weather" → "␣weather").
const char *tt_tokenizer_token_visible(const tt_tokenizer *tok, int32_t id, char *buf, size_t len);
// Decodes ids back to text (malloc'd, NUL-terminated; bytes as they are). NULL when an id
// is unknown or memory runs out.
char *tt_tokenizer_decode(const tt_tokenizer *tok, const int32_t *ids, int n);

#endif
