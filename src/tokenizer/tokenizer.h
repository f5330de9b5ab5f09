// tokenizer: byte-level BPE, from GPT-2's vocab.json + merges.txt (identical ids to GPT-2)
// or from a Hugging Face tokenizer.json (load_json.c lists what it reads and refuses).
// GPT-2's pre-tokenizer regex (PCRE2, Unicode classes):
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// where \s is the Unicode White_Space property, as in OpenAI's encoder.py (Python `regex`)
// and tiktoken. (JavaScript ports differ: their \s misses U+0085 and adds U+FEFF.)
// Each pre-token's UTF-8 bytes become one token each, then pairs merge by rank, lowest first.
// "<|endoftext|>" in a prompt is ordinary text (it is split like any other characters),
// exactly as GPT-2's encoder does by default; id 50256 is never produced from text. The same
// holds for every special added token of a tokenizer.json (only --bos puts one in); its
// non-special added tokens are found in the text before pre-tokenization.
#ifndef TT_TOKENIZER_H
#define TT_TOKENIZER_H

#include "core/core.h"

typedef struct tt_tokenizer tt_tokenizer;

// Loads the tokenizer of dir (a model folder or assets/tokenizer): tokenizer.json when the
// folder has one (it is the complete description: pre-tokenizer, added tokens), else
// vocab.json + merges.txt. An unsupported tokenizer.json fails; there is no fallback.
tt_status tt_tokenizer_load(const char *dir, tt_tokenizer **out, tt_error *err);
// Which files tt_tokenizer_load would read in dir: "tokenizer.json", "vocab.json+merges.txt"
// (when either of the two is there), or NULL when dir has no tokenizer files.
const char *tt_tokenizer_files_in(const char *dir);
void tt_tokenizer_destroy(tt_tokenizer *tok);
int tt_tokenizer_vocab_size(const tt_tokenizer *tok);  // every id, added tokens included
// The files it was read from: "tokenizer.json" or "vocab.json+merges.txt".
const char *tt_tokenizer_source(const tt_tokenizer *tok);
// The id --bos prepends: "<|endoftext|>" (50256 for GPT-2); for a tokenizer.json, the
// special token its TemplateProcessing post-processor puts first, else "<|endoftext|>".
// -1 when the tokenizer has none.
int32_t tt_tokenizer_bos(const tt_tokenizer *tok);
// True when the folder's tokenizer_config.json says add_bos_token: true (Llama 2, TinyLlama,
// SmolLM): every prompt then starts with the BOS, as Hugging Face's tokenizer puts it, with
// or without --bos. Its bos_token, when it names one, is the BOS above.
bool tt_tokenizer_adds_bos(const tt_tokenizer *tok);

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
tt_status tt_tokenizer_encode(const tt_tokenizer *tok, const char *text, size_t len, int32_t **ids, int *n,
                              tt_merge_fn on_merge, void *ctx, tt_error *err);

// As encode, but stops as soon as the text is known to need more than max_tokens ids (a
// model's context): TT_ERR_ARG "the text is more than N tokens long", without merging the
// rest (a 1 MiB word is refused at once).
tt_status tt_tokenizer_encode_at_most(const tt_tokenizer *tok, const char *text, size_t len, int max_tokens,
                                      int32_t **ids, int *n, tt_merge_fn on_merge, void *ctx, tt_error *err);

// The pre-tokenizer alone: the pieces of text (valid UTF-8, checked) as byte spans.
typedef struct {
  size_t offset, len;
} tt_span;
tt_status tt_tokenizer_pretokenize(const tt_tokenizer *tok, const char *text, size_t len, tt_span **spans, int *n,
                                   tt_error *err);
// The merges alone: one pre-token's bytes → ids (*ids malloc'd), with no splitting.
// Encoding = pretokenize, then bpe on each piece.
tt_status tt_tokenizer_bpe(const tt_tokenizer *tok, const char *piece, size_t len, int32_t **ids, int *n,
                           tt_merge_fn on_merge, void *ctx, tt_error *err);

// The raw bytes of one token (not NUL-terminated; *len set). NULL for an unknown id.
const char *tt_tokenizer_token_bytes(const tt_tokenizer *tok, int32_t id, size_t *len);
// The token as vocab.json spells it (byte-to-unicode, e.g. "Ġweather"; an added token outside
// the BPE vocabulary as its text, e.g. "<|begin_of_text|>"). NULL if unknown.
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
// As token_visible, for a byte-to-unicode spelling ("Ġweather", the pieces of a merge).
const char *tt_tokenizer_spelling_visible(const tt_tokenizer *tok, const char *spelling, char *buf, size_t len);
// The bytes a byte-to-unicode spelling stands for ("Ġweather" → " weather") into out
// (at most cap); returns how many.
size_t tt_tokenizer_spelling_bytes(const tt_tokenizer *tok, const char *spelling, char *out, size_t cap);

// ---- tokens that split characters (bytes_label.c) ---------------------------------------
// A label for n bytes s that a learner can read, given the bytes just before (nb) and just
// after (na) it in the text, of which up to 3 each are used. Whole characters are written as
// themselves (a space as ␣, newline ↵, tab ⇥, other control characters \xNN); the bytes of
// a character that s holds only part of are written in hexadecimal between ‹ and ›, then
// ':' and the character they help spell when before/after complete it ("‹EB 82:나›"), else
// the range of characters they may begin ("‹EB:뀀…뿿›", or "‹F0 9F:U+1F000…U+1FFFF›"
// outside Hangul), else nothing ("‹98›"). Writes buf (cap bytes, cut at a whole piece).
const char *tt_bytes_label(const char *before, size_t nb, const char *s, size_t n, const char *after, size_t na,
                           char *buf, size_t cap);
// The bytes of a display string of token_display ("\xEB\x82" → EB 82; \n \t \r; a
// \xNN that display never writes, such as \x41, stays as typed) into out; returns how many.
size_t tt_bytes_unescape(const char *display, char *out, size_t cap);

// The three pieces of a merge step (left, right, merged) labelled as tt_bytes_label does,
// each with the bytes around it in its pre-token (where the pair first stands), so that a
// piece of a character shows the character: "␣ + ‹EB:먹› → ␣‹EB:먹›".
void tt_merge_labels(const tt_tokenizer *tok, const tt_merge_step *s, char *left, char *right, char *merged,
                     size_t cap);

// Decodes ids back to text (malloc'd, NUL-terminated; bytes as they are). NULL when an id
// is unknown or memory runs out.
char *tt_tokenizer_decode(const tt_tokenizer *tok, const int32_t *ids, int n);

#endif
