// outputs: hook names and the recorder. Each computed tensor is offered to the recorder
// under its hook name (see trace/hooks.h); the engine never knows who listens. On host
// backends a recorded tensor is computed straight into the recorder's memory; on device
// backends it is computed in its slot and downloaded after the op (tt_engine_flush).
#include <stdio.h>
#include <string.h>

#include "engine_internal.h"

static size_t numel(tt_dims s) {
  size_t n = 1;
  for (int i = 0; i < s.ndim; i++) n *= (size_t)s.d[i];
  return n;
}

// run.prefix + "blocks.L." + suffix (or run.prefix + suffix when layer < 0) into buf.
static const char *hook_name(const tt_engine *e, int layer, const char *suffix, char *buf, size_t len) {
  if (layer < 0)
    snprintf(buf, len, "%s%s", e->run.prefix, suffix);
  else
    snprintf(buf, len, "%sblocks.%d.%s", e->run.prefix, layer, suffix);
  return buf;
}

// The recorder's memory for the hook (NULL when nobody records it).
static void *reserve(tt_engine *e, int layer, const char *suffix, tt_dtype dtype, tt_dims shape) {
  if (!e->run.rec) return NULL;
  char name[160];
  return e->run.rec->reserve(e->run.rec->ctx, hook_name(e, layer, suffix, name, sizeof name), dtype, shape.ndim,
                             shape.d);
}

void tt_engine_timing_start(tt_engine *e) {
  e->run.op_name[0] = 0;
  if (tt_engine_timed(e)) e->run.op_mark = tt_now_seconds();
}

tt_status tt_engine_op_done(tt_engine *e, tt_error *err) {
  if (!tt_engine_timed(e) || !e->run.op_name[0]) return TT_OK;
  tt_status st = e->be->finish ? e->be->finish(e->be, err) : TT_OK;
  if (st) return st;
  e->run.rec->op_done(e->run.rec->ctx, e->run.op_name, tt_now_seconds() - e->run.op_mark);
  e->run.op_name[0] = 0;
  e->run.op_mark = tt_now_seconds();  // the callback's own time is nobody's
  return TT_OK;
}

tt_buf tt_engine_out(tt_engine *e, int layer, const char *suffix, tt_dims shape) {
  return tt_engine_out_kept(e, layer, suffix, shape, NULL);
}

void tt_engine_name_op(tt_engine *e, int layer, const char *suffix) {
  if (tt_engine_timed(e)) hook_name(e, layer, suffix, e->run.op_name, sizeof e->run.op_name);
}

// The engine's own buffer for the hook (n floats): its tape buffer when a gradient run
// tapes it (*taped), else its workspace slot.
static tt_buf own_buffer(tt_engine *e, int layer, const char *suffix, size_t n, bool *taped) {
  tt_buf tape = e->run.taping ? tt_workspace_tape_own(e, layer, suffix, n) : (tt_buf){0};
  *taped = tt_buf_is_set(tape);
  return *taped ? tape : tt_workspace_slot(e, suffix, n);
}

tt_buf tt_engine_out_kept(tt_engine *e, int layer, const char *suffix, tt_dims shape, bool *kept) {
  size_t n = numel(shape);
  tt_engine_name_op(e, layer, suffix);
  bool taped;
  tt_buf slot = own_buffer(e, layer, suffix, n, &taped);
  float *mem = reserve(e, layer, suffix, TT_F32, shape);
  if (kept) *kept = mem || taped;
  if (!mem) return slot;
  if (tt_engine_zero_copy(e->be)) {  // compute into the recorder's memory; a taped hook is read there
    tt_buf into = e->be->wrap(e->be, mem, n);
    if (e->run.taping) tt_workspace_tape_at(e, layer, suffix, into);
    return into;
  }
  TT_ASSERT(e->run.n_pending < TT_MAX_PENDING);
  e->run.pending[e->run.n_pending++] = (tt_pending){slot, mem, n};
  return slot;
}

// The backend's row function for `rows` (NULL for TT_ROWS_AS_IS, or where it has none).
static tt_row_fn row_fn_of(const tt_engine *e, tt_rule_rows rows) {
  if (rows == TT_ROWS_SOFTMAX) return e->be->softmax_row;
  if (rows == TT_ROWS_ACTIVATION && e->be->activation_row) return e->be->activation_row(e->cfg->activation);
  return NULL;
}

// A rule's sources, as hooks of the current run (a suffix NULL: none).
typedef struct {
  tt_hook_ref src, keys, addend;
} rule_sources;

// Hook ref's full name into buf, or NULL when it names none.
static const char *ref_name(const tt_engine *e, tt_hook_ref ref, char *buf, size_t len) {
  return ref.suffix ? hook_name(e, ref.layer, ref.suffix, buf, len) : NULL;
}

// Whether the recorder keeps hook `suffix` of layer l as `rule` on `from` (the sources'
// names are made only for a recorder that keeps rules).
static bool kept_as_rule(tt_engine *e, int layer, const char *suffix, tt_dims shape, tt_hook_rule rule,
                         rule_sources from) {
  const tt_recorder *rec = e->run.rec;
  if (!rec || !rec->derive) return false;
  char name[160], src[160], keys[160], addend[160];
  rule.src = ref_name(e, from.src, src, sizeof src);
  rule.keys = ref_name(e, from.keys, keys, sizeof keys);
  rule.addend = ref_name(e, from.addend, addend, sizeof addend);
  return rec->derive(rec->ctx, hook_name(e, layer, suffix, name, sizeof name), &rule, shape.ndim, shape.d);
}

