// pretokens: the tokenizer's work on a prompt (pre-token spans, their merges with ranks)
// recorded into the trace, so views of the trace never run the tokenizer again.
#include <stdlib.h>
#include <string.h>

#include "session.h"

typedef struct {
  tt_trace_merge *m;  // strings malloc'd
  int n, cap;
  bool failed;
} merge_list;

static void on_merge(void *ctx, const tt_merge_step *s) {
  merge_list *l = ctx;
  if (l->n == l->cap) {
    int cap = l->cap ? l->cap * 2 : 64;
    tt_trace_merge *grown = realloc(l->m, sizeof *grown * (size_t)cap);
    if (!grown) {
      l->failed = true;
      return;
    }
    l->m = grown;
    l->cap = cap;
  }
  tt_trace_merge m = {strdup(s->left), strdup(s->right), strdup(s->merged), s->rank};
  l->failed |= !m.left || !m.right || !m.merged;
  l->m[l->n++] = m;
}

// Runs the BPE of each span with the merges collected, then hands them to the trace.
static tt_status record(const tt_tokenizer *tok, tt_trace *tr, const char *prompt, const tt_span *spans, int n,
                        int token, tt_trace_pretoken *p, merge_list *ml, tt_error *err) {
  int *first_merge = calloc((size_t)n + 1, sizeof *first_merge);
  if (!first_merge) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  tt_status st = TT_OK;
  for (int i = 0; i < n && !st; i++) {
    int32_t *ids = NULL;
    int count = 0;
    first_merge[i] = ml->n;
    st = tt_tokenizer_bpe(tok, prompt + spans[i].offset, spans[i].len, &ids, &count, on_merge, ml, err);
    free(ids);
    char *text = st ? NULL : strndup(prompt + spans[i].offset, spans[i].len);
    if (!st && (!text || ml->failed)) st = tt_fail(err, TT_ERR_NOMEM, "out of memory");
    p[i] = (tt_trace_pretoken){text, spans[i].offset, spans[i].len, token, count, NULL, 0};
    token += count;
  }
  first_merge[n] = ml->n;
  for (int i = 0; i < n && !st; i++)
    p[i].merges = ml->m + first_merge[i], p[i].n_merges = first_merge[i + 1] - first_merge[i];
  if (!st) st = tt_trace_set_pretokens(tr, p, n, err);
  free(first_merge);
  return st;
}

tt_status tt_session_record_pretokens(const tt_tokenizer *tok, tt_trace *tr, const char *prompt, tt_error *err) {
  const char *bos = tt_trace_meta(tr, "bos");
  int first_token = bos && strcmp(bos, "true") == 0 ? 1 : 0;  // the BOS of --bos is no pre-token's
  tt_span *spans = NULL;
  int n = 0;
  tt_status st = tt_tokenizer_pretokenize(tok, prompt, strlen(prompt), &spans, &n, err);
  tt_trace_pretoken *p = st ? NULL : calloc((size_t)n + 1, sizeof *p);
  if (!st && !p) st = tt_fail(err, TT_ERR_NOMEM, "out of memory");
  merge_list ml = {0};
  if (!st) st = record(tok, tr, prompt, spans, n, first_token, p, &ml, err);
  for (int i = 0; p && i < n; i++) free((char *)p[i].text);
  for (int i = 0; i < ml.n; i++) {
    free((char *)ml.m[i].left);
    free((char *)ml.m[i].right);
    free((char *)ml.m[i].merged);
  }
  free(ml.m);
  free(p);
  free(spans);
  return st;
}
