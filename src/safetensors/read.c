// read: open a safetensors file by memory-mapping it, and check every header entry
// before anything points into the data.
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "safetensors.h"

#define MAX_HEADER_BYTES (100u << 20)

typedef struct {
  const char *key, *value;
} meta_entry;

struct tt_st_file {
  void *map;
  size_t map_len;
  size_t head;     // bytes before the data: the length and the header's JSON
  json_t *header;  // owns the name and metadata strings
  tt_tensor *tensors;
  size_t n;
  meta_entry *meta;
  size_t n_meta;
};

static int by_offset(const void *a, const void *b) {
  const tt_tensor *x = a, *y = b;
  uintptr_t px = (uintptr_t)x->data, py = (uintptr_t)y->data;
  return px < py ? -1 : px > py;
}

static tt_status parse_metadata(tt_st_file *f, json_t *obj, const char *path, tt_error *err) {
  if (!json_is_object(obj)) return tt_fail(err, TT_ERR_FORMAT, "%s: __metadata__ is not an object", path);
  f->meta = calloc(json_object_size(obj) + 1, sizeof *f->meta);
  if (!f->meta) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  const char *key;
  json_t *val;
  json_object_foreach(obj, key, val) {
    if (!json_is_string(val))
      return tt_fail(err, TT_ERR_FORMAT, "%s: metadata value for '%s' is not a string", path, key);
    f->meta[f->n_meta++] = (meta_entry){key, json_string_value(val)};
  }
  return TT_OK;
}

// The shape as the header wrote it, "[4294967296, 4294967296]", into buf.
static const char *shape_text(json_t *shape, char *buf, size_t len) {
  size_t used = (size_t)snprintf(buf, len, "[");
  for (size_t i = 0; i < json_array_size(shape) && used < len; i++)
    used += (size_t)snprintf(buf + used, len - used, "%s%lld", i ? ", " : "",
                             (long long)json_integer_value(json_array_get(shape, i)));
  if (used < len) snprintf(buf + used, len - used, "]");
  return buf;
}

static tt_status parse_tensor(tt_tensor *t, const char *name, json_t *info, const unsigned char *data, size_t data_len,
                              const char *path, tt_error *err) {
  json_t *dtype = json_object_get(info, "dtype"), *shape = json_object_get(info, "shape");
  json_t *offs = json_object_get(info, "data_offsets");
  if (!json_is_string(dtype) || !json_is_array(shape) || !json_is_array(offs) || json_array_size(offs) != 2)
    return tt_fail(err, TT_ERR_FORMAT, "%s: tensor '%s' needs dtype, shape and data_offsets", path, name);
  t->name = name;
  char buf[128];
  if (!tt_dtype_parse(json_string_value(dtype), &t->dtype))
    return tt_fail(err, TT_ERR_UNSUPPORTED, "%s: tensor '%s' has unsupported dtype %s", path, name,
                   json_string_value(dtype));
  if (json_array_size(shape) > TT_MAX_DIMS)
    return tt_fail(err, TT_ERR_UNSUPPORTED, "%s: tensor '%s' has %zu dimensions (at most %d)", path, name,
                   json_array_size(shape), TT_MAX_DIMS);
  json_t *b = json_array_get(offs, 0), *e = json_array_get(offs, 1);
  if (!json_is_integer(b) || !json_is_integer(e) || json_integer_value(b) < 0 ||
      json_integer_value(e) < json_integer_value(b))
    return tt_fail(err, TT_ERR_FORMAT, "%s: tensor '%s' has bad data_offsets", path, name);
  uint64_t begin = (uint64_t)json_integer_value(b), end = (uint64_t)json_integer_value(e);
  if (end > data_len)
    return tt_fail(err, TT_ERR_FORMAT,
                   "%s: tensor '%s' data [%llu, %llu) lies past the end of the file's %zu data bytes (truncated?)",
                   path, name, (unsigned long long)begin, (unsigned long long)end, data_len);
  t->ndim = (int)json_array_size(shape);
  // Each product checked: [2^32, 2^32] must not wrap to 0. The nonzero dimensions' product
  // stays below 2^40 even for an empty tensor, so no product of dimensions overflows later.
  uint64_t numel = 1, nonzero = 1, nbytes;
  for (int i = 0; i < t->ndim; i++) {
    json_t *d = json_array_get(shape, (size_t)i);
    if (!json_is_integer(d) || json_integer_value(d) < 0)
      return tt_fail(err, TT_ERR_FORMAT, "%s: tensor '%s' has a bad shape", path, name);
    t->shape[i] = json_integer_value(d);
    uint64_t dim = (uint64_t)t->shape[i];
    if (__builtin_mul_overflow(numel, dim, &numel) || numel > end - begin ||
        __builtin_mul_overflow(nonzero, dim ? dim : 1, &nonzero) || nonzero > (1ull << 40))
      return tt_fail(err, TT_ERR_FORMAT, "%s: tensor '%s' of shape %s is larger than its %llu data bytes", path, name,
                     shape_text(shape, buf, sizeof buf), (unsigned long long)(end - begin));
  }
  if (__builtin_mul_overflow(numel, (uint64_t)tt_dtype_size(t->dtype), &nbytes))
    return tt_fail(err, TT_ERR_FORMAT, "%s: tensor '%s' of shape %s is larger than its %llu data bytes", path, name,
                   shape_text(shape, buf, sizeof buf), (unsigned long long)(end - begin));
  if (end - begin != nbytes)
    return tt_fail(err, TT_ERR_FORMAT, "%s: tensor '%s' has %llu data bytes but its dtype and shape need %llu", path,
                   name, (unsigned long long)(end - begin), (unsigned long long)nbytes);
  t->data = (void *)(data + begin);
  return TT_OK;
}

