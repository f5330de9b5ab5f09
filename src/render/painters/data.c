// data: tensors seen as matrices (a head of a head-major tensor, a row per token), axis
// labels from the trace's token strings, and the colour scale of a tensor.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render_int.h"
#include "trace/hooks.h"

// Any dtype the format has (a tensor outside the hook catalogue may be F64, U8, ...).
float tt_tensor_at_any(const tt_tensor *t, int64_t i) {
  return (float)tt_tensor_get(t, i);
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

// The render's letter for one of the catalogue's axes: the letter itself, 'Q' for "3C"
// (the fused Q/K/V width), 'L' for "T-1" (predictions: token → next token), 'H' for the
// key/value heads G.
static int axis_letter(const char *a, size_t n) {
  if (n == 2 && memcmp(a, "3C", 2) == 0) return 'Q';
  if (n == 3 && memcmp(a, "T-1", 3) == 0) return 'L';
  if (n == 1) return a[0] == 'G' ? 'H' : a[0];
  return '?';
}

// The catalogue's axes of t as letters; false when t is not a catalogue hook of that rank.
static bool catalogue_axes(const tt_tensor *t, char *axes, size_t len) {
  tt_hook_ref ref;
  if (!t->name || !tt_hook_lookup(t->name, &ref)) return false;
  size_t n = 0;
  for (const char *p = ref.def->axes; *p && n + 1 < len;) {
    size_t k = strcspn(p, ",");
    axes[n++] = (char)axis_letter(p, k);
    p += k + (p[k] == ',');
  }
  axes[n] = 0;
  return (int)n == t->ndim;
}

void tt_hook_axes(const tt_trace *tr, const tt_tensor *t, char *axes, size_t len) {
  (void)tr;
  if (catalogue_axes(t, axes, len)) return;
  // Anything else recorded per token: rows are tokens, columns the width.
  if (t->ndim == 1)
    snprintf(axes, len, "T");
  else if (t->ndim == 2)
    snprintf(axes, len, "TC");
  else if (t->ndim == 3)
    snprintf(axes, len, t->shape[1] == t->shape[2] ? "HTT" : "HTD");
  else
    snprintf(axes, len, "????");
}

const tt_tensor *tt_find_hook(const tt_trace *tr, int layer, const char *suffix) {
  tt_hook_ref ref;
  char name[160];
  if (!tt_hook_at(suffix, layer, &ref) || !tt_hook_name(&ref, name, sizeof name)) return NULL;
  return tt_trace_find(tr, name);
}

const char *tt_hook_relayer(const char *name, int layer, char *buf, size_t len) {
  tt_hook_ref ref;
  if (!tt_hook_lookup(name, &ref) || !ref.def->in_block || layer < 0) return NULL;
  ref.layer = layer;
  return tt_hook_name(&ref, buf, len);
}

int tt_hook_block(const char *name) {
  tt_hook_ref ref;
  return tt_hook_lookup(name, &ref) ? ref.layer : -1;
}

const char *tt_hook_suffix(const char *name) {
  tt_hook_ref ref;
  return tt_hook_lookup(name, &ref) ? ref.def->suffix : name;
}

bool tt_mat_of(const tt_trace *tr, const tt_tensor *t, int head, tt_mat *m) {
  char axes[8];
  tt_hook_axes(tr, t, axes, sizeof axes);
  memset(m, 0, sizeof *m);
  m->t = t;
  m->slice = -1;
  if (t->ndim == 1) {
    m->rows = (int)t->shape[0];
    m->cols = 1;
    m->row_stride = 1;
    m->row_axis = axes[0];
    m->col_axis = '1';
    return true;
  }
  if (t->ndim == 2) {
    m->rows = (int)t->shape[0];
    m->cols = (int)t->shape[1];
    m->row_stride = t->shape[1];
    m->row_axis = axes[0];
    m->col_axis = axes[1];
    return true;
  }
  if (t->ndim == 3) {
    if (head < 0) head = 0;
    if (head >= t->shape[0]) head = (int)t->shape[0] - 1;
    m->slice = head;
    m->rows = (int)t->shape[1];
    m->cols = (int)t->shape[2];
    m->row_stride = t->shape[2];
    m->offset = (int64_t)head * t->shape[1] * t->shape[2];
    m->row_axis = axes[1];
    m->col_axis = axes[2];
    return true;
  }
  return false;
}

const char *tt_token_display(const char *tok, char *buf, size_t len) {
  size_t o = 0;
  if (!tok) tok = "?";
  for (const char *p = tok; *p && o + 4 < len; p++) {
    if (*p == ' ') {
      memcpy(buf + o, "\xE2\x90\xA3", 3);  // ␣
      o += 3;
    } else if (*p == '\n') {
      memcpy(buf + o, "\xE2\x86\xB5", 3);  // ↵
      o += 3;
    } else if (*p == '\t') {
      memcpy(buf + o, "\xE2\x87\xA5", 3);  // ⇥
      o += 3;
    } else {
      buf[o++] = *p;
    }
  }
  buf[o] = 0;
  return buf;
}

const char *tt_axis_label(const tt_trace *tr, const tt_render_extras *ex, int axis, int i, char *buf, size_t len) {
  char tmp[160];
  if (axis == 'T' && i < tt_trace_n_tokens(tr)) return tt_token_label(tr, i, buf, len);
  if (axis == 'L' && i + 1 < tt_trace_n_tokens(tr)) {
    char a[64], b[64];
    tt_token_label(tr, i, a, sizeof a);
    tt_token_label(tr, i + 1, b, sizeof b);
    snprintf(buf, len, "%s \xE2\x86\x92 %s", a, b);
    return buf;
  }
  if (axis == 'V' && ex && ex->token_text) {
    const char *s = ex->token_text(ex->token_ctx, i, tmp, sizeof tmp);
    if (s) return tt_candidate_label(tr, -1, s, buf, len);
  }
  if (axis == '1') {
    snprintf(buf, len, "value");
    return buf;
  }
  snprintf(buf, len, "%d", i);
  return buf;
}

static int cmp_float(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

int tt_scale_quantity(const char *hook) {
  if (!hook) return TT_S_QTY_ACTIVATION;
  if (strncmp(hook, "grad.", 5) == 0) return 0;  // a gradient's legend says ∂L/∂x itself
  {
    if (ends_with(hook, "hook_pattern")) return TT_S_QTY_ATTENTION;
    if (ends_with(hook, "hook_probs")) return TT_S_QTY_PROBABILITY;
    if (strstr(hook, "hook_attn_scores")) return TT_S_QTY_SCORE;
    if (ends_with(hook, "hook_logits")) return TT_S_QTY_LOGIT;
  }
  return TT_S_QTY_ACTIVATION;
}

void tt_scale_of(const tt_tensor *t, const char *hook, tt_scale *s) {
  memset(s, 0, sizeof *s);
  s->qty = tt_scale_quantity(hook);
  s->gradient = hook && strncmp(hook, "grad.", 5) == 0;
  if (!s->gradient && ends_with(hook ? hook : "", "hook_pattern")) {
    // Attention weights are row softmaxes, in [0, 1] by construction, masked entries 0: the
    // scale is known without reading the tensor (12.6 M floats at T = 1024, ~9 ms a view).
    s->hi = 1.0f;
    return;
  }
  int64_t n = tt_tensor_numel(t);
  float lo = INFINITY, hi = -INFINITY;
  // Weight matrices can have tens of millions of entries: a strided scan is enough for colours.
  int64_t step = n > (1 << 22) ? n >> 22 : 1;
  for (int64_t i = 0; i < n; i += step) {
    float v = tt_tensor_at(t, i);
    if (!isfinite(v)) {
      s->has_masked = true;
      continue;
    }
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (lo > hi) lo = hi = 0;
  bool probs = hook && !s->gradient && ends_with(hook, "hook_probs");
  if (!s->gradient && (probs || lo >= 0)) {
    s->diverging = false;
    s->lo = 0;
    s->hi = hi > 0 ? hi : 1;
    if (!probs && lo > 0 && lo > 0.5f * hi) s->lo = lo;  // e.g. LayerNorm scales all near 1
    return;
  }
  float lim = fmaxf(fabsf(lo), fabsf(hi));
  // Clip rare outliers (a few huge residual dimensions would wash out everything else).
  enum { SAMPLE = 4096 };
  float *sample = malloc(sizeof(float) * SAMPLE);
  if (sample) {
    int64_t stride = n > SAMPLE ? n / SAMPLE : 1;
    int k = 0;
    for (int64_t i = 0; i < n && k < SAMPLE; i += stride) {
      float v = tt_tensor_at(t, i);
      if (isfinite(v)) sample[k++] = fabsf(v);
    }
    if (k > 64) {
      qsort(sample, (size_t)k, sizeof(float), cmp_float);
      float p = sample[(int)((k - 1) * 0.995)];
      if (p > 0 && p < 0.4f * lim) {
        lim = p;
        s->clipped = true;
      }
    }
    free(sample);
  }
  if (lim <= 0) lim = 1;
  s->diverging = true;
  s->lo = -lim;
  s->hi = lim;
}

tt_rgba tt_scale_color(const tt_scale *s, float v) {
  if (s->diverging) return tt_cmap_diverging(v / s->hi);
  float span = s->hi - s->lo;
  return tt_cmap_viridis(span > 0 ? (v - s->lo) / span : 0.5f);
}

void tt_minus_signs(char *s, size_t len) {
  size_t n = strlen(s);
  for (size_t i = 0; i < n; i++) {
    if (s[i] != '-') continue;
    unsigned char next = (unsigned char)s[i + 1];
    bool numeric = (next >= '0' && next <= '9') || next == '.' || (unsigned char)s[i + 1] == 0xE2;  // −∞ / ∞
    bool word = i > 0 && (((unsigned char)s[i - 1] >= 'A' && (unsigned char)s[i - 1] <= 'Z' && s[i - 1] != 'E') ||
                          ((unsigned char)s[i - 1] >= 'a' && (unsigned char)s[i - 1] <= 'z' && s[i - 1] != 'e') ||
                          s[i - 1] == '_');
    if (!numeric || word || n + 3 > len) continue;  // a hyphen in a word, or no room
    memmove(s + i + 3, s + i + 1, n - i);           // with the terminating 0
    memcpy(s + i, "\xE2\x88\x92", 3);
    n += 2;
    i += 2;
  }
}

const char *tt_fmt_num(double v, const char *fmt, char *buf, size_t len) {
  if (isinf(v))
    snprintf(buf, len, v < 0 ? "\xE2\x88\x92\xE2\x88\x9E" : "\xE2\x88\x9E");  // −∞ / ∞
  else if (isnan(v))
    snprintf(buf, len, "NaN");
  else
    snprintf(buf, len, fmt, v);
  tt_minus_signs(buf, len);
  return buf;
}

const char *tt_fmt_value(float v, char *buf, size_t len) {
  float a = fabsf(v);
  if (!isfinite(v)) return tt_fmt_num(v, "%g", buf, len);
  if (v == 0)
    snprintf(buf, len, "0");
  else if (a >= 10000)
    snprintf(buf, len, "%.1e", v);
  else if (a >= 100)
    snprintf(buf, len, "%.0f", v);
  else if (a >= 10)
    snprintf(buf, len, "%.1f", v);
  else if (a >= 0.01f)
    snprintf(buf, len, "%.2f", v);
  else if (a >= 0.001f)
    snprintf(buf, len, "%.3f", v);
  else
    snprintf(buf, len, "%.0e", v);
  // A real minus sign reads better on a projector (also in exponents).
  tt_minus_signs(buf, len);
  return buf;
}

void tt_scale_get(tt_paint *p, const tt_tensor *t, const char *hook, tt_scale *s) {
  tt_render *rc = p->rc;
  int64_t n = tt_tensor_numel(t);
  for (int i = 0; i < TT_SCALE_CACHE; i++) {
    if (rc->scales[i].data == t->data && rc->scales[i].numel == n && t->data) {
      *s = rc->scales[i].s;
      return;
    }
  }
  tt_scale_of(t, hook, s);
  tt_scale_entry *e = &rc->scales[rc->next_scale];
  rc->next_scale = (rc->next_scale + 1) % TT_SCALE_CACHE;
  e->data = t->data;
  e->numel = n;
  e->s = *s;
}
