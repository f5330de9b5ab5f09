// strings_int: the shape of one language's words inside the pipeline module. A language
// file (strings_<code>.c) defines tt_words_<code>() returning its tables; lang.c lists the
// languages from TT_LANGUAGES (pipeline.h).
#ifndef TT_STRINGS_INT_H
#define TT_STRINGS_INT_H

#include "pipeline.h"

// A step's words. id is a step id ("softmax") or a variant of one ("gelu.identity",
// "logits.lm_head", "positions.sinusoidal"); a variant without a title keeps the step's.
typedef struct {
  const char *id, *title, *text;
} tt_step_words;

typedef struct {
  const char *const *str;  // TT_S_COUNT entries (NULL: taken from English)
  const tt_step_words *steps;
  size_t n_steps;
  const tt_key_row *keys[TT_KEYS_COUNT];  // help tables (tt_key_help)
  size_t n_keys[TT_KEYS_COUNT];
} tt_lang_words;

#define TT_WORDS_DECL(tag, code, name) const tt_lang_words *tt_words_##code(void);
TT_LANGUAGES(TT_WORDS_DECL)
#undef TT_WORDS_DECL

const tt_lang_words *tt_words(tt_lang lang);
// The words of step (or variant) id in lang, falling back to English; NULL when unknown.
const tt_step_words *tt_step_words_of(tt_lang lang, const char *id);

#endif
