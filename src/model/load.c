// load: a model folder (config.json + the checkpoint's tensors) → tt_model. F32 tensors that are 4-byte aligned are used in place
// from the mapping; every other tensor is converted into one F32 allocation.
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "checkpoint.h"
#include "load_internal.h"

struct tt_model_storage {
  tt_checkpoint *file;  // model.safetensors or its shards
  float *converted;     // one block for all F16/BF16 (or unaligned) tensors
  size_t converted_floats;
};

void tt_weight_spec(weight_spec *s, const char *name, int64_t d0, int64_t d1, const float **dst) {
  snprintf(s->name, sizeof s->name, "%s", name);
  s->ndim = d1 ? 2 : 1;
  s->shape[0] = d0;
  s->shape[1] = d1;
  s->dst = dst;
  s->optional = false;
}
#define spec tt_weight_spec

static int build_specs(tt_model *m, weight_spec *s) {
  const tt_config *c = &m->cfg;
  int64_t C = c->n_embd, F = c->n_inner, V = c->vocab_size, P = c->n_positions;
  int n = 0;
  spec(&s[n++], "wte.weight", V, C, &m->wte);
  if (c->positions == TT_POS_LEARNED) spec(&s[n++], "wpe.weight", P, C, &m->wpe);
  for (int l = 0; l < c->n_layer; l++) {
    tt_layer_weights *w = &m->layers[l];
    char p[32];
    snprintf(p, sizeof p, "h.%d.", l);
#define LAYER(suffix, d0, d1, field)                \
  do {                                              \
    char full[96];                                  \
    snprintf(full, sizeof full, "%s%s", p, suffix); \
    spec(&s[n++], full, d0, d1, &w->field);         \
  } while (0)
    LAYER("ln_1.weight", C, 0, ln1_w);
    LAYER("ln_1.bias", C, 0, ln1_b);
    LAYER("attn.c_attn.weight", C, 3 * C, attn_w);
    LAYER("attn.c_attn.bias", 3 * C, 0, attn_b);
    LAYER("attn.c_proj.weight", C, C, attn_proj_w);
    LAYER("attn.c_proj.bias", C, 0, attn_proj_b);
    LAYER("ln_2.weight", C, 0, ln2_w);
    LAYER("ln_2.bias", C, 0, ln2_b);
    LAYER("mlp.c_fc.weight", C, F, fc_w);
    LAYER("mlp.c_fc.bias", F, 0, fc_b);
    LAYER("mlp.c_proj.weight", F, C, fc_proj_w);
    LAYER("mlp.c_proj.bias", C, 0, fc_proj_b);
#undef LAYER
  }
  spec(&s[n++], "ln_f.weight", C, 0, &m->lnf_w);
  spec(&s[n++], "ln_f.bias", C, 0, &m->lnf_b);
  spec(&s[n], "lm_head.weight", V, C, &m->lm_head);
  s[n++].optional = true;
  return n;
}

// Finds name with or without the "transformer." prefix (lm_head.weight is never prefixed);
// a Llama model's names are looked up as they are.
static const tt_tensor *find_weight(const tt_checkpoint *f, const char *name, tt_arch arch) {
  const tt_tensor *t = tt_checkpoint_find(f, name);
  if (t || arch == TT_ARCH_LLAMA) return t;
  char full[128];
  snprintf(full, sizeof full, "transformer.%s", name);
  return tt_checkpoint_find(f, full);
}

static bool usable_in_place(const tt_tensor *t) {
  return t->dtype == TT_F32 && ((uintptr_t)t->data % sizeof(float)) == 0;
}

// The first element of an F32/F16/BF16 tensor that is NaN or infinite (exponent bits all
// ones), or -1. Checked on the stored bits, so a large model costs one pass over memory.
static int64_t first_non_finite(const tt_tensor *t) {
  int64_t n = tt_tensor_numel(t);
  const unsigned char *p = t->data;
  for (int64_t i = 0; i < n; i++) {
    uint32_t u32;
    uint16_t u16;
    if (t->dtype == TT_F32) {
      memcpy(&u32, p + 4 * i, 4);
      if ((u32 & 0x7f800000u) == 0x7f800000u) return i;
    } else {
      memcpy(&u16, p + 2 * i, 2);
      uint16_t mask = t->dtype == TT_F16 ? 0x7c00u : 0x7f80u;
      if ((u16 & mask) == mask) return i;
    }
  }
  return -1;
}

