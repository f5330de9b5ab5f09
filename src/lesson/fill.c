// fill: the {{...}} placeholders of a narration, filled with numbers from the traces, so
// a number the narration quotes is always the number in the trace it plays from.
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"  // tt_config, used by trace.h's tt_trace_config
#include "lesson_internal.h"

static const struct {
  const char *name;
  tt_ph_func func;
} funcs[] = {
    {"value", TT_PH_VALUE},        {"max", TT_PH_MAX},        {"min", TT_PH_MIN},          {"absmax", TT_PH_ABSMAX},
    {"mean", TT_PH_MEAN},          {"std", TT_PH_STD},        {"sum", TT_PH_SUM},          {"norm", TT_PH_NORM},
    {"argmax", TT_PH_ARGMAX},      {"argmin", TT_PH_ARGMIN},  {"word", TT_PH_WORD},        {"list", TT_PH_LIST},
    {"shape", TT_PH_SHAPE},        {"size", TT_PH_SIZE},      {"token", TT_PH_TOKEN},      {"config", TT_PH_CONFIG},
    {"lensword", TT_PH_LENS_WORD}, {"lensp", TT_PH_LENS_P},   {"lensid", TT_PH_LENS_ID},   {"cost", TT_PH_COST},
    {"nearword", TT_PH_NEAR_WORD}, {"nearid", TT_PH_NEAR_ID}, {"nearcos", TT_PH_NEAR_COS}, {"cosine", TT_PH_COSINE}};

static const char *const config_keys[] = {"n_layer",     "n_head",     "n_embd", "d_head", "n_inner",
                                          "n_positions", "vocab_size", "tokens", NULL};

static bool parse_index(const char *s, tt_placeholder *ph, tt_error *err) {
  // s: "i,j,:" (without brackets)
  ph->n_idx = 0;
  while (true) {
    while (*s == ' ') s++;
    if (ph->n_idx == TT_MAX_DIMS) {
      tt_fail(err, TT_ERR_FORMAT, "more than %d indices", TT_MAX_DIMS);
      return false;
    }
    if (*s == ':') {
      ph->idx[ph->n_idx++] = TT_PH_ANY;
      s++;
    } else {
      char *end;
      errno = 0;
      long long v = strtoll(s, &end, 10);
      if (end == s) {
        tt_fail(err, TT_ERR_FORMAT, "index '%.10s' is not a number or ':'", s);
        return false;
      }
      // No tensor axis is longer than 2^40 (safetensors): larger indexes, and those that
      // would wrap to the ':' sentinel, are out of range here rather than later.
      if (errno == ERANGE || v > (1ll << 40) || v < -(1ll << 40)) {
        tt_fail(err, TT_ERR_FORMAT, "index '%.*s' is out of range", (int)(end - s < 24 ? end - s : 24), s);
        return false;
      }
      ph->idx[ph->n_idx++] = v;
      s = end;
    }
    while (*s == ' ') s++;
    if (!*s) return true;
    if (*s != ',') {
      tt_fail(err, TT_ERR_FORMAT, "expected ',' between indices at '%.10s'", s);
      return false;
    }
    s++;
  }
}

static bool parse_fmt(const char *s, tt_placeholder *ph, tt_error *err) {
  // %[.N](f|e|g|p)
  const char *c = s + 1;
  if (*c == '.') {
    c++;
    if (!isdigit((unsigned char)*c)) goto bad;
    while (isdigit((unsigned char)*c)) c++;
  }
  if (!strchr("fegp", *c) || !*c || c[1] || c - s > 6) goto bad;
  ph->percent = *c == 'p';
  snprintf(ph->fmt, sizeof ph->fmt, "%.*s%c", (int)(c - s), s, ph->percent ? 'f' : *c);
  return true;
bad:
  tt_fail(err, TT_ERR_FORMAT, "format '%s' should look like %%.3f, %%.2e, %%.3g or %%.1p (percent)", s);
  return false;
}

// A token index: a whole int (negative counts from the end), nothing else.
static bool token_index(const char *s, int *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (end == s || *end || errno == ERANGE || v > INT_MAX || v < -INT_MAX) return false;
  *out = (int)v;
  return true;
}

