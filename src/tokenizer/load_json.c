// load_json: a Hugging Face tokenizer.json → tt_tokenizer, for byte-level BPE only:
//   model        {"type": "BPE", "vocab": {spelling: id}, "merges": ["a b", ...] or [["a", "b"], ...],
//                 "ignore_merges": bool}; dropout, byte_fallback (SentencePiece-style BPE,
//                 named in the message), a subword prefix or word suffix are refused
//   tokenizer_config.json beside it: bos_token and add_bos_token (load_config.c)
//   normalizer   null (or an empty Sequence)
//   pre_tokenizer ByteLevel (add_prefix_space false), alone or last in a Sequence after
//                 Split (a Regex or String pattern, Isolated or Removed, not inverted) and
//                 Digits steps; the patterns run on PCRE2 (UTF, Unicode properties)
//   added_tokens [{"id", "content", "special", "lstrip", "rstrip", "single_word", ...}]
//   decoder      null or ByteLevel
// Anything else is refused with a one-line message naming it.
#include <stdlib.h>
#include <string.h>

#include "tokenizer_internal.h"

#define MAX_ADDED_ID (1 << 24)

static const char *type_of(json_t *obj) {
  const char *t = json_string_value(json_object_get(obj, "type"));
  return t ? t : "(no type)";
}

static bool is_true(json_t *obj, const char *key) {
  return json_is_true(json_object_get(obj, key));
}

static tt_status unsupported(const char *path, const char *what, const char *name, tt_error *err) {
  return tt_fail(err, TT_ERR_UNSUPPORTED, "%s: %s %s is not supported (ttrace reads byte-level BPE tokenizers)", path,
                 what, name);
}

static tt_status check_normalizer(json_t *n, const char *path, tt_error *err) {
  if (!n || json_is_null(n)) return TT_OK;
  json_t *list = json_object_get(n, "normalizers");
  if (strcmp(type_of(n), "Sequence") == 0 && json_is_array(list) && json_array_size(list) == 0) return TT_OK;
  return unsupported(path, "normalizer", type_of(n), err);
}

static tt_status check_model(json_t *m, const char *path, tt_error *err) {
  if (!json_is_object(m)) return tt_fail(err, TT_ERR_FORMAT, "%s: no \"model\" object", path);
  json_t *type = json_object_get(m, "type"), *drop = json_object_get(m, "dropout");
  if (type && strcmp(type_of(m), "BPE") != 0) return unsupported(path, "model type", type_of(m), err);
  if (drop && !json_is_null(drop) && json_number_value(drop) != 0.0) return unsupported(path, "BPE", "dropout", err);
  if (is_true(m, "byte_fallback"))
    return tt_fail(err, TT_ERR_UNSUPPORTED,
                   "%s: SentencePiece-style BPE with byte_fallback (Llama 2, TinyLlama: \u2581 for spaces, <0xNN> byte "
                   "tokens) is not supported; ttrace reads byte-level BPE tokenizers (GPT-2, Llama 3, Qwen2, SmolLM)",
                   path);
  const char *affix[] = {"continuing_subword_prefix", "end_of_word_suffix"};
  for (int i = 0; i < 2; i++) {
    json_t *v = json_object_get(m, affix[i]);
    if (v && !json_is_null(v) && !(json_is_string(v) && json_string_length(v) == 0))
      return unsupported(path, "BPE", affix[i], err);
  }
  if (!json_is_object(json_object_get(m, "vocab")) || !json_is_array(json_object_get(m, "merges")))
    return tt_fail(err, TT_ERR_FORMAT, "%s: model needs \"vocab\" (an object) and \"merges\" (a list)", path);
  return TT_OK;
}

// How many ids the added tokens need beyond the V of the BPE vocabulary.
static tt_status added_extent(json_t *added, int V, int *extra, const char *path, tt_error *err) {
  *extra = 0;
  if (!added || json_is_null(added)) return TT_OK;
  if (!json_is_array(added)) return tt_fail(err, TT_ERR_FORMAT, "%s: \"added_tokens\" is not a list", path);
  size_t i;
  json_t *a;
  json_array_foreach(added, i, a) {
    json_t *id = json_object_get(a, "id");
    if (!json_is_integer(id) || !json_is_string(json_object_get(a, "content")) ||
        json_string_length(json_object_get(a, "content")) == 0 || json_integer_value(id) < 0 ||
        json_integer_value(id) >= MAX_ADDED_ID)
      return tt_fail(err, TT_ERR_FORMAT, "%s: added token %zu needs an \"id\" in 0..%d and a non-empty \"content\"",
                     path, i, MAX_ADDED_ID - 1);
    if (json_integer_value(id) + 1 - V > *extra) *extra = (int)(json_integer_value(id) + 1 - V);
  }
  return TT_OK;
}

