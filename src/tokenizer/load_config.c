// load_config: the two keys of Hugging Face's tokenizer_config.json that change the ids a
// prompt gets: bos_token and add_bos_token. Every other key is about training, padding or
// chat templates and is not read.
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tokenizer_internal.h"

// The BOS token's text: bos_token as a string, or its "content" (an AddedToken); NULL if none.
static const char *bos_text(json_t *root) {
  json_t *b = json_object_get(root, "bos_token");
  if (json_is_object(b)) b = json_object_get(b, "content");
  return json_is_string(b) ? json_string_value(b) : NULL;
}

static tt_status read_config(tt_tokenizer *tok, json_t *root, const char *path, tt_error *err) {
  if (!json_is_object(root)) return tt_fail(err, TT_ERR_FORMAT, "%s: not a JSON object", path);
  const char *text = bos_text(root);
  if (text) {
    int32_t id = -1;
    for (int i = 0; i < tok->n_added && id < 0; i++)
      if (strcmp(tok->added[i].content, text) == 0) id = tok->added[i].id;
    if (id < 0) id = tt_tok_lookup(tok, text);
    if (id < 0) return tt_fail(err, TT_ERR_FORMAT, "%s: bos_token \"%s\" is not a token of this tokenizer", path, text);
    tok->bos = id;
  }
  json_t *add = json_object_get(root, "add_bos_token");
  if (add && !json_is_null(add) && !json_is_boolean(add))
    return tt_fail(err, TT_ERR_FORMAT, "%s: add_bos_token must be true or false", path);
  tok->add_bos = json_is_true(add);
  if (tok->add_bos && tok->bos < 0)
    return tt_fail(err, TT_ERR_FORMAT, "%s: add_bos_token is true but there is no BOS token", path);
  return TT_OK;
}

tt_status tt_tok_load_config(tt_tokenizer *tok, const char *dir, tt_error *err) {
  char path[4200];
  snprintf(path, sizeof path, "%s/tokenizer_config.json", dir);
  char *text;
  size_t len;
  tt_status st = tt_read_file(path, &text, &len, err);
  if (st != TT_OK) return st;
  json_error_t jerr;
  json_t *root = json_loadb(text, len, 0, &jerr);
  free(text);
  if (!root) return tt_fail(err, TT_ERR_FORMAT, "%s: bad JSON at line %d: %s", path, jerr.line, jerr.text);
  st = read_config(tok, root, path, err);
  json_decref(root);
  return st;
}
