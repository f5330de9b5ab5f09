// extras: model-side data that makes views richer than the trace alone: vocabulary
// strings for next-token candidates, the embedding matrix, the prompt's BPE merges.
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/model.h"
#include "tokenizer/tokenizer.h"
#include "render.h"

struct tt_viz_data {
  tt_tokenizer *tok;
  tt_model *model;
  char **merges;
  int n_merges, cap_merges;
  tt_merge_group *groups;  // text and pieces malloc'd
  int n_groups, cap_groups;
};

static bool is_dir_with(const char *dir, const char *file) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  return access(path, R_OK) == 0;  // not fopen: opening a FIFO would block
}

tt_status tt_viz_data_open(const char *model_dir, const tt_trace *tr, tt_viz_data **out, tt_error *err) {
  return tt_viz_data_open_for(model_dir, tr, true, out, err);
}

tt_status tt_viz_data_open_for(const char *model_dir, const tt_trace *tr, bool weights, tt_viz_data **out,
                               tt_error *err) {
  tt_viz_data *d = calloc(1, sizeof *d);
  if (!d) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  char def[4096], tokdir[4096];
  const char *cands[3] = {model_dir, tr ? tt_trace_meta(tr, "model") : NULL,
                          tt_model_default_dir(def, sizeof def) ? def : NULL};
  const char *dir = NULL;
  for (int i = 0; i < 3 && !dir; i++)
    if (cands[i] && tt_tokenizer_files_in(cands[i])) dir = cands[i];  // tokenizer.json or vocab.json + merges.txt
  if (dir) tt_tokenizer_load(dir, &d->tok, NULL);
  if (!d->tok && tt_asset_path("tokenizer", tokdir, sizeof tokdir)) tt_tokenizer_load(tokdir, &d->tok, NULL);
  // The model only when it is the one the trace came from (same width and vocabulary).
  for (int i = 0; i < 3 && weights && !d->model; i++) {
    if (!cands[i] || !is_dir_with(cands[i], "model.safetensors")) continue;
    tt_model *m = NULL;
    if (tt_model_load(cands[i], &m, NULL) != TT_OK) continue;
    tt_config cfg;
    if (!tr || (tt_trace_config(tr, &cfg) && cfg.n_embd == m->cfg.n_embd && cfg.vocab_size == m->cfg.vocab_size))
      d->model = m;
    else
      tt_model_destroy(m);
  }
  *out = d;
  return TT_OK;
}

static void clear_merges(tt_viz_data *d) {
  for (int i = 0; i < d->n_merges; i++) free(d->merges[i]);
  d->n_merges = 0;
  for (int i = 0; i < d->n_groups; i++) {
    free((char *)d->groups[i].text);
    free((char *)d->groups[i].pieces);
  }
  d->n_groups = 0;
}

void tt_viz_data_close(tt_viz_data *d) {
  if (!d) return;
  clear_merges(d);
  free(d->merges);
  free(d->groups);
  tt_tokenizer_destroy(d->tok);
  tt_model_destroy(d->model);
  free(d);
}

static const char *token_text(void *ctx, int32_t id, char *buf, size_t len) {
  tt_viz_data *d = ctx;
  return d->tok ? tt_tokenizer_token_display(d->tok, id, buf, len) : NULL;
}

static void on_merge(void *ctx, const tt_merge_step *s) {
  tt_viz_data *d = ctx;
  if (d->n_merges == d->cap_merges) {
    int cap = d->cap_merges ? d->cap_merges * 2 : 64;
    char **m = realloc(d->merges, sizeof(char *) * (size_t)cap);
    if (!m) return;
    d->merges = m;
    d->cap_merges = cap;
  }
  // The pieces as the tokens view shows them (not GPT-2's byte-to-unicode letters): a
  // space as ␣, bytes that are part of a character with the character they help spell.
  char l[160], r[160], m[160], line[512];
  tt_merge_labels(d->tok, s, l, r, m, sizeof l);
  snprintf(line, sizeof line, "%s + %s \xE2\x86\x92 %s  (#%d)", l, r, m, s->rank);
  char *copy = strdup(line);
  if (copy) d->merges[d->n_merges++] = copy;
}

