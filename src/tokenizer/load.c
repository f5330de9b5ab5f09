// load: a folder's tokenizer files → tt_tokenizer. vocab.json (spelling → id) with
// merges.txt (ranked pairs), or tokenizer.json (load_json.c); tokenizer.json wins.
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tokenizer_internal.h"

static tt_status load_vocab(tt_tokenizer *tok, const char *path, tt_error *err) {
  char *text;
  size_t len;
  tt_status rs = tt_read_file(path, &text, &len, err);
  if (rs != TT_OK) return rs;
  json_error_t jerr;
  json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
  free(text);
  if (!root) return tt_fail(err, TT_ERR_FORMAT, "%s: bad JSON at line %d: %s", path, jerr.line, jerr.text);
  tt_status st = tt_tok_vocab_from_json(tok, root, 0, path, err);
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
  tt_status st = tt_tok_alloc_merges(tok, lines, path, err);
  int line_no = 0;
  for (char *line = text, *next; !st && line && *line; line = next) {
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
    const char *missing;
    if (!tt_tok_add_merge(tok, line, space + 1, &missing))
      st = tt_fail(err, TT_ERR_FORMAT, "%s:%d: token \"%s\" is not in vocab.json", path, line_no, missing);
  }
  free(text);
  return st;
}

// GPT-2's layout: vocab.json, merges.txt, GPT-2's pre-tokenizer, "<|endoftext|>" for --bos.
static tt_status load_pair(tt_tokenizer *tok, const char *dir, tt_error *err) {
  char path[4200];
  snprintf(path, sizeof path, "%s/vocab.json", dir);
  tt_status st = load_vocab(tok, path, err);
  if (!st) st = tt_tok_check_bytes(tok, path, err);
  if (!st) {
    snprintf(path, sizeof path, "%s/merges.txt", dir);
    st = load_merges(tok, path, err);
  }
  if (!st) st = tt_tok_add_stage(tok, tt_gpt2_pattern, false, TT_SPLIT_ISOLATED, "GPT-2", err);
  if (!st) tok->bos = tt_tok_lookup(tok, "<|endoftext|>");
  tok->source = "vocab.json+merges.txt";
  return st;
}

static bool has_file(const char *dir, const char *name) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return access(path, F_OK) == 0;
}

const char *tt_tokenizer_files_in(const char *dir) {
  if (has_file(dir, "tokenizer.json")) return "tokenizer.json";
  if (has_file(dir, "vocab.json") || has_file(dir, "merges.txt")) return "vocab.json+merges.txt";
  return NULL;
}

tt_status tt_tokenizer_load(const char *dir, tt_tokenizer **out, tt_error *err) {
  *out = NULL;
  tt_tokenizer *tok = tt_tok_new();
  if (!tok) return tt_fail(err, TT_ERR_NOMEM, "out of memory loading the tokenizer");
  char path[4200];
  snprintf(path, sizeof path, "%s/tokenizer.json", dir);
  tt_status st = has_file(dir, "tokenizer.json") ? tt_tok_load_json(tok, path, err) : load_pair(tok, dir, err);
  if (st == TT_OK && has_file(dir, "tokenizer_config.json")) st = tt_tok_load_config(tok, dir, err);
  if (st != TT_OK) {
    tt_tokenizer_destroy(tok);
    return st;
  }
  *out = tok;
  return TT_OK;
}

void tt_tokenizer_destroy(tt_tokenizer *tok) {
  if (!tok) return;
  for (int i = 0; i < tok->n_stages; i++) pcre2_code_free(tok->stages[i].re);
  free(tok->pairs);
  free(tok->vocab.keys);
  free(tok->vocab.vals);
  free(tok->spelling);
  free(tok->bytes);
  free(tok->nbytes);
  free(tok->added);
  tt_arena_destroy(tok->arena);
  free(tok);
}

int tt_tokenizer_vocab_size(const tt_tokenizer *tok) {
  return tok->n_vocab;
}
const char *tt_tokenizer_source(const tt_tokenizer *tok) {
  return tok->source;
}
int32_t tt_tokenizer_bos(const tt_tokenizer *tok) {
  return tok->bos;
}
bool tt_tokenizer_adds_bos(const tt_tokenizer *tok) {
  return tok->add_bos;
}