static tt_status add_one(tt_tokenizer *tok, json_t *a, int V, const char *path, tt_error *err) {
  const char *content = json_string_value(json_object_get(a, "content"));
  int32_t id = (int32_t)json_integer_value(json_object_get(a, "id"));
  bool special = is_true(a, "special");
  const char *flags[] = {"lstrip", "rstrip", "single_word"};
  for (int k = 0; k < 3 && !special; k++)
    if (is_true(a, flags[k]))
      return tt_fail(err, TT_ERR_UNSUPPORTED, "%s: added token \"%s\": %s is not supported", path, content, flags[k]);
  if (id < V && strcmp(tok->spelling[id], content) != 0)
    return tt_fail(err, TT_ERR_FORMAT, "%s: added token \"%s\" has id %d, which the vocabulary gives to \"%s\"", path,
                   content, (int)id, tok->spelling[id]);
  if (id >= V) {
    tt_status st = tt_tok_set_token(tok, id, content, true, path, err);
    if (st) return st;
  }
  tok->added[tok->n_added++] = (tt_added_token){tok->spelling[id], strlen(content), id, special};
  return TT_OK;
}

static tt_status load_added(tt_tokenizer *tok, json_t *added, int V, const char *path, tt_error *err) {
  size_t n = json_is_array(added) ? json_array_size(added) : 0;
  if (n && !(tok->added = calloc(n, sizeof *tok->added))) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  for (size_t i = 0; i < n; i++) {
    tt_status st = add_one(tok, json_array_get(added, i), V, path, err);
    if (st) return st;
  }
  for (int id = V; id < tok->n_vocab; id++)
    if (!tok->spelling[id]) return tt_fail(err, TT_ERR_FORMAT, "%s: no token has id %d", path, id);
  return TT_OK;
}

static tt_status load_merges(tt_tokenizer *tok, json_t *merges, const char *path, tt_error *err) {
  tt_status st = tt_tok_alloc_merges(tok, json_array_size(merges), path, err);
  size_t i;
  json_t *m;
  char pair[1024];
  json_array_foreach(merges, i, m) {
    if (st) break;
    const char *left = NULL, *right = NULL;
    if (json_is_array(m) && json_array_size(m) == 2) {  // ["a", "b"]
      left = json_string_value(json_array_get(m, 0));
      right = json_string_value(json_array_get(m, 1));
    } else if (json_is_string(m) && json_string_length(m) < sizeof pair) {  // "a b"
      snprintf(pair, sizeof pair, "%s", json_string_value(m));
      char *space = strchr(pair, ' ');
      if (space && space != pair && space[1] && !strchr(space + 1, ' ')) *space = 0, left = pair, right = space + 1;
    }
    const char *missing;
    if (!left || !right)
      st = tt_fail(err, TT_ERR_FORMAT, "%s: merge %zu is neither \"a b\" nor [\"a\", \"b\"]", path, i);
    else if (!tt_tok_add_merge(tok, left, right, &missing))
      st = tt_fail(err, TT_ERR_FORMAT, "%s: merge %zu: token \"%s\" is not in the vocabulary", path, i, missing);
  }
  return st;
}

static tt_status add_split(tt_tokenizer *tok, json_t *p, const char *path, tt_error *err) {
  json_t *pat = json_object_get(p, "pattern");
  const char *regex = json_string_value(json_object_get(pat, "Regex"));
  const char *literal = json_string_value(json_object_get(pat, "String"));
  const char *behavior = json_string_value(json_object_get(p, "behavior"));
  if (!regex && !literal)
    return tt_fail(err, TT_ERR_FORMAT, "%s: Split needs a pattern {\"Regex\" or \"String\"}", path);
  if (is_true(p, "invert")) return unsupported(path, "Split", "with invert", err);
  if (!behavior || (strcmp(behavior, "Isolated") != 0 && strcmp(behavior, "Removed") != 0))
    return unsupported(path, "Split behavior", behavior ? behavior : "(none)", err);
  tt_split_kind kind = strcmp(behavior, "Isolated") == 0 ? TT_SPLIT_ISOLATED : TT_SPLIT_REMOVED;
  return tt_tok_add_stage(tok, regex ? regex : literal, !regex, kind, path, err);
}

