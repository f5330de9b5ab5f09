// safetensors: read (memory-mapped, fully validated) and write (atomic) safetensors files.
// Format: u64 little-endian header length N, N bytes of JSON
//   {"name": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, ...,
//    "__metadata__": {"key": "string value", ...}}
// then the data; offsets are relative to the end of the header.
#ifndef TT_SAFETENSORS_H
#define TT_SAFETENSORS_H

#include "core/core.h"

typedef struct tt_st_file tt_st_file;

// Opens and checks the whole header: length within the file, valid JSON, known dtypes,
// offsets inside the data and matching dtype × shape, tensors not overlapping.
// Tensors are listed in data-offset order; their data points into the mapping.
tt_status tt_st_open(const char *path, tt_st_file **out, tt_error *err);
size_t tt_st_count(const tt_st_file *f);
const tt_tensor *tt_st_get(const tt_st_file *f, size_t i);
const tt_tensor *tt_st_find(const tt_st_file *f, const char *name);  // NULL when absent
const char *tt_st_metadata(const tt_st_file *f, const char *key);    // NULL when absent
size_t tt_st_metadata_count(const tt_st_file *f);
void tt_st_metadata_at(const tt_st_file *f, size_t i, const char **key, const char **value);
void tt_st_close(tt_st_file *f);

// The metadata key every written file carries: the XXH3-64 of every byte after the header,
// 16 lowercase hex digits.
#define TT_ST_DATA_HASH_KEY "data_xxh3"
// A file's identity, 16 hex digits into hex: the XXH3-64 of its header (the length and the
// JSON, which hold the data's hash) when it carries TT_ST_DATA_HASH_KEY, so that only the
// header is read; else of the whole file (a file another program wrote, or no safetensors
// file at all). With verify, the data is read too and must match the header's hash
// (TT_ERR_FORMAT when it does not: the file has changed).
tt_status tt_st_identity(const char *path, bool verify, char hex[17], tt_error *err);

typedef struct {
  const char *key, *value;
} tt_st_meta;

// Writes tensors in the given order (data 8-byte aligned) plus string metadata and the
// data's hash (TT_ST_DATA_HASH_KEY, which the writer owns); atomic.
tt_status tt_st_write(const char *path, const tt_tensor *tensors, size_t n, const tt_st_meta *meta, size_t n_meta,
                      tt_error *err);
// The same, where a tensor whose data is NULL has its bytes made on the way out:
// fill(ctx, i, dst) writes tensors[i]'s tt_tensor_nbytes into dst (one buffer, reused), or
// returns false when it cannot (out of memory): the write then fails with TT_ERR_NOMEM and
// leaves no file.
typedef bool (*tt_st_fill_fn)(void *ctx, size_t i, void *dst);
tt_status tt_st_write_filled(const char *path, const tt_tensor *tensors, size_t n, const tt_st_meta *meta,
                             size_t n_meta, tt_st_fill_fn fill, void *ctx, tt_error *err);

#endif
