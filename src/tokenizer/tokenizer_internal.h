// tokenizer_internal: the tokenizer's tables, shared by its .c files (not public).
#ifndef TT_TOKENIZER_INTERNAL_H
#define TT_TOKENIZER_INTERNAL_H

#include <jansson.h>
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "tokenizer.h"

// GPT-2's byte-to-unicode table: every byte gets a printable code point. The printable
// Latin-1 bytes map to themselves; the other 68 (controls, space, DEL, NBSP, soft hyphen)
// map to U+0100.. in byte order, so a space is U+0120 'Ġ' and a newline U+010A 'Ċ'.
#define TT_BYTE_CP_LIMIT 324  // every code point the table uses is below this
typedef struct {
  uint16_t cp[256];                // byte → code point
  int16_t byte[TT_BYTE_CP_LIMIT];  // code point → byte, -1 when unused
  char utf8[256][3];               // byte → its code point in UTF-8, NUL-terminated
} tt_byte_table;
void tt_byte_table_init(tt_byte_table *t);

// Open-addressing map from a NUL-terminated string to an id (the strings are not copied).
typedef struct {
  const char **keys;
  int32_t *vals;
  uint32_t mask;
} tt_strmap;

// Open-addressing map from a pair of token ids to the merge that joins them.
typedef struct {
  uint64_t key;  // left << 32 | right; 0 marks an empty slot (pair (0,0) is stored +1)
  int32_t rank, merged;
} tt_pair_slot;

// One pre-tokenizer stage: the pieces so far are each split by re. ISOLATED keeps the
// matches and the text between them as pieces (Hugging Face's "Isolated"); REMOVED drops
// the matches ("Removed").
typedef enum { TT_SPLIT_ISOLATED, TT_SPLIT_REMOVED } tt_split_kind;
typedef struct {
  pcre2_code *re;
  tt_split_kind kind;
} tt_pretok_stage;
#define TT_MAX_STAGES 8

// An added token of tokenizer.json. Non-special ones are found in the text before
// pre-tokenization (longest match first); special ones only by id (--bos, display).
typedef struct {
  const char *content;
  size_t len;
  int32_t id;
  bool special;
} tt_added_token;

struct tt_tokenizer {
  tt_arena *arena;       // every string below
  int n_vocab;           // V; ids are 0..V-1 (the BPE vocabulary, then any added tokens)
  char **spelling;       // [V] as vocab.json spells it (byte-to-unicode), NUL-terminated
  char **bytes;          // [V] the raw bytes (NUL-terminated too, for convenience)
  uint32_t *nbytes;      // [V]
  int32_t byte_id[256];  // the id of each single-byte token
  tt_byte_table table;
  tt_strmap vocab;  // spelling → id
  tt_pair_slot *pairs;
  uint32_t pair_mask;
  int n_merges;
  tt_pretok_stage stages[TT_MAX_STAGES];  // the pre-tokenizer, applied in order
  int n_stages;
  tt_added_token *added;  // [n_added]
  int n_added;
  bool ignore_merges;  // a pre-token that is a whole vocabulary entry is that token
  int32_t bos;         // the id --bos prepends, -1 when there is none
  bool add_bos;        // tokenizer_config.json's add_bos_token: every prompt starts with bos
  const char *source;  // "vocab.json+merges.txt" or "tokenizer.json"
};

// ---- tables.c: the maps, shared by both loaders ----
tt_tokenizer *tt_tok_new(void);
// Gives id its spelling (byte-to-unicode; raw=false) or its literal text (raw=true, an
// added token outside the BPE vocabulary, not entered in the spelling map). id < V.
tt_status tt_tok_set_token(tt_tokenizer *tok, int32_t id, const char *spelling, bool raw, const char *path,
                           tt_error *err);
int32_t tt_tok_lookup(const tt_tokenizer *tok, const char *spelling);  // -1 when absent
// load_config.c: dir/tokenizer_config.json, when there is one: bos_token (a string or an
// AddedToken object's "content") becomes tok->bos, add_bos_token tok->add_bos. A bos_token
// that is no token, or add_bos_token true without any BOS, is refused.
tt_status tt_tok_load_config(tt_tokenizer *tok, const char *dir, tt_error *err);
// The BPE vocabulary from a JSON object {spelling: id} with ids 0..size-1 (vocab.json, or
// tokenizer.json's model.vocab); extra ids beyond it (added tokens) are allocated too.
tt_status tt_tok_vocab_from_json(tt_tokenizer *tok, json_t *obj, int extra, const char *path, tt_error *err);
// Checks every byte has a single-byte token and fills byte_id.
tt_status tt_tok_check_bytes(tt_tokenizer *tok, const char *path, tt_error *err);
// Room for about n merges, then each added with the next rank (false: a token is missing,
// *missing names it).
tt_status tt_tok_alloc_merges(tt_tokenizer *tok, size_t n, const char *path, tt_error *err);
bool tt_tok_add_merge(tt_tokenizer *tok, const char *left, const char *right, const char **missing);
// Appends a pre-tokenizer stage from a PCRE2 pattern (literal: the text itself).
tt_status tt_tok_add_stage(tt_tokenizer *tok, const char *pattern, bool literal, tt_split_kind kind, const char *path,
                           tt_error *err);
// GPT-2's own pre-tokenizer pattern (with \s spelled as Unicode White_Space).
extern const char tt_gpt2_pattern[];

// ---- load_json.c ----
tt_status tt_tok_load_json(tt_tokenizer *tok, const char *path, tt_error *err);

// Looks up the merge of (left, right); false when there is none.
bool tt_tokenizer_find_pair(const tt_tokenizer *tok, int32_t left, int32_t right, int32_t *rank, int32_t *merged);

#endif
