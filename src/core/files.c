// files: whole-file reads of regular files only, asset lookup.
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core.h"

tt_status tt_open_regular(const char *path, int *fd, size_t *size, tt_error *err) {
  *fd = -1;
  struct stat st;
  if (stat(path, &st) != 0) return tt_fail(err, TT_ERR_IO, "cannot open %s: %s", path, strerror(errno));
  if (!S_ISREG(st.st_mode))
    return tt_fail(err, TT_ERR_IO, "cannot read %s: it is %s, not a regular file", path, tt_file_kind(st.st_mode));
  int f = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (f < 0) return tt_fail(err, TT_ERR_IO, "cannot open %s: %s", path, strerror(errno));
  if (fstat(f, &st) != 0 || !S_ISREG(st.st_mode)) {  // replaced between the two looks
    close(f);
    return tt_fail(err, TT_ERR_IO, "cannot read %s: it is not a regular file", path);
  }
  fcntl(f, F_SETFL, fcntl(f, F_GETFL) & ~O_NONBLOCK);
  *fd = f;
  *size = (size_t)st.st_size;
  return TT_OK;
}

tt_status tt_read_file(const char *path, char **out, size_t *len, tt_error *err) {
  int fd;
  size_t size;
  tt_status st = tt_open_regular(path, &fd, &size, err);
  if (st) return st;
  char *buf = size < SIZE_MAX ? malloc(size + 1) : NULL;
  if (!buf) {
    close(fd);
    return tt_fail(err, TT_ERR_NOMEM, "out of memory reading %s", path);
  }
  size_t n = 0;
  while (n < size) {
    ssize_t r = read(fd, buf + n, size - n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    n += (size_t)r;
  }
  close(fd);
  if (n != size) {
    free(buf);
    return tt_fail(err, TT_ERR_IO, "short read on %s", path);
  }
  buf[n] = 0;
  *out = buf;
  if (len) *len = n;
  return TT_OK;
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
