// checkpoint: a model folder's safetensors, single-file or sharded (see checkpoint.h).
#include "checkpoint.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "safetensors/safetensors.h"

struct tt_checkpoint {
  char path[4096];      // model.safetensors, or the index
  tt_st_file **shards;  // n_shards, each mapped
  char **shard_names;   // file names as the index writes them
  size_t n_shards;
};

static bool exists(const char *path) {
  struct stat s;
  return stat(path, &s) == 0;
}

// Index of name among the shards opened so far, or n_shards.
static size_t shard_index(const tt_checkpoint *c, const char *name) {
  size_t i = 0;
  while (i < c->n_shards && strcmp(c->shard_names[i], name) != 0) i++;
  return i;
}

static tt_status open_shard(tt_checkpoint *c, const char *dir, const char *name, tt_error *err) {
  if (!*name || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
    return tt_fail(err, TT_ERR_FORMAT, "%s: shard name '%s' is not a file name in the model folder", c->path, name);
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (!exists(path)) return tt_fail(err, TT_ERR_IO, "%s: shard %s is missing (%s)", c->path, name, path);
  size_t i = c->n_shards;
  if (!(c->shard_names[i] = strdup(name))) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  c->n_shards++;
  return tt_st_open(path, &c->shards[i], err);
}

// Every tensor of every shard must be where the index puts it, and only there.
static tt_status check_shards(const tt_checkpoint *c, json_t *map, tt_error *err) {
  for (size_t s = 0; s < c->n_shards; s++) {
    for (size_t i = 0; i < tt_st_count(c->shards[s]); i++) {
      const char *name = tt_st_get(c->shards[s], i)->name;
      const char *listed = json_string_value(json_object_get(map, name));
      if (!listed)
        return tt_fail(err, TT_ERR_FORMAT, "%s: tensor '%s' in shard %s is not in the index's weight_map", c->path,
                       name, c->shard_names[s]);
      if (strcmp(listed, c->shard_names[s]) != 0)
        return tt_fail(err, TT_ERR_FORMAT, "%s: tensor '%s' is in shard %s but the index puts it in %s", c->path, name,
                       c->shard_names[s], listed);
    }
  }
  const char *name;
  json_t *val;
  json_object_foreach(map, name, val) {
    size_t s = shard_index(c, json_string_value(val));
    if (!tt_st_find(c->shards[s], name))
      return tt_fail(err, TT_ERR_FORMAT, "%s: tensor '%s' is listed in shard %s, which does not hold it", c->path, name,
                     json_string_value(val));
  }
  return TT_OK;
}

static tt_status open_sharded(tt_checkpoint *c, const char *dir, tt_error *err) {
  char *text = NULL;
  tt_status st = tt_read_file(c->path, &text, NULL, err);
  if (st) return st;
  json_error_t jerr;
  json_t *index = json_loads(text, 0, &jerr);
  free(text);
  if (!index) return tt_fail(err, TT_ERR_FORMAT, "%s: not valid JSON: %s (line %d)", c->path, jerr.text, jerr.line);
  json_t *map = json_object_get(index, "weight_map");
  if (!json_is_object(map) || json_object_size(map) == 0)
    st = tt_fail(err, TT_ERR_FORMAT, "%s: no \"weight_map\" object naming each tensor's shard", c->path);
  size_t n = st ? 0 : json_object_size(map);
  if (!st && (!(c->shards = calloc(n, sizeof *c->shards)) || !(c->shard_names = calloc(n, sizeof *c->shard_names))))
    st = tt_fail(err, TT_ERR_NOMEM, "out of memory");
  const char *name;
  json_t *val;
  json_object_foreach(map, name, val) {
    if (st) break;
    if (!json_is_string(val))
      st = tt_fail(err, TT_ERR_FORMAT, "%s: weight_map entry '%s' is not a file name", c->path, name);
    else if (shard_index(c, json_string_value(val)) == c->n_shards)
      st = open_shard(c, dir, json_string_value(val), err);
  }
  if (!st) st = check_shards(c, map, err);
  json_decref(index);
  return st;
}

static tt_status open_single(tt_checkpoint *c, tt_error *err) {
  if (!(c->shards = calloc(1, sizeof *c->shards)) || !(c->shard_names = calloc(1, sizeof *c->shard_names)))
    return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  if (!(c->shard_names[0] = strdup("model.safetensors"))) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  c->n_shards = 1;
  return tt_st_open(c->path, &c->shards[0], err);
}

// The folder has neither layout: say what it has instead.
static tt_status no_safetensors(const char *dir, tt_error *err) {
  char bin[4096];
  snprintf(bin, sizeof bin, "%s/pytorch_model.bin", dir);
  if (exists(bin))
    return tt_fail(err, TT_ERR_UNSUPPORTED,
                   "model folder %s has only pytorch_model.bin (a PyTorch pickle, which ttrace does not read); "
                   "convert it with `tools/convert_checkpoint.py %s`, which writes model.safetensors beside it",
                   dir, dir);
  return tt_fail(err, TT_ERR_IO, "model folder %s has no model.safetensors (nor model.safetensors.index.json)", dir);
}

tt_status tt_checkpoint_open(const char *dir, tt_checkpoint **out, tt_error *err) {
  *out = NULL;
  tt_checkpoint *c = calloc(1, sizeof *c);
  if (!c) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  tt_status st;
  snprintf(c->path, sizeof c->path, "%s/model.safetensors", dir);
  if (exists(c->path)) {
    st = open_single(c, err);
  } else {
    snprintf(c->path, sizeof c->path, "%s/model.safetensors.index.json", dir);
    st = exists(c->path) ? open_sharded(c, dir, err) : no_safetensors(dir, err);
  }
  if (st) {
    tt_checkpoint_close(c);
    return st;
  }
  *out = c;
  return TT_OK;
}

const tt_tensor *tt_checkpoint_find(const tt_checkpoint *c, const char *name) {
  for (size_t s = 0; s < c->n_shards; s++) {
    const tt_tensor *t = tt_st_find(c->shards[s], name);
    if (t) return t;
  }
  return NULL;
}

const char *tt_checkpoint_path(const tt_checkpoint *c) {
  return c->path;
}

void tt_checkpoint_close(tt_checkpoint *c) {
  if (!c) return;
  for (size_t s = 0; s < c->n_shards; s++) {
    tt_st_close(c->shards[s]);
    free(c->shard_names[s]);
  }
  free(c->shards);
  free(c->shard_names);
  free(c);
}
