// host_kernels: the OpenBLAS backend's element-wise loops that call exp, written so the
// compiler vectorizes them (a polynomial exp instead of libm's scalar expf). Internal.
#ifndef TT_HOST_KERNELS_H
#define TT_HOST_KERNELS_H

#include <stddef.h>

// o (n) = exp(x - sub) with relative error < 2e-7; x - sub below -87 gives exactly 0
// (so -inf gives 0), above 88 gives +inf. Returns the sum of o (float, 8 partial sums).
float tt_host_exp_sub_sum(float *o, const float *x, float sub, size_t n);
// The sum of exp(x - sub) over n entries, without storing them.
float tt_host_exp_sum(const float *x, float sub, size_t n);
// max of x (n ≥ 1); -inf when every entry is -inf.
float tt_host_max(const float *x, size_t n);
// o (n) = x / (1 + exp(-k·(x + c·x³))): GELU (tanh form) with k = 2√(2/π), c = 0.044715;
// SiLU with k = 1, c = 0. o may alias x.
void tt_host_sigmoid_gate(float *o, const float *x, size_t n, float k, float c);

#endif
