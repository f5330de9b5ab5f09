// backend: picks a backend by name ("openblas", "opencl", "auto") and destroys it.
#include <stdio.h>
#include <string.h>

#include "backend.h"

static void set_note(char *note, size_t len, const char *msg) {
  if (note && len) snprintf(note, len, "%s", msg);
}

tt_status tt_backend_create(const char *name, tt_backend **out, char *note, size_t note_len, tt_error *err) {
  *out = NULL;
  set_note(note, note_len, "");
  if (!name || strcmp(name, "openblas") == 0) return tt_backend_openblas_create(out, err);
  if (strcmp(name, "opencl") == 0) {
#if TT_HAVE_OPENCL
    return tt_backend_opencl_create(-1, -1, out, err);
#else
    return tt_fail(err, TT_ERR_UNSUPPORTED, "backend \"opencl\": this build has no OpenCL support");
#endif
  }
  if (strcmp(name, "auto") == 0) {
#if TT_HAVE_OPENCL
    tt_error cl_err = {0};
    char msg[1200];
    if (tt_backend_opencl_create(-1, -1, out, &cl_err) == TT_OK) {
      snprintf(msg, sizeof msg, "auto: using OpenCL on %s", (*out)->device);
      set_note(note, note_len, msg);
      return TT_OK;
    }
    snprintf(msg, sizeof msg, "auto: using OpenBLAS because OpenCL is unavailable (%s)", cl_err.msg);
    set_note(note, note_len, msg);
#else
    set_note(note, note_len, "auto: using OpenBLAS because this build has no OpenCL support");
#endif
    return tt_backend_openblas_create(out, err);
  }
  return tt_fail(err, TT_ERR_ARG, "unknown backend \"%s\" (expected openblas, opencl or auto)", name);
}

void tt_backend_destroy(tt_backend *be) {
  if (be && be->destroy) be->destroy(be);
}
