// write: a safetensors file, tensors back to back after a header padded to 8 bytes,
// through a temporary file that is renamed into place only when complete (the data by a
// second thread: writer_thread.h). The header's
// metadata holds data_xxh3, the XXH3-64 of every byte after the header: hashed as the
// data is written, then put in the place kept for it in the header before the rename.
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "safetensors.h"
#include "writer_thread.h"

// The data hash's value, and its place in the header, until the data is written.
#define HASH_UNSET "0000000000000000"
static const char HASH_PLACE[] = "\"" TT_ST_DATA_HASH_KEY "\":\"" HASH_UNSET "\"";

// The header's JSON; *hash_at: where the data hash's 16 digits go in it.
static char *header_json(const tt_tensor *tensors, size_t n, const tt_st_meta *meta, size_t n_meta, size_t *hash_at) {
  json_t *root = json_object();
  json_t *m = json_object();
  json_object_set_new(m, TT_ST_DATA_HASH_KEY, json_string(HASH_UNSET));
  for (size_t i = 0; i < n_meta; i++)  // the writer owns the data hash: a caller's old one is dropped
    if (strcmp(meta[i].key, TT_ST_DATA_HASH_KEY) != 0) json_object_set_new(m, meta[i].key, json_string(meta[i].value));
  json_object_set_new(root, "__metadata__", m);
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
  const char *place = s ? strstr(s, HASH_PLACE) : NULL;  // the metadata comes first: the first match
  *hash_at = place ? (size_t)(place - s) + strlen(HASH_PLACE) - strlen(HASH_UNSET) - 1 : 0;  // before its closing quote
  return s;
}

tt_status tt_st_write(const char *path, const tt_tensor *tensors, size_t n, const tt_st_meta *meta, size_t n_meta,
                      tt_error *err) {
  return tt_st_write_filled(path, tensors, n, meta, n_meta, NULL, NULL, err);
}

// Writes tensors[i]'s bytes, and hashes them: from its data, or (data NULL) made by fill
// into buf (false, *unmade set, when fill could not).
static bool write_data(FILE *fp, XXH3_state_t *hash, const tt_tensor *t, size_t i, tt_st_fill_fn fill, void *ctx,
                       void *buf, bool *unmade) {
  size_t bytes = tt_tensor_nbytes(t);
  if (bytes == 0) return true;
  const void *from = t->data;
  if (!from) {
    *unmade = !fill(ctx, i, buf);
    if (*unmade) return false;
    from = buf;
  }
  XXH3_64bits_update(hash, from, bytes);
  return fwrite(from, 1, bytes, fp) == bytes;
}

// Every tensor's bytes in order, hashed: written by the writer thread while this one hashes
// and makes the next (two buffers for the tensors fill makes, each filled again once the
// writer has written it), or here in turn when no thread can be had. *unmade: a tensor fill
// could not make stopped it.
static bool write_all(FILE *fp, XXH3_state_t *hash, const tt_tensor *tensors, size_t n, tt_st_fill_fn fill, void *ctx,
                      void *buf[2], bool *unmade) {
  tt_st_writer *w = tt_st_writer_start(fp);
  bool ok = true;
  if (!w) {
    for (size_t i = 0; ok && i < n; i++) ok = write_data(fp, hash, &tensors[i], i, fill, ctx, buf[0], unmade);
    return ok;
  }
  uint64_t last_use[2] = {UINT64_MAX, UINT64_MAX};  // the chunk that last wrote each buffer
  int next = 0;
  for (size_t i = 0; i < n; i++) {
    size_t bytes = tt_tensor_nbytes(&tensors[i]);
    if (bytes == 0) continue;
    const void *from = tensors[i].data;
    if (!from) {
      if (last_use[next] != UINT64_MAX) tt_st_writer_wait(w, last_use[next]);
      if ((*unmade = !fill(ctx, i, buf[next]))) break;
      from = buf[next];
    }
    XXH3_64bits_update(hash, from, bytes);
    uint64_t seq = tt_st_writer_put(w, from, bytes);
    if (!tensors[i].data) last_use[next] = seq, next ^= 1;
  }
  return tt_st_writer_finish(w) && !*unmade;
}

