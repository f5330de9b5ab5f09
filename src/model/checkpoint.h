// checkpoint: where a model folder's tensors live. One model.safetensors, or Hugging Face's
// sharded layout (model.safetensors.index.json, whose "weight_map" names the shard of each
// tensor, and the shards model-0000N-of-0000M.safetensors), every file memory-mapped.
// Internal to src/model.
#ifndef TT_MODEL_CHECKPOINT_H
#define TT_MODEL_CHECKPOINT_H

#include "core/core.h"

typedef struct tt_checkpoint tt_checkpoint;

// Opens dir/model.safetensors, else dir/model.safetensors.index.json and its shards.
// Refused: a shard the index names that is missing or is not a plain file name, a tensor
// the index lists but its shard lacks, a tensor in a shard that the index does not put
// there (absent from the index, or listed in another shard). A folder with only
// pytorch_model.bin is refused with a pointer to tools/convert_checkpoint.py.
tt_status tt_checkpoint_open(const char *dir, tt_checkpoint **out, tt_error *err);
const tt_tensor *tt_checkpoint_find(const tt_checkpoint *c, const char *name);  // NULL when absent
const char *tt_checkpoint_path(const tt_checkpoint *c);                         // the file named in messages
void tt_checkpoint_close(tt_checkpoint *c);

#endif
