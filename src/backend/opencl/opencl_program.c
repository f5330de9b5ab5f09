// opencl_program: builds the kernels of kernels.cl for the chosen device and keeps the
// compiled program on disk, so that only the first run on a device pays for the compile.
//
// Cache: $XDG_CACHE_HOME/ttrace (else ~/.cache/ttrace), one file per device name, driver
// version and hash of (source, build options). A file that does not load or build is
// replaced by a fresh compile.
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "opencl_internal.h"
#include "opencl_kernels.h"  // tt_opencl_kernel_lines, generated from kernels.cl

const char *const tt_cl_kernel_names[TT_K_COUNT] = {
    "tt_gemm_nn", "tt_gemm_nt",     "tt_gemm_nn_small", "tt_gemm_nt_small", "tt_embed",       "tt_add",
    "tt_scale",   "tt_causal_mask", "tt_activation",    "tt_split_heads",   "tt_merge_heads", "tt_softmax",
    "tt_norm",    "tt_nll",         "tt_mul",           "tt_rope",          "tt_alibi",       "tt_unmerge_heads",
};

// Each kernel's arguments, for warm_up: b buffer, o its offset (ulong), u ulong, i int,
// f float. Keep in step with kernels.cl.
static const char *const kernel_args[TT_K_COUNT] = {
    "bobobobo"
    "iiifi",
    "bobobobo"
    "iiifi",
    "bobobobo"
    "iiifi",
    "bobobobo"
    "iiifi",
    "bobobii",
    "bobobou",
    "bobofu",
    "boboii",
    "boboui",
    "bobobobo"
    "iii",
    "boboiii",
    "boboi",
    "bobobobobobobo"
    "ifi",
    "bobobi",
    "bobobou",
    "boboboiii",
    "boboii",
    "boboiii",
};

// Copies src into dst (len bytes), cutting it short when it does not fit.
static void copy_str(char *dst, size_t len, const char *src) {
  size_t n = strlen(src);
  if (n >= len) n = len - 1;
  memcpy(dst, src, n);
  dst[n] = 0;
}

// Keeps letters, digits, '.', '-'; everything else becomes '_' (runs collapsed).
static void sanitize(const char *in, char *out, size_t len) {
  size_t o = 0;
  for (; *in && o + 1 < len; in++) {
    char c = *in;
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-';
    if (!ok) {
      if (o > 0 && out[o - 1] == '_') continue;
      c = '_';
    }
    out[o++] = c;
  }
  out[o] = 0;
}

// The cache folder, created if needed; false when there is no usable place.
static bool cache_dir(char *buf, size_t len) {
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  char base[1024];
  if (xdg && *xdg)
    snprintf(base, sizeof base, "%s", xdg);
  else if (home && *home)
    snprintf(base, sizeof base, "%s/.cache", home);
  else
    return false;
  mkdir(base, 0755);  // ~/.cache may not exist yet; the next mkdir reports real failures
  if ((size_t)snprintf(buf, len, "%s/ttrace", base) >= len) return false;
  return mkdir(buf, 0755) == 0 || errno == EEXIST;
}

static tt_status create_kernels(tt_cl *cl, tt_error *err) {
  for (int i = 0; i < TT_K_COUNT; i++) {
    cl_int rc;
    cl->k[i] = clCreateKernel(cl->program, tt_cl_kernel_names[i], &rc);
    if (rc != CL_SUCCESS) {
      char what[96];
      snprintf(what, sizeof what, "clCreateKernel(%s)", tt_cl_kernel_names[i]);
      return tt_cl_fail(err, rc, what);
    }
  }
  return TT_OK;
}

