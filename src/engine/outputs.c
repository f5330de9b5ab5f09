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

// Hook `suffix` of layer l offered to the recorder as `rule` (its sources' names set): kept
// so, the engine's own buffer for the op (*kept: whether a tape reads it); else offered as
// any other hook.
static tt_buf out_by_rule(tt_engine *e, int layer, const char *suffix, tt_dims shape, const tt_hook_rule *rule,
                          bool *kept) {
  const tt_recorder *rec = e->run.rec;
  char name[160];
  if (!rec || !rec->derive ||
      !rec->derive(rec->ctx, hook_name(e, layer, suffix, name, sizeof name), rule, shape.ndim, shape.d))
    return tt_engine_out_kept(e, layer, suffix, shape, kept);
  tt_engine_name_op(e, layer, suffix);
  bool taped;
  tt_buf own = own_buffer(e, layer, suffix, numel(shape), &taped);
  if (kept) *kept = taped;
  return own;
}

// Hook ref's full name into buf, or NULL when it names none.
static const char *ref_name(const tt_engine *e, tt_hook_ref ref, char *buf, size_t len) {
  return ref.suffix ? hook_name(e, ref.layer, ref.suffix, buf, len) : NULL;
}

tt_buf tt_engine_out_rule(tt_engine *e, int layer, const char *suffix, tt_dims shape, const char *src_suffix,
                          float factor, bool causal_mask, tt_rule_rows rows, bool *kept) {
  tt_row_fn row_fn = row_fn_of(e, rows);
  if (rows != TT_ROWS_AS_IS && !row_fn) return tt_engine_out_kept(e, layer, suffix, shape, kept);
  char src[160];
  tt_hook_rule rule = {.src = hook_name(e, layer, src_suffix, src, sizeof src),
                       .factor = factor,
                       .causal_mask = causal_mask,
                       .row_fn = row_fn};
  return out_by_rule(e, layer, suffix, shape, &rule, kept);
}

tt_buf tt_engine_out_scores(tt_engine *e, int layer, const char *suffix, tt_dims shape, const char *q_suffix,
                            const char *k_suffix, bool *kept) {
  if (!e->be->causal_scores_fn) return tt_engine_out_kept(e, layer, suffix, shape, kept);
  char q[160], k[160];
  tt_hook_rule rule = {.src = hook_name(e, layer, q_suffix, q, sizeof q),
                       .keys = hook_name(e, layer, k_suffix, k, sizeof k),
                       .scores_fn = e->be->causal_scores_fn};
  return out_by_rule(e, layer, suffix, shape, &rule, kept);
}

tt_buf tt_engine_out_sum(tt_engine *e, int layer, const char *suffix, tt_dims shape, tt_hook_ref a, tt_hook_ref b) {
  char src[160], addend[160];
  tt_hook_rule rule = {
      .src = ref_name(e, a, src, sizeof src), .factor = 1.0f, .addend = ref_name(e, b, addend, sizeof addend)};
  return out_by_rule(e, layer, suffix, shape, &rule, NULL);
}

tt_buf tt_engine_out_heads(tt_engine *e, int layer, const char *suffix, tt_dims shape, const char *src_suffix,
                           int64_t column) {
  char src[160];
  tt_hook_rule rule = {.src = hook_name(e, layer, src_suffix, src, sizeof src), .heads = true, .column = column};
  return out_by_rule(e, layer, suffix, shape, &rule, NULL);
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
  const tt_recorder *rec = e->run.rec;
  char name[160], src[160];
  tt_hook_rule rule = {.src = ref_name(e, copy_of, src, sizeof src), .factor = 1.0f};
  if (rec && rec->derive &&
      rec->derive(rec->ctx, hook_name(e, layer, suffix, name, sizeof name), &rule, shape.ndim, shape.d))
    return TT_OK;
  return tt_engine_offer(e, layer, suffix, shape, buf, err);
}

void tt_engine_offer_ids(tt_engine *e, const char *name) {
  int32_t *mem = reserve(e, -1, name, TT_I32, TT_DIMS(e->run.T));
  if (mem) memcpy(mem, e->run.ids, (size_t)e->run.T * sizeof *mem);
}