tt_status tt_placeholder_parse(const char *s, size_t n, tt_placeholder *ph, tt_error *err) {
  memset(ph, 0, sizeof *ph);
  char buf[256];
  if (n >= sizeof buf) return tt_fail(err, TT_ERR_FORMAT, "placeholder too long");
  memcpy(buf, s, n);
  buf[n] = 0;
  char *words[4];
  int nw = 0;
  for (char *tok = strtok(buf, " \t\n"); tok; tok = strtok(NULL, " \t\n")) {
    if (nw == 3) return tt_fail(err, TT_ERR_FORMAT, "too many words (FUNC REF FORMAT at most)");
    words[nw++] = tok;
  }
  if (nw == 0) return tt_fail(err, TT_ERR_FORMAT, "empty placeholder");
  int w = 0;
  ph->func = TT_PH_VALUE;
  bool named_func = false;
  for (size_t i = 0; i < sizeof funcs / sizeof *funcs; i++)
    if (strcmp(words[0], funcs[i].name) == 0) {
      ph->func = funcs[i].func;
      named_func = true;
    }
  if (named_func) w++;
  if (w >= nw) return tt_fail(err, TT_ERR_FORMAT, "'%s' needs a tensor, token index or config key", words[0]);
  char *ref = words[w++];
  if (w < nw) {
    if (words[w][0] != '%') return tt_fail(err, TT_ERR_FORMAT, "unexpected '%s' (a format starts with %%)", words[w]);
    if (!parse_fmt(words[w], ph, err)) return TT_ERR_FORMAT;
    w++;
  }
  char *colon = strchr(ref, ':');
  if (colon && (strchr(ref, '[') == NULL || colon < strchr(ref, '['))) {
    *colon = 0;
    if (!*ref || strlen(ref) >= sizeof ph->trace) return tt_fail(err, TT_ERR_FORMAT, "bad trace name before ':'");
    strcpy(ph->trace, ref);
    ref = colon + 1;
  }
  char *bracket = strchr(ref, '[');
  if (bracket) {
    size_t len = strlen(bracket);
    if (bracket[len - 1] != ']') return tt_fail(err, TT_ERR_FORMAT, "index list is not closed with ']'");
    bracket[len - 1] = 0;
    *bracket = 0;
    if (!parse_index(bracket + 1, ph, err)) return TT_ERR_FORMAT;
  }
  if (!*ref || strlen(ref) >= sizeof ph->ref) return tt_fail(err, TT_ERR_FORMAT, "missing or too long name");
  strcpy(ph->ref, ref);
  if (ph->func == TT_PH_TOKEN) {
    int index;
    if (!token_index(ph->ref, &index) || ph->n_idx)
      return tt_fail(err, TT_ERR_FORMAT, "token takes a token index, e.g. {{token 2}} (at most %d either way)",
                     INT_MAX);
  } else if (ph->func == TT_PH_COST) {
    bool ok = false;
    for (const char *const *k = tt_lesson_cost_keys; *k; k++) ok |= strcmp(*k, ph->ref) == 0;
    if (!ok || ph->n_idx)
      return tt_fail(err, TT_ERR_FORMAT,
                     "cost key '%s' unknown (flops, bytes, matmul_share, intensity, logits_share, decode_flops, "
                     "decode_bytes, decode_matmul_share, decode_intensity, qkv_flops, qkv_fused_bytes, "
                     "qkv_separate_bytes)",
                     ph->ref);
  } else if (ph->func == TT_PH_CONFIG) {
    bool ok = false;
    for (const char *const *k = config_keys; *k; k++) ok |= strcmp(*k, ph->ref) == 0;
    if (!ok || ph->n_idx)
      return tt_fail(err, TT_ERR_FORMAT,
                     "config key '%s' unknown (n_layer, n_head, n_embd, d_head, n_inner, n_positions, "
                     "vocab_size, tokens)",
                     ph->ref);
  } else {
    for (const char *c = ph->ref; *c; c++)
      if (!isalnum((unsigned char)*c) && *c != '_' && *c != '.')
        return tt_fail(err, TT_ERR_FORMAT, "'%s' is not a hook name", ph->ref);
  }
  return TT_OK;
}

// Calls fn for each {{...}} (open points at "{{", inner/n is what is inside, line is its
// line); stops at the first error. Errors are prefixed "NAME:LINE: ".
typedef tt_status (*each_fn)(void *ctx, const char *open, const char *inner, size_t n, int line, tt_error *err);

