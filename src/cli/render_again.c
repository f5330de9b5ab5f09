// render_again: the provenance `ttrace render` writes into a figure (which trace, its
// hash, every option that shaped the drawing) and `render --again FIG`, which reads it back
// and draws the same figure from the same trace.
#include "render_again.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

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

tt_status tt_file_fnv(const char *path, char hex[17], tt_error *err) {
  int fd;
  size_t size;
  tt_status st = tt_open_regular(path, &fd, &size, err);
  if (st != TT_OK) return st;
  FILE *fp = fdopen(fd, "rb");
  if (!fp) return tt_fail(err, TT_ERR_IO, "cannot read %s", path);
  uint64_t h = TT_FNV1A64_BASIS;
  static char buf[1 << 16];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, fp)) > 0) h = tt_fnv1a64(h, buf, n);
  bool bad = ferror(fp);
  fclose(fp);
  if (bad) return tt_fail(err, TT_ERR_IO, "cannot read %s", path);
  snprintf(hex, 17, "%016llx", (unsigned long long)h);
  return TT_OK;
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
  if (tt_file_fnv(path, got, &e) != TT_OK)
    return tt_fail(err, TT_ERR_IO, "%s was drawn from %s, which cannot be read now: %s", fig, path, e.msg);
  if (strcmp(got, want) != 0)
    return tt_fail(err, TT_ERR_FORMAT, "%s has changed since %s was drawn (FNV-1a %s, the figure recorded %s)", path,
                   fig, got, want);
  return TT_OK;
}

tt_status tt_render_again_argv(const char *fig, const char *out, tt_prov *p, char **argv, int *argc, tt_error *err) {
  tt_status st = tt_figure_read_meta(fig, on_meta, p, err);
  if (st != TT_OK) return st;
  if (!tt_prov_get(p, "ttrace:version")) return tt_fail(err, TT_ERR_FORMAT, "%s holds no ttrace figure metadata", fig);
  st = check_source(p, fig, "ttrace:trace", "ttrace:trace-fnv1a64", err);
  if (st == TT_OK && tt_prov_get(p, KEY_OPTION "--compare"))
    st = check_source(p, fig, KEY_OPTION "--compare", "ttrace:compare-fnv1a64", err);
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
