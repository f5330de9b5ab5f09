// opencl_devices: lists the OpenCL platforms and devices (see opencl_devices.h).
#include <stdlib.h>
#include <string.h>

#include "opencl_devices.h"
#include "opencl_internal.h"

static void dev_str(cl_device_id d, cl_device_info what, char *buf, size_t len) {
  if (clGetDeviceInfo(d, what, len, buf, NULL) != CL_SUCCESS) snprintf(buf, len, "?");
  buf[len - 1] = 0;
}

static const char *type_name(cl_device_type t) {
  if (t & CL_DEVICE_TYPE_GPU) return "GPU";
  if (t & CL_DEVICE_TYPE_CPU) return "CPU";
  if (t & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  if (t & CL_DEVICE_TYPE_CUSTOM) return "custom";
  return "other";
}

tt_status tt_opencl_list_devices(tt_opencl_device_info **out, int *n, tt_error *err) {
  *out = NULL;
  *n = 0;
  cl_uint np = 0;
  cl_int rc = clGetPlatformIDs(0, NULL, &np);
  if (rc == CL_PLATFORM_NOT_FOUND_KHR || (rc == CL_SUCCESS && np == 0)) return TT_OK;
  if (rc != CL_SUCCESS) return tt_cl_fail(err, rc, "clGetPlatformIDs");
  cl_platform_id plats[16];
  if (np > 16) np = 16;
  if ((rc = clGetPlatformIDs(np, plats, NULL)) != CL_SUCCESS) return tt_cl_fail(err, rc, "clGetPlatformIDs");

  int cap = 8, count = 0;
  tt_opencl_device_info *list = malloc((size_t)cap * sizeof *list);
  if (!list) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  for (cl_uint p = 0; p < np; p++) {
    cl_device_id devs[64];
    cl_uint nd = 0;
    rc = clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 64, devs, &nd);
    if (rc != CL_SUCCESS) nd = 0;
    for (cl_uint d = 0; d < (nd ? nd : 1); d++) {
      if (count == cap) {
        cap *= 2;
        tt_opencl_device_info *bigger = realloc(list, (size_t)cap * sizeof *list);
        if (!bigger) {
          free(list);
          return tt_fail(err, TT_ERR_NOMEM, "out of memory");
        }
        list = bigger;
      }
      tt_opencl_device_info *info = &list[count++];
      memset(info, 0, sizeof *info);
      info->platform = (int)p;
      info->device = nd ? (int)d : -1;
      if (clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof info->platform_name, info->platform_name, NULL) !=
          CL_SUCCESS)
        snprintf(info->platform_name, sizeof info->platform_name, "?");
      if (clGetPlatformInfo(plats[p], CL_PLATFORM_VERSION, sizeof info->platform_version, info->platform_version,
                            NULL) != CL_SUCCESS)
        snprintf(info->platform_version, sizeof info->platform_version, "?");
      info->platform_name[sizeof info->platform_name - 1] = 0;
      info->platform_version[sizeof info->platform_version - 1] = 0;
      if (!nd) continue;
      cl_device_id dev = devs[d];
      dev_str(dev, CL_DEVICE_NAME, info->name, sizeof info->name);
      dev_str(dev, CL_DEVICE_VERSION, info->version, sizeof info->version);
      dev_str(dev, CL_DEVICE_OPENCL_C_VERSION, info->c_version, sizeof info->c_version);
      dev_str(dev, CL_DRIVER_VERSION, info->driver, sizeof info->driver);
      cl_device_type type = 0;
      cl_uint cus = 0;
      cl_ulong gmem = 0, amem = 0, lmem = 0;
      clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);
      clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL);
      clGetDeviceInfo(dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof gmem, &gmem, NULL);
      clGetDeviceInfo(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof amem, &amem, NULL);
      clGetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof lmem, &lmem, NULL);
      clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof info->max_work_group, &info->max_work_group, NULL);
      snprintf(info->type, sizeof info->type, "%s", type_name(type));
      info->compute_units = cus;
      info->global_mem = gmem;
      info->max_alloc = amem;
      info->local_mem = lmem;
    }
  }
  // The default: the first GPU, else the first device (as tt_backend_opencl_create).
  int def = -1;
  for (int i = 0; i < count && def < 0; i++)
    if (list[i].device >= 0 && strcmp(list[i].type, "GPU") == 0) def = i;
  for (int i = 0; i < count && def < 0; i++)
    if (list[i].device >= 0) def = i;
  if (def >= 0) list[def].is_default = true;
  *out = list;
  *n = count;
  return TT_OK;
}
