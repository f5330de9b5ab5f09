// status: one-line error messages and the exit codes they map to.
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core.h"

// Copies src into dst (cap bytes) with control bytes escaped ("\n", "\x1B"), so a name
// or text taken from a file cannot break the line or drive the terminal. Newlines stay
// when keep_newlines (a message whose format itself spans lines).
static void copy_escaped(char *dst, size_t cap, const char *src, bool keep_newlines) {
  size_t j = 0;
  for (const unsigned char *c = (const unsigned char *)src; *c && j + 1 < cap; c++) {
    bool control = *c < 0x20 || *c == 0x7f;
    if (!control || (*c == '\n' && keep_newlines)) {
      dst[j++] = (char)*c;
      continue;
    }
    char esc[5];
    int n = *c == '\n' ? snprintf(esc, sizeof esc, "\\n") : snprintf(esc, sizeof esc, "\\x%02X", *c);
    if (j + (size_t)n + 1 > cap) break;
    memcpy(dst + j, esc, (size_t)n);
    j += (size_t)n;
  }
  dst[j] = 0;
}

tt_status tt_fail(tt_error *err, tt_status st, const char *fmt, ...) {
  if (err) {
    char raw[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    copy_escaped(err->msg, sizeof err->msg, raw, strchr(fmt, '\n') != NULL);
    err->status = st;
  }
  return st;
}

tt_status tt_fail_prefix(tt_error *err, const char *fmt, ...) {
  if (!err) return TT_ERR_ARG;
  char prefix[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  size_t np = strlen(prefix), cap = sizeof err->msg;
  if (np + 2 >= cap) return err->status;
  memmove(err->msg + np + 2, err->msg, cap - np - 2);
  err->msg[cap - 1] = 0;
  memcpy(err->msg, prefix, np);
  memcpy(err->msg + np, ": ", 2);
  return err->status;
}

const char *tt_status_name(tt_status st) {
  switch (st) {
    case TT_OK: return "ok";
    case TT_ERR_ARG: return "bad argument";
    case TT_ERR_IO: return "i/o error";
    case TT_ERR_FORMAT: return "bad format";
    case TT_ERR_SHAPE: return "wrong shape";
    case TT_ERR_UNSUPPORTED: return "unsupported";
    case TT_ERR_NOMEM: return "out of memory";
    case TT_ERR_DEVICE: return "device error";
  }
  return "unknown";
}

int tt_status_exit_code(tt_status st) {
  switch (st) {
    case TT_OK: return 0;
    case TT_ERR_ARG: return 3;
    case TT_ERR_IO: return 4;
    case TT_ERR_FORMAT:
    case TT_ERR_SHAPE:
    case TT_ERR_UNSUPPORTED: return 3;
    case TT_ERR_NOMEM:
    case TT_ERR_DEVICE: return 5;
  }
  return 1;
}
