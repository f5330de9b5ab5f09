// opencl: the OpenCL backend's setup (device choice, context, queue) and its memory
// operations. Buffers are cl_mem; a tt_buf's offset is counted in floats and passed to
// the kernels as an argument (no sub-buffers, which need aligned offsets).
#include <stdlib.h>
#include <string.h>

#include "opencl_internal.h"

const char *tt_cl_error_name(cl_int code) {
  // clang-format off
  switch (code) {
#define E(x) case x: return #x;
    E(CL_SUCCESS) E(CL_DEVICE_NOT_FOUND) E(CL_DEVICE_NOT_AVAILABLE) E(CL_COMPILER_NOT_AVAILABLE)
    E(CL_MEM_OBJECT_ALLOCATION_FAILURE) E(CL_OUT_OF_RESOURCES) E(CL_OUT_OF_HOST_MEMORY)
    E(CL_BUILD_PROGRAM_FAILURE) E(CL_INVALID_VALUE) E(CL_INVALID_PLATFORM) E(CL_INVALID_DEVICE)
    E(CL_INVALID_CONTEXT) E(CL_INVALID_COMMAND_QUEUE) E(CL_INVALID_MEM_OBJECT) E(CL_INVALID_BINARY)
    E(CL_INVALID_BUILD_OPTIONS) E(CL_INVALID_PROGRAM) E(CL_INVALID_PROGRAM_EXECUTABLE)
    E(CL_INVALID_KERNEL_NAME) E(CL_INVALID_KERNEL) E(CL_INVALID_ARG_INDEX) E(CL_INVALID_ARG_VALUE)
    E(CL_INVALID_ARG_SIZE) E(CL_INVALID_KERNEL_ARGS) E(CL_INVALID_WORK_DIMENSION)
    E(CL_INVALID_WORK_GROUP_SIZE) E(CL_INVALID_WORK_ITEM_SIZE) E(CL_INVALID_GLOBAL_OFFSET)
    E(CL_INVALID_BUFFER_SIZE) E(CL_INVALID_GLOBAL_WORK_SIZE) E(CL_INVALID_OPERATION)
    E(CL_PLATFORM_NOT_FOUND_KHR) E(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
#undef E
    default: return "unknown OpenCL error";
  }
  // clang-format on
}

tt_status tt_cl_fail(tt_error *err, cl_int code, const char *what) {
  if (code == CL_MEM_OBJECT_ALLOCATION_FAILURE || code == CL_OUT_OF_RESOURCES || code == CL_OUT_OF_HOST_MEMORY)
    return tt_fail(err, TT_ERR_NOMEM, "out of device memory during %s (%s)", what, tt_cl_error_name(code));
  return tt_fail(err, TT_ERR_DEVICE, "OpenCL %s failed: %s (%d)", what, tt_cl_error_name(code), (int)code);
}

// ---- device choice ----------------------------------------------------------------

// Parses TTRACE_OPENCL_DEVICE="P:D" (platform and device index, as `ttrace devices` shows).
static void device_from_env(int *platform, int *device) {
  const char *s = getenv("TTRACE_OPENCL_DEVICE");
  if (!s || !*s) return;
  int p, d;
  if (sscanf(s, "%d:%d", &p, &d) == 2) {
    *platform = p;
    *device = d;
  } else if (sscanf(s, "%d", &p) == 1) {
    *platform = p;
  }
}

static tt_status pick_device(int want_p, int want_d, cl_platform_id *out_p, cl_device_id *out_d, tt_error *err) {
  cl_uint np = 0;
  cl_int rc = clGetPlatformIDs(0, NULL, &np);
  if (rc == CL_PLATFORM_NOT_FOUND_KHR || (rc == CL_SUCCESS && np == 0))
    return tt_fail(err, TT_ERR_DEVICE,
                   "no OpenCL platform found (install one, e.g. `apt-get install pocl-opencl-icd` for "
                   "OpenCL on the CPU, or your GPU vendor's OpenCL driver)");
  if (rc != CL_SUCCESS) return tt_cl_fail(err, rc, "clGetPlatformIDs");
  cl_platform_id plats[16];
  if (np > 16) np = 16;
  if ((rc = clGetPlatformIDs(np, plats, NULL)) != CL_SUCCESS) return tt_cl_fail(err, rc, "clGetPlatformIDs");
  if (want_p >= (int)np)
    return tt_fail(err, TT_ERR_ARG, "OpenCL platform %d does not exist (%u found; see `ttrace devices`)", want_p, np);
  if (want_p < 0 && want_d >= 0) want_p = 0;

  cl_uint p_lo = want_p < 0 ? 0 : (cl_uint)want_p, p_hi = want_p < 0 ? np : (cl_uint)want_p + 1;
  if (want_d >= 0) {
    cl_device_id devs[64];
    cl_uint nd = 0;
    rc = clGetDeviceIDs(plats[p_lo], CL_DEVICE_TYPE_ALL, 64, devs, &nd);
    if (rc != CL_SUCCESS && rc != CL_DEVICE_NOT_FOUND) return tt_cl_fail(err, rc, "clGetDeviceIDs");
    if (rc == CL_DEVICE_NOT_FOUND) nd = 0;
    if (want_d >= (int)nd)
      return tt_fail(err, TT_ERR_ARG, "OpenCL device %d does not exist on platform %u (%u found; see `ttrace devices`)",
                     want_d, p_lo, nd);
    *out_p = plats[p_lo];
    *out_d = devs[want_d];
    return TT_OK;
  }
  // The first GPU, else the first device of any kind.
  static const cl_device_type kinds[2] = {CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_ALL};
  for (int k = 0; k < 2; k++) {
    for (cl_uint p = p_lo; p < p_hi; p++) {
      cl_device_id dev;
      cl_uint nd = 0;
      rc = clGetDeviceIDs(plats[p], kinds[k], 1, &dev, &nd);
      if (rc == CL_SUCCESS && nd > 0) {
        *out_p = plats[p];
        *out_d = dev;
        return TT_OK;
      }
    }
  }
  if (want_p >= 0)
    return tt_fail(err, TT_ERR_DEVICE, "OpenCL platform %d has no devices (see `ttrace devices`)", want_p);
  return tt_fail(err, TT_ERR_DEVICE, "no OpenCL device found on %u platform%s (see `ttrace devices`)", np,
                 np == 1 ? "" : "s");
}

// ---- memory -------------------------------------------------------------------------

static tt_cl *impl(tt_backend *be) {
  return (tt_cl *)be->impl;
}

static tt_status cl_alloc(tt_backend *be, size_t n, tt_buf *out, tt_error *err) {
  tt_cl *cl = impl(be);
  size_t bytes = (n ? n : 1) * sizeof(float);
  if (n > SIZE_MAX / sizeof(float) || bytes > cl->max_alloc)
    return tt_fail(err, TT_ERR_NOMEM,
                   "out of device memory: a buffer of %.1f MiB is larger than the largest allocation %s "
                   "allows (%.1f MiB)",
                   (double)n * sizeof(float) / 1048576.0, cl->device_name, (double)cl->max_alloc / 1048576.0);
  if (bytes > cl->global_mem - cl->in_use)
    return tt_fail(
        err, TT_ERR_NOMEM, "out of device memory: %.1f MiB more does not fit on %s (%.1f of %.1f MiB in use)",
        (double)bytes / 1048576.0, cl->device_name, (double)cl->in_use / 1048576.0, (double)cl->global_mem / 1048576.0);
  cl_int rc;
  cl_mem m = clCreateBuffer(cl->ctx, CL_MEM_READ_WRITE, bytes, NULL, &rc);
  if (rc != CL_SUCCESS) {
    char what[96];
    snprintf(what, sizeof what, "allocation of %.1f MiB", (double)bytes / 1048576.0);
    return tt_cl_fail(err, rc, what);
  }
  // Touch the buffer so that drivers which allocate on first use fail here, not later.
  float zero = 0.0f;
  rc = clEnqueueWriteBuffer(cl->queue, m, CL_TRUE, bytes - sizeof(float), sizeof(float), &zero, 0, NULL, NULL);
  if (rc != CL_SUCCESS) {
    clReleaseMemObject(m);
    char what[96];
    snprintf(what, sizeof what, "allocation of %.1f MiB", (double)bytes / 1048576.0);
    return tt_cl_fail(err, rc, what);
  }
  cl->in_use += bytes;
  *out = (tt_buf){.handle = m, .n = n};
  return TT_OK;
}

static void cl_release(tt_backend *be, tt_buf *buf) {
  if (buf && buf->handle) {
    size_t bytes = 0;
    if (clGetMemObjectInfo((cl_mem)buf->handle, CL_MEM_SIZE, sizeof bytes, &bytes, NULL) == CL_SUCCESS &&
        bytes <= impl(be)->in_use)
      impl(be)->in_use -= bytes;
    clReleaseMemObject((cl_mem)buf->handle);
  }
  if (buf) *buf = (tt_buf){0};
}

// Checks that [offset, offset + n) floats lies inside the buffer's allocation.
static tt_status check_range(tt_buf b, size_t n, const char *what, tt_error *err) {
  if (!b.handle) return tt_fail(err, TT_ERR_ARG, "opencl %s: no buffer", what);
  size_t bytes = 0;
  cl_int rc = clGetMemObjectInfo((cl_mem)b.handle, CL_MEM_SIZE, sizeof bytes, &bytes, NULL);
  if (rc != CL_SUCCESS) return tt_cl_fail(err, rc, what);
  if (b.offset > bytes / sizeof(float) || n > bytes / sizeof(float) - b.offset)
    return tt_fail(err, TT_ERR_ARG, "opencl %s: %zu floats at offset %zu run past a buffer of %zu floats", what, n,
                   b.offset, bytes / sizeof(float));
  return TT_OK;
}

static tt_status cl_upload(tt_backend *be, tt_buf dst, const float *src, size_t n, tt_error *err) {
  if (n == 0) return TT_OK;
  tt_status st = check_range(dst, n, "upload", err);
  if (st != TT_OK) return st;
  cl_int rc = clEnqueueWriteBuffer(impl(be)->queue, (cl_mem)dst.handle, CL_TRUE, dst.offset * sizeof(float),
                                   n * sizeof(float), src, 0, NULL, NULL);
  return rc == CL_SUCCESS ? TT_OK : tt_cl_fail(err, rc, "upload");
}

static tt_status cl_download(tt_backend *be, tt_buf src, float *dst, size_t n, tt_error *err) {
  if (n == 0) return TT_OK;
  tt_status st = check_range(src, n, "download", err);
  if (st != TT_OK) return st;
  cl_int rc = clEnqueueReadBuffer(impl(be)->queue, (cl_mem)src.handle, CL_TRUE, src.offset * sizeof(float),
                                  n * sizeof(float), dst, 0, NULL, NULL);
  return rc == CL_SUCCESS ? TT_OK : tt_cl_fail(err, rc, "download");
}

static tt_status cl_finish(tt_backend *be, tt_error *err) {
  cl_int rc = clFinish(impl(be)->queue);
  return rc == CL_SUCCESS ? TT_OK : tt_cl_fail(err, rc, "clFinish");
}

static void cl_destroy(tt_backend *be) {
  if (!be) return;
  tt_cl *cl = impl(be);
  if (cl) {
    if (cl->queue) clFinish(cl->queue);
    if (cl->profile) {  // asked for with TTRACE_OPENCL_PROFILE; a diagnostic, so stderr
      fprintf(stderr, "ttrace: OpenCL device time per kernel on %s:\n", cl->device_name);
      for (int i = 0; i < TT_K_COUNT; i++)
        if (cl->prof_n[i])
          fprintf(stderr, "  %-18s %6ld launches %9.3f s\n", tt_cl_kernel_names[i], cl->prof_n[i], cl->prof_s[i]);
    }
    for (int i = 0; i < TT_K_COUNT; i++)
      if (cl->k[i]) clReleaseKernel(cl->k[i]);
    if (cl->ids) clReleaseMemObject(cl->ids);
    if (cl->program) clReleaseProgram(cl->program);
    if (cl->queue) clReleaseCommandQueue(cl->queue);
    if (cl->ctx) clReleaseContext(cl->ctx);
    free(cl);
  }
  free(be);
}

// ---- creation -----------------------------------------------------------------------

static void info_str(cl_device_id d, cl_device_info what, char *buf, size_t len) {
  buf[0] = 0;
  if (clGetDeviceInfo(d, what, len, buf, NULL) != CL_SUCCESS) snprintf(buf, len, "?");
  buf[len - 1] = 0;
}

tt_status tt_backend_opencl_create(int platform, int device, tt_backend **out, tt_error *err) {
  *out = NULL;
  if (platform < 0 && device < 0) device_from_env(&platform, &device);
  tt_backend *be = calloc(1, sizeof *be);
  tt_cl *cl = calloc(1, sizeof *cl);
  if (!be || !cl) {
    free(be);
    free(cl);
    return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  }
  be->impl = cl;
  be->name = "opencl";
  be->host_memory = false;
  be->destroy = cl_destroy;
  tt_status st = pick_device(platform, device, &cl->platform, &cl->device, err);
  if (st != TT_OK) goto fail;

  char pname[128];
  if (clGetPlatformInfo(cl->platform, CL_PLATFORM_NAME, sizeof pname, pname, NULL) != CL_SUCCESS)
    snprintf(pname, sizeof pname, "?");
  pname[sizeof pname - 1] = 0;
  info_str(cl->device, CL_DEVICE_NAME, cl->device_name, sizeof cl->device_name);
  info_str(cl->device, CL_DRIVER_VERSION, cl->driver, sizeof cl->driver);
  cl_uint cus = 0;
  clGetDeviceInfo(cl->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL);
  clGetDeviceInfo(cl->device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof cl->global_mem, &cl->global_mem, NULL);
  cl_ulong gmem = cl->global_mem;
  clGetDeviceInfo(cl->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof cl->max_alloc, &cl->max_alloc, NULL);
  clGetDeviceInfo(cl->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof cl->max_wg, &cl->max_wg, NULL);
  char desc[400];
  snprintf(desc, sizeof desc, "%s / %s (%u CUs, %llu MiB)", pname, cl->device_name, (unsigned)cus,
           (unsigned long long)(gmem >> 20));
  size_t dn = strlen(desc) < sizeof be->device ? strlen(desc) : sizeof be->device - 1;
  memcpy(be->device, desc, dn);
  be->device[dn] = 0;

  cl_int rc;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)cl->platform, 0};
  cl->ctx = clCreateContext(props, 1, &cl->device, NULL, NULL, &rc);
  if (rc != CL_SUCCESS) {
    st = tt_cl_fail(err, rc, "clCreateContext");
    goto fail;
  }
  const char *prof = getenv("TTRACE_OPENCL_PROFILE");
  cl->profile = prof && *prof && strcmp(prof, "0") != 0;
  cl->queue = clCreateCommandQueue(cl->ctx, cl->device, cl->profile ? CL_QUEUE_PROFILING_ENABLE : 0, &rc);  // in order
  if (rc != CL_SUCCESS) {
    st = tt_cl_fail(err, rc, "clCreateCommandQueue");
    goto fail;
  }
  if ((st = tt_cl_build(cl, err)) != TT_OK) goto fail;
  snprintf(be->note, sizeof be->note, "%s", cl->note);

  be->alloc = cl_alloc;
  be->release = cl_release;
  be->wrap = NULL;
  be->upload = cl_upload;
  be->download = cl_download;
  be->finish = cl_finish;
  tt_cl_install_ops(be);
  *out = be;
  return TT_OK;

fail:
  cl_destroy(be);
  return tt_fail_prefix(err, "opencl");
}