// Runs every kernel once on a scratch buffer with every size 1 (ids 0, offsets 0), so that
// drivers which compile each kernel at its first launch (PoCL) do it now: the compile
// message covers that time, and PoCL's binary then includes it.
static void warm_up(tt_cl *cl) {
  cl_int rc;
  cl_mem scratch = clCreateBuffer(cl->ctx, CL_MEM_READ_WRITE, 64 * sizeof(float), NULL, &rc);
  if (rc != CL_SUCCESS) return;
  static const float zeros[64];
  clEnqueueWriteBuffer(cl->queue, scratch, CL_TRUE, 0, sizeof zeros, zeros, 0, NULL, NULL);
  for (int k = 0; k < TT_K_COUNT; k++) {
    const cl_ulong off = 0, one_u = 1;
    const int one_i = 1;
    const float one_f = 1.0f;
    cl_uint a = 0;
    rc = CL_SUCCESS;
    for (const char *t = kernel_args[k]; *t && rc == CL_SUCCESS; t++, a++) {
      if (*t == 'b') rc = clSetKernelArg(cl->k[k], a, sizeof scratch, &scratch);
      if (*t == 'o') rc = clSetKernelArg(cl->k[k], a, sizeof off, &off);
      if (*t == 'u') rc = clSetKernelArg(cl->k[k], a, sizeof one_u, &one_u);
      if (*t == 'i') rc = clSetKernelArg(cl->k[k], a, sizeof one_i, &one_i);
      if (*t == 'f') rc = clSetKernelArg(cl->k[k], a, sizeof one_f, &one_f);
    }
    if (rc != CL_SUCCESS) continue;
    bool gemm = k <= TT_K_GEMM_NT_SMALL;
    bool rows = k == TT_K_SOFTMAX || k == TT_K_NORM || k == TT_K_NLL;
    size_t local[3] = {gemm ? (size_t)cl->ts : rows ? (size_t)cl->rw : cl->ew, gemm ? (size_t)cl->ts : 1, 1};
    cl_uint dims = gemm ? 3 : k == TT_K_CAUSAL_MASK ? 2 : 1;
    clEnqueueNDRangeKernel(cl->queue, cl->k[k], dims, NULL, local, local, 0, NULL, NULL);
  }
  clFinish(cl->queue);
  clReleaseMemObject(scratch);
}

static void drop_program(tt_cl *cl) {
  for (int i = 0; i < TT_K_COUNT; i++)
    if (cl->k[i]) clReleaseKernel(cl->k[i]);
  memset(cl->k, 0, sizeof cl->k);
  if (cl->program) clReleaseProgram(cl->program);
  cl->program = NULL;
}

static bool load_cached(tt_cl *cl, const char *path, const char *options) {
  char *bin = NULL;
  size_t len = 0;
  tt_error ignored;
  if (tt_read_file(path, &bin, &len, &ignored) != TT_OK) return false;
  const unsigned char *p = (const unsigned char *)bin;
  cl_int rc, bin_rc;
  cl->program = clCreateProgramWithBinary(cl->ctx, 1, &cl->device, &len, &p, &bin_rc, &rc);
  free(bin);
  if (rc != CL_SUCCESS || bin_rc != CL_SUCCESS ||
      clBuildProgram(cl->program, 1, &cl->device, options, NULL, NULL) != CL_SUCCESS ||
      create_kernels(cl, &ignored) != TT_OK) {
    drop_program(cl);
    return false;
  }
  return true;
}

