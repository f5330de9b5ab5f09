// fuzz_util: scratch files and error invariants for the harnesses.
#include "fuzz_util.h"

#include <fcntl.h>
#include <sanitizer/common_interface_defs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char scratch[64];

// Removes the scratch folder and what the harnesses write there (at exit).
static void remove_scratch(void) {
  static const char *const names[] = {"in.safetensors",    "out.safetensors", "config.json",
                                      "model.safetensors", "vocab.json",      "merges.txt"};
  char path[128];
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    snprintf(path, sizeof path, "%s/%s", scratch, names[i]);
    unlink(path);
  }
  rmdir(scratch);
}

const char *fuzz_dir(void) {
  if (!scratch[0]) {
    snprintf(scratch, sizeof scratch, "%s/tt_fuzz_XXXXXX", access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    if (!mkdtemp(scratch)) fuzz_fail("cannot make the scratch folder");
    atexit(remove_scratch);
  }
  return scratch;
}

const char *fuzz_write(const char *name, const void *data, size_t n) {
  static char paths[4][512];
  static int next;
  char *path = paths[next++ % 4];
  snprintf(path, sizeof paths[0], "%s/%s", fuzz_dir(), name);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) fuzz_fail("cannot write a scratch file");
  for (size_t done = 0; done < n;) {
    ssize_t w = write(fd, (const char *)data + done, n - done);
    if (w <= 0) fuzz_fail("cannot write a scratch file");
    done += (size_t)w;
  }
  close(fd);
  return path;
}

void fuzz_fail(const char *what) {
  char line[1200];
  snprintf(line, sizeof line, "fuzz invariant broken: %s", what);
  fprintf(stderr, "%s\n", line);
  __sanitizer_report_error_summary(line);  // still seen when libFuzzer closed stderr
  abort();
}

void fuzz_check_error(tt_status st, const tt_error *err) {
  if (st == TT_OK) fuzz_fail("an error path returned TT_OK");
  if (!err->msg[0]) fuzz_fail("an error without a message");
  if (strchr(err->msg, '\n')) fuzz_fail(err->msg);
}

void fuzz_split(const uint8_t *data, size_t n, const uint8_t **a, size_t *na, const uint8_t **b, size_t *nb) {
  const uint8_t *nul = memchr(data, 0, n);
  *a = data;
  *na = nul ? (size_t)(nul - data) : n;
  *b = nul ? nul + 1 : data + n;
  *nb = nul ? n - *na - 1 : 0;
}
