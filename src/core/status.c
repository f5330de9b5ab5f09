// status: one-line error messages and the exit codes they map to.
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core.h"

tt_status tt_fail(tt_error *err, tt_status st, const char *fmt, ...) {
  if (err) {
    char raw[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    // A name or text taken from a file cannot break the line or drive the terminal.
    tt_escape_text(raw, err->msg, sizeof err->msg, strchr(fmt, '\n') != NULL);
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
  case TT_OK:
    return "ok";
  case TT_ERR_ARG:
    return "bad argument";
  case TT_ERR_IO:
    return "i/o error";
  case TT_ERR_FORMAT:
    return "bad format";
  case TT_ERR_SHAPE:
    return "wrong shape";
  case TT_ERR_UNSUPPORTED:
    return "unsupported";
  case TT_ERR_NOMEM:
    return "out of memory";
  case TT_ERR_DEVICE:
    return "device error";
  }
  return "unknown";
}

int tt_status_exit_code(tt_status st) {
  switch (st) {
  case TT_OK:
    return 0;
  case TT_ERR_ARG:
    return 3;
  case TT_ERR_IO:
    return 4;
  case TT_ERR_FORMAT:
  case TT_ERR_SHAPE:
  case TT_ERR_UNSUPPORTED:
    return 3;
  case TT_ERR_NOMEM:
  case TT_ERR_DEVICE:
    return 5;
  }
  return 1;
}
