// load: every catalogue tensor of a trace is validated (layers past n_layer, grad. and
// decode.S. names), and loading does work linear in the tensors (a 100k-tensor trace
// with 1000 layers compares each name a bounded number of times).
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "safetensors/safetensors.h"
#include "trace/hooks.h"
#include "trace/trace.h"
#include "trace/trace_internal.h"

static char dir[] = "/tmp/tt_load_XXXXXX";

static void small_config(tt_config *cfg, int n_layer) {
  tt_config_default(cfg);
  cfg->n_layer = n_layer, cfg->n_head = 2, cfg->n_embd = 4, cfg->n_inner = 16, cfg->vocab_size = 8;
  cfg->n_positions = 16;
}

// A trace of T = 2 tokens with the config's metadata and the given extra tensor.
static tt_trace *trace_with(const char *name, tt_dtype dt, int ndim, const int64_t *shape) {
  tt_config cfg;
  small_config(&cfg, 4);
  tt_trace *tr = tt_trace_create();
  char *json = tt_config_to_json(&cfg);
  tt_trace_set_meta(tr, "config", json);
  free(json);
  int32_t ids[2] = {1, 2};
  const char *strs[2] = {"a", "b"};
  tt_error err;
  assert_int_equal(tt_trace_set_tokens(tr, ids, strs, 2, &err), TT_OK);
  tt_recorder rec = tt_trace_recorder(tr);
  void *data = rec.reserve(rec.ctx, name, dt, ndim, shape);
  int64_t n = 1;
  for (int d = 0; d < ndim; d++) n *= shape[d];
  memset(data, 0, (size_t)n * tt_dtype_size(dt));
  return tr;
}

static tt_status save_and_load(tt_trace *tr, tt_error *err) {
  char path[512];
  snprintf(path, sizeof path, "%s/t.safetensors", dir);
  assert_int_equal(tt_trace_save(tr, path, err), TT_OK);
  tt_trace_destroy(tr);
  tt_trace *back = NULL;
  tt_status st = tt_trace_load(path, &back, err);
  if (st) assert_null(back);
  tt_trace_destroy(back);
  return st;
}

static void expect(const char *name, tt_dtype dt, int ndim, const int64_t *shape, const char *fragment) {
  tt_error err = {0};
  tt_status st = save_and_load(trace_with(name, dt, ndim, shape), &err);
  if (!fragment) {
    if (st) fail_msg("%s refused: %s", name, err.msg);
    return;
  }
  if (st != TT_ERR_FORMAT || !strstr(err.msg, fragment))
    fail_msg("%s: got %d '%s', wanted '%s'", name, st, err.msg, fragment);
  assert_null(strchr(err.msg, '\n'));
}

static void test_validation(void **state) {
  (void)state;
  int64_t T[1] = {2}, T1[1] = {3}, TC[2] = {2, 4}, HTT[3] = {2, 2, 2}, decode_HTT[3] = {2, 1, 4}, TV[2] = {2, 8};
  // Layers past n_layer (4): refused whatever their shape.
  expect("blocks.7.ln1.hook_scale", TT_F32, 1, T1,
         "'blocks.7.ln1.hook_scale' is in layer 7 but the config has 4 layers");
  expect("blocks.4.ln1.hook_scale", TT_F32, 1, T, "in layer 4 but the config has 4 layers");
  expect("blocks.2147483647.attn.hook_pattern", TT_F32, 3, HTT, "in layer 2147483647");
  // Inside the layers, prefixed names and wrong shapes or dtypes are checked too.
  expect("blocks.3.ln1.hook_scale", TT_F32, 1, T, NULL);
  expect("blocks.3.ln1.hook_scale", TT_F32, 1, T1, "'blocks.3.ln1.hook_scale' is F32 (3), expected F32 (2)");
  expect("blocks.3.ln1.hook_scale", TT_F64, 1, T, "is F64 (2), expected F32 (2)");
  expect("grad.blocks.1.hook_resid_pre", TT_F32, 2, TC, NULL);
  expect("grad.blocks.1.hook_resid_pre", TT_F32, 1, T, "expected F32 (2, 4)");
  expect("decode.1.blocks.0.attn.hook_pattern", TT_F32, 3, decode_HTT, NULL);
  expect("decode.1.blocks.0.attn.hook_pattern", TT_F32, 3, HTT, "expected F32 (2, 1, 4)");
  expect("decode.0.blocks.9.attn.hook_pattern", TT_F32, 3, decode_HTT, "in layer 9");
  expect("hook_logits", TT_F32, 2, TV, NULL);
  // Names outside the catalogue may be anything.
  expect("blocks.7.my_probe", TT_U8, 1, T1, NULL);
}

// ---- a 100k-tensor trace with 1000 layers --------------------------------------------------
typedef struct {
  json_t *header;
  const tt_config *cfg;
  size_t offset, n;
} file_builder;

static void add_entry(file_builder *b, const char *name, tt_dtype dt, int ndim, const int64_t *shape) {
  json_t *sh = json_array();
  int64_t numel = 1;
  for (int d = 0; d < ndim; d++) json_array_append_new(sh, json_integer(shape[d])), numel *= shape[d];
  size_t bytes = (size_t)numel * tt_dtype_size(dt);
  json_t *e = json_pack("{s:s, s:o, s:[I, I]}", "dtype", tt_dtype_name(dt), "shape", sh, "data_offsets",
                        (json_int_t)b->offset, (json_int_t)(b->offset + bytes));
  json_object_set_new(b->header, name, e);
  b->offset += bytes;
  b->n++;
}

