// engine: the GPT-2 forward pass (forward.c, top-down, one function per step). After each
// op the engine offers the tensor to a recorder under its hook name (see trace/hooks.h);
// the engine never knows who listens. How the files inside fit: engine_internal.h.
#ifndef TT_ENGINE_H
#define TT_ENGINE_H

#include "backend/backend.h"
#include "core/core.h"
#include "model/model.h"

typedef struct tt_engine tt_engine;

// Uploads the weights to the backend once (host backends use them in place) and
// allocates the workspace for up to max_T tokens. The model must outlive the engine.
tt_status tt_engine_create(const tt_model *model, tt_backend *be, int max_T, tt_engine **out, tt_error *err);
// Runs ids (T) through the model, offering every hook to rec (which may be NULL).
// Fails with TT_ERR_ARG when T is 0, T > max_T, T > n_positions or an id is >= V.
tt_status tt_engine_run(tt_engine *eng, const int32_t *ids, int T, const tt_recorder *rec, tt_error *err);
void tt_engine_destroy(tt_engine *eng);

#endif