// Hook `suffix` of layer l offered to the recorder as `rule` on `from`: kept so, the
// engine's own buffer for the op (*kept: whether a tape reads it); else offered as any other
// hook.
static tt_buf out_by_rule(tt_engine *e, int layer, const char *suffix, tt_dims shape, tt_hook_rule rule,
                          rule_sources from, bool *kept) {
  if (!kept_as_rule(e, layer, suffix, shape, rule, from)) return tt_engine_out_kept(e, layer, suffix, shape, kept);
  tt_engine_name_op(e, layer, suffix);
  bool taped;
  tt_buf own = own_buffer(e, layer, suffix, numel(shape), &taped);
  if (kept) *kept = taped;
  return own;
}

tt_buf tt_engine_out_rule(tt_engine *e, int layer, const char *suffix, tt_dims shape, const char *src_suffix,
                          float factor, bool causal_mask, tt_rule_rows rows, bool *kept) {
  tt_row_fn row_fn = row_fn_of(e, rows);
  if (rows != TT_ROWS_AS_IS && !row_fn) return tt_engine_out_kept(e, layer, suffix, shape, kept);
  tt_hook_rule rule = {.factor = factor, .causal_mask = causal_mask, .row_fn = row_fn};
  return out_by_rule(e, layer, suffix, shape, rule, (rule_sources){.src = {layer, src_suffix}}, kept);
}

tt_buf tt_engine_out_scores(tt_engine *e, int layer, const char *suffix, tt_dims shape, const char *q_suffix,
                            const char *k_suffix, bool *kept) {
  if (!e->be->causal_scores_fn) return tt_engine_out_kept(e, layer, suffix, shape, kept);
  tt_hook_rule rule = {.scores_fn = e->be->causal_scores_fn};
  rule_sources from = {.src = {layer, q_suffix}, .keys = {layer, k_suffix}};
  return out_by_rule(e, layer, suffix, shape, rule, from, kept);
}

tt_buf tt_engine_out_sum(tt_engine *e, int layer, const char *suffix, tt_dims shape, tt_hook_ref a, tt_hook_ref b) {
  tt_hook_rule rule = {.factor = 1.0f};
  return out_by_rule(e, layer, suffix, shape, rule, (rule_sources){.src = a, .addend = b}, NULL);
}

tt_buf tt_engine_out_heads(tt_engine *e, int layer, const char *suffix, tt_dims shape, const char *src_suffix,
                           int64_t column) {
  tt_hook_rule rule = {.heads = true, .column = column};
  return out_by_rule(e, layer, suffix, shape, rule, (rule_sources){.src = {layer, src_suffix}}, NULL);
}

tt_buf tt_engine_out_norm(tt_engine *e, int layer, const char *suffix, tt_dims shape, tt_hook_ref x, float eps,
                          bool rms, tt_buf gamma, tt_buf beta, bool *kept) {
  if (!e->be->norm_row) return tt_engine_out_kept(e, layer, suffix, shape, kept);
  tt_norm_params norm = {eps, rms, tt_buf_host_floats(gamma), rms ? NULL : tt_buf_host_floats(beta)};
  tt_hook_rule rule = {.factor = 1.0f, .norm_fn = e->be->norm_row, .norm = norm};
  return out_by_rule(e, layer, suffix, shape, rule, (rule_sources){.src = x}, kept);
}

tt_status tt_engine_flush(tt_engine *e, tt_error *err) {
  tt_status st = TT_OK;
  for (int i = 0; i < e->run.n_pending && st == TT_OK; i++)
    st = e->be->download(e->be, e->run.pending[i].buf, e->run.pending[i].dst, e->run.pending[i].n, err);
  e->run.n_pending = 0;
  return st == TT_OK ? tt_engine_op_done(e, err) : st;
}

tt_status tt_engine_flush_buf(tt_engine *e, tt_buf out, tt_error *err) {
  for (int i = 0; i < e->run.n_pending; i++) {
    tt_pending p = e->run.pending[i];
    if (p.buf.handle != out.handle || p.buf.offset != out.offset) continue;
    e->run.pending[i] = e->run.pending[--e->run.n_pending];
    TRY(e->be->download(e->be, p.buf, p.dst, p.n, err));
    break;
  }
  return tt_engine_op_done(e, err);
}

tt_status tt_engine_offer(tt_engine *e, int layer, const char *suffix, tt_dims shape, tt_buf buf, tt_error *err) {
  float *mem = reserve(e, layer, suffix, TT_F32, shape);
  return mem ? e->be->download(e->be, buf, mem, numel(shape), err) : TT_OK;
}

tt_status tt_engine_offer_copy(tt_engine *e, int layer, const char *suffix, tt_dims shape, tt_buf buf,
                               tt_hook_ref copy_of, tt_error *err) {
  tt_hook_rule rule = {.factor = 1.0f};
  if (kept_as_rule(e, layer, suffix, shape, rule, (rule_sources){.src = copy_of})) return TT_OK;
  return tt_engine_offer(e, layer, suffix, shape, buf, err);
}

void tt_engine_offer_ids(tt_engine *e, const char *name) {
  int32_t *mem = reserve(e, -1, name, TT_I32, TT_DIMS(e->run.T));
  if (mem) memcpy(mem, e->run.ids, (size_t)e->run.T * sizeof *mem);
}