// Writes the program binary; returns false (with a reason in why) when it could not.
static bool save_cached(tt_cl *cl, const char *path, char *why, size_t why_len) {
  size_t size = 0;
  if (clGetProgramInfo(cl->program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS || size == 0) {
    snprintf(why, why_len, "the driver gives no program binary");
    return false;
  }
  unsigned char *bin = malloc(size);
  if (!bin) {
    snprintf(why, why_len, "out of memory");
    return false;
  }
  if (clGetProgramInfo(cl->program, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) != CL_SUCCESS) {
    free(bin);
    snprintf(why, why_len, "the driver gives no program binary");
    return false;
  }
  tt_atomic_file af;
  tt_error e;
  bool ok = tt_atomic_open(&af, path, &e) == TT_OK;
  if (ok) {
    ok = fwrite(bin, 1, size, af.fp) == size;
    if (ok)
      ok = tt_atomic_commit(&af, &e) == TT_OK;
    else {
      tt_atomic_abort(&af);
      copy_str(e.msg, sizeof e.msg, "cannot write the cache file");
    }
  }
  if (!ok) copy_str(why, why_len, e.msg);
  free(bin);
  return ok;
}

// The build log, trimmed to fit an error message.
static void build_log(tt_cl *cl, char *buf, size_t len) {
  size_t n = 0;
  buf[0] = 0;
  if (clGetProgramBuildInfo(cl->program, cl->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) != CL_SUCCESS || n == 0) return;
  char *log = malloc(n + 1);
  if (!log) return;
  if (clGetProgramBuildInfo(cl->program, cl->device, CL_PROGRAM_BUILD_LOG, n, log, NULL) == CL_SUCCESS) {
    log[n] = 0;
    copy_str(buf, len, log);
  }
  free(log);
}

static size_t pow2_at_most(size_t n, size_t cap) {
  size_t p = 1;
  while (p * 2 <= n && p * 2 <= cap) p *= 2;
  return p;
}

tt_status tt_cl_build(tt_cl *cl, tt_error *err) {
  // Launch geometry. GPUs: matmul 16x16 work-items, each 4 rows x float4 of out (64x64
  // tiles); row reductions 256 wide. CPUs (PoCL): matmul 4x4 work-items, each 32 rows x
  // float16 (128x64 tiles), reductions 4 wide: PoCL turns the long vectors into SIMD
  // code, and that measured ~5x (matmul) to ~15x (softmax) faster there than the GPU shape.
  // TTRACE_OPENCL_TILES=cpu|gpu|gpu8 forces one shape (the tests run each on PoCL).
  cl_device_type type = 0;
  clGetDeviceInfo(cl->device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
  const char *force = getenv("TTRACE_OPENCL_TILES");
  bool cpu = force && *force ? strcmp(force, "cpu") == 0 : (type & CL_DEVICE_TYPE_CPU) != 0;
  bool small_groups = cl->max_wg < 256 || (force && strcmp(force, "gpu8") == 0);
  if (cpu) {
    cl->ts = 4, cl->wpt = 32, cl->vw = 16, cl->rw = 4;
  } else {
    cl->ts = small_groups ? 8 : 16, cl->wpt = 4, cl->vw = 4;
    cl->rw = (int)pow2_at_most(cl->max_wg, small_groups ? 64 : 256);
  }
  cl->tk = 16;
  cl->ew = pow2_at_most(cl->max_wg, 256);
  char options[256];
  snprintf(options, sizeof options, "-cl-std=CL1.2 -DTT_TS=%d -DTT_WPT=%d -DTT_VW=%d -DTT_TK=%d -DTT_RW=%d", cl->ts,
           cl->wpt, cl->vw, cl->tk, cl->rw);

  uint64_t h = TT_FNV1A64_BASIS;
  for (unsigned i = 0; i < tt_opencl_kernel_n_lines; i++)
    h = tt_fnv1a64(h, tt_opencl_kernel_lines[i], strlen(tt_opencl_kernel_lines[i]));
  h = tt_fnv1a64(h, options, strlen(options));
  char dir[1024], path[1400], dev[96], drv[48];
  sanitize(cl->device_name, dev, sizeof dev);
  sanitize(cl->driver, drv, sizeof drv);
  bool have_dir = cache_dir(dir, sizeof dir);
  if (have_dir) {
    snprintf(path, sizeof path, "%s/%s-%s-%016llx.clbin", dir, dev, drv, (unsigned long long)h);
    if (load_cached(cl, path, options)) return TT_OK;
  }

  double t0 = tt_now_seconds();
  cl_int rc;
  cl->program = clCreateProgramWithSource(cl->ctx, tt_opencl_kernel_n_lines, tt_opencl_kernel_lines, NULL, &rc);
  if (rc != CL_SUCCESS) return tt_cl_fail(err, rc, "clCreateProgramWithSource");
  rc = clBuildProgram(cl->program, 1, &cl->device, options, NULL, NULL);
  if (rc == CL_BUILD_PROGRAM_FAILURE) {
    char log[900];
    build_log(cl, log, sizeof log);
    return tt_fail(err, TT_ERR_DEVICE, "the OpenCL kernels failed to build for %s; build log:\n%s", cl->device_name,
                   log[0] ? log : "(empty)");
  }
  if (rc != CL_SUCCESS) return tt_cl_fail(err, rc, "clBuildProgram");
  tt_status st = create_kernels(cl, err);
  if (st != TT_OK) return st;
  warm_up(cl);
  char why[512] = "no cache folder ($XDG_CACHE_HOME and $HOME are unset or unwritable)";
  bool saved = have_dir && save_cached(cl, path, why, sizeof why);
  double dt = tt_now_seconds() - t0;
  if (saved)
    snprintf(cl->note, sizeof cl->note, "compiled OpenCL kernels for %s (%.1f s); cached", cl->device_name, dt);
  else
    snprintf(cl->note, sizeof cl->note, "compiled OpenCL kernels for %s (%.1f s); not cached: %.300s", cl->device_name,
             dt, why);
  return TT_OK;
}
