// pool: the memory of destroyed traces, kept for the next ones. A fresh page costs far more
// than a write into a page the process already has (about 1 s/GiB against 0.25 s/GiB on the
// development VM), and a re-trace of the same prompt length asks for the same tensor sizes,
// so a trace made from a pool takes each tensor's memory from the blocks the last destroyed
// trace gave back (the smallest that fits; small tensors share slabs, which are blocks too)
// and gives its own back when destroyed.
// The pool keeps at most one trace's blocks: those left over when a trace gives its own back
// are freed. Every pooled trace holds a reference, so the pool outlives its creator's release.
#include <stdlib.h>

#include "trace_internal.h"

struct tt_trace_pool {
  tt_trace_block *free_blocks;  // blocks no trace uses
  size_t n_free;
  int refs;            // the creator's and one per live pooled trace
  tt_huge_pages huge;  // whether huge pages are fast here, learnt from the first large block
};

tt_trace_pool *tt_trace_pool_create(void) {
  tt_trace_pool *p = calloc(1, sizeof *p);
  if (p) p->refs = 1;
  return p;
}

static void free_blocks(tt_trace_block *b, size_t n) {
  for (size_t i = 0; i < n; i++) tt_pages_free(b[i].data, b[i].size);
}

void tt_trace_pool_release(tt_trace_pool *p) {
  if (!p || --p->refs > 0) return;
  free_blocks(p->free_blocks, p->n_free);
  free(p->free_blocks);
  free(p);
}

tt_trace *tt_trace_create_pooled(tt_trace_pool *p) {
  tt_trace *tr = tt_trace_create();
  if (tr && p) tr->pool = p, p->refs++;
  return tr;
}

size_t tt_trace_pool_bytes(const tt_trace_pool *p) {
  size_t n = 0;
  for (size_t i = 0; i < p->n_free; i++) n += p->free_blocks[i].size;
  return n;
}

// A block of at least `bytes` for tr: the pool's smallest that fits, else a new one
// (NULL when out of memory).
static void *take_block(tt_trace *tr, size_t bytes) {
  tt_trace_pool *p = tr->pool;
  size_t best = p->n_free;
  for (size_t i = 0; i < p->n_free; i++)
    if (p->free_blocks[i].size >= bytes && (best == p->n_free || p->free_blocks[i].size < p->free_blocks[best].size))
      best = i;
  if (tr->n_blocks == tr->blocks_cap) {
    size_t cap = tr->blocks_cap ? 2 * tr->blocks_cap : 64;
    tt_trace_block *grown = realloc(tr->blocks, cap * sizeof *grown);
    if (!grown) return NULL;
    tr->blocks = grown, tr->blocks_cap = cap;
  }
  tt_trace_block b;
  if (best < p->n_free) {
    b = p->free_blocks[best];
    p->free_blocks[best] = p->free_blocks[--p->n_free];
  } else if (!(b.data = tt_pages_alloc(bytes, &p->huge))) {  // bytes: a multiple of 64
    return NULL;
  } else {
    b.size = bytes;
    tt_pages_populate(b.data, bytes);  // before the op's threads write it (pages.c)
  }
  tr->blocks[tr->n_blocks++] = b;
  return b.data;
}

// Memory for one tensor of tr: large ones get a block of their own, small ones share
// slabs of TT_TRACE_SLAB_BYTES (blocks too), 64-byte aligned.
void *tt_trace_pool_take(tt_trace *tr, size_t bytes) {
  size_t need = (bytes ? bytes : 1) + 63;
  need -= need % 64;
  if (need >= TT_TRACE_SLAB_BYTES / 4) return take_block(tr, need);
  if (need > tr->slab_left) {
    if (!(tr->slab = take_block(tr, TT_TRACE_SLAB_BYTES))) return NULL;
    tr->slab_left = TT_TRACE_SLAB_BYTES;
  }
  void *p = tr->slab;
  tr->slab += need, tr->slab_left -= need;
  return p;
}

// tt_trace_destroy: tr's blocks become the pool's free ones (the unused ones are freed),
// and tr's reference is dropped.
void tt_trace_pool_give_back(tt_trace *tr) {
  tt_trace_pool *p = tr->pool;
  free_blocks(p->free_blocks, p->n_free);
  free(p->free_blocks);
  p->free_blocks = tr->blocks, p->n_free = tr->n_blocks;
  tr->blocks = NULL, tr->n_blocks = tr->blocks_cap = 0;
  tt_trace_pool_release(p);
}
