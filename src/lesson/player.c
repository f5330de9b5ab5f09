// player: resolves a step against the loaded traces (the tensors it shows, the narration
// with its numbers) and keeps the current step for the window and the terminal player.
#include <stdlib.h>
#include <string.h>

#include "model/model.h"  // tt_config, used by trace.h's tt_trace_config
#include "lesson_internal.h"
#include "trace/hooks.h"

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

// Layers in a trace: from its config, else one more than the largest blocks.L it holds.
static int trace_layers(const tt_trace *tr) {
  tt_config cfg;
  if (tt_trace_config(tr, &cfg)) return cfg.n_layer;
  int n = 0;
  for (size_t i = 0; i < tt_trace_count(tr); i++) {
    tt_hook_ref ref;
    if (tt_hook_lookup(tt_trace_get(tr, i)->name, &ref) && ref.layer + 1 > n) n = ref.layer + 1;
  }
  return n;
}

// Checks head and row of one tensor for this step.
static tt_status check_tensor(const tt_lesson *l, const tt_lesson_step *st, const char *trace_name, const tt_tensor *t,
                              tt_error *err) {
  if (st->head != TT_LESSON_ALL) {
    if (t->ndim != 3)
      return tt_fail(err, TT_ERR_ARG, "%s:%d: head: %d, but %s in trace '%s' has no head axis", l->name, st->line,
                     st->head, t->name, trace_name);
    if (st->head >= t->shape[0])
      return tt_fail(err, TT_ERR_ARG, "%s:%d: head %d out of range: %s has %lld heads", l->name, st->line, st->head,
                     t->name, (long long)t->shape[0]);
  }
  if (st->row != TT_LESSON_ALL_ROWS) {
    int axis = t->ndim == 3 ? 1 : 0;
    int64_t n = t->ndim > 0 ? t->shape[axis] : 0;
    int64_t r = st->row < 0 ? st->row + n : st->row;
    if (r < 0 || r >= n)
      return tt_fail(err, TT_ERR_ARG, "%s:%d: row %d out of range: %s has %lld rows", l->name, st->line, st->row,
                     t->name, (long long)n);
  }
  return TT_OK;
}

// What each view can show, and the tensors it needs besides the shown one.
static tt_status check_view(const tt_lesson *l, const tt_lesson_step *st, const tt_trace *tr, const tt_tensor *t,
                            tt_error *err) {
  const char *v = st->view, *name = t->name;
  const char *want = NULL, *need[3] = {NULL, NULL, NULL};
  bool ok = true;
  if (strcmp(v, "tokens") == 0) {
    ok = strcmp(name, "tokens") == 0, want = "the hook 'tokens'";
  } else if (strcmp(v, "grid") == 0 || strcmp(v, "overview") == 0) {
    ok = t->ndim == 3, want = "a tensor with a head axis";
  } else if (strcmp(v, "norms") == 0) {
    ok = t->ndim == 2, want = "a (T, C) tensor";
  } else if (strcmp(v, "bars") == 0) {
    ok = ends_with(name, "hook_probs") || ends_with(name, "hook_logits"), want = "hook_logits or hook_probs";
  } else if (strcmp(v, "embed") == 0) {
    ok = strcmp(name, "hook_embed") == 0, want = "hook_embed";
  } else if (strcmp(v, "positions") == 0) {
    ok = strcmp(name, "hook_pos_embed") == 0 || strcmp(name, "blocks.0.hook_resid_pre") == 0,
    want = "hook_pos_embed or blocks.0.hook_resid_pre";
  } else if (strcmp(v, "layernorm") == 0) {
    ok = strstr(name, "ln1.hook_") || strstr(name, "ln2.hook_") || strncmp(name, "ln_final.hook_", 14) == 0,
    want = "a LayerNorm hook (ln1, ln2 or ln_final)";
    need[0] = "hook_mean", need[1] = "hook_scale";
  } else if (strcmp(v, "gelu") == 0) {
    ok = ends_with(name, "mlp.hook_post") || ends_with(name, "mlp.hook_pre"), want = "mlp.hook_pre or mlp.hook_post";
    need[0] = "hook_pre", need[1] = "hook_post";
  } else if (strcmp(v, "gates") == 0) {
    ok = ends_with(name, "mlp.hook_post") || ends_with(name, "mlp.hook_pre"), want = "mlp.hook_pre or mlp.hook_post";
    need[0] = "hook_pre", need[1] = "hook_post";
  } else if (strcmp(v, "neighbours") == 0) {
    ok = strcmp(name, "tokens") == 0, want = "the hook 'tokens'";
  } else if (strcmp(v, "qkv") == 0) {
    ok = ends_with(name, "attn.hook_q") || ends_with(name, "attn.hook_k") || ends_with(name, "attn.hook_v"),
    want = "attn.hook_q, hook_k or hook_v";
    need[0] = "hook_q", need[1] = "hook_k", need[2] = "hook_v";
  }
  if (!ok) return tt_fail(err, TT_ERR_ARG, "%s:%d: view %s shows %s, not %s", l->name, st->line, v, want, name);
  for (int i = 0; i < 3 && need[i]; i++) {
    if (!tt_lesson_sibling(tr, name, need[i]))
      return tt_fail(err, TT_ERR_ARG, "%s:%d: view %s needs %.*s%s too, which the trace lacks", l->name, st->line, v,
                     (int)(strrchr(name, '.') ? strrchr(name, '.') - name + 1 : 0), name, need[i]);
  }
  return TT_OK;
}

