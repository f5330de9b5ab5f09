// cost: where the computation goes. The FLOPs and bytes of every op of a forward pass,
// counted from the config and the number of tokens by the rules of docs/cost.md (a matrix
// product (M,K)·(K,N) is 2·M·N·K FLOPs; element-wise ops a stated count per element; bytes
// are float32 inputs read once and outputs written once); the op times measured on a
// backend (the engine's op_done callback); the machine's sgemm rate and memory bandwidth
// (probe.c); and the roofline that says which of the two bounds a pass.
#ifndef TT_COST_H
#define TT_COST_H

#include "core/core.h"
#include "model/model.h"

struct tt_engine;   // engine/engine.h
struct tt_backend;  // backend/backend.h

typedef enum { TT_COST_MATMUL, TT_COST_ELEMENTWISE, TT_COST_MOVE } tt_cost_kind;

typedef struct {
  char name[96];           // the hook the engine's op line writes last (blocks.0.attn.hook_qkv)
  const char *what;        // the step in a few words ("Q/K/V projection")
  tt_cost_kind kind;       // a matrix product, an element-wise op, or data moved only
  int64_t batch, M, K, N;  // matrix products: batch × (M,K)·(K,N); 0 otherwise
  double flops;            // 2·batch·M·N·K (+ M·N for a bias), or elements × ops per element
  double bytes_read, bytes_written;
  double seconds;  // measured time; -1 when not measured
} tt_cost_op;

typedef struct {
  tt_cost_op *ops;
  int n, cap;
  int T;                                       // tokens computed (prefill: the prompt; decode: 1)
  int T_ctx;                                   // decode: rows already in the KV cache (0 for prefill)
  double flops, matmul_flops, bytes, seconds;  // totals; seconds -1 when not measured
  double wall_seconds;                         // the timed runs' wall time per run (-1: not timed)
} tt_cost_pass;

// The ops of a forward pass over T tokens, in the engine's order (forward.c).
tt_status tt_cost_prefill(const tt_config *cfg, int T, tt_cost_pass *out, tt_error *err);
// The ops of one decode step: one new token (M = 1) attending to T_ctx cached K/V rows plus
// its own; the cache is read (T_ctx rows of K and V per layer) and its new row written.
tt_status tt_cost_decode(const tt_config *cfg, int T_ctx, tt_cost_pass *out, tt_error *err);
void tt_cost_pass_free(tt_cost_pass *p);
int tt_cost_find(const tt_cost_pass *p, const char *name);  // index of the op, or -1

// The ops of a pass summed over the layers: one step per hook suffix ("attn.hook_qkv"), in
// the order of their first op. steps (at least p->n) are filled; returns how many.
typedef struct {
  char suffix[96];  // the op's name without "blocks.L."
  const char *what;
  tt_cost_kind kind;
  int count;                     // ops summed (the layers)
  double flops, bytes, seconds;  // seconds −1 when not measured
} tt_cost_step;
int tt_cost_steps(const tt_cost_pass *p, tt_cost_step *steps);

// Runs ids (T) through eng `repeats` times (after one warm-up run) with nothing recorded and
// every op timed; each op's seconds is its mean. TT_ERR_FORMAT when the engine runs an op
// the count does not know (their op lists must agree).
tt_status tt_cost_time(struct tt_engine *eng, const int32_t *ids, int T, int repeats, tt_cost_pass *pass,
                       tt_error *err);

// ---- the machine (probe.c) ----
typedef struct {
  double sgemm_flops;      // FLOP/s of the backend's matmul on an n × n × n product
  int sgemm_n;             // n
  double bandwidth;        // bytes/s of a streaming read of bandwidth_bytes
  double bandwidth_bytes;  // the buffer read
  const char *bandwidth_how;
  double seconds;  // how long the probes took
} tt_cost_machine;
// A short sgemm run on be and a streaming read (host memory for host backends, the
// backend's scale op over a device buffer otherwise); a few hundred ms at most.
tt_status tt_cost_probe(struct tt_backend *be, tt_cost_machine *out, tt_error *err);

// ---- the roofline ----
// Seconds a pass needs at least: its FLOPs at the sgemm rate, its bytes at the bandwidth;
// the larger says what bounds it.
typedef struct {
  double compute_seconds, memory_seconds;
  double intensity;  // FLOPs per byte of the pass
  double ridge;      // FLOPs per byte where the two bounds meet: sgemm rate / bandwidth
  bool memory_bound;
} tt_cost_roof;
void tt_cost_roofline(const tt_cost_pass *p, const tt_cost_machine *m, tt_cost_roof *out);

// ---- fused Q/K/V versus three separate products ----
typedef struct {
  double fused_seconds, separate_seconds;  // mean per product set
  double fused_flops, separate_flops;
  double fused_bytes, separate_bytes;
  int T, C, repeats;
} tt_cost_qkv;
// Times (T,C)·(C,3C) once against (T,C)·(C,C) three times on be, with the model's layer-0
// weights (the separate ones are the fused matrix's column thirds, copied).
tt_status tt_cost_qkv_bench(struct tt_backend *be, const tt_model *m, int T, int repeats, tt_cost_qkv *out,
                            tt_error *err);

// ---- measured times in a trace's metadata ("cost_seconds": "name=seconds;..." per op,
// "cost_machine": "sgemm_flops=...;bandwidth=...;wall_seconds=...") ----
char *tt_cost_times_format(const tt_cost_pass *p, const tt_cost_machine *m, char **machine);  // malloc'd, both
// Fills the ops' seconds (and the totals) from the two strings; false when they name an op
// the pass does not have or are malformed (the pass is then left untimed).
bool tt_cost_times_parse(tt_cost_pass *p, tt_cost_machine *m, const char *seconds, const char *machine);

#endif
