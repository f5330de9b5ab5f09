// test_opencl_parity: the whole forward pass on OpenCL against OpenBLAS. Every hook the
// engine records must agree within max abs 1e-4 x max(1, max |x|) per tensor.
//
//   test_opencl_parity MODEL_DIR|default T [KEY=VALUE ...]
//
// T tokens are drawn at random (fixed seed) from the vocabulary; KEY=VALUE pairs are
// variant knobs (tt_config_set). Exits 77 when there is no OpenCL platform, or when
// MODEL_DIR is "default" and the default model is not installed.
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "backend/backend.h"
#include "engine/engine.h"
#include "model/model.h"

#define MAX_HOOKS 4096

typedef struct {
  char *name;
  tt_dtype dtype;
  size_t n;
  void *data;
} hook;

typedef struct {
  hook hooks[MAX_HOOKS];
  int count;
} recording;

static void *reserve(void *ctx, const char *name, tt_dtype dtype, int ndim, const int64_t *shape) {
  recording *r = ctx;
  if (r->count == MAX_HOOKS) return NULL;
  size_t n = 1;
  for (int i = 0; i < ndim; i++) n *= (size_t)shape[i];
  hook *h = &r->hooks[r->count++];
  h->name = strdup(name);
  h->dtype = dtype;
  h->n = n;
  h->data = calloc(n ? n : 1, 4);
  return h->data;
}

static void forget(recording *r) {
  for (int i = 0; i < r->count; i++) free(r->hooks[i].name), free(r->hooks[i].data);
  r->count = 0;
}

static int run(const char *which, tt_model *model, const int32_t *ids, int T, recording *rec, double *seconds) {
  tt_error err;
  tt_backend *be = NULL;
  tt_status st = strcmp(which, "opencl") == 0 ? tt_backend_opencl_create(-1, -1, &be, &err)
                                              : tt_backend_openblas_create(&be, &err);
  if (st != TT_OK) {
    fprintf(stderr, "%s: %s\n", which, err.msg);
    return 1;
  }
  tt_engine *eng = NULL;
  if ((st = tt_engine_create(model, be, T, &eng, &err)) != TT_OK) {
    fprintf(stderr, "%s: %s\n", which, err.msg);
    tt_backend_destroy(be);
    return 1;
  }
  // A first run without recording warms up (PoCL compiles work-group code on first use);
  // the recorded second run is the one compared.
  struct timespec t0, t1;
  st = tt_engine_run(eng, ids, T, NULL, &err);
  clock_gettime(CLOCK_MONOTONIC, &t0);
  tt_recorder r = {.reserve = reserve, .ctx = rec};
  if (st == TT_OK) st = tt_engine_run(eng, ids, T, &r, &err);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  *seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
  if (st != TT_OK) fprintf(stderr, "%s: %s\n", which, err.msg);
  if (strcmp(which, "opencl") == 0) printf("device: %s\n", be->device);
  tt_engine_destroy(eng);
  tt_backend_destroy(be);
  return st == TT_OK ? 0 : 1;
}

// Compares one hook; returns true when within tolerance. -inf must match -inf exactly.
static bool compare(const hook *ref, const hook *got, double *worst_ratio) {
  if (ref->dtype != TT_F32) return memcmp(ref->data, got->data, ref->n * 4) == 0;
  const float *a = ref->data, *b = got->data;
  double peak = 1.0, worst = 0.0;
  size_t at = 0;
  for (size_t i = 0; i < ref->n; i++)
    if (isfinite(a[i])) peak = fmax(peak, fabs(a[i]));
  for (size_t i = 0; i < ref->n; i++) {
    double d;
    if (isinf(a[i]) || isinf(b[i]))
      d = a[i] == b[i] ? 0.0 : INFINITY;
    else
      d = fabs((double)a[i] - b[i]);
    if (!(d <= worst)) {  // also catches NaN
      worst = isnan(d) ? INFINITY : d;
      at = i;
    }
  }
  double tol = 1e-4 * peak;
  *worst_ratio = worst / tol;
  if (worst > tol) {
    printf("MISMATCH %s: max abs diff %.3g at %zu (openblas %.9g, opencl %.9g), tolerance %.3g\n", ref->name, worst, at,
           (double)a[at], (double)b[at], tol);
    return false;
  }
  return true;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: test_opencl_parity MODEL_DIR|default T [KEY=VALUE ...]\n");
    return 2;
  }
  cl_uint np = 0;
  if (clGetPlatformIDs(0, NULL, &np) != CL_SUCCESS || np == 0) {
    printf("skipped: no OpenCL platform on this machine (install pocl-opencl-icd for OpenCL on the CPU)\n");
    return 77;
  }
  char dir[1024];
  snprintf(dir, sizeof dir, "%s", argv[1]);
  if (strcmp(argv[1], "default") == 0 && !tt_model_default_dir(dir, sizeof dir)) {
    printf("skipped: the default model is not installed\n");
    return 77;
  }
  tt_error err;
  tt_model *model = NULL;
  if (tt_model_load(dir, &model, &err) != TT_OK) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  for (int i = 3; i < argc; i++) {
    char key[128];
    const char *eq = strchr(argv[i], '=');
    if (!eq || (size_t)(eq - argv[i]) >= sizeof key) return 2;
    memcpy(key, argv[i], (size_t)(eq - argv[i]));
    key[eq - argv[i]] = 0;
    if (tt_config_set(&model->cfg, key, eq + 1, &err) != TT_OK) {
      fprintf(stderr, "%s\n", err.msg);
      return 2;
    }
  }
  int T = atoi(argv[2]);
  if (T > model->cfg.n_positions) T = model->cfg.n_positions;
  int32_t *ids = malloc((size_t)T * sizeof *ids);
  uint64_t s = 12345;
  for (int t = 0; t < T; t++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    ids[t] = (int32_t)((s >> 33) % (uint64_t)model->cfg.vocab_size);
  }
  printf("model %s: %d layers, %d heads, C %d, F %d, V %d; T %d\n", dir, model->cfg.n_layer, model->cfg.n_head,
         model->cfg.n_embd, model->cfg.n_inner, model->cfg.vocab_size, T);

  static recording ref, got;
  double t_ref, t_got;
  if (run("openblas", model, ids, T, &ref, &t_ref) || run("opencl", model, ids, T, &got, &t_got)) return 1;
  int bad = 0;
  if (ref.count != got.count || ref.count < 10) {
    printf("MISMATCH: openblas recorded %d hooks, opencl %d\n", ref.count, got.count);
    bad++;
  }
  double worst = 0;
  const char *worst_name = "";
  for (int i = 0; i < ref.count && i < got.count; i++) {
    if (strcmp(ref.hooks[i].name, got.hooks[i].name) != 0 || ref.hooks[i].n != got.hooks[i].n) {
      printf("MISMATCH: hook %d is %s on openblas, %s on opencl\n", i, ref.hooks[i].name, got.hooks[i].name);
      bad++;
      continue;
    }
    double ratio = 0;
    if (!compare(&ref.hooks[i], &got.hooks[i], &ratio)) bad++;
    if (ratio > worst) worst = ratio, worst_name = ref.hooks[i].name;
  }
  printf("%d hooks compared, %d mismatched; closest to the tolerance: %s at %.3f of it\n", ref.count, bad, worst_name,
         worst);
  printf("recorded run: openblas %.3f s, opencl %.3f s\n", t_ref, t_got);
  forget(&ref), forget(&got);
  free(ids);
  tt_model_destroy(model);
  return bad ? 1 : 0;
}