static tt_status check_finite(const tt_tensor *t, const char *path, tt_error *err) {
  int64_t bad = first_non_finite(t);
  if (bad < 0) return TT_OK;
  int64_t cols = t->ndim == 2 ? t->shape[1] : 0;
  char where[64] = "";
  if (cols) snprintf(where, sizeof where, " [%lld, %lld]", (long long)(bad / cols), (long long)(bad % cols));
  double v = tt_tensor_get(t, bad);
  return tt_fail(err, TT_ERR_FORMAT, "%s: tensor '%s' holds %s at element %lld%s (the weights must be finite)", path,
                 t->name,
                 isnan(v) ? "NaN"
                 : v > 0  ? "+inf"
                          : "-inf",
                 (long long)bad, where);
}

static tt_status check_weight(const tt_tensor *t, const weight_spec *s, const char *path, tt_error *err) {
  char want[64], got[64];
  if (t->dtype != TT_F32 && t->dtype != TT_F16 && t->dtype != TT_BF16)
    return tt_fail(err, TT_ERR_UNSUPPORTED, "%s: tensor '%s' has dtype %s (F32, F16 or BF16 expected)", path, t->name,
                   tt_dtype_name(t->dtype));
  bool same = t->ndim == s->ndim;
  for (int d = 0; same && d < s->ndim; d++) same = t->shape[d] == s->shape[d];
  if (!same)
    return tt_fail(err, TT_ERR_SHAPE, "%s: tensor '%s' should have shape %s for this config.json, found %s", path,
                   t->name, tt_shape_str(s->shape, s->ndim, want, sizeof want),
                   tt_shape_str(t->shape, t->ndim, got, sizeof got));
  return check_finite(t, path, err);
}

// The unembedding as config.json's tie_word_embeddings says; lm_head = wte when tied.
static tt_status check_tying(tt_model *m, const char *path, tt_error *err) {
  int tie = m->cfg.tie_word_embeddings;
  if (!m->lm_head) {
    if (tie == 0)
      return tt_fail(err, TT_ERR_FORMAT, "%s: tie_word_embeddings is false but there is no lm_head.weight", path);
    m->lm_head = m->wte;
    return TT_OK;
  }
  if (tie == 0) return TT_OK;
  size_t n = (size_t)m->cfg.vocab_size * m->cfg.n_embd;
  if (memcmp(m->lm_head, m->wte, n * sizeof(float)) != 0)
    return tt_fail(err, TT_ERR_UNSUPPORTED,
                   "%s: lm_head.weight differs from %s but tie_word_embeddings is %s (set it to false to "
                   "use lm_head.weight)",
                   path, m->cfg.arch == TT_ARCH_LLAMA ? "model.embed_tokens.weight" : "wte.weight",
                   tie == 1 ? "true" : "absent (true)");
  m->lm_head = m->wte;
  return TT_OK;
}

