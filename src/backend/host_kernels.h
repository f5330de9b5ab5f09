// host_kernels: the OpenBLAS backend's row loops that the compiler vectorizes: exp through
// a polynomial (libm's scalar expf does not vectorize), its sums, the row max, the norms'
// mean and variance, and the sigmoid-gated activations. Internal to the backend.
#ifndef TT_HOST_KERNELS_H
#define TT_HOST_KERNELS_H

#include <stdbool.h>
#include <stddef.h>

// o (n) = exp(x - sub), relative error about 1e-7 (Cephes' degree-7 polynomial); x - sub
// below -87 gives exactly 0 (so -inf gives 0), above 88 gives +inf. Returns the sum of o,
// accumulated in double over 32 partial sums (entry i in sum i mod 32, so that trailing
// zeros change nothing) and rounded to float once.
float tt_host_exp_sub_sum(float *o, const float *x, float sub, size_t n);
// The same sum of exp(x - sub) over n entries (double, the same 32 partial sums), without storing them.
float tt_host_exp_sum(const float *x, float sub, size_t n);
// The statistics of LayerNorm (centered) and RMSNorm over x (n >= 1), in double:
// mean = Σ x / n (0 when not centered) and var = Σ (x - mean)² / n, each sum over the same
// 32 partial sums (one running sum was n dependent adds: 1.7 us per 768-wide row).
void tt_host_mean_var(const float *x, size_t n, bool centered, double *mean, double *var);
// How many entries at the end of x (n) are -inf: a causal row's masked part.
size_t tt_host_trailing_neg_inf(const float *x, size_t n);
// max of x (n ≥ 1) over 32 partial maxima (NaN entries never chosen); -inf when every entry is -inf.
float tt_host_max(const float *x, size_t n);
// o (n) = x / (1 + exp(-k·(x + c·x³))): GELU (tanh form) with k = 2√(2/π), c = 0.044715;
// SiLU with k = 1, c = 0. o may alias x.
void tt_host_sigmoid_gate(float *o, const float *x, size_t n, float k, float c);
// dx (n) = dy · d/dx [x · σ(k·(x + c·x³))] = dy · (σ + x·σ·(1 − σ)·k·(1 + 3c·x²)), σ as in
// tt_host_sigmoid_gate: the backward of the same two activations. dx may alias dy.
// With y (not NULL), y = tt_host_sigmoid_gate's output as well, bit for bit; y may alias dy.
void tt_host_sigmoid_gate_backward(float *dx, float *y, const float *x, const float *dy, size_t n, float k, float c);

#endif
