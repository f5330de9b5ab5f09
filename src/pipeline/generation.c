// generation: what a trace of `ttrace generate -o` says about its generation (metadata
// generated_ids, generated_kept: JSON arrays of integers), for the views and the window.
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"

int tt_generated_ints(const tt_trace *tr, const char *key, int32_t *out, int max) {
  const char *s = tt_trace_meta(tr, key);
  int n = 0;
  if (!s || *s != '[') return 0;
  for (const char *c = s + 1; *c && *c != ']' && n < max;) {
    char *end;
    long v = strtol(c, &end, 10);
    if (end == c) break;
    out[n++] = (int32_t)v;
    c = end + strspn(end, ", ");
  }
  return n;
}
