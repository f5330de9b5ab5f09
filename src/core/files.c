// files: whole-file reads, atomic writes (temporary file + fsync + rename), asset lookup.
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core.h"

tt_status tt_read_file(const char *path, char **out, size_t *len, tt_error *err) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return tt_fail(err, TT_ERR_IO, "cannot open %s: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode)) {
    fclose(fp);
    return tt_fail(err, TT_ERR_IO, "%s is not a regular file", path);
  }
  char *buf = malloc((size_t)st.st_size + 1);
  if (!buf) {
    fclose(fp);
    return tt_fail(err, TT_ERR_NOMEM, "out of memory reading %s", path);
  }
  size_t n = fread(buf, 1, (size_t)st.st_size, fp);
  fclose(fp);
  if (n != (size_t)st.st_size) {
    free(buf);
    return tt_fail(err, TT_ERR_IO, "short read on %s", path);
  }
  buf[n] = 0;
  *out = buf;
  if (len) *len = n;
  return TT_OK;
}

tt_status tt_atomic_open(tt_atomic_file *af, const char *path, tt_error *err) {
  memset(af, 0, sizeof *af);
  size_t n = strlen(path);
  af->path = strdup(path);
  af->tmp_path = malloc(n + 16);
  if (!af->path || !af->tmp_path) {
    tt_atomic_abort(af);
    return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  }
  snprintf(af->tmp_path, n + 16, "%s.tmp.XXXXXX", path);
  int fd = mkstemp(af->tmp_path);
  if (fd < 0) {
    tt_status st = tt_fail(err, TT_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    free(af->tmp_path);
    af->tmp_path = NULL;
    tt_atomic_abort(af);
    return st;
  }
  fchmod(fd, 0644);
  af->fp = fdopen(fd, "wb");
  if (!af->fp) {
    close(fd);
    tt_atomic_abort(af);
    return tt_fail(err, TT_ERR_IO, "cannot write %s", path);
  }
  return TT_OK;
}

tt_status tt_atomic_commit(tt_atomic_file *af, tt_error *err) {
  bool ok = fflush(af->fp) == 0 && !ferror(af->fp) && fsync(fileno(af->fp)) == 0;
  int saved = errno;
  ok = (fclose(af->fp) == 0) && ok;
  af->fp = NULL;
  if (!ok || rename(af->tmp_path, af->path) != 0) {
    if (ok) saved = errno;
    tt_status st = tt_fail(err, TT_ERR_IO, "cannot write %s: %s", af->path, strerror(saved));
    tt_atomic_abort(af);
    return st;
  }
  free(af->tmp_path);
  free(af->path);
  memset(af, 0, sizeof *af);
  return TT_OK;
}

void tt_atomic_abort(tt_atomic_file *af) {
  if (af->fp) fclose(af->fp);
  if (af->tmp_path) unlink(af->tmp_path);
  free(af->tmp_path);
  free(af->path);
  memset(af, 0, sizeof *af);
}

static bool is_dir(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

bool tt_asset_path(const char *relative, char *buf, size_t len) {
  if (!buf || len == 0) return false;
  const char *roots[] = {getenv("TTRACE_ASSETS"), TT_SOURCE_ASSETS, TT_INSTALL_ASSETS};
  for (size_t i = 0; i < sizeof roots / sizeof *roots; i++) {
    if (!roots[i] || !roots[i][0] || !is_dir(roots[i])) continue;
    snprintf(buf, len, "%s/%s", roots[i], relative);
    if (access(buf, F_OK) == 0) return true;
  }
  return false;
}