static tt_status each_placeholder(const char *name, const char *text, int line, each_fn fn, void *ctx, tt_error *err) {
  for (const char *s = text; *s; s++) {
    if (*s == '\n') line++;
    if (s[0] == '}' && s[1] == '}') return tt_fail(err, TT_ERR_FORMAT, "%s:%d: '}}' without '{{'", name, line);
    if (s[0] != '{' || s[1] != '{') continue;
    const char *close = strstr(s + 2, "}}");
    const char *nl = strchr(s + 2, '\n');
    if (!close || (nl && nl < close))
      return tt_fail(err, TT_ERR_FORMAT, "%s:%d: '{{' is not closed on its line", name, line);
    tt_status st = fn(ctx, s, s + 2, (size_t)(close - s - 2), line, err);
    if (st) return st;
    s = close + 1;
  }
  return TT_OK;
}

static tt_status check_one(void *ctx, const char *open, const char *inner, size_t n, int line, tt_error *err) {
  const tt_lesson *l = ctx;
  (void)open;
  tt_placeholder ph;
  tt_status st = tt_placeholder_parse(inner, n, &ph, err);
  if (!st && ph.trace[0] && tt_lesson_find_trace(l, ph.trace) < 0)
    st = tt_fail(err, TT_ERR_FORMAT, "trace '%s' is not defined in the header", ph.trace);
  if (st) return tt_fail_prefix(err, "%s:%d: {{%.*s}}", l->name, line, (int)n, inner);
  return TT_OK;
}

tt_status tt_lesson_check_placeholders(const tt_lesson *l, const char *text, int line, tt_error *err) {
  return each_placeholder(l->name, text, line, check_one, (void *)l, err);
}

// ---- filling ------------------------------------------------------------------------
typedef struct {
  char *buf;
  size_t len, cap;
  bool oom;
} strbuf;

static void sb_add(strbuf *b, const char *s, size_t n) {
  if (b->oom) return;
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n + 1) cap *= 2;
    char *grown = realloc(b->buf, cap);
    if (!grown) {
      b->oom = true;
      return;
    }
    b->buf = grown;
    b->cap = cap;
  }
  memcpy(b->buf + b->len, s, n);
  b->len += n;
  b->buf[b->len] = 0;
}

