// render_again: the provenance `ttrace render` writes into a figure (which trace, its
// identity (tt_st_identity: the hash of its header, which holds its data's hash), every
// option that shaped the drawing) and `render --again FIG`, which reads it back
// and draws the same figure from the same trace.
#include "render_again.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "safetensors/safetensors.h"

#define KEY_OPTION "ttrace:option "

void tt_prov_init(tt_prov *p) {
  memset(p, 0, sizeof *p);
}

void tt_prov_free(tt_prov *p) {
  for (int i = 0; i < p->n; i++) {
    free((char *)p->kv[i][0]);
    free((char *)p->kv[i][1]);
  }
  tt_prov_init(p);
}

void tt_prov_add(tt_prov *p, const char *key, const char *fmt, ...) {
  if (p->n >= TT_PROV_MAX) return;
  char value[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(value, sizeof value, fmt, ap);
  va_end(ap);
  char *k = strdup(key), *v = strdup(value);
  if (!k || !v) {
    free(k);
    free(v);
    return;
  }
  p->kv[p->n][0] = k;
  p->kv[p->n][1] = v;
  p->n++;
}

void tt_prov_option(tt_prov *p, const char *option, const char *fmt, ...) {
  char key[80], value[4096];
  snprintf(key, sizeof key, KEY_OPTION "%s", option);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(value, sizeof value, fmt, ap);
  va_end(ap);
  tt_prov_add(p, key, "%s", value);
}

const char *tt_prov_get(const tt_prov *p, const char *key) {
  for (int i = 0; i < p->n; i++)
    if (strcmp(p->kv[i][0], key) == 0) return p->kv[i][1];
  return NULL;
}

static void on_meta(void *ctx, const char *key, const char *value) {
  tt_prov_add(ctx, key, "%s", value);
}

// The recorded file (key_path, hashed under key_hash) is there and unchanged.
static tt_status check_source(const tt_prov *p, const char *fig, const char *key_path, const char *key_hash,
                              tt_error *err) {
  const char *path = tt_prov_get(p, key_path), *want = tt_prov_get(p, key_hash);
  if (!path || !want) return tt_fail(err, TT_ERR_FORMAT, "%s does not say which trace it was drawn from", fig);
  char got[17];
  tt_error e = {0};
  tt_status st = tt_st_identity(path, true, got, &e);
  if (st == TT_ERR_FORMAT)  // its data no longer matches its own header
    return tt_fail(err, TT_ERR_FORMAT, "%s has changed since %s was drawn (%s)", path, fig, e.msg);
  if (st != TT_OK)
    return tt_fail(err, TT_ERR_IO, "%s was drawn from %s, which cannot be read now: %s", fig, path, e.msg);
  if (strcmp(got, want) != 0)
    return tt_fail(err, TT_ERR_FORMAT, "%s has changed since %s was drawn (XXH3-64 %s, the figure recorded %s)", path,
                   fig, got, want);
  return TT_OK;
}

tt_status tt_render_again_argv(const char *fig, const char *out, tt_prov *p, char **argv, int *argc, tt_error *err) {
  tt_status st = tt_figure_read_meta(fig, on_meta, p, err);
  if (st != TT_OK) return st;
  if (!tt_prov_get(p, "ttrace:version")) return tt_fail(err, TT_ERR_FORMAT, "%s holds no ttrace figure metadata", fig);
  st = check_source(p, fig, "ttrace:trace", "ttrace:trace-xxh3", err);
  if (st == TT_OK && tt_prov_get(p, KEY_OPTION "--compare"))
    st = check_source(p, fig, KEY_OPTION "--compare", "ttrace:compare-xxh3", err);
  if (st != TT_OK) return st;
  int n = 0;
  argv[n++] = "render";
  argv[n++] = (char *)tt_prov_get(p, "ttrace:trace");
  for (int i = 0; i < p->n && n + 4 < TT_PROV_MAX * 2; i++) {
    const char *k = p->kv[i][0];
    if (strncmp(k, KEY_OPTION, strlen(KEY_OPTION)) != 0) continue;
    argv[n++] = (char *)k + strlen(KEY_OPTION);
    if (strcmp(k + strlen(KEY_OPTION), "--frame") != 0) argv[n++] = (char *)p->kv[i][1];
  }
  argv[n++] = "-o";
  argv[n++] = (char *)(out ? out : fig);
  argv[n] = NULL;
  *argc = n;
  return TT_OK;
}
