// openblas_llama: the host loops of the Llama block and of the position what-ifs: the
// element-wise product (SwiGLU), rotary positions, the ALiBi bias. Shape legend: T tokens,
// H heads, D head width.
#include <math.h>
#include <stdlib.h>

#include "openblas_internal.h"

static tt_status host_mul(tt_backend *be, tt_buf out, tt_buf a, tt_buf b, size_t n, tt_error *err) {
  (void)be, (void)err;
  NEED(out, n);
  NEED(a, n);
  NEED(b, n);
  float *o = out_of(out);
  const float *x = in(a), *y = in(b);
  for (size_t i = 0; i < n; i++) o[i] = x[i] * y[i];
  return TT_OK;
}

// x, out (heads,T,D); table row t (D) = cos (D/2), sin (D/2).
static tt_status host_rope(tt_backend *be, tt_buf out, tt_buf x, tt_buf table, int heads, int T, int D, tt_error *err) {
  (void)be, (void)err;
  size_t n = (size_t)heads * T * D;
  int half = D / 2;
  NEED(out, n);
  NEED(x, n);
  NEED(table, (size_t)T * D);
  for (int h = 0; h < heads; h++)
    for (int t = 0; t < T; t++) {
      const float *xr = in(x) + ((size_t)h * T + t) * D, *cs = in(table) + (size_t)t * D, *sn = cs + half;
      float *o = out_of(out) + ((size_t)h * T + t) * D;
      for (int i = 0; i < half; i++) {
        float a = xr[i], b = xr[i + half];
        o[i] = a * cs[i] - b * sn[i];
        o[i + half] = b * cs[i] + a * sn[i];
      }
    }
  return TT_OK;
}

// out (H,T,Tk) = −slope_h·|i − j| for query positions i = Tk−T..Tk−1, keys j < Tk.
static tt_status host_alibi(tt_backend *be, tt_buf out, tt_buf slopes, int H, int T, int Tk, tt_error *err) {
  (void)be, (void)err;
  NEED(out, (size_t)H * T * Tk);
  NEED(slopes, H);
  for (int h = 0; h < H; h++) {
    float m = in(slopes)[h];
    for (int r = 0; r < T; r++) {
      float *o = out_of(out) + ((size_t)h * T + r) * Tk;
      for (int j = 0, i = Tk - T + r; j < Tk; j++) o[j] = -m * (float)abs(i - j);
    }
  }
  return TT_OK;
}

void tt_openblas_set_llama(tt_backend *be) {
  be->mul = host_mul;
  be->rope = host_rope;
  be->alibi = host_alibi;
}
