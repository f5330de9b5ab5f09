// trace_arg: a trace file named on the command line.
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "trace_arg.h"

// A safetensors file starts with its header's length (u64, little-endian) and the header's
// '{'. A shorter file, or one that starts like that but is cut short, is left to
// tt_trace_load, which says what is wrong with it.
// A Git LFS pointer ("version https://git-lfs.github.com/spec/v1", ...) is left to it too: it
// names one as such.
static bool looks_like_safetensors(const unsigned char *head, size_t got) {
  static const char lfs[] = "version https://git-lfs.github.com/spec/";
  if (got >= sizeof lfs - 1 && memcmp(head, lfs, sizeof lfs - 1) == 0) return true;
  uint64_t n = 0;
  for (int i = 7; i >= 0; i--) n = n << 8 | head[i];
  return got < 9 || (head[8] == '{' && n >= 2 && n <= (100u << 20));
}

tt_status tt_cli_load_trace(const char *path, tt_trace **out, tt_error *err) {
  *out = NULL;
  // tt_open_regular, not fopen: a FIFO or device is refused without blocking.
  int fd;
  size_t size;
  unsigned char head[48] = {0};
  bool other = false;
  if (tt_open_regular(path, &fd, &size, NULL) == TT_OK) {
    ssize_t got = read(fd, head, sizeof head);
    other = !looks_like_safetensors(head, got > 0 ? (size_t)got : 0);
    close(fd);
  }
  if (access(path, F_OK) != 0 && errno == ENOENT)  // often a prompt typed where a trace goes
    return tt_fail(err, TT_ERR_IO, "cannot open %s: %s (a trace is a file that `ttrace trace -o FILE PROMPT` writes)",
                   path, strerror(errno));
  if (other)
    return tt_fail(err, TT_ERR_FORMAT,
                   "%s is not a trace file (traces are safetensors files written by `ttrace "
                   "trace`; this one does not start with a safetensors header)",
                   path);
  return tt_trace_load(path, out, err);  // it also says why a file cannot be opened
}
