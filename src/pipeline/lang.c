// lang: the interface languages (TT_LANGUAGES) and the lookup of their words.
#include <string.h>

#include "strings_int.h"

typedef struct {
  const char *code, *label;
  const tt_lang_words *(*words)(void);
} lang_def;

static const lang_def langs[TT_LANG_COUNT] = {
#define TT_LANG_DEF(tag, code, name) [TT_LANG_##tag] = {#code, name, tt_words_##code},
    TT_LANGUAGES(TT_LANG_DEF)
#undef TT_LANG_DEF
};

static tt_lang valid(tt_lang lang) {
  return (unsigned)lang < TT_LANG_COUNT ? lang : TT_LANG_EN;
}

const char *tt_lang_code(tt_lang lang) {
  return langs[valid(lang)].code;
}
const char *tt_lang_label(tt_lang lang) {
  return langs[valid(lang)].label;
}
tt_lang tt_lang_next(tt_lang lang) {
  return (tt_lang)((valid(lang) + 1) % TT_LANG_COUNT);
}

bool tt_lang_parse(const char *code, tt_lang *out) {
  for (int i = 0; code && i < TT_LANG_COUNT; i++)
    if (strcmp(code, langs[i].code) == 0) {
      *out = (tt_lang)i;
      return true;
    }
  return false;
}

const tt_lang_words *tt_words(tt_lang lang) {
  return langs[valid(lang)].words();
}

const char *tt_str(tt_lang lang, tt_str_id id) {
  if ((unsigned)id >= TT_S_COUNT) return "";
  const char *s = tt_words(lang)->str[id];
  if (!s) s = tt_words(TT_LANG_EN)->str[id];
  return s ? s : "";
}

const tt_key_row *tt_key_help(tt_lang lang, tt_key_table table, int *n) {
  const tt_lang_words *w = tt_words(lang);
  if ((unsigned)table >= TT_KEYS_COUNT) table = TT_KEYS_WINDOW;
  if (!w->keys[table]) w = tt_words(TT_LANG_EN);
  *n = (int)w->n_keys[table];
  return w->keys[table];
}

static const tt_step_words *find_in(const tt_lang_words *w, const char *id) {
  for (size_t i = 0; i < w->n_steps; i++)
    if (strcmp(w->steps[i].id, id) == 0) return &w->steps[i];
  return NULL;
}

const tt_step_words *tt_step_words_of(tt_lang lang, const char *id) {
  const tt_step_words *s = find_in(tt_words(lang), id);
  return s ? s : find_in(tt_words(TT_LANG_EN), id);
}
