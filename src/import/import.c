// import: another implementation's activations → a trace (see import.h).
#include "import.h"

#include <stdlib.h>
#include <string.h>

#include "npz.h"
#include "safetensors/safetensors.h"

typedef enum { LAYOUT_PLAIN, LAYOUT_HEADS } layout;  // heads: [(1,)T,H,D] → [H,T,D]

// The tensors of a safetensors file or of a .npz archive.
typedef struct {
  tt_st_file *st;
  tt_npz *npz;
} source;

static size_t source_count(const source *s) {
  return s->st ? tt_st_count(s->st) : tt_npz_count(s->npz);
}
static const tt_tensor *source_get(const source *s, size_t i) {
  return s->st ? tt_st_get(s->st, i) : tt_npz_get(s->npz, i);
}

static tt_status source_open(const char *path, source *s, tt_error *err) {
  size_t n = strlen(path);
  memset(s, 0, sizeof *s);
  if (n > 4 && strcmp(path + n - 4, ".npz") == 0) return tt_npz_open(path, &s->npz, err);
  return tt_st_open(path, &s->st, err);
}

static void source_close(source *s) {
  tt_st_close(s->st);
  tt_npz_close(s->npz);
}

static bool is_hf(const source *s) {
  for (size_t i = 0; i < source_count(s); i++)
    if (strncmp(source_get(s, i)->name, "hidden_states.", 14) == 0) return true;
  return false;
}

// The ttrace hook a Hugging Face dump's tensor stands for ("" when it is not one).
static void hf_name(const char *name, int n_layer, char *out, size_t len) {
  char *end;
  *out = 0;
  if (strcmp(name, "logits") == 0) snprintf(out, len, "hook_logits");
  if (strncmp(name, "hidden_states.", 14) != 0) return;
  long n = strtol(name + 14, &end, 10);
  if (*end || end == name + 14 || n < 0 || n > n_layer) return;
  if (n < n_layer)
    snprintf(out, len, "blocks.%ld.hook_resid_pre", n);
  else
    snprintf(out, len, "ln_final.hook_out");
}

static layout layout_of(const char *hook) {
  const char *last = strrchr(hook, '.');
  last = last ? last + 1 : hook;
  bool heads = !strcmp(last, "hook_q") || !strcmp(last, "hook_k") || !strcmp(last, "hook_v") || !strcmp(last, "hook_z");
  return heads ? LAYOUT_HEADS : LAYOUT_PLAIN;
}

// in's dimensions other than 1, in order, equal want's: the same elements in the same order.
static bool same_without_ones(const tt_tensor *in, const tt_tensor *want) {
  int i = 0, j = 0;
  for (;;) {
    while (i < in->ndim && in->shape[i] == 1) i++;
    while (j < want->ndim && want->shape[j] == 1) j++;
    if (i == in->ndim || j == want->ndim) return i == in->ndim && j == want->ndim;
    if (in->shape[i++] != want->shape[j++]) return false;
  }
}

// in (another tool's layout) → dst (F32, want's shape); false when the shapes do not fit.
static bool convert(const tt_tensor *in, const tt_tensor *want, layout lay, float *dst) {
  int64_t n = tt_tensor_numel(want);
  if (tt_tensor_numel(in) != n) return false;
  if (lay == LAYOUT_PLAIN) {
    if (!same_without_ones(in, want)) return false;
    for (int64_t i = 0; i < n; i++) dst[i] = (float)tt_tensor_get(in, i);
    return true;
  }
  int off = in->ndim == 4 && in->shape[0] == 1;  // a batch of one
  if (in->ndim - off != 3 || want->ndim != 3) return false;
  int64_t H = want->shape[0], T = want->shape[1], D = want->shape[2];
  if (in->shape[off] != T || in->shape[off + 1] != H || in->shape[off + 2] != D) return false;
  for (int64_t t = 0; t < T; t++)  // in (T,H,D) → dst (H,T,D)
    for (int64_t h = 0; h < H; h++)
      for (int64_t d = 0; d < D; d++) dst[(h * T + t) * D + d] = (float)tt_tensor_get(in, (t * H + h) * D + d);
  return true;
}

