// grad_rerun: a gradient run after another one, on the same engine, gives the same
// gradients bit for bit as on a fresh engine: what an earlier pass added into (biases, norm
// weights, learned positions, an untied embedding's rows) is cleared, and what the products
// overwrite needs no clearing. The earlier pass is longer and has other tokens, so that it
// touches rows and positions the later one does not.
//
//   grad_rerun MODEL_DIR     exit 0 when every grad.* tensor is equal, else 1 (and the first
//                            that differs on stderr)
#include <stdio.h>
#include <string.h>

#include "backend/backend.h"
#include "engine/engine.h"
#include "model/model.h"
#include "trace/trace.h"

static int fail(const char *what, const tt_error *err) {
  fprintf(stderr, "grad_rerun: %s: %s\n", what, err->msg);
  return 1;
}

// The trace of ids (T) with every gradient, on eng; NULL on error (err says why).
static tt_trace *grad_trace(tt_engine *eng, const int32_t *ids, int T, tt_error *err) {
  tt_trace *tr = tt_trace_create();
  tt_recorder rec = tt_trace_recorder(tr);
  if (tr && tt_engine_run_grad(eng, ids, T, &rec, err) == TT_OK) return tr;
  tt_trace_destroy(tr);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 2) return fprintf(stderr, "usage: grad_rerun MODEL_DIR\n"), 2;
  tt_error err = {0};
  tt_model *m = NULL;
  tt_backend *be = NULL;
  tt_engine *used = NULL, *fresh = NULL;
  if (tt_model_load(argv[1], &m, &err) || tt_backend_create("openblas", &be, NULL, 0, &err) ||
      tt_engine_create(m, be, 16, &used, &err) || tt_engine_enable_grad(used, &err) ||
      tt_engine_create(m, be, 16, &fresh, &err) || tt_engine_enable_grad(fresh, &err))
    return fail("setup", &err);
  int V = m->cfg.vocab_size;
  int32_t first[12], later[5];
  for (int t = 0; t < 12; t++) first[t] = (int32_t)((t * 37 + 11) % V);
  for (int t = 0; t < 5; t++) later[t] = (int32_t)((t * 53 + 200) % V);
  tt_trace *earlier = grad_trace(used, first, 12, &err);
  tt_trace *again = earlier ? grad_trace(used, later, 5, &err) : NULL;
  tt_trace *once = again ? grad_trace(fresh, later, 5, &err) : NULL;
  if (!once) return fail("run", &err);
  int compared = 0, status = 0;
  for (size_t i = 0; i < tt_trace_count(once) && !status; i++) {
    const tt_tensor *a = tt_trace_get(once, i), *b = tt_trace_find(again, a->name);
    if (strncmp(a->name, "grad.", 5) != 0) continue;
    compared++;
    if (!b || tt_tensor_nbytes(a) != tt_tensor_nbytes(b) || memcmp(a->data, b->data, tt_tensor_nbytes(a)) != 0) {
      fprintf(stderr, "grad_rerun: %s differs after an earlier run\n", a->name);
      status = 1;
    }
  }
  printf("grad_rerun: %d gradients compared, %s\n", compared, status ? "a difference" : "all equal");
  tt_trace_destroy(earlier), tt_trace_destroy(again), tt_trace_destroy(once);
  tt_engine_destroy(used), tt_engine_destroy(fresh);
  tt_backend_destroy(be);
  tt_model_destroy(m);
  return status || compared == 0;
}