// The data's hash into its place in the header (`at` bytes into the file).
static bool put_hash(FILE *fp, long at, XXH3_state_t *hash) {
  char hex[17];
  snprintf(hex, sizeof hex, "%016llx", (unsigned long long)XXH3_64bits_digest(hash));
  return fflush(fp) == 0 && fseek(fp, at, SEEK_SET) == 0 && fwrite(hex, 1, 16, fp) == 16;
}

tt_status tt_st_write_filled(const char *path, const tt_tensor *tensors, size_t n, const tt_st_meta *meta,
                             size_t n_meta, tt_st_fill_fn fill, void *ctx, tt_error *err) {
  size_t fill_bytes = 0;  // the largest tensor fill makes: two buffers serve them all
  for (size_t i = 0; i < n; i++)
    if (!tensors[i].data && tt_tensor_nbytes(&tensors[i]) > fill_bytes) fill_bytes = tt_tensor_nbytes(&tensors[i]);
  if (fill_bytes && !fill) return tt_fail(err, TT_ERR_ARG, "cannot write %s: a tensor has no data", path);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < i; j++)
      if (strcmp(tensors[i].name, tensors[j].name) == 0)
        return tt_fail(err, TT_ERR_ARG, "cannot write %s: tensor name '%s' appears twice", path, tensors[i].name);
  for (size_t i = 0; i < n_meta; i++)  // JSON holds only UTF-8: such a value would be lost
    if (!tt_utf8_valid(meta[i].value, strlen(meta[i].value), NULL))
      return tt_fail(err, TT_ERR_ARG, "cannot write %s: metadata '%s' is not valid UTF-8", path, meta[i].key);
  size_t hash_at;
  char *json = header_json(tensors, n, meta, n_meta, &hash_at);
  void *buf[2] = {fill_bytes ? malloc(fill_bytes) : NULL, fill_bytes ? malloc(fill_bytes) : NULL};
  XXH3_state_t *hash = XXH3_createState();
  if (!json || (fill_bytes && (!buf[0] || !buf[1])) || !hash) {
    free(json);
    free(buf[0]), free(buf[1]);
    XXH3_freeState(hash);
    return tt_fail(err, TT_ERR_NOMEM, "out of memory writing %s", path);
  }
  size_t len = strlen(json), padded = (len + 8 + 7) / 8 * 8 - 8;  // data starts 8-byte aligned
  tt_atomic_file af;
  tt_status st = tt_atomic_open(&af, path, err);
  if (st) {
    free(json);
    free(buf[0]), free(buf[1]);
    XXH3_freeState(hash);
    return st;
  }
  unsigned char lenbytes[8];
  for (int i = 0; i < 8; i++) lenbytes[i] = (unsigned char)(((uint64_t)padded >> (8 * i)) & 0xff);
  bool ok = fwrite(lenbytes, 1, 8, af.fp) == 8 && fwrite(json, 1, len, af.fp) == len;
  for (size_t i = len; ok && i < padded; i++) ok = fputc(' ', af.fp) != EOF;
  free(json);
  XXH3_64bits_reset(hash);
  bool unmade = false;  // fill could not make a tensor's bytes
  ok = ok && write_all(af.fp, hash, tensors, n, fill, ctx, buf, &unmade);
  ok = ok && put_hash(af.fp, 8 + (long)hash_at, hash);
  free(buf[0]), free(buf[1]);
  XXH3_freeState(hash);
  if (!ok) {
    tt_atomic_abort(&af);
    if (unmade) return tt_fail(err, TT_ERR_NOMEM, "cannot write %s: out of memory making a tensor's bytes", path);
    return tt_fail(err, TT_ERR_IO, "cannot write %s: write failed (disk full?)", path);
  }
  return tt_atomic_commit(&af, err);
}
