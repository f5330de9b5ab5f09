// render_again: a figure's provenance ((key, value) pairs written into the PNG or SVG) and
// the command line that draws the figure again from it.
#ifndef TT_RENDER_AGAIN_H
#define TT_RENDER_AGAIN_H

#include <stdarg.h>

#include "render/render.h"

#define TT_PROV_MAX 48
typedef struct {
  const char *kv[TT_PROV_MAX][2];  // malloc'd key and value
  int n;
} tt_prov;
void tt_prov_init(tt_prov *p);
void tt_prov_free(tt_prov *p);
void tt_prov_add(tt_prov *p, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
// A render option as the command line gave it, under "ttrace:option --NAME".
void tt_prov_option(tt_prov *p, const char *option, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *tt_prov_get(const tt_prov *p, const char *key);
// Reads fig's provenance into p and writes into argv (at least 2·TT_PROV_MAX + 1 entries,
// pointing into p) the render command that draws it again into out (NULL: fig itself).
// Fails when the trace (or --compare's) is not at its recorded path or its hash differs.
tt_status tt_render_again_argv(const char *fig, const char *out, tt_prov *p, char **argv, int *argc, tt_error *err);

#endif