static void add_hook(void *ctx, const tt_hook *h) {
  file_builder *b = ctx;
  int64_t shape[TT_MAX_DIMS];
  int ndim = tt_hook_shape(h->axes, b->cfg, 1, shape);
  if (strcmp(h->name, "hook_loss") != 0) add_entry(b, h->name, h->dtype, ndim, shape);  // T = 1: no loss
}

// Writes the file by hand (the writer is not what is measured): 8-byte length, header
// padded to 8 bytes, zero data except the one token id.
static void write_big_trace(const char *path, size_t n_tensors) {
  tt_config cfg;
  small_config(&cfg, 1000);
  file_builder b = {json_object(), &cfg, 0, 0};
  tt_hooks_each(&cfg, add_hook, &b);
  int64_t one[1] = {1};
  char name[64];
  for (size_t i = 0; b.n < n_tensors; i++) {
    snprintf(name, sizeof name, "probe.%zu", i);
    add_entry(&b, name, TT_F32, 1, one);
  }
  char *cfg_json = tt_config_to_json(&cfg);
  json_object_set_new(b.header, "__metadata__",
                      json_pack("{s:s, s:s, s:s, s:s, s:s}", "format", TT_TRACE_FORMAT, "format_version",
                                TT_TRACE_VERSION, "config", cfg_json, "token_ids", "[1]", "token_strings", "[\"a\"]"));
  free(cfg_json);
  char *text = json_dumps(b.header, JSON_COMPACT);
  size_t len = strlen(text), padded = (len + 7) / 8 * 8;
  FILE *fp = fopen(path, "wb");
  assert_non_null(fp);
  uint64_t hlen = padded;
  unsigned char le[8];
  for (int i = 0; i < 8; i++) le[i] = (unsigned char)(hlen >> (8 * i));
  fwrite(le, 1, 8, fp);
  fwrite(text, 1, len, fp);
  for (size_t i = len; i < padded; i++) fputc(' ', fp);
  unsigned char *data = calloc(1, b.offset);
  int32_t id = 1;
  memcpy(data, &id, 4);  // "tokens" comes first in the catalogue walk, at offset 0
  fwrite(data, 1, b.offset, fp);
  assert_int_equal(fclose(fp), 0);
  free(data);
  free(text);
  json_decref(b.header);
}

static void test_many_tensors(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s/big.safetensors", dir);
  const size_t n = 100000;
  write_big_trace(path, n);
  tt_trace *tr = NULL;
  tt_error err = {0};
  if (tt_trace_load(path, &tr, &err)) fail_msg("%s", err.msg);
  assert_int_equal(tt_trace_count(tr), n);
  // Linear work: a few name comparisons per tensor (the quadratic load made ~2.4e9).
  size_t work = tt_trace_name_compares(tr);
  if (work > 4 * n) fail_msg("loading compared %zu names for %zu tensors", work, n);
  assert_non_null(tt_trace_find(tr, "blocks.999.ln2.hook_out"));
  assert_non_null(tt_trace_find(tr, "probe.0"));
  assert_null(tt_trace_find(tr, "blocks.1000.ln2.hook_out"));
  size_t before = tt_trace_name_compares(tr);
  for (size_t i = 0; i < tt_trace_count(tr); i++)
    assert_ptr_equal(tt_trace_find(tr, tt_trace_get(tr, i)->name), tt_trace_get(tr, i));
  if (tt_trace_name_compares(tr) - before > 2 * n)
    fail_msg("finding every tensor once took %zu compares", tt_trace_name_compares(tr) - before);
  tt_trace_destroy(tr);
}

// tt_trace_add refuses duplicates without comparing against every stored name.
static void test_add_many(void **state) {
  (void)state;
  tt_trace *tr = tt_trace_create();
  tt_error err;
  float x = 1;
  char name[64];
  const size_t n = 20000;
  for (size_t i = 0; i < n; i++) {
    snprintf(name, sizeof name, "probe.%zu", i);
    tt_tensor t = {name, TT_F32, 1, {1}, &x};
    assert_int_equal(tt_trace_add(tr, &t, &err), TT_OK);
  }
  tt_tensor dup = {"probe.7", TT_F32, 1, {1}, &x};
  assert_int_equal(tt_trace_add(tr, &dup, &err), TT_ERR_FORMAT);
  if (tt_trace_name_compares(tr) > 4 * n)
    fail_msg("adding %zu tensors compared %zu names", n, tt_trace_name_compares(tr));
  tt_trace_destroy(tr);
}

// The index's hash is core's FNV-1a (64-bit), checked against the published test vectors.
static void test_fnv(void **state) {
  (void)state;
  assert_true(tt_fnv1a64(TT_FNV1A64_BASIS, "", 0) == 0xcbf29ce484222325ull);
  assert_true(tt_fnv1a64(TT_FNV1A64_BASIS, "a", 1) == 0xaf63dc4c8601ec8cull);
  assert_true(tt_fnv1a64(TT_FNV1A64_BASIS, "foobar", 6) == 0x85944171f73967e8ull);
  assert_true(tt_fnv1a64(tt_fnv1a64(TT_FNV1A64_BASIS, "foo", 3), "bar", 3) == 0x85944171f73967e8ull);
}

int main(void) {
  if (!mkdtemp(dir)) return 1;
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_validation), cmocka_unit_test(test_many_tensors),
                                     cmocka_unit_test(test_add_many), cmocka_unit_test(test_fnv)};
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd)) return 1;
  return rc;
}
