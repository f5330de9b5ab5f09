// fuzz_safetensors: any bytes as a safetensors file. Whatever opens must describe memory
// inside the file (every element read through tt_tensor_get), with tensors that fit the
// file together; it must write back and reopen to the same names, shapes and bytes, its
// data matching the hash the writer put in the header.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "safetensors/safetensors.h"

// Reads every element of t (at most the first and last 4096) and checks its size.
static void touch(const tt_tensor *t, size_t file_size) {
  int64_t n = tt_tensor_numel(t);
  if (n < 0 || tt_tensor_nbytes(t) != (size_t)n * tt_dtype_size(t->dtype)) fuzz_fail("element count");
  if (tt_tensor_nbytes(t) > file_size) fuzz_fail("a tensor larger than its file");
  volatile double sink = 0;
  for (int64_t i = 0; i < n; i++) {
    if (i == 4096 && n > 8192) i = n - 4096;
    sink += tt_tensor_get(t, i);
  }
  (void)sink;
}

// b, written from a, has a's tensors and metadata, and the data hash the writer owns (a's
// own value of that key, if any, replaced).
static void same(const tt_st_file *a, const tt_st_file *b) {
  size_t extra = tt_st_metadata(a, TT_ST_DATA_HASH_KEY) ? 0 : 1;
  if (tt_st_count(a) != tt_st_count(b) || tt_st_metadata_count(a) + extra != tt_st_metadata_count(b))
    fuzz_fail("written file differs in count");
  for (size_t i = 0; i < tt_st_count(a); i++) {
    const tt_tensor *x = tt_st_get(a, i), *y = tt_st_find(b, x->name);
    if (!y || y->dtype != x->dtype || y->ndim != x->ndim ||
        memcmp(y->shape, x->shape, sizeof x->shape[0] * (size_t)x->ndim) ||
        memcmp(x->data, y->data, tt_tensor_nbytes(x)))
      fuzz_fail("written tensor differs");
  }
  for (size_t i = 0; i < tt_st_metadata_count(a); i++) {
    const char *k, *v;
    tt_st_metadata_at(a, i, &k, &v);
    const char *w = tt_st_metadata(b, k);
    if (!w || (strcmp(k, TT_ST_DATA_HASH_KEY) != 0 && strcmp(v, w))) fuzz_fail("written metadata differs");
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_write("in.safetensors", data, size);
  tt_st_file *f = NULL;
  tt_error err = {0};
  tt_status st = tt_st_open(path, &f, &err);
  if (st) {
    fuzz_check_error(st, &err);
    return 0;
  }
  size_t total = 0;
  for (size_t i = 0; i < tt_st_count(f); i++) {
    touch(tt_st_get(f, i), size);
    total += tt_tensor_nbytes(tt_st_get(f, i));
  }
  if (total > size) fuzz_fail("tensors larger than their file together");
  size_t nm = tt_st_metadata_count(f);
  tt_tensor *ts = calloc(tt_st_count(f) + 1, sizeof *ts);
  tt_st_meta *meta = calloc(nm + 1, sizeof *meta);
  for (size_t i = 0; i < tt_st_count(f); i++) ts[i] = *tt_st_get(f, i);
  for (size_t i = 0; i < nm; i++) tt_st_metadata_at(f, i, &meta[i].key, &meta[i].value);
  char out[600];
  snprintf(out, sizeof out, "%s/out.safetensors", fuzz_dir());
  st = tt_st_write(out, ts, tt_st_count(f), meta, nm, &err);
  if (st) fuzz_check_error(st, &err);  // names with NUL-free but odd bytes may still be refused
  tt_st_file *g = NULL;
  if (!st) {
    st = tt_st_open(out, &g, &err);
    if (st) fuzz_fail(err.msg);  // what ttrace wrote, ttrace must read
    same(f, g);
    tt_st_close(g);
    char id[17];
    if (tt_st_identity(out, true, id, &err)) fuzz_fail("the written data does not match its hash");
  }
  free(ts);
  free(meta);
  tt_st_close(f);
  return 0;
}
