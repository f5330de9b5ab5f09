// import: activations saved by another implementation (safetensors, or a NumPy .npz written
// by np.savez) → a ttrace trace, so that `ttrace diff`
// can compare the two hook by hook. Two kinds of safetensors file are read:
//  - a Hugging Face `output_hidden_states` dump: "hidden_states.N" ([1,T,C] or [T,C]) for N in
//    0..n_layer and optionally "logits"; hidden_states.N is blocks.N.hook_resid_pre for
//    N < n_layer and, as GPT-2's last hidden state has ln_f applied, ln_final.hook_out for N =
//    n_layer; logits is hook_logits.
//  - a TransformerLens cache (its hook names, batch 1 or none): q, k, v and z
//    [batch,pos,head,d_head] become [H,T,D], hook_scale [batch,pos,1] becomes [T], the rest
//    lose the batch dimension. TransformerLens-only hooks (hook_result, hook_attn_in, ...) are
//    skipped and counted.
// The metadata (prompt, tokens, config) and `tokens` come from a ttrace trace of the same
// model and prompt (`like`); every imported hook must be in it, with the shape it has there.
#ifndef TT_IMPORT_H
#define TT_IMPORT_H

#include "trace/trace.h"

typedef struct {
  int imported, skipped;
  const char *kind;  // "huggingface" or "transformerlens"
} tt_import_report;

tt_status tt_import(const char *path, const tt_trace *like, tt_trace **out, tt_import_report *rep, tt_error *err);

#endif
