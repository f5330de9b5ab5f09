// hash: 64-bit FNV-1a, the one hash for name indexes and cache keys.
#include "core.h"

uint64_t tt_fnv1a64(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}
