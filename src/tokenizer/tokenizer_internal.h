// tokenizer_internal: the tokenizer's tables, shared by its .c files (not public).
#ifndef TT_TOKENIZER_INTERNAL_H
#define TT_TOKENIZER_INTERNAL_H

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

struct tt_tokenizer {
  tt_arena *arena;  // every string below
  int n_vocab;      // V; ids are 0..V-1
  char **spelling;  // [V] as vocab.json spells it (byte-to-unicode), NUL-terminated
  char **bytes;     // [V] the raw bytes (NUL-terminated too, for convenience)
  uint32_t *nbytes; // [V]
  int32_t byte_id[256];  // the id of each single-byte token
  tt_byte_table table;
  tt_strmap vocab;  // spelling → id
  tt_pair_slot *pairs;
  uint32_t pair_mask;
  int n_merges;
  pcre2_code *re;  // the pre-tokenizer
};

// Looks up the merge of (left, right); false when there is none.
bool tt_tokenizer_find_pair(const tt_tokenizer *tok, int32_t left, int32_t right, int32_t *rank,
                            int32_t *merged);

#endif
