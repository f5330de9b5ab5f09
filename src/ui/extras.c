// extras: model-side data that makes views richer than the trace alone: vocabulary
// strings for next-token candidates, the embedding matrix, the prompt's BPE merges.
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "tokenizer/tokenizer.h"
#include "ui.h"

struct tt_viz_data {
  tt_tokenizer *tok;
  tt_model *model;
  char **merges;
  int n_merges, cap_merges;
};

static bool is_dir_with(const char *dir, const char *file) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  FILE *fp = fopen(path, "rb");
  if (fp) fclose(fp);
  return fp != NULL;
}

tt_status tt_viz_data_open(const char *model_dir, const tt_trace *tr, tt_viz_data **out, tt_error *err) {
  tt_viz_data *d = calloc(1, sizeof *d);
  if (!d) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  char def[4096], tokdir[4096];
  const char *cands[3] = {model_dir, tr ? tt_trace_meta(tr, "model") : NULL,
                          tt_model_default_dir(def, sizeof def) ? def : NULL};
  const char *dir = NULL;
  for (int i = 0; i < 3 && !dir; i++)
    if (cands[i] && is_dir_with(cands[i], "vocab.json")) dir = cands[i];
  if (dir) tt_tokenizer_load(dir, &d->tok, NULL);
  if (!d->tok && tt_asset_path("tokenizer", tokdir, sizeof tokdir)) tt_tokenizer_load(tokdir, &d->tok, NULL);
  // The model only when it is the one the trace came from (same width and vocabulary).
  for (int i = 0; i < 3 && !d->model; i++) {
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
}

void tt_viz_data_close(tt_viz_data *d) {
  if (!d) return;
  clear_merges(d);
  free(d->merges);
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
  char line[256];
  snprintf(line, sizeof line, "%s + %s \xE2\x86\x92 %s  (#%d)", s->left, s->right, s->merged, s->rank);
  char *copy = strdup(line);
  if (copy) d->merges[d->n_merges++] = copy;
}

void tt_viz_data_extras(tt_viz_data *d, const tt_trace *tr, tt_render_extras *ex) {
  memset(ex, 0, sizeof *ex);
  if (!d) return;
  if (d->tok) {
    ex->token_text = token_text;
    ex->token_ctx = d;
    clear_merges(d);
    const char *prompt = tr ? tt_trace_meta(tr, "prompt") : NULL;
    int32_t *ids = NULL;
    int n = 0;
    if (prompt && tt_tokenizer_encode(d->tok, prompt, strlen(prompt), &ids, &n, on_merge, d, NULL) == TT_OK) {
      ex->merges = (const char *const *)d->merges;
      ex->n_merges = d->n_merges;
    }
    free(ids);
  }
  if (d->model) {
    ex->wte = d->model->wte;
    ex->wpe = d->model->wpe;
    ex->vocab = d->model->cfg.vocab_size;
    ex->width = d->model->cfg.n_embd;
    ex->n_pos = d->model->cfg.n_positions;
  }
}
