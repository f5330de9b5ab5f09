// diff: two tensors compared element by element under the one rule in trace.h (masked
// cells equal when masked in both, counted apart when masked on one side only).
#include <math.h>

#include "trace.h"

tt_cell_kind tt_diff_cell(double a, double b) {
  bool fa = isfinite(a), fb = isfinite(b);
  if (fa && fb) return TT_CELL_FINITE;
  if (fa != fb) return TT_CELL_ONE_SIDED;
  return isinf(a) && a == b ? TT_CELL_SAME_INF : TT_CELL_NONFINITE;
}

void tt_diff_tensors(const tt_tensor *a, const tt_tensor *b, int64_t (*b_index)(void *ctx, int64_t i), void *ctx,
                     tt_diff_stats *out) {
  *out = (tt_diff_stats){.max_at = -1, .n = tt_tensor_numel(a)};
  for (int64_t i = 0; i < out->n; i++) {
    double x = tt_tensor_get(a, i), y = tt_tensor_get(b, b_index ? b_index(ctx, i) : i);
    if (isfinite(x) && fabs(x) > out->max_abs_a) out->max_abs_a = fabs(x);
    switch (tt_diff_cell(x, y)) {
    case TT_CELL_FINITE: {
      double d = fabs(x - y);
      if (out->max_at < 0 || d > out->max_diff) out->max_diff = d, out->max_at = i;
      break;
    }
    case TT_CELL_SAME_INF:
      break;
    case TT_CELL_ONE_SIDED:
      out->n_one_sided++;
      break;
    case TT_CELL_NONFINITE:
      out->n_nonfinite++;
      break;
    }
  }
}

double tt_diff_relative(const tt_diff_stats *s) {
  return s->max_abs_a > 0 ? s->max_diff / s->max_abs_a : s->max_diff;
}

bool tt_diff_identical(const tt_diff_stats *s) {
  return s->max_diff == 0 && !s->n_one_sided && !s->n_nonfinite;
}