static tt_status import_tensor(tt_trace *tr, const tt_tensor *in, const char *hook, const tt_trace *like,
                               const char *path, tt_error *err) {
  const tt_tensor *want = tt_trace_find(like, hook);
  if (!want)
    return tt_fail(err, TT_ERR_FORMAT,
                   "%s: '%s' (as %s) is not in the trace given with --like (trace it with every hook)", path, in->name,
                   hook);
  if (tt_trace_find(tr, hook)) return tt_fail(err, TT_ERR_FORMAT, "%s: two tensors map to %s", path, hook);
  float *buf = malloc((size_t)tt_tensor_numel(want) * sizeof *buf + 1);
  if (!buf) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  tt_status st = TT_OK;
  char got[64], exp[64];
  if (!convert(in, want, layout_of(hook), buf))
    st = tt_fail(err, TT_ERR_SHAPE, "%s: '%s' has shape %s, which does not fit %s %s%s", path, in->name,
                 tt_shape_str(in->shape, in->ndim, got, sizeof got), hook,
                 tt_shape_str(want->shape, want->ndim, exp, sizeof exp),
                 layout_of(hook) == LAYOUT_HEADS ? " (from [batch, pos, head, d_head])" : "");
  tt_tensor t = *want;
  t.dtype = TT_F32;
  t.data = buf;
  if (!st) st = tt_trace_add(tr, &t, err);
  free(buf);
  return st;
}

static tt_status copy_like(tt_trace *tr, const tt_trace *like, const char *path, tt_error *err) {
  tt_status st = TT_OK;
  for (size_t i = 0; i < tt_trace_meta_count(like) && !st; i++) {
    const char *k, *v;
    tt_trace_meta_at(like, i, &k, &v);
    st = tt_trace_set_meta(tr, k, v);
  }
  if (!st) st = tt_trace_set_meta(tr, "imported_from", path);
  if (st) return tt_fail(err, st, "out of memory");
  const tt_tensor *tokens = tt_trace_find(like, "tokens");
  return tokens ? tt_trace_add(tr, tokens, err) : TT_OK;
}

tt_status tt_import(const char *path, const tt_trace *like, tt_trace **out, tt_import_report *rep, tt_error *err) {
  *out = NULL;
  memset(rep, 0, sizeof *rep);
  tt_config cfg;
  if (!tt_trace_config(like, &cfg)) return tt_fail(err, TT_ERR_FORMAT, "the --like trace has no readable config");
  source f;
  tt_status st = source_open(path, &f, err);
  if (st) return st;
  bool hf = is_hf(&f);
  rep->kind = hf ? "huggingface" : "transformerlens";
  tt_trace *tr = tt_trace_create();
  st = tr ? copy_like(tr, like, path, err) : tt_fail(err, TT_ERR_NOMEM, "out of memory");
  if (!st) st = tt_trace_set_meta(tr, "import_kind", rep->kind) ? tt_fail(err, TT_ERR_NOMEM, "out of memory") : TT_OK;
  for (size_t i = 0; i < source_count(&f) && !st; i++) {
    const tt_tensor *in = source_get(&f, i);
    char hook[160];
    if (hf)
      hf_name(in->name, cfg.n_layer, hook, sizeof hook);
    else
      snprintf(hook, sizeof hook, "%s", tt_trace_find(like, in->name) && strcmp(in->name, "tokens") ? in->name : "");
    if (!*hook) {
      rep->skipped++;
      continue;
    }
    st = import_tensor(tr, in, hook, like, path, err);
    rep->imported += !st;
  }
  if (!st && rep->imported == 0)
    st = tt_fail(err, TT_ERR_FORMAT, "%s: no tensor maps to a ttrace hook (neither hidden_states.N nor a hook name)",
                 path);
  source_close(&f);
  if (st) {
    tt_trace_destroy(tr);
    return st;
  }
  *out = tr;
  return TT_OK;
}
