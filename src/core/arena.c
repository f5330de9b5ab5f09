// arena: chunked bump allocator. Recorded tensors live here, so a trace frees in one call.
#include <stdlib.h>
#include <string.h>

#include "core.h"

#define ARENA_MAX_CHUNK_BYTES ((size_t)1 << 30)

typedef struct chunk {
  struct chunk *next;
  size_t size, used;
  _Alignas(64) unsigned char data[];
} chunk;

struct tt_arena {
  chunk *head;
  size_t chunk_bytes, total_used;
  tt_huge_pages huge;  // whether huge pages are fast here, learnt from the first large chunk
};

tt_arena *tt_arena_create(size_t chunk_bytes) {
  tt_arena *a = calloc(1, sizeof *a);
  if (a) a->chunk_bytes = chunk_bytes ? chunk_bytes : (1u << 20);
  return a;
}

void *tt_arena_alloc(tt_arena *a, size_t bytes, size_t align) {
  if (align < 16) align = 16;
  chunk *c = a->head;
  size_t off = c ? (c->used + align - 1) / align * align : 0;
  if (!c || off + bytes > c->size) {
    size_t size = bytes + align > a->chunk_bytes ? bytes + align : a->chunk_bytes;
    // Not zeroed, so only touched pages count; large chunks on huge pages (pages.c).
    c = tt_pages_alloc(sizeof *c + size, &a->huge);
    if (!c) return NULL;
    c->next = a->head;
    c->size = size;
    // Each chunk twice the size of the last, up to 1 GiB: a large trace fills few chunks,
    // so few huge pages are only partly used (each one counts whole in the resident size).
    if (a->chunk_bytes < ARENA_MAX_CHUNK_BYTES) a->chunk_bytes *= 2;
    c->used = 0;
    a->head = c;
    off = 0;
  }
  c->used = off + bytes;
  a->total_used += bytes;
  return c->data + off;
}

char *tt_arena_strdup(tt_arena *a, const char *s) {
  size_t n = strlen(s) + 1;
  char *d = tt_arena_alloc(a, n, 1);
  if (d) memcpy(d, s, n);
  return d;
}

size_t tt_arena_used(const tt_arena *a) {
  return a->total_used;
}

void tt_arena_destroy(tt_arena *a) {
  if (!a) return;
  for (chunk *c = a->head, *next; c; c = next) {
    next = c->next;
    tt_pages_free(c, sizeof *c + c->size);
  }
  free(a);
}
