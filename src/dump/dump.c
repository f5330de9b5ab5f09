// dump: summaries and labelled tables of recorded tensors.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "trace/hooks.h"

void tt_dump_default_opts(tt_dump_opts *o) {
  *o = (tt_dump_opts){.max_cols = 10, .head = -1, .top_k = 5, .precision = 4, .vocab = NULL};
}

// Any dtype the format has (a tensor outside the hook catalogue may be U8, I64, F64, ...).
static double value_at(const tt_tensor *t, int64_t i) {
  return tt_tensor_get(t, i);
}

void tt_dump_stats(const tt_tensor *t, double *min, double *max, double *mean, int64_t *n_neg_inf) {
  int64_t n = tt_tensor_numel(t), counted = 0;
  double lo = INFINITY, hi = -INFINITY, sum = 0;
  bool nan = false;
  *n_neg_inf = 0;
  for (int64_t i = 0; i < n; i++) {
    double v = value_at(t, i);
    if (isinf(v) && v < 0) {
      (*n_neg_inf)++;
      continue;
    }
    nan |= isnan(v);
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
    sum += v;
    counted++;
  }
  // A NaN anywhere makes every statistic NaN (positive, so it prints as "nan").
  *min = counted && !nan ? lo : NAN;
  *max = counted && !nan ? hi : NAN;
  *mean = counted && !nan ? sum / (double)counted : NAN;
}

const char *tt_dump_axes(const tt_trace *tr, const char *name) {
  (void)tr;  // tt_trace_load checked every catalogue tensor against the trace's config
  tt_hook_ref ref;
  return tt_hook_lookup(name, &ref) ? ref.def->axes : NULL;
}

void tt_dump_summary(FILE *out, const tt_trace *tr) {
  fprintf(out, "%-40s %-5s %-18s %12s %12s %12s\n", "tensor", "dtype", "shape", "min", "max", "mean");
  for (size_t i = 0; i < tt_trace_count(tr); i++) {
    const tt_tensor *t = tt_trace_get(tr, i);
    char shape[64];
    double lo, hi, mean;
    int64_t ninf;
    tt_dump_stats(t, &lo, &hi, &mean, &ninf);
    char name[256];
    fprintf(out, "%-40s %-5s %-18s %12.5g %12.5g %12.5g", tt_escape_text(t->name, name, sizeof name, false),
            tt_dtype_name(t->dtype), tt_shape_str(t->shape, t->ndim, shape, sizeof shape), lo, hi, mean);
    if (ninf) fprintf(out, "   (%lld masked: -inf)", (long long)ninf);
    fputc('\n', out);
  }
}

// ---- labels -----------------------------------------------------------------------------

// The label of index i along an axis letter: a token for T, "hN" for H, the target token
// for T-1 (loss), else the index. G (key/value heads) is labelled like H.
static void axis_label(const tt_trace *tr, const char *axis, int64_t i, char *buf, size_t len) {
  char token[128];  // escaped: a token string from the file cannot drive the terminal
  if (strcmp(axis, "T") == 0)
    snprintf(buf, len, "%lld:%s", (long long)i, tt_escape_text(tt_trace_token(tr, (int)i), token, sizeof token, false));
  else if (strcmp(axis, "T-1") == 0)
    snprintf(buf, len, "→%s", tt_escape_text(tt_trace_token(tr, (int)i + 1), token, sizeof token, false));
  else if (strcmp(axis, "H") == 0 || strcmp(axis, "G") == 0)
    snprintf(buf, len, "h%lld", (long long)i);
  else
    snprintf(buf, len, "%lld", (long long)i);
}

// Splits "H,T,T" into up to TT_MAX_DIMS letters.
static int split_axes(const char *axes, char names[TT_MAX_DIMS][8]) {
  int n = 0;
  for (const char *p = axes; p && *p && n < TT_MAX_DIMS; n++) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    snprintf(names[n], sizeof names[n], "%.*s", (int)len, p);
    p = comma ? comma + 1 : NULL;
  }
  return n;
}

// Pads s to width terminal columns (Hangul counts two), truncating with "…" when longer.
static void print_cell(FILE *out, const char *s, int width, bool right) {
  int cols = tt_utf8_columns(s);
  if (cols > width) {
    char kept[256];
    size_t n = 0;
    int used = 0;
    for (const char *p = s; *p && n + 5 < sizeof kept;) {
      char one[5] = {0};
      size_t k = 1;
      while ((p[k] & 0xc0) == 0x80 && k < 4) k++;
      memcpy(one, p, k);
      int w = tt_utf8_columns(one);
      if (used + w > width - 1) break;
      memcpy(kept + n, p, k);
      n += k, used += w, p += k;
    }
    fprintf(out, "%.*s…%*s", (int)n, kept, right ? 0 : width - 1 - used, "");
    return;
  }
  int pad = width - cols;
  if (right)
    fprintf(out, "%*s%s", pad, "", s);
  else
    fprintf(out, "%s%*s", s, pad, "");
}

static void format_value(double v, int precision, char *buf, size_t len) {
  if (isnan(v))
    snprintf(buf, len, "nan");
  else if (isinf(v))
    snprintf(buf, len, v < 0 ? "-inf" : "inf");
  else if (v != 0 && (fabs(v) >= 1e5 || fabs(v) < 1e-3))
    snprintf(buf, len, "%.*e", precision > 2 ? 2 : precision, v);
  else
    snprintf(buf, len, "%.*f", precision, v);
}