tt_status tt_lesson_resolve(const tt_lesson *l, int step, const tt_trace *const *traces, tt_lesson_decode_fn decode,
                            void *decode_ctx, tt_lesson_view *out, tt_error *err) {
  memset(out, 0, sizeof *out);
  const tt_lesson_step *st = tt_lesson_step_at(l, step);
  if (!st) return tt_fail(err, TT_ERR_ARG, "%s: no step %d (it has %d)", l->name, step + 1, l->n_steps);
  out->step = st;
  out->trace = traces[st->trace];
  out->compare = st->compare >= 0 ? traces[st->compare] : NULL;
  const char *tname = l->traces[st->trace].name;
  int n = 1;
  if (st->layer == TT_LESSON_ALL_LAYERS) {
    n = trace_layers(out->trace);
    if (n < 1 || n > TT_LESSON_MAX_LAYERS)
      return tt_fail(err, TT_ERR_ARG, "%s:%d: trace '%s' has no blocks to show", l->name, st->line, tname);
  }
  for (int i = 0; i < n; i++) {
    char name[256];
    tt_hook_ref ref;
    if (st->layer != TT_LESSON_ALL_LAYERS)
      snprintf(name, sizeof name, "%s", st->hook);
    else if (!tt_hook_at(st->hook, i, &ref) || ref.layer < 0 || !tt_hook_name(&ref, name, sizeof name))
      return tt_fail(err, TT_ERR_ARG, "%s:%d: %s is not a block hook, so 'layer: all' cannot show it", l->name,
                     st->line, st->hook);
    const tt_tensor *t = tt_trace_find(out->trace, name);
    if (!t)
      return tt_fail(err, TT_ERR_ARG, "%s:%d: trace '%s' has no tensor %s (record it in the trace line)", l->name,
                     st->line, tname, name);
    tt_status s = check_tensor(l, st, tname, t, err);
    if (!s) s = check_view(l, st, out->trace, t, err);
    if (s) return s;
    out->tensors[i] = t;
    if (out->compare) {
      const char *cname = l->traces[st->compare].name;
      const tt_tensor *c = tt_trace_find(out->compare, name);
      if (!c)
        return tt_fail(err, TT_ERR_ARG, "%s:%d: compared trace '%s' has no tensor %s", l->name, st->line, cname, name);
      s = check_tensor(l, st, cname, c, err);
      if (s) return s;
      out->compare_tensors[i] = c;
    }
  }
  out->n_tensors = n;
  return tt_lesson_fill(l, st->trace, st->text, st->text_line, traces, decode, decode_ctx, &out->narration, err);
}

void tt_lesson_view_free(tt_lesson_view *v) {
  free(v->narration);
  v->narration = NULL;
}

tt_status tt_lesson_player_open(const char *path, const char *traces_dir, tt_lesson_player **out, tt_error *err) {
  *out = NULL;
  tt_lesson_player *p = calloc(1, sizeof *p);
  if (!p) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  tt_status st = tt_lesson_load(path, &p->lesson, err);
  if (st) {
    free(p);
    return st;
  }
  int n = tt_lesson_n_traces(p->lesson);
  p->traces = calloc((size_t)n, sizeof *p->traces);
  if (!p->traces) {
    tt_lesson_player_close(p);
    return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  }
  for (int i = 0; i < n; i++) {
    char file[4096];
    st = tt_lesson_trace_path(p->lesson, i, traces_dir, file, sizeof file, err);
    if (!st) st = tt_trace_load(file, &p->traces[i], err);
    if (st) {
      tt_fail_prefix(err, "%s: trace '%s' (make it with `ttrace lesson --make-traces`)", path,
                     tt_lesson_trace_at(p->lesson, i)->name);
      tt_lesson_player_close(p);
      return st;
    }
  }
  *out = p;
  return TT_OK;
}

void tt_lesson_player_close(tt_lesson_player *p) {
  if (!p) return;
  if (p->traces)
    for (int i = 0; i < tt_lesson_n_traces(p->lesson); i++) tt_trace_destroy(p->traces[i]);
  free(p->traces);
  tt_lesson_destroy(p->lesson);
  free(p);
}

bool tt_lesson_player_jump(tt_lesson_player *p, int step) {
  if (step < 0 || step >= tt_lesson_n_steps(p->lesson)) return false;
  p->step = step;
  return true;
}
bool tt_lesson_player_next(tt_lesson_player *p) {
  return tt_lesson_player_jump(p, p->step + 1);
}
bool tt_lesson_player_prev(tt_lesson_player *p) {
  return tt_lesson_player_jump(p, p->step - 1);
}

tt_status tt_lesson_player_view(const tt_lesson_player *p, tt_lesson_decode_fn decode, void *decode_ctx,
                                tt_lesson_view *out, tt_error *err) {
  return tt_lesson_resolve(p->lesson, p->step, (const tt_trace *const *)p->traces, decode, decode_ctx, out, err);
}