// One pre-token: its merges through the BPE, then a group naming its text and final pieces.
static void add_group(tt_viz_data *d, const char *text, size_t len) {
  if (d->n_groups == d->cap_groups) {
    int cap = d->cap_groups ? d->cap_groups * 2 : 16;
    tt_merge_group *g = realloc(d->groups, sizeof *g * (size_t)cap);
    if (!g) return;
    d->groups = g;
    d->cap_groups = cap;
  }
  int first = d->n_merges, n = 0;
  int32_t *ids = NULL;
  if (tt_tokenizer_bpe(d->tok, text, len, &ids, &n, on_merge, d, NULL) != TT_OK) n = 0;
  // The pieces as the tokens view labels them (a piece of a character with the character).
  char pieces[1024] = "", one[200];
  size_t o = 0, at = 0;
  for (int i = 0; i < n && o + 8 < sizeof pieces; i++) {
    size_t nb = 0;
    const char *bytes = tt_tokenizer_token_bytes(d->tok, ids[i], &nb);
    if (!bytes || at + nb > len) break;
    tt_bytes_label(text, at, bytes, nb, text + at + nb, len - at - nb, one, sizeof one);
    o += (size_t)snprintf(pieces + o, sizeof pieces - o, "%s%s", i ? " \xC2\xB7 " : "", one);
    at += nb;
  }
  free(ids);
  tt_merge_group *g = &d->groups[d->n_groups];
  g->text = strndup(text, len);
  g->pieces = strdup(pieces);
  g->first = first;
  g->count = d->n_merges - first;
  if (g->text && g->pieces)
    d->n_groups++;
  else {
    free((char *)g->text);
    free((char *)g->pieces);
  }
}

void tt_viz_data_extras(tt_viz_data *d, const tt_trace *tr, tt_render_extras *ex) {
  memset(ex, 0, sizeof *ex);
  if (!d) return;
  if (d->tok) {
    ex->token_text = token_text;
    ex->token_ctx = d;
    clear_merges(d);
    const char *prompt = tr ? tt_trace_meta(tr, "prompt") : NULL;
    tt_span *spans = NULL;
    int n = 0;
    if (prompt && tt_tokenizer_pretokenize(d->tok, prompt, strlen(prompt), &spans, &n, NULL) == TT_OK) {
      for (int i = 0; i < n; i++) add_group(d, prompt + spans[i].offset, spans[i].len);
      ex->merges = (const char *const *)d->merges;
      ex->n_merges = d->n_merges;
      ex->merge_groups = d->groups;
      ex->n_merge_groups = d->n_groups;
    }
    free(spans);
  }
  if (d->model) {
    ex->wte = d->model->wte;
    ex->wpe = d->model->wpe;
    ex->vocab = d->model->cfg.vocab_size;
    ex->width = d->model->cfg.n_embd;
    ex->n_pos = d->model->cfg.n_positions;
    ex->model = d->model;
  }
}

tt_status tt_viz_data_token_id(const tt_viz_data *d, const char *text, int32_t *id, tt_error *err) {
  if (!d || !d->tok) return tt_fail(err, TT_ERR_IO, "no tokenizer was found to look up '%s'", text);
  int32_t *ids = NULL;
  int n = 0;
  tt_status st = tt_tokenizer_encode(d->tok, text, strlen(text), &ids, &n, NULL, NULL, err);
  if (st) return st;
  if (n == 1) *id = ids[0];
  free(ids);
  if (n != 1 && text[0] != ' ')  // inside a text a word is spelled with the space before it
    return tt_fail(err, TT_ERR_ARG, "'%s' is %d tokens, not one (a word after a space is its own token: ' %s')", text,
                   n, text);
  if (n != 1) return tt_fail(err, TT_ERR_ARG, "'%s' is %d tokens, not one", text, n);
  return TT_OK;
}
