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

// a + b + c into dst; false when it does not fit.
static bool join3(char *dst, size_t cap, const char *a, const char *b, const char *c) {
  int n = snprintf(dst, cap, "%s%s%s", a, b, c);
  return n >= 0 && (size_t)n < cap;
}

// The folder of the running executable (/proc/self/exe).
static bool exe_dir(char *buf, size_t len) {
  ssize_t n = readlink("/proc/self/exe", buf, len - 1);
  if (n <= 0 || (size_t)n >= len - 1) return false;
  buf[n] = 0;
  char *slash = strrchr(buf, '/');
  if (!slash) return false;
  *slash = 0;
  return true;
}

// A build tree: meson writes "ttrace-source-root" (the source tree's path) into the build
// folder and never installs it; an executable up to four folders below it finds it.
static bool source_root(char *buf, size_t len) {
  char dir[4096];
  if (!exe_dir(dir, sizeof dir)) return false;
  for (int up = 0; up <= 4; up++) {
    char marker[4200];
    FILE *fp = join3(marker, sizeof marker, dir, "/ttrace-source-root", "") ? fopen(marker, "r") : NULL;
    if (fp) {
      bool ok = fgets(buf, (int)len, fp) != NULL;
      fclose(fp);
      buf[strcspn(buf, "\n")] = 0;
      return ok && buf[0] && is_dir(buf);
    }
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir) return false;
    *slash = 0;
  }
  return false;
}

// Where ttrace's data folders are, in order: the variable's folder (env), the source tree's
// (a build tree: src_sub inside it), the installed copy beside the executable
// (<bindir>/TT_BIN_TO_DATA/inst_sub, so a relocated or DESTDIR install works), the prefix's.
static bool find_data(const char *env, const char *src_sub, const char *inst_sub, const char *relative, char *buf,
                      size_t len) {
  char roots[4][4096], tmp[4096];
  int n = 0;
  if (env && env[0] && join3(roots[n], sizeof roots[n], env, "", "")) n++;
  if (source_root(tmp, sizeof tmp) && join3(roots[n], sizeof roots[n], tmp, "/", src_sub)) n++;
  if (TT_BIN_TO_DATA[0] == '/' && join3(roots[n], sizeof roots[n], TT_BIN_TO_DATA, inst_sub, ""))
    n++;
  else if (TT_BIN_TO_DATA[0] != '/' && exe_dir(tmp, sizeof tmp) &&
           join3(roots[n], sizeof roots[n], tmp, "/" TT_BIN_TO_DATA, inst_sub) && realpath(roots[n], tmp))
    n += join3(roots[n], sizeof roots[n], tmp, "", "");  // without the "bin/.."
  if (join3(roots[n], sizeof roots[n], TT_INSTALL_ASSETS, inst_sub, "")) n++;
  for (int i = 0; i < n; i++) {
    if (!is_dir(roots[i])) continue;
    if (join3(buf, len, roots[i], relative[0] ? "/" : "", relative) && access(buf, F_OK) == 0) return true;
  }
  return false;
}

bool tt_asset_path(const char *relative, char *buf, size_t len) {
  if (!buf || len == 0) return false;
  return find_data(getenv("TTRACE_ASSETS"), "assets", "", relative, buf, len);
}

bool tt_lessons_path(char *buf, size_t len) {
  if (!buf || len == 0) return false;
  return find_data(getenv("TTRACE_LESSONS"), "lessons", "/lessons", "", buf, len);
}