// One 2-D slice: rows × cols starting at base, with labelled rows and columns.
static void print_matrix(FILE *out, const tt_trace *tr, const tt_tensor *t, int64_t base, int64_t rows, int64_t cols,
                         const char *row_axis, const char *col_axis, const tt_dump_opts *o) {
  const int label_w = 16, cell_w = o->precision + 7;
  int64_t shown = (o->max_cols > 0 && cols > o->max_cols) ? o->max_cols : cols;
  int64_t head_cols = shown == cols ? cols : shown - 2;
  char buf[96];
  print_cell(out, "", label_w, false);
  for (int64_t c = 0; c < cols; c++) {
    if (c == head_cols && shown < cols) {
      fprintf(out, " %*s", cell_w, "…");
      c = cols - 3;
      continue;
    }
    axis_label(tr, col_axis, c, buf, sizeof buf);
    fputc(' ', out);
    print_cell(out, buf, cell_w, true);
  }
  fputc('\n', out);
  for (int64_t r = 0; r < rows; r++) {
    axis_label(tr, row_axis, r, buf, sizeof buf);
    print_cell(out, buf, label_w, false);
    for (int64_t c = 0; c < cols; c++) {
      if (c == head_cols && shown < cols) {
        fprintf(out, " %*s", cell_w, "…");
        c = cols - 3;
        continue;
      }
      format_value(value_at(t, base + r * cols + c), o->precision, buf, sizeof buf);
      fprintf(out, " %*s", cell_w, buf);
    }
    fputc('\n', out);
  }
}

typedef struct {
  float value;
  int id;
} ranked;

// Largest first; a NaN before everything, so it shows.
static int by_value_desc(const void *a, const void *b) {
  float x = ((const ranked *)a)->value, y = ((const ranked *)b)->value;
  if (isnan(x) || isnan(y)) return isnan(y) - isnan(x);
  return x < y ? 1 : x > y ? -1 : 0;
}

// (T,V): for each token, the top-k vocabulary entries.
static void print_top_k(FILE *out, const tt_trace *tr, const tt_tensor *t, const tt_dump_opts *o) {
  int64_t T = t->shape[0], V = t->shape[1];
  int k = o->top_k > 0 ? o->top_k : 5;
  ranked *row = malloc((size_t)V * sizeof *row);
  if (!row) return;
  if (o->korean)
    fprintf(out, "토큰마다 %lld개 중 상위 %d개 (각 자리 다음 토큰의 예측):\n", (long long)V, k);
  else
    fprintf(out, "top %d of %lld per token (the next-token prediction after each position):\n", k, (long long)V);
  for (int64_t r = 0; r < T; r++) {
    for (int64_t v = 0; v < V; v++) row[v] = (ranked){(float)value_at(t, r * V + v), (int)v};
    qsort(row, (size_t)V, sizeof *row, by_value_desc);
    char label[96];
    axis_label(tr, "T", r, label, sizeof label);
    print_cell(out, label, 16, false);
    for (int j = 0; j < k && j < V; j++) {
      char piece[64] = "", num[32];
      if (o->vocab) tt_tokenizer_token_display(o->vocab, row[j].id, piece, sizeof piece);
      format_value(row[j].value, o->precision, num, sizeof num);
      fprintf(out, "  %6d %-10s %s", row[j].id, piece, num);
    }
    fputc('\n', out);
  }
  free(row);
}

void tt_dump_tensor(FILE *out, const tt_trace *tr, const tt_tensor *t, const tt_dump_opts *o) {
  char shape[64], names[TT_MAX_DIMS][8];
  const char *axes = tt_dump_axes(tr, t->name);
  int n = axes ? split_axes(axes, names) : 0;
  for (int d = n; d < t->ndim; d++) snprintf(names[d], sizeof names[d], "#");
  double lo, hi, mean;
  int64_t ninf;
  tt_dump_stats(t, &lo, &hi, &mean, &ninf);
  char name[256];
  fprintf(
      out,
      o->korean ? "%s  %s %s%s%s  최솟값 %.5g  최댓값 %.5g  평균 %.5g" : "%s  %s %s%s%s  min %.5g  max %.5g  mean %.5g",
      tt_escape_text(t->name, name, sizeof name, false), tt_dtype_name(t->dtype),
      tt_shape_str(t->shape, t->ndim, shape, sizeof shape), axes ? " = " : "", axes ? axes : "", lo, hi, mean);
  if (ninf) fprintf(out, o->korean ? "  (가려진 칸 %lld개: -inf)" : "  (%lld masked: -inf)", (long long)ninf);
  fputs("\n\n", out);
  if (t->ndim == 2 && strcmp(names[1], "V") == 0) {
    print_top_k(out, tr, t, o);
  } else if (t->ndim == 1) {
    print_matrix(out, tr, t, 0, 1, t->shape[0], "", names[0], o);
  } else if (t->ndim == 2) {
    print_matrix(out, tr, t, 0, t->shape[0], t->shape[1], names[0], names[1], o);
  } else if (t->ndim == 3) {
    for (int64_t h = 0; h < t->shape[0]; h++) {
      if (o->head >= 0 && h != o->head) continue;
      char label[32];
      axis_label(tr, names[0], h, label, sizeof label);
      fprintf(out, "[%s]\n", label);
      print_matrix(out, tr, t, h * t->shape[1] * t->shape[2], t->shape[1], t->shape[2], names[1], names[2], o);
      fputc('\n', out);
    }
  } else {
    fprintf(out, o->korean ? "(%d차원 텐서: 요약만)\n" : "(a %d-dimensional tensor: summary only)\n", t->ndim);
  }
}
