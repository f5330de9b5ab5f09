// opencl_internal: what the OpenCL backend's files share (not a public header).
#ifndef TT_OPENCL_INTERNAL_H
#define TT_OPENCL_INTERNAL_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#ifndef CL_PLATFORM_NOT_FOUND_KHR  // cl_khr_icd: the loader found no platform
#define CL_PLATFORM_NOT_FOUND_KHR -1001
#endif

#include "backend/backend.h"

// The kernels, in the order of tt_cl_kernel_names[].
enum {
  TT_K_GEMM_NN,
  TT_K_GEMM_NT,
  TT_K_GEMM_NN_SMALL,
  TT_K_GEMM_NT_SMALL,
  TT_K_EMBED,
  TT_K_ADD,
  TT_K_SCALE,
  TT_K_CAUSAL_MASK,
  TT_K_ACTIVATION,
  TT_K_SPLIT_HEADS,
  TT_K_MERGE_HEADS,
  TT_K_SOFTMAX,
  TT_K_NORM,
  TT_K_NLL,
  TT_K_MUL,
  TT_K_ROPE,
  TT_K_ALIBI,
  TT_K_UNMERGE_HEADS,
  TT_K_COUNT
};
extern const char *const tt_cl_kernel_names[TT_K_COUNT];

typedef struct {
  cl_platform_id platform;
  cl_device_id device;
  cl_context ctx;
  cl_command_queue queue;
  cl_program program;
  cl_kernel k[TT_K_COUNT];
  char device_name[128];  // CL_DEVICE_NAME
  char note[512];         // set when the kernels were compiled rather than loaded from the cache
  char driver[64];        // CL_DRIVER_VERSION
  cl_ulong max_alloc;     // bytes, CL_DEVICE_MAX_MEM_ALLOC_SIZE
  cl_ulong global_mem;    // bytes, CL_DEVICE_GLOBAL_MEM_SIZE
  cl_ulong in_use;        // bytes held by buffers from alloc (drivers such as PoCL
                          // overcommit, so the backend keeps the count itself)
  size_t max_wg;          // CL_DEVICE_MAX_WORK_GROUP_SIZE
  // Launch geometry, baked into the program with -D (see kernels.cl).
  int ts, wpt, vw, tk, rw;
  size_t ew;  // work-group size of the element-wise kernels
  // TTRACE_OPENCL_PROFILE=1: device time per kernel, printed on stderr at destroy.
  bool profile;
  double prof_s[TT_K_COUNT];
  long prof_n[TT_K_COUNT];
  // Token ids for embed and nll: a small device buffer, grown only when needed.
  cl_mem ids;
  size_t ids_cap;  // in int32s
} tt_cl;

// "CL_OUT_OF_RESOURCES" for -5, and so on.
const char *tt_cl_error_name(cl_int code);
// Fills err for a failed OpenCL call: TT_ERR_NOMEM with "out of device memory" for
// allocation failures, TT_ERR_DEVICE otherwise. `what` names the operation.
tt_status tt_cl_fail(tt_error *err, cl_int code, const char *what);

// Builds cl->program (from the disk cache when it holds a binary for this device, driver
// and source) and creates cl->k[]. Reports a fresh compile once on stderr.
tt_status tt_cl_build(tt_cl *cl, tt_error *err);

// Fills be's op pointers (opencl_ops.c).
void tt_cl_install_ops(tt_backend *be);

#endif
