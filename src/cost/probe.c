// probe: what this machine does at best: the backend's matmul rate on a square product, and
// the memory bandwidth of a streaming read. Each probe stops after a fixed budget of time,
// so the two take a few hundred milliseconds in all.
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "cost.h"

#define SGEMM_N 512
#define SGEMM_BUDGET 0.1         // seconds
#define STREAM_BYTES (64 << 20)  // well beyond the caches
#define STREAM_BUDGET 0.1

// The best FLOP/s of n × n × n products run for about SGEMM_BUDGET seconds.
static tt_status probe_sgemm(tt_backend *be, tt_cost_machine *m, tt_error *err) {
  size_t nn = (size_t)SGEMM_N * SGEMM_N;
  float *host = malloc(sizeof *host * nn);
  tt_buf a = {0}, b = {0}, c = {0};
  tt_status st = host ? TT_OK : tt_fail(err, TT_ERR_NOMEM, "out of memory");
  for (size_t i = 0; host && i < nn; i++) host[i] = (float)(i % 17) / 17.0f - 0.5f;
  if (!st) st = be->alloc(be, nn, &a, err);
  if (!st) st = be->alloc(be, nn, &b, err);
  if (!st) st = be->alloc(be, nn, &c, err);
  if (!st) st = be->upload(be, a, host, nn, err);
  if (!st) st = be->upload(be, b, host, nn, err);
  double best = 0, start = tt_now_seconds();
  for (int r = 0; !st && (r < 2 || (r < 16 && tt_now_seconds() - start < SGEMM_BUDGET)); r++) {
    double t0 = tt_now_seconds();
    st = be->matmul(be, c, a, b, (tt_buf){0}, SGEMM_N, SGEMM_N, SGEMM_N, false, err);
    if (!st && be->finish) st = be->finish(be, err);
    double rate = 2.0 * SGEMM_N * SGEMM_N * SGEMM_N / (tt_now_seconds() - t0);
    if (r > 0 && rate > best) best = rate;  // r = 0 warms up
  }
  m->sgemm_flops = best;
  m->sgemm_n = SGEMM_N;
  tt_buf *bufs[] = {&a, &b, &c};
  for (int i = 0; i < 3; i++)
    if (tt_buf_is_set(*bufs[i])) be->release(be, bufs[i]);
  free(host);
  return st;
}

// Host memory: the best rate of summing a buffer far larger than the caches.
static tt_status probe_host_read(tt_cost_machine *m, tt_error *err) {
  size_t n = STREAM_BYTES / sizeof(float);
  float *buf = malloc(STREAM_BYTES);
  if (!buf) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  for (size_t i = 0; i < n; i++) buf[i] = (float)(i & 7);  // touched: no zero pages
  double best = 0, start = tt_now_seconds();
  volatile float sink = 0;
  for (int r = 0; r < 2 || (r < 8 && tt_now_seconds() - start < STREAM_BUDGET); r++) {
    double t0 = tt_now_seconds();
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (size_t i = 0; i + 3 < n; i += 4) s0 += buf[i], s1 += buf[i + 1], s2 += buf[i + 2], s3 += buf[i + 3];
    sink = sink + s0 + s1 + s2 + s3;
    double rate = STREAM_BYTES / (tt_now_seconds() - t0);
    if (rate > best) best = rate;
  }
  free(buf);
  m->bandwidth = best;
  m->bandwidth_bytes = STREAM_BYTES;
  m->bandwidth_how = "a streaming read of host memory";
  return TT_OK;
}

// Device memory: the backend's scale op over a large buffer, reading and writing it.
static tt_status probe_device(tt_backend *be, tt_cost_machine *m, tt_error *err) {
  size_t n = STREAM_BYTES / sizeof(float);
  tt_buf x = {0}, y = {0};
  tt_status st = be->alloc(be, n, &x, err);
  if (!st) st = be->alloc(be, n, &y, err);
  double best = 0, start = tt_now_seconds();
  for (int r = 0; !st && (r < 2 || (r < 16 && tt_now_seconds() - start < STREAM_BUDGET)); r++) {
    double t0 = tt_now_seconds();
    st = be->scale(be, y, x, 1.0f, n, err);
    if (!st && be->finish) st = be->finish(be, err);
    double rate = 2.0 * STREAM_BYTES / (tt_now_seconds() - t0);
    if (r > 0 && rate > best) best = rate;
  }
  if (tt_buf_is_set(x)) be->release(be, &x);
  if (tt_buf_is_set(y)) be->release(be, &y);
  m->bandwidth = best;
  m->bandwidth_bytes = 2.0 * STREAM_BYTES;
  m->bandwidth_how = "the backend's scale op (each byte read once, written once)";
  return st;
}

tt_status tt_cost_probe(struct tt_backend *be, tt_cost_machine *out, tt_error *err) {
  memset(out, 0, sizeof *out);
  double t0 = tt_now_seconds();
  tt_status st = probe_sgemm(be, out, err);
  if (!st) st = be->host_memory ? probe_host_read(out, err) : probe_device(be, out, err);
  out->seconds = tt_now_seconds() - t0;
  return st;
}
