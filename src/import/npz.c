// npz: NumPy's .npz archives (see npz.h). Entries are found through the zip's central
// directory; each .npy's header gives dtype, order and shape.
#include "npz.h"

#include <stdlib.h>
#include <string.h>

struct tt_npz {
  char *bytes;  // the whole file
  size_t len;
  tt_tensor *t;
  char **names;
  size_t n;
};

static uint64_t le(const unsigned char *p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

// Sizes and offset the central directory leaves as 0xFFFFFFFF live in its zip64 extra field.
static void zip64_sizes(const unsigned char *extra, size_t elen, uint64_t *usize, uint64_t *csize, uint64_t *off) {
  for (size_t i = 0; i + 4 <= elen;) {
    size_t id = (size_t)le(extra + i, 2), sz = (size_t)le(extra + i + 2, 2);
    const unsigned char *f = extra + i + 4, *end = extra + (i + 4 + sz <= elen ? i + 4 + sz : elen);
    if (id == 1) {
      uint64_t *fields[3] = {usize, csize, off};
      for (int k = 0; k < 3; k++)
        if (*fields[k] == 0xFFFFFFFFu && f + 8 <= end) *fields[k] = le(f, 8), f += 8;
      return;
    }
    i += 4 + sz;
  }
}

static bool dtype_of(const char *descr, tt_dtype *d) {
  static const struct {
    const char *np;
    tt_dtype dt;
  } map[] = {{"<f4", TT_F32}, {"<f2", TT_F16}, {"<f8", TT_F64}, {"<i4", TT_I32},
             {"<i8", TT_I64}, {"|u1", TT_U8},  {"|b1", TT_BOOL}};
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (strncmp(descr, map[i].np, 3) == 0 && (descr[3] == '\'' || descr[3] == '"')) return *d = map[i].dt, true;
  return false;
}

// One .npy (bytes, len) → t; the header is a Python dict literal.
static tt_status parse_npy(const unsigned char *p, uint64_t len, tt_tensor *t, const char *path, tt_error *err) {
  if (len < 10 || memcmp(p, "\x93NUMPY", 6) != 0)
    return tt_fail(err, TT_ERR_FORMAT, "%s: entry '%s' is not a .npy file", path, t->name);
  int wide = p[6] >= 2;
  uint64_t hlen = le(p + 8, wide ? 4 : 2), start = (wide ? 12 : 10) + hlen;
  if (start > len) return tt_fail(err, TT_ERR_FORMAT, "%s: entry '%s' is cut short", path, t->name);
  char head[1024];
  snprintf(head, sizeof head, "%.*s", (int)(hlen < sizeof head - 1 ? hlen : sizeof head - 1),
           (const char *)p + (wide ? 12 : 10));
  const char *descr = strstr(head, "'descr': "), *order = strstr(head, "'fortran_order': "),
             *shape = strstr(head, "'shape': (");
  if (!descr || !order || !shape)
    return tt_fail(err, TT_ERR_FORMAT, "%s: entry '%s' has a malformed .npy header", path, t->name);
  if (!dtype_of(descr + 10, &t->dtype))
    return tt_fail(err, TT_ERR_UNSUPPORTED,
                   "%s: entry '%s' has dtype %.6s (float32, float16, float64, int32, int64, uint8 or bool expected)",
                   path, t->name, descr + 9);
  if (strncmp(order + 17, "False", 5) != 0)
    return tt_fail(err, TT_ERR_UNSUPPORTED, "%s: entry '%s' is in Fortran order", path, t->name);
  const char *s = shape + 10;
  uint64_t numel = 1;
  for (t->ndim = 0; *s != ')';) {
    char *end;
    long long d = strtoll(s, &end, 10);
    if (end == s || d < 0 || t->ndim == TT_MAX_DIMS)
      return tt_fail(err, TT_ERR_FORMAT, "%s: entry '%s' has a bad shape", path, t->name);
    t->shape[t->ndim++] = d;
    numel *= (uint64_t)d;
    for (s = end; *s == ',' || *s == ' ';) s++;
  }
  if (numel * tt_dtype_size(t->dtype) != len - start)
    return tt_fail(err, TT_ERR_FORMAT, "%s: entry '%s' holds %llu data bytes, its shape needs %llu", path, t->name,
                   (unsigned long long)(len - start), (unsigned long long)(numel * tt_dtype_size(t->dtype)));
  t->data = (void *)(p + start);
  return TT_OK;
}

// Central directory entry at *pos → the tensor it holds; *pos moves to the next entry.
static tt_status read_entry(tt_npz *z, size_t *pos, const char *path, tt_error *err) {
  const unsigned char *b = (const unsigned char *)z->bytes, *e = b + *pos;
  if (*pos + 46 > z->len || le(e, 4) != 0x02014b50)
    return tt_fail(err, TT_ERR_FORMAT, "%s: bad zip central directory", path);
  uint64_t method = le(e + 10, 2), csize = le(e + 20, 4), usize = le(e + 24, 4), off = le(e + 42, 4);
  size_t nlen = (size_t)le(e + 28, 2), elen = (size_t)le(e + 30, 2), clen = (size_t)le(e + 32, 2);
  if (*pos + 46 + nlen + elen > z->len) return tt_fail(err, TT_ERR_FORMAT, "%s: bad zip central directory", path);
  zip64_sizes(e + 46 + nlen, elen, &usize, &csize, &off);
  *pos += 46 + nlen + elen + clen;
  char *name = strndup((const char *)e + 46, nlen);
  if (!name) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  z->names[z->n] = name;
  if (nlen > 4 && strcmp(name + nlen - 4, ".npy") == 0) name[nlen - 4] = 0;
  tt_tensor *t = &z->t[z->n++];
  t->name = name;
  if (method != 0)
    return tt_fail(err, TT_ERR_UNSUPPORTED, "%s: entry '%s' is compressed (np.savez_compressed); save with np.savez",
                   path, name);
  if (off + 30 > z->len || le(b + off, 4) != 0x04034b50)
    return tt_fail(err, TT_ERR_FORMAT, "%s: bad zip entry '%s'", path, name);
  uint64_t data = off + 30 + le(b + off + 26, 2) + le(b + off + 28, 2);
  if (data + usize > z->len || csize != usize)
    return tt_fail(err, TT_ERR_FORMAT, "%s: entry '%s' runs past the file", path, name);
  return parse_npy(b + data, usize, t, path, err);
}

static tt_status parse_zip(tt_npz *z, const char *path, tt_error *err) {
  const unsigned char *b = (const unsigned char *)z->bytes;
  size_t eocd = z->len >= 22 ? z->len - 22 : 0;
  while (eocd > 0 && le(b + eocd, 4) != 0x06054b50 && z->len - eocd < 65558) eocd--;
  if (z->len < 22 || le(b + eocd, 4) != 0x06054b50)
    return tt_fail(err, TT_ERR_FORMAT, "%s: not a .npz (zip) file", path);
  uint64_t count = le(b + eocd + 10, 2), cd = le(b + eocd + 16, 4);
  if ((count == 0xFFFF || cd == 0xFFFFFFFFu) && eocd >= 20 && le(b + eocd - 20, 4) == 0x07064b50) {
    uint64_t rec = le(b + eocd - 12, 8);
    if (rec + 56 > z->len || le(b + rec, 4) != 0x06064b50)
      return tt_fail(err, TT_ERR_FORMAT, "%s: bad zip64 record", path);
    count = le(b + rec + 32, 8), cd = le(b + rec + 48, 8);
  }
  if (count > z->len / 46) return tt_fail(err, TT_ERR_FORMAT, "%s: bad zip central directory", path);
  if (!(z->t = calloc(count + 1, sizeof *z->t)) || !(z->names = calloc(count + 1, sizeof *z->names)))
    return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  size_t pos = (size_t)cd;
  tt_status st = TT_OK;
  for (uint64_t i = 0; i < count && !st; i++) st = read_entry(z, &pos, path, err);
  return st;
}

tt_status tt_npz_open(const char *path, tt_npz **out, tt_error *err) {
  *out = NULL;
  tt_npz *z = calloc(1, sizeof *z);
  if (!z) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  tt_status st = tt_read_file(path, &z->bytes, &z->len, err);
  if (!st) st = parse_zip(z, path, err);
  if (st) {
    tt_npz_close(z);
    return st;
  }
  *out = z;
  return TT_OK;
}

size_t tt_npz_count(const tt_npz *z) {
  return z->n;
}
const tt_tensor *tt_npz_get(const tt_npz *z, size_t i) {
  return i < z->n ? &z->t[i] : NULL;
}

void tt_npz_close(tt_npz *z) {
  if (!z) return;
  for (size_t i = 0; i < z->n; i++) free(z->names[i]);
  free(z->names);
  free(z->t);
  free(z->bytes);
  free(z);
}
