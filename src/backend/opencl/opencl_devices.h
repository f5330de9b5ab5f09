// opencl_devices: what OpenCL platforms and devices this machine has, for
// `ttrace devices`. Free of OpenCL headers so that the command line can include it.
#ifndef TT_OPENCL_DEVICES_H
#define TT_OPENCL_DEVICES_H

#include "core/core.h"

typedef struct {
  int platform, device;  // indices, as TTRACE_OPENCL_DEVICE=P:D takes them; device -1:
                         // a platform without devices
  char platform_name[128];
  char platform_version[128];  // "OpenCL 3.0 PoCL 3.1 ..."
  char name[128];
  char type[32];       // "GPU", "CPU", "accelerator", ...
  char version[128];   // CL_DEVICE_VERSION
  char c_version[64];  // CL_DEVICE_OPENCL_C_VERSION
  char driver[64];
  unsigned compute_units;
  uint64_t global_mem, max_alloc, local_mem;  // bytes
  size_t max_work_group;
  bool is_default;  // what tt_backend_opencl_create(-1, -1) picks (TTRACE_OPENCL_DEVICE aside)
} tt_opencl_device_info;

// Every device of every platform into a malloc'd array (*out, *n; free() it). No
// platform at all is not an error: *n = 0.
tt_status tt_opencl_list_devices(tt_opencl_device_info **out, int *n, tt_error *err);

#endif
