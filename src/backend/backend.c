// backend: picks a backend by name ("openblas", "opencl", "auto") and destroys it.
#include <stdio.h>
#include <string.h>

#include "backend.h"

// note = choice, then the backend's own note, joined by "; " (either may be empty).
static void set_note(char *note, size_t len, const char *choice, const tt_backend *be) {
  if (!note || !len) return;
  const char *own = be ? be->note : "";
  snprintf(note, len, "%s%s%s", choice, choice[0] && own[0] ? "; " : "", own);
}

static tt_status create_opencl(tt_backend **out, tt_error *err) {
#if TT_HAVE_OPENCL
  return tt_backend_opencl_create(-1, -1, out, err);
#else
  (void)out;
  return tt_fail(err, TT_ERR_UNSUPPORTED, "backend \"opencl\": this build has no OpenCL support");
#endif
}

tt_status tt_backend_create(const char *name, tt_backend **out, char *note, size_t note_len, tt_error *err) {
  *out = NULL;
  set_note(note, note_len, "", NULL);
  tt_status st;
  if (!name || strcmp(name, "openblas") == 0) {
    st = tt_backend_openblas_create(out, err);
  } else if (strcmp(name, "opencl") == 0) {
    st = create_opencl(out, err);
    if (!st) set_note(note, note_len, "", *out);
  } else if (strcmp(name, "auto") == 0) {
    tt_error cl_err = {0};
    char msg[1200];
    if (create_opencl(out, &cl_err) == TT_OK) {
      snprintf(msg, sizeof msg, "auto: using OpenCL on %s", (*out)->device);
      set_note(note, note_len, msg, *out);
      return TT_OK;
    }
    snprintf(msg, sizeof msg, "auto: using OpenBLAS because OpenCL is unavailable (%s)", cl_err.msg);
    set_note(note, note_len, msg, NULL);
    st = tt_backend_openblas_create(out, err);
  } else {
    st = tt_fail(err, TT_ERR_ARG, "unknown backend \"%s\" (expected openblas, opencl or auto)", name);
  }
  return st;
}

void tt_backend_destroy(tt_backend *be) {
  if (be && be->destroy) be->destroy(be);
}
