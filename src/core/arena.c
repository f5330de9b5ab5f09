// arena: chunked bump allocator. Recorded tensors live here, so a trace frees in one call.
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

#define ARENA_MAX_CHUNK_BYTES ((size_t)1 << 30)

typedef struct chunk {
  struct chunk *next;
  size_t size, used;
  size_t populated;  // bytes of data faulted in (populate)
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

#define POPULATE_STEP ((size_t)2 << 20)

// A chunk of 2 MiB or more (its own mapping, on huge pages where they are fast; pages.c)
// faulted in up to what it has handed out, rounded up to a 2 MiB boundary of the chunk (a
// huge page's end) within its size: an allocation may be written by two threads at once,
// as a trace's tensors are (tt_pages_populate). Smaller chunks come from the C allocator.
static void populate(chunk *c) {
  if (c->used <= c->populated || sizeof *c + c->size < POPULATE_STEP) return;
  size_t head = offsetof(chunk, data);
  size_t end = (head + c->used + POPULATE_STEP - 1) / POPULATE_STEP * POPULATE_STEP - head;
  if (end > c->size) end = c->size;
  tt_pages_populate(c->data + c->populated, end - c->populated);
  c->populated = end;
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
    c->used = c->populated = 0;
    a->head = c;
    off = 0;
  }
  c->used = off + bytes;
  populate(c);
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