static tt_status bind_weights(tt_model *m, tt_error *err) {
  const char *path = tt_checkpoint_path(m->storage->file);
  int max_specs = 4 + 16 * m->cfg.n_layer + 4;
  weight_spec *specs = calloc((size_t)max_specs, sizeof *specs);
  const tt_tensor **found = calloc((size_t)max_specs, sizeof *found);
  tt_status st = (!specs || !found) ? tt_fail(err, TT_ERR_NOMEM, "out of memory") : TT_OK;
  int n = st ? 0 : m->cfg.arch == TT_ARCH_LLAMA ? tt_llama_weight_specs(m, specs) : build_specs(m, specs);
  size_t convert_floats = 0;
  for (int i = 0; i < n && !st; i++) {
    found[i] = find_weight(m->storage->file, specs[i].name, m->cfg.arch);
    if (!found[i]) {
      if (!specs[i].optional && m->cfg.arch == TT_ARCH_LLAMA)
        st = tt_fail(err, TT_ERR_FORMAT, "%s: missing tensor '%s'", path, specs[i].name);
      else if (!specs[i].optional)
        st = tt_fail(err, TT_ERR_FORMAT, "%s: missing tensor '%s' (also looked for 'transformer.%s')", path,
                     specs[i].name, specs[i].name);
      continue;
    }
    st = check_weight(found[i], &specs[i], path, err);
    if (!st && !usable_in_place(found[i])) convert_floats += (size_t)tt_tensor_numel(found[i]);
  }
  if (!st && convert_floats) {
    m->storage->converted_floats = convert_floats;
    m->storage->converted = malloc(convert_floats * sizeof(float));
    if (!m->storage->converted) st = tt_fail(err, TT_ERR_NOMEM, "out of memory converting %s", path);
  }
  size_t used = 0;
  for (int i = 0; i < n && !st; i++) {
    if (!found[i]) continue;
    size_t numel = (size_t)tt_tensor_numel(found[i]);
    m->n_params += numel;
    if (usable_in_place(found[i])) {
      *specs[i].dst = found[i]->data;
    } else {
      float *dst = m->storage->converted + used;
      tt_convert_to_f32(dst, found[i]->data, found[i]->dtype, numel);
      *specs[i].dst = dst;
      used += numel;
    }
  }
  if (!st) st = check_tying(m, path, err);
  free(specs);
  free(found);
  return st;
}

tt_status tt_config_read_dir(const char *dir, tt_config *cfg, tt_error *err) {
  char path[4096];
  snprintf(path, sizeof path, "%s/config.json", dir);
  char *text = NULL;
  tt_status st = tt_read_file(path, &text, NULL, err);
  if (st) tt_fail_prefix(err, "model folder %s", dir);
  if (!st) {
    st = tt_config_from_json(text, cfg, err);
    if (st) tt_fail_prefix(err, "%s", path);
  }
  free(text);
  return st;
}

tt_status tt_model_load(const char *dir, tt_model **out, tt_error *err) {
  *out = NULL;
  tt_model *m = calloc(1, sizeof *m);
  if (!m || !(m->storage = calloc(1, sizeof *m->storage)) || !(m->dir = strdup(dir))) {
    tt_model_destroy(m);
    return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  }
  tt_status st = tt_config_read_dir(dir, &m->cfg, err);
  if (!st && !(m->layers = calloc((size_t)m->cfg.n_layer, sizeof *m->layers)))
    st = tt_fail(err, TT_ERR_NOMEM, "out of memory");
  if (!st) st = tt_checkpoint_open(dir, &m->storage->file, err);
  if (!st) st = bind_weights(m, err);
  if (st) {
    tt_model_destroy(m);
    return st;
  }
  *out = m;
  return TT_OK;
}

bool tt_model_weight_in_file(const tt_model *m, const float *w, size_t n) {
  if (!m || !m->storage || !m->storage->file || !w) return false;
  uintptr_t c = (uintptr_t)m->storage->converted, at = (uintptr_t)w;
  return !c || at + n * sizeof(float) <= c || at >= c + m->storage->converted_floats * sizeof(float);
}

void tt_model_drop_pages(const tt_model *m, const float *w, size_t n) {
  long page = sysconf(_SC_PAGESIZE);
  if (!tt_model_weight_in_file(m, w, n) || page <= 0) return;
  uintptr_t p = (uintptr_t)page, begin = ((uintptr_t)w + p - 1) / p * p, end = (uintptr_t)(w + n) / p * p;
  if (end > begin) madvise((void *)begin, end - begin, MADV_DONTNEED);  // a hint: its failure loses nothing
}

void tt_model_destroy(tt_model *m) {
  if (!m) return;
  if (m->storage) {
    tt_checkpoint_close(m->storage->file);
    free(m->storage->converted);
    free(m->storage);
  }
  free(m->layers);
  free(m->dir);
  free(m);
}

bool tt_model_default_dir(char *buf, size_t len) {
  char probe[4096];
  if (!tt_asset_path("models/default", probe, sizeof probe)) return false;
  // assets/models/default is a text file naming the default model's folder.
  char *name = NULL;
  if (tt_read_file(probe, &name, NULL, NULL)) return false;
  name[strcspn(name, "\r\n")] = 0;
  char rel[512];
  snprintf(rel, sizeof rel, "models/%s", name);
  free(name);
  return tt_asset_path(rel, buf, len);
}