// Appends p's steps; ByteLevel must come last (it turns the pieces into byte spellings).
static tt_status add_pretokenizer(tt_tokenizer *tok, json_t *p, bool *byte_level, const char *path, tt_error *err) {
  const char *type = type_of(p);
  if (*byte_level) return unsupported(path, "pre-tokenizer", "after ByteLevel", err);
  if (strcmp(type, "Sequence") == 0) {
    json_t *list = json_object_get(p, "pretokenizers");
    size_t i;
    json_t *q;
    if (!json_is_array(list)) return tt_fail(err, TT_ERR_FORMAT, "%s: Sequence needs \"pretokenizers\"", path);
    json_array_foreach(list, i, q) {
      tt_status st = add_pretokenizer(tok, q, byte_level, path, err);
      if (st) return st;
    }
    return TT_OK;
  }
  if (strcmp(type, "Split") == 0) return add_split(tok, p, path, err);
  if (strcmp(type, "Digits") == 0)  // Rust's char::is_numeric is \p{N}
    return tt_tok_add_stage(tok, is_true(p, "individual_digits") ? "\\p{N}" : "\\p{N}+", false, TT_SPLIT_ISOLATED, path,
                            err);
  if (strcmp(type, "ByteLevel") == 0) {
    if (is_true(p, "add_prefix_space")) return unsupported(path, "ByteLevel", "add_prefix_space: true", err);
    *byte_level = true;
    json_t *use_regex = json_object_get(p, "use_regex");  // default true
    if (use_regex && !json_is_true(use_regex)) return TT_OK;
    return tt_tok_add_stage(tok, tt_gpt2_pattern, false, TT_SPLIT_ISOLATED, path, err);
  }
  if (strcmp(type, "Metaspace") == 0) return unsupported(path, "pre-tokenizer", "Metaspace (SentencePiece)", err);
  return unsupported(path, "pre-tokenizer", type, err);
}

// The id of the first special token a TemplateProcessing puts before the sequence.
static int32_t template_bos(const tt_tokenizer *tok, json_t *pp) {
  if (strcmp(type_of(pp), "Sequence") == 0) {
    size_t i;
    json_t *q;
    json_array_foreach(json_object_get(pp, "processors"), i, q) {
      int32_t id = template_bos(tok, q);
      if (id >= 0) return id;
    }
    return -1;
  }
  if (strcmp(type_of(pp), "TemplateProcessing") != 0) return -1;
  const char *name = json_string_value(
      json_object_get(json_object_get(json_array_get(json_object_get(pp, "single"), 0), "SpecialToken"), "id"));
  for (int i = 0; name && i < tok->n_added; i++)
    if (strcmp(tok->added[i].content, name) == 0) return tok->added[i].id;
  return -1;
}

// --bos: the post-processor's leading special token, else "<|endoftext|>".
static int32_t find_bos(const tt_tokenizer *tok, json_t *root) {
  int32_t id = template_bos(tok, json_object_get(root, "post_processor"));
  for (int i = 0; id < 0 && i < tok->n_added; i++)
    if (strcmp(tok->added[i].content, "<|endoftext|>") == 0) id = tok->added[i].id;
  return id >= 0 ? id : tt_tok_lookup(tok, "<|endoftext|>");
}

static tt_status load_root(tt_tokenizer *tok, json_t *root, const char *path, tt_error *err) {
  if (!json_is_object(root)) return tt_fail(err, TT_ERR_FORMAT, "%s: not a JSON object", path);
  json_t *model = json_object_get(root, "model"), *added = json_object_get(root, "added_tokens");
  json_t *dec = json_object_get(root, "decoder"), *pre = json_object_get(root, "pre_tokenizer");
  tt_status st = check_model(model, path, err);  // first: it names SentencePiece files
  if (!st) st = check_normalizer(json_object_get(root, "normalizer"), path, err);
  if (!st && dec && !json_is_null(dec) && strcmp(type_of(dec), "ByteLevel") != 0)
    st = unsupported(path, "decoder", type_of(dec), err);
  if (!st && (!pre || json_is_null(pre))) st = unsupported(path, "pre-tokenizer", "null (no ByteLevel step)", err);
  json_t *vocab = json_object_get(model, "vocab");
  int V = st ? 0 : (int)json_object_size(vocab), extra = 0;
  if (!st) st = added_extent(added, V, &extra, path, err);
  if (!st) st = tt_tok_vocab_from_json(tok, vocab, extra, path, err);
  if (!st) st = tt_tok_check_bytes(tok, path, err);
  if (!st) st = load_added(tok, added, V, path, err);
  if (!st) st = load_merges(tok, json_object_get(model, "merges"), path, err);
  bool byte_level = false;
  if (!st) st = add_pretokenizer(tok, pre, &byte_level, path, err);
  if (!st && !byte_level) st = unsupported(path, "pre-tokenizer", "without a ByteLevel step", err);
  if (st) return st;
  tok->ignore_merges = is_true(model, "ignore_merges");
  tok->bos = find_bos(tok, root);
  tok->source = "tokenizer.json";
  return TT_OK;
}

tt_status tt_tok_load_json(tt_tokenizer *tok, const char *path, tt_error *err) {
  char *text;
  size_t len;
  tt_status st = tt_read_file(path, &text, &len, err);
  if (st != TT_OK) return st;
  json_error_t jerr;
  json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
  free(text);
  if (!root) return tt_fail(err, TT_ERR_FORMAT, "%s: bad JSON at line %d: %s", path, jerr.line, jerr.text);
  st = load_root(tok, root, path, err);
  json_decref(root);
  return st;
}