// A Git LFS pointer (a clone without `git lfs pull`): "version https://git-lfs.github.com/spec/v1",
// "oid sha256:...", "size N", about 130 bytes of text in place of the file.
static bool is_lfs_pointer(const unsigned char *bytes, size_t len) {
  static const char magic[] = "version https://git-lfs.github.com/spec/";
  return len < 1024 && len >= sizeof magic - 1 && memcmp(bytes, magic, sizeof magic - 1) == 0;
}

static tt_status parse_header(tt_st_file *f, const char *path, tt_error *err) {
  const unsigned char *bytes = f->map;
  if (is_lfs_pointer(bytes, f->map_len))
    return tt_fail(err, TT_ERR_FORMAT, "%s: this is a Git LFS pointer, not the file itself; run `git lfs pull`", path);
  if (f->map_len < 8) return tt_fail(err, TT_ERR_FORMAT, "%s: too short to be a safetensors file", path);
  uint64_t hlen = 0;
  for (int i = 7; i >= 0; i--) hlen = (hlen << 8) | bytes[i];
  if (hlen > MAX_HEADER_BYTES || hlen > f->map_len - 8)
    return tt_fail(err, TT_ERR_FORMAT, "%s: header length %llu runs past the end of the file (%zu bytes)", path,
                   (unsigned long long)hlen, f->map_len);
  json_error_t jerr;
  // A name twice (a tensor or __metadata__) is an error, as in the format's own library.
  f->header = json_loadb((const char *)bytes + 8, (size_t)hlen, JSON_REJECT_DUPLICATES, &jerr);
  if (!f->header) return tt_fail(err, TT_ERR_FORMAT, "%s: header is not valid JSON: %s", path, jerr.text);
  if (!json_is_object(f->header)) return tt_fail(err, TT_ERR_FORMAT, "%s: header is not a JSON object", path);
  f->head = 8 + (size_t)hlen;
  const unsigned char *data = bytes + f->head;
  size_t data_len = f->map_len - 8 - (size_t)hlen;
  f->tensors = calloc(json_object_size(f->header) + 1, sizeof *f->tensors);
  if (!f->tensors) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  const char *key;
  json_t *val;
  json_object_foreach(f->header, key, val) {
    tt_status st =
        strcmp(key, "__metadata__") == 0
            ? parse_metadata(f, val, path, err)
            : (json_is_object(val) ? parse_tensor(&f->tensors[f->n++], key, val, data, data_len, path, err)
                                   : tt_fail(err, TT_ERR_FORMAT, "%s: entry '%s' is not an object", path, key));
    if (st) return st;
  }
  qsort(f->tensors, f->n, sizeof *f->tensors, by_offset);
  for (size_t i = 1; i < f->n; i++) {
    const unsigned char *prev_end =
        (const unsigned char *)f->tensors[i - 1].data + tt_tensor_nbytes(&f->tensors[i - 1]);
    if ((const unsigned char *)f->tensors[i].data < prev_end)
      return tt_fail(err, TT_ERR_FORMAT, "%s: tensors '%s' and '%s' overlap", path, f->tensors[i - 1].name,
                     f->tensors[i].name);
  }
  return TT_OK;
}