__attribute__((format(printf, 2, 3))) static void sb_printf(strbuf *b, const char *fmt, ...) {
  char tmp[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n > 0) sb_add(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

typedef struct {
  const tt_lesson *l;
  int default_trace;
  const tt_trace *const *traces;
  tt_lesson_decode_fn decode;
  void *decode_ctx;
  strbuf out;
  const char *copied;  // text up to here is in out
} fill_ctx;

static double elem(const tt_tensor *t, int64_t i) {
  return tt_tensor_get(t, i);
}  // any dtype

// Integer tensors print as integers unless a format is given; floats as %.3g. A value that
// rounds to zero prints without a minus sign ("0.000", not "-0.000").
static void put_number(strbuf *b, const tt_placeholder *ph, double v, bool integral) {
  char num[64];
  if (isnan(v)) {  // printf would say "-nan" for some
    sb_add(b, "nan", 3);
    return;
  }
  const char *fmt = ph->fmt[0] ? ph->fmt : integral ? "%.0f" : "%.3g";
  snprintf(num, sizeof num, fmt, ph->percent ? v * 100.0 : v);
  const char *s = num;
  if (s[0] == '-' && strspn(s + 1, "0.") == strlen(s + 1)) s++;
  sb_add(b, s, strlen(s));
  if (ph->percent) sb_add(b, "%", 1);
}

// The slice a placeholder names: fixed axes from its index list, the others (':' or not
// given) run in row-major order.
typedef struct {
  const tt_tensor *t;
  int64_t lo[TT_MAX_DIMS], cnt[TT_MAX_DIMS];
  int free_dims[TT_MAX_DIMS], n_free;
  int64_t count;
} slice_shape;

static tt_status slice_shape_of(const tt_placeholder *ph, const tt_trace *tr, slice_shape *s, tt_error *err) {
  memset(s, 0, sizeof *s);
  const tt_tensor *t = tt_trace_find(tr, ph->ref);
  if (!t) return tt_fail(err, TT_ERR_FORMAT, "no tensor %s", ph->ref);
  if (ph->n_idx > t->ndim) return tt_fail(err, TT_ERR_FORMAT, "%d indices for a %d-D tensor", ph->n_idx, t->ndim);
  s->t = t;
  s->count = 1;
  for (int d = 0; d < t->ndim; d++) {
    if (d < ph->n_idx && ph->idx[d] != TT_PH_ANY) {
      int64_t i = ph->idx[d] < 0 ? ph->idx[d] + t->shape[d] : ph->idx[d];
      if (i < 0 || i >= t->shape[d])
        return tt_fail(err, TT_ERR_ARG, "index %lld out of range for axis %d of size %lld", (long long)ph->idx[d], d,
                       (long long)t->shape[d]);
      s->lo[d] = i;
      s->cnt[d] = 1;
    } else {
      s->cnt[d] = t->shape[d];
      s->free_dims[s->n_free++] = d;
    }
    s->count *= s->cnt[d];
  }
  return TT_OK;
}

tt_status tt_lesson_slice(const tt_placeholder *ph, const tt_trace *tr, tt_slice *out, tt_error *err) {
  memset(out, 0, sizeof *out);
  slice_shape s;
  tt_status st = slice_shape_of(ph, tr, &s, err);
  if (st) return st;
  if (s.count == 0) return tt_fail(err, TT_ERR_ARG, "the slice is empty");
  const tt_tensor *t = s.t;
  out->v = malloc(sizeof *out->v * (size_t)s.count);
  if (!out->v) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  out->n = s.count;
  out->n_free = s.n_free;
  out->integral = t->dtype == TT_I32 || t->dtype == TT_I64;
  int64_t stride[TT_MAX_DIMS], step = 1, pos[TT_MAX_DIMS] = {0};
  for (int d = t->ndim - 1; d >= 0; d--) stride[d] = step, step *= t->shape[d];
  for (int64_t k = 0; k < s.count; k++) {
    int64_t off = 0;
    for (int d = 0; d < t->ndim; d++) off += (s.lo[d] + pos[d]) * stride[d];
    out->v[k] = elem(t, off);
    for (int d = t->ndim - 1; d >= 0; d--) {
      if (++pos[d] < s.cnt[d]) break;
      pos[d] = 0;
    }
  }
  return TT_OK;
}

void tt_slice_free(tt_slice *s) {
  free(s->v);
  s->v = NULL;
  s->n = 0;
}

// {{size ...}} and {{shape ...}}: the slice's element count, or the sizes of its free axes.
static tt_status put_extent(strbuf *b, const tt_placeholder *ph, const tt_trace *tr, const char *where, tt_error *err) {
  slice_shape s;
  if (slice_shape_of(ph, tr, &s, err)) return tt_fail_prefix(err, "%s", where);
  if (ph->func == TT_PH_SIZE) {
    sb_printf(b, "%lld", (long long)s.count);
    return TT_OK;
  }
  sb_add(b, "(", 1);
  for (int k = 0; k < s.n_free; k++) sb_printf(b, k ? ", %lld" : "%lld", (long long)s.t->shape[s.free_dims[k]]);
  sb_add(b, s.n_free == 1 ? ",)" : ")", s.n_free == 1 ? 2 : 1);
  return TT_OK;
}

// {{token i}}: the text of token i (negative counts from the end).
static tt_status put_token(fill_ctx *c, const tt_placeholder *ph, const tt_trace *tr, const char *where,
                           tt_error *err) {
  int T = tt_trace_n_tokens(tr), i = 0;
  token_index(ph->ref, &i);  // checked by the parser
  if (i < 0) i += T;
  if (i < 0 || i >= T) return tt_fail(err, TT_ERR_ARG, "%s: token %s out of range (T = %d)", where, ph->ref, T);
  const char *s = tt_trace_token(tr, i);
  sb_add(&c->out, s, strlen(s));
  return TT_OK;
}

// {{config key}}: one number of the trace's model config (or its token count).
static tt_status put_config(fill_ctx *c, const tt_placeholder *ph, const tt_trace *tr, int ti, const char *where,
                            tt_error *err) {
  tt_config cfg;
  long v;
  if (strcmp(ph->ref, "tokens") == 0) {
    v = tt_trace_n_tokens(tr);
  } else {
    if (!tt_trace_config(tr, &cfg))
      return tt_fail(err, TT_ERR_FORMAT, "%s: trace '%s' has no readable config", where, c->l->traces[ti].name);
    v = strcmp(ph->ref, "n_layer") == 0       ? cfg.n_layer
        : strcmp(ph->ref, "n_head") == 0      ? cfg.n_head
        : strcmp(ph->ref, "n_embd") == 0      ? cfg.n_embd
        : strcmp(ph->ref, "d_head") == 0      ? tt_config_head_dim(&cfg)
        : strcmp(ph->ref, "n_inner") == 0     ? (cfg.n_inner ? cfg.n_inner : 4 * cfg.n_embd)
        : strcmp(ph->ref, "n_positions") == 0 ? cfg.n_positions
                                              : cfg.vocab_size;
  }
  sb_printf(&c->out, "%ld", v);
  return TT_OK;
}

// Refuses a slice whose size does not fit the function; frees it when it refuses.
static tt_status check_slice(const tt_placeholder *ph, tt_slice *sl, const tt_tensor *t, const char *where,
                             tt_error *err) {
  if (ph->func == TT_PH_VALUE && sl->n != 1) {
    tt_slice_free(sl);
    return tt_fail(err, TT_ERR_FORMAT, "%s: a value needs all %d indices (or use max, mean, list, ...)", where,
                   t->ndim);
  }
  if (ph->func == TT_PH_LIST && sl->n > 64) {
    tt_slice_free(sl);
    return tt_fail(err, TT_ERR_FORMAT, "%s: list of %lld values is too long (64 at most)", where, (long long)sl->n);
  }
  if (ph->func == TT_PH_WORD && sl->n_free != 1) {
    tt_slice_free(sl);
    return tt_fail(err, TT_ERR_FORMAT, "%s: word needs a 1-D slice (e.g. hook_probs[-1])", where);
  }
  return TT_OK;
}

typedef struct {
  double best;      // the winning key (max, |max| or -min)
  int64_t best_at;  // its flat index in the slice
  double sum, sumsq;
  int64_t count;
} slice_stats;

// One pass over the slice: the extreme the function asks for, the sum and the sum of squares;
// a {{list}} prints its values on the way.
static slice_stats scan_slice(fill_ctx *c, const tt_placeholder *ph, const tt_slice *sl) {
  slice_stats s = {.best = 0, .best_at = -1, .sum = 0, .sumsq = 0, .count = sl->n};
  for (int64_t k = 0; k < sl->n; k++) {
    double v = sl->v[k];
    if (ph->func == TT_PH_LIST) {
      if (k) sb_add(&c->out, ", ", 2);
      put_number(&c->out, ph, v, sl->integral);
    }
    double key = ph->func == TT_PH_ABSMAX ? fabs(v) : ph->func == TT_PH_MIN || ph->func == TT_PH_ARGMIN ? -v : v;
    if (s.best_at < 0 || key > s.best || (isnan(key) && !isnan(s.best))) s.best = key, s.best_at = k;  // a NaN wins
    if (isnan(v)) s.sum = s.sumsq = NAN;
    if (isfinite(v)) s.sum += v, s.sumsq += v * v;
  }
  return s;
}

// {{word ...}}: the decoded token at the winning index, or #index without a decoder.
static void put_word(fill_ctx *c, int64_t at) {
  char buf[128];
  const char *w = c->decode ? c->decode(c->decode_ctx, (int32_t)at, buf, sizeof buf) : NULL;
  if (w)
    sb_add(&c->out, w, strlen(w));
  else
    sb_printf(&c->out, "#%lld", (long long)at);
}

// Prints the reduction the function names from the scanned statistics.
static void put_reduction(fill_ctx *c, const tt_placeholder *ph, const slice_stats *s, bool integral) {
  switch (ph->func) {
  case TT_PH_LIST:
    break;
  case TT_PH_VALUE:
  case TT_PH_MAX:
  case TT_PH_ABSMAX:
    put_number(&c->out, ph, s->best, integral);
    break;
  case TT_PH_MIN:
    put_number(&c->out, ph, -s->best, integral);
    break;
  case TT_PH_MEAN:
    put_number(&c->out, ph, s->sum / (double)s->count, false);
    break;
  case TT_PH_SUM:
    put_number(&c->out, ph, s->sum, integral);
    break;
  case TT_PH_NORM:
    put_number(&c->out, ph, sqrt(s->sumsq), false);
    break;
  case TT_PH_STD: {
    double mean = s->sum / (double)s->count, var = s->sumsq / (double)s->count - mean * mean;
    put_number(&c->out, ph, sqrt(var > 0 ? var : 0), false);
    break;
  }
  case TT_PH_ARGMAX:
  case TT_PH_ARGMIN:
    sb_printf(&c->out, "%lld", (long long)s->best_at);
    break;
  case TT_PH_WORD:
    put_word(c, s->best_at);
    break;
  default:
    break;
  }
}

// A placeholder over a tensor: its extent, or a value, list or reduction of a slice of it.
static tt_status put_tensor(fill_ctx *c, const tt_placeholder *ph, const tt_trace *tr, int ti, const char *where,
                            tt_error *err) {
  const tt_tensor *t = tt_trace_find(tr, ph->ref);
  if (!t) return tt_fail(err, TT_ERR_FORMAT, "%s: trace '%s' has no tensor %s", where, c->l->traces[ti].name, ph->ref);
  if (ph->func == TT_PH_SIZE || ph->func == TT_PH_SHAPE) return put_extent(&c->out, ph, tr, where, err);
  tt_slice sl;
  if (tt_lesson_slice(ph, tr, &sl, err)) return tt_fail_prefix(err, "%s", where);
  tt_status st = check_slice(ph, &sl, t, where, err);
  if (st) return st;
  bool integral = sl.integral;
  slice_stats s = scan_slice(c, ph, &sl);
  tt_slice_free(&sl);
  put_reduction(c, ph, &s, integral);
  return TT_OK;
}

// {{cost KEY}}, {{lensword ...}}, {{lensp ...}}, {{lensid ...}}, {{nearword ...}}, {{nearid ...}}, {{nearcos
// ...}}, {{cosine ...}}: numbers that follow from the trace (derived.c).
static tt_status put_derived(fill_ctx *c, const tt_placeholder *ph, const tt_trace *tr, const char *where,
                             tt_error *err) {
  double v = 0;
  int32_t id = 0;
  bool embed = ph->func >= TT_PH_NEAR_WORD && ph->func <= TT_PH_COSINE;
  tt_status st = ph->func == TT_PH_COST ? tt_lesson_cost_value(tr, ph->ref, &v, err)
                 : embed                ? tt_lesson_embed_value(c->l, tr, ph, &id, &v, err)
                                        : tt_lesson_lens_top(c->l, tr, ph, &id, &v, err);
  if (st) return tt_fail_prefix(err, "%s", where);
  if (ph->func == TT_PH_LENS_WORD || ph->func == TT_PH_NEAR_WORD)
    put_word(c, id);
  else if (ph->func == TT_PH_LENS_ID || ph->func == TT_PH_NEAR_ID)
    sb_printf(&c->out, "%d", (int)id);
  else
    put_number(&c->out, ph, v, false);
  return TT_OK;
}

static tt_status fill_one(void *vctx, const char *open, const char *inner, size_t n, int line, tt_error *err) {
  fill_ctx *c = vctx;
  sb_add(&c->out, c->copied, (size_t)(open - c->copied));
  c->copied = inner + n + 2;
  tt_placeholder ph;
  char where[160];
  snprintf(where, sizeof where, "%s:%d: {{%.*s}}", c->l->name, line, (int)(n < 100 ? n : 100), inner);
  if (tt_placeholder_parse(inner, n, &ph, err)) return tt_fail_prefix(err, "%s", where);
  int ti = ph.trace[0] ? tt_lesson_find_trace(c->l, ph.trace) : c->default_trace;
  if (ti < 0) return tt_fail(err, TT_ERR_FORMAT, "%s: trace '%s' is not defined", where, ph.trace);
  const tt_trace *tr = c->traces[ti];
  if (ph.func == TT_PH_TOKEN) return put_token(c, &ph, tr, where, err);
  if (ph.func == TT_PH_CONFIG) return put_config(c, &ph, tr, ti, where, err);
  if (ph.func >= TT_PH_LENS_WORD)  // lens, cost and embedding placeholders
    return put_derived(c, &ph, tr, where, err);
  return put_tensor(c, &ph, tr, ti, where, err);
}

tt_status tt_lesson_fill(const tt_lesson *l, int default_trace, const char *text, int line,
                         const tt_trace *const *traces, tt_lesson_decode_fn decode, void *decode_ctx, char **out,
                         tt_error *err) {
  *out = NULL;
  fill_ctx c = {.l = l,
                .default_trace = default_trace,
                .traces = traces,
                .decode = decode,
                .decode_ctx = decode_ctx,
                .copied = text};
  tt_status st = each_placeholder(l->name, text, line, fill_one, &c, err);
  if (!st) sb_add(&c.out, c.copied, strlen(c.copied));
  if (!st && c.out.oom) st = tt_fail(err, TT_ERR_NOMEM, "out of memory");
  if (st) {
    free(c.out.buf);
    return st;
  }
  *out = c.out.buf;
  return TT_OK;
}
