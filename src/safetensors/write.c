// write: a safetensors file, tensors back to back after a header padded to 8 bytes,
// through a temporary file that is renamed into place only when complete.
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "safetensors.h"

static char *header_json(const tt_tensor *tensors, size_t n, const tt_st_meta *meta, size_t n_meta) {
  json_t *root = json_object();
  if (n_meta) {
    json_t *m = json_object();
    for (size_t i = 0; i < n_meta; i++) json_object_set_new(m, meta[i].key, json_string(meta[i].value));
    json_object_set_new(root, "__metadata__", m);
  }
  size_t offset = 0;
  for (size_t i = 0; i < n; i++) {
    json_t *shape = json_array();
    for (int d = 0; d < tensors[i].ndim; d++) json_array_append_new(shape, json_integer(tensors[i].shape[d]));
    size_t bytes = tt_tensor_nbytes(&tensors[i]);
    json_t *info = json_pack("{s:s, s:o, s:[I, I]}", "dtype", tt_dtype_name(tensors[i].dtype), "shape", shape,
                             "data_offsets", (json_int_t)offset, (json_int_t)(offset + bytes));
    json_object_set_new(root, tensors[i].name, info);
    offset += bytes;
  }
  char *s = json_dumps(root, JSON_PRESERVE_ORDER | JSON_COMPACT | JSON_ENSURE_ASCII);
  json_decref(root);
  return s;
}

tt_status tt_st_write(const char *path, const tt_tensor *tensors, size_t n, const tt_st_meta *meta, size_t n_meta,
                      tt_error *err) {
  return tt_st_write_filled(path, tensors, n, meta, n_meta, NULL, NULL, err);
}

// Writes tensors[i]'s bytes: from its data, or (data NULL) made by fill into buf.
static bool write_data(FILE *fp, const tt_tensor *t, size_t i, tt_st_fill_fn fill, void *ctx, void *buf) {
  size_t bytes = tt_tensor_nbytes(t);
  if (bytes == 0) return true;
  if (t->data) return fwrite(t->data, 1, bytes, fp) == bytes;
  fill(ctx, i, buf);
  return fwrite(buf, 1, bytes, fp) == bytes;
}

tt_status tt_st_write_filled(const char *path, const tt_tensor *tensors, size_t n, const tt_st_meta *meta,
                             size_t n_meta, tt_st_fill_fn fill, void *ctx, tt_error *err) {
  size_t fill_bytes = 0;  // the largest tensor fill makes: one buffer serves them all
  for (size_t i = 0; i < n; i++)
    if (!tensors[i].data && tt_tensor_nbytes(&tensors[i]) > fill_bytes) fill_bytes = tt_tensor_nbytes(&tensors[i]);
  if (fill_bytes && !fill) return tt_fail(err, TT_ERR_ARG, "cannot write %s: a tensor has no data", path);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < i; j++)
      if (strcmp(tensors[i].name, tensors[j].name) == 0)
        return tt_fail(err, TT_ERR_ARG, "cannot write %s: tensor name '%s' appears twice", path, tensors[i].name);
  char *json = header_json(tensors, n, meta, n_meta);
  void *buf = fill_bytes ? malloc(fill_bytes) : NULL;
  if (!json || (fill_bytes && !buf)) {
    free(json);
    free(buf);
    return tt_fail(err, TT_ERR_NOMEM, "out of memory writing %s", path);
  }
  size_t len = strlen(json), padded = (len + 8 + 7) / 8 * 8 - 8;  // data starts 8-byte aligned
  tt_atomic_file af;
  tt_status st = tt_atomic_open(&af, path, err);
  if (st) {
    free(json);
    free(buf);
    return st;
  }
  unsigned char lenbytes[8];
  for (int i = 0; i < 8; i++) lenbytes[i] = (unsigned char)(((uint64_t)padded >> (8 * i)) & 0xff);
  bool ok = fwrite(lenbytes, 1, 8, af.fp) == 8 && fwrite(json, 1, len, af.fp) == len;
  for (size_t i = len; ok && i < padded; i++) ok = fputc(' ', af.fp) != EOF;
  free(json);
  for (size_t i = 0; ok && i < n; i++) ok = write_data(af.fp, &tensors[i], i, fill, ctx, buf);
  free(buf);
  if (!ok) {
    tt_atomic_abort(&af);
    return tt_fail(err, TT_ERR_IO, "cannot write %s: write failed (disk full?)", path);
  }
  return tt_atomic_commit(&af, err);
}