tt_status tt_st_open(const char *path, tt_st_file **out, tt_error *err) {
  *out = NULL;
  int fd;
  size_t size;
  tt_status os = tt_open_regular(path, &fd, &size, err);
  if (os) return os;
  tt_st_file *f = calloc(1, sizeof *f);
  if (!f) {
    close(fd);
    return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  }
  f->map_len = size;
  if (f->map_len > 0) {
    f->map = mmap(NULL, f->map_len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (f->map == MAP_FAILED) {
      f->map = NULL;
      close(fd);
      tt_st_close(f);
      return tt_fail(err, TT_ERR_IO, "cannot map %s: %s", path, strerror(errno));
    }
  }
  close(fd);
  tt_status s = parse_header(f, path, err);
  if (s) {
    tt_st_close(f);
    return s;
  }
  *out = f;
  return TT_OK;
}

size_t tt_st_count(const tt_st_file *f) {
  return f->n;
}
const tt_tensor *tt_st_get(const tt_st_file *f, size_t i) {
  return i < f->n ? &f->tensors[i] : NULL;
}

const tt_tensor *tt_st_find(const tt_st_file *f, const char *name) {
  for (size_t i = 0; i < f->n; i++)
    if (strcmp(f->tensors[i].name, name) == 0) return &f->tensors[i];
  return NULL;
}

const char *tt_st_metadata(const tt_st_file *f, const char *key) {
  for (size_t i = 0; i < f->n_meta; i++)
    if (strcmp(f->meta[i].key, key) == 0) return f->meta[i].value;
  return NULL;
}

size_t tt_st_metadata_count(const tt_st_file *f) {
  return f->n_meta;
}

void tt_st_metadata_at(const tt_st_file *f, size_t i, const char **key, const char **value) {
  *key = f->meta[i].key;
  *value = f->meta[i].value;
}

void tt_st_close(tt_st_file *f) {
  if (!f) return;
  if (f->map) munmap(f->map, f->map_len);
  if (f->header) json_decref(f->header);
  free(f->tensors);
  free(f->meta);
  free(f);
}

static void hex_of(XXH64_hash_t h, char hex[17]) {
  snprintf(hex, 17, "%016llx", (unsigned long long)h);
}

// XXH3-64 of the whole file at path (read in 1 MiB pieces).
static tt_status whole_file_hash(const char *path, char hex[17], tt_error *err) {
  int fd;
  size_t size;
  tt_status st = tt_open_regular(path, &fd, &size, err);
  if (st) return st;
  XXH3_state_t *hash = XXH3_createState();
  unsigned char *buf = malloc(1u << 20);
  if (!hash || !buf) st = tt_fail(err, TT_ERR_NOMEM, "out of memory");
  if (!st) XXH3_64bits_reset(hash);
  ssize_t got = 0;
  while (!st && (got = read(fd, buf, 1u << 20)) > 0) XXH3_64bits_update(hash, buf, (size_t)got);
  if (!st && got < 0) st = tt_fail(err, TT_ERR_IO, "cannot read %s: %s", path, strerror(errno));
  if (!st) hex_of(XXH3_64bits_digest(hash), hex);
  XXH3_freeState(hash);
  free(buf);
  close(fd);
  return st;
}

tt_status tt_st_identity(const char *path, bool verify, char hex[17], tt_error *err) {
  tt_st_file *f;
  tt_error not_safetensors = {0};
  if (tt_st_open(path, &f, &not_safetensors) != TT_OK) return whole_file_hash(path, hex, err);
  const char *data_hash = tt_st_metadata(f, TT_ST_DATA_HASH_KEY);
  tt_status st = TT_OK;
  if (data_hash && verify) {
    char got[17];
    hex_of(XXH3_64bits((const unsigned char *)f->map + f->head, f->map_len - f->head), got);
    if (strcmp(got, data_hash) != 0)
      st = tt_fail(err, TT_ERR_FORMAT, "%s: its data does not match the hash in its header (XXH3-64 %s, %s expected)",
                   path, got, data_hash);
  }
  if (!st) hex_of(XXH3_64bits(f->map, data_hash ? f->head : f->map_len), hex);  // without the key: every byte
  tt_st_close(f);
  return st;
}
