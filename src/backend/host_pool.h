// host_pool: a few persistent worker threads for the OpenBLAS backend: its row loops and
// its batches of small products run on every core. Owned by the backend (no globals); with
// one thread every job runs in the caller. Internal to the backend.
#ifndef TT_HOST_POOL_H
#define TT_HOST_POOL_H

#include "core/core.h"

typedef struct tt_host_pool tt_host_pool;

// One item of a job: item i of n, run on `thread` (0 = the caller, 1.. the workers).
typedef void (*tt_host_job)(void *ctx, int i, int thread);

// A pool of `threads` threads in all (the caller and threads − 1 workers).
tt_status tt_host_pool_create(int threads, tt_host_pool **out, tt_error *err);
void tt_host_pool_destroy(tt_host_pool *p);
int tt_host_pool_threads(const tt_host_pool *p);
// fn(ctx, i, thread) for every i < n, each item taken by whichever thread is free next;
// returns when every call has returned. An item's result must not depend on its thread.
void tt_host_pool_run(tt_host_pool *p, int n, tt_host_job fn, void *ctx);
// Idle workers stop spinning and sleep until the next job (before other threads, such as
// OpenBLAS's, need every core).
void tt_host_pool_park(tt_host_pool *p);

#endif
