// train_report: what `ttrace train-step --report` prints after its steps, read back from
// the two model files and the two traces: the loss at each position before and after,
// the weights that moved most (‖W_after − W_before‖ per tensor), and which rows of the
// embedding W_E changed, beside the prompt's distinct tokens.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "safetensors/safetensors.h"
#include "train_report.h"

typedef struct {
  const char *name;
  double moved;
} weight_move;

static int by_moved(const void *a, const void *b) {
  double x = ((const weight_move *)a)->moved, y = ((const weight_move *)b)->moved;
  return (x < y) - (x > y);
}

static const char *bare(const char *name) {
  return strncmp(name, "transformer.", 12) == 0 ? name + 12 : name;
}

static const tt_tensor *find_bare(const tt_st_file *f, const char *name) {
  for (size_t i = 0; i < tt_st_count(f); i++)
    if (strcmp(bare(tt_st_get(f, i)->name), name) == 0) return tt_st_get(f, i);
  return NULL;
}

static void print_losses(const tt_trace *before, const tt_trace *after) {
  const tt_tensor *a = tt_trace_find(before, "hook_loss"), *b = tt_trace_find(after, "hook_loss");
  if (!a || !b || a->shape[0] != b->shape[0]) return;
  printf("the loss at each position, -log p of the next token (before -> after):\n");
  double sa = 0, sb = 0;
  char both[160];
  for (int64_t t = 0; t < a->shape[0]; t++) {
    double la = tt_tensor_get(a, t), lb = tt_tensor_get(b, t);
    sa += la;
    sb += lb;
    snprintf(both, sizeof both, "'%.60s' \xE2\x86\x92 '%.60s'", tt_trace_token(before, (int)t),
             tt_trace_token(before, (int)t + 1));
    printf("  %3lld  %-28s %10.6f -> %10.6f\n", (long long)t, both, la, lb);
  }
  printf("  mean %-28s %10.6f -> %10.6f\n", "", sa / (double)a->shape[0], sb / (double)b->shape[0]);
}

// ‖W_after − W_before‖ of every weight both files hold, the largest first (top 12).
static tt_status print_moved(const tt_st_file *old, const tt_st_file *new_, tt_error *err) {
  size_t n = tt_st_count(new_), k = 0;
  weight_move *m = calloc(n ? n : 1, sizeof *m);
  if (!m) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  for (size_t i = 0; i < n; i++) {
    const tt_tensor *b = tt_st_get(new_, i), *a = find_bare(old, bare(b->name));
    if (!a || tt_tensor_numel(a) != tt_tensor_numel(b)) continue;
    double s = 0;
    for (int64_t j = 0; j < tt_tensor_numel(b); j++) {
      double d = tt_tensor_get(b, j) - (double)(float)tt_tensor_get(a, j);
      s += d * d;
    }
    m[k++] = (weight_move){bare(b->name), sqrt(s)};
  }
  qsort(m, k, sizeof *m, by_moved);
  printf("the weights that moved most, ||W_after - W_before|| (%zu weights):\n", k);
  for (size_t i = 0; i < k && i < 12; i++) printf("  %-32s %.6g\n", m[i].name, m[i].moved);
  if (k > 12) printf("  ... %zu more, each %.6g or less\n", k - 12, m[12].moved);
  free(m);
  return TT_OK;
}

static bool row_changed(const tt_tensor *a, const tt_tensor *b, int64_t row, int64_t C) {
  for (int64_t c = 0; c < C; c++)
    if ((float)tt_tensor_get(b, row * C + c) != (float)tt_tensor_get(a, row * C + c)) return true;
  return false;
}

static bool in_prompt(const tt_trace *tr, int64_t id) {
  for (int t = 0; t < tt_trace_n_tokens(tr); t++)
    if (tt_trace_token_id(tr, t) == id) return true;
  return false;
}

// Which rows of W_E changed, and how many of them are the prompt's tokens.
static void print_rows(const tt_st_file *old, const tt_st_file *new_, const tt_trace *tr) {
  const tt_tensor *a = find_bare(old, "wte.weight"), *b = find_bare(new_, "wte.weight");
  if (!a || !b || a->ndim != 2 || tt_tensor_numel(a) != tt_tensor_numel(b)) return;
  int64_t V = a->shape[0], C = a->shape[1], changed = 0, of_prompt = 0, distinct = 0;
  for (int64_t v = 0; v < V; v++) {
    bool ch = row_changed(a, b, v, C), p = in_prompt(tr, v);
    changed += ch;
    of_prompt += ch && p;
    distinct += p;
  }
  printf(
      "rows of W_E (wte.weight) that changed: %lld of %lld; the prompt has %lld distinct tokens, %lld of them "
      "changed:",
      (long long)changed, (long long)V, (long long)distinct, (long long)of_prompt);
  for (int64_t v = 0; v < V; v++)
    if (in_prompt(tr, v)) printf(" %lld%s", (long long)v, row_changed(a, b, v, C) ? "" : "(unchanged)");
  printf("\n");
  if (changed > of_prompt)
    printf(
        "  (%lld other rows moved: W_E is also the unembedding here; its gradient reaches every row, most by\n"
        "  less than float32 can show)\n",
        (long long)(changed - of_prompt));
}

tt_status tt_train_report(const char *model_dir, const char *new_dir, const tt_trace *before, const tt_trace *after,
                          tt_error *err) {
  char path[8400];
  tt_st_file *old = NULL, *new_ = NULL;
  snprintf(path, sizeof path, "%s/model.safetensors", model_dir);
  tt_status st = tt_st_open(path, &old, err);
  snprintf(path, sizeof path, "%s/model.safetensors", new_dir);
  if (!st) st = tt_st_open(path, &new_, err);
  if (!st) {
    print_losses(before, after);
    st = print_moved(old, new_, err);
  }
  if (!st) print_rows(old, new_, before);
  tt_st_close(new_);
  tt_st_close(old);
  return st;
}
