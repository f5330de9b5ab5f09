// cmd_devices: `ttrace devices` lists the OpenCL platforms and devices this machine has.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build_config.h"
#include "cli.h"
#if TT_HAVE_OPENCL
#include "backend/opencl/opencl_devices.h"
#endif

static void usage(FILE *out) {
  fprintf(out,
          "usage: ttrace devices\n\n"
          "Lists the OpenCL platforms and devices: type, compute units, memory, largest work-group\n"
          "and OpenCL version. `-b opencl` uses the device marked [default] (the first GPU, else\n"
          "the first device); set TTRACE_OPENCL_DEVICE=P:D to pick platform P, device D instead.\n"
          "With no OpenCL platform installed it says so and exits 0.\n");
}

#if TT_HAVE_OPENCL
static void print_mib(const char *label, uint64_t bytes) {
  if (bytes >= (uint64_t)1 << 20)
    printf("%s %llu MiB", label, (unsigned long long)(bytes >> 20));
  else
    printf("%s %llu KiB", label, (unsigned long long)(bytes >> 10));
}
#endif

int tt_cmd_devices(int argc, char **argv) {
  if (tt_cli_wants_help(argc, argv)) {
    usage(stdout);
    return 0;
  }
  if (argc > 1) return tt_cli_usage_error("devices", "unexpected argument '%s'", argv[1]);
#if !TT_HAVE_OPENCL
  printf(
      "This build of ttrace has no OpenCL support: install ocl-icd-opencl-dev and opencl-headers,\n"
      "then set up the build again (meson setup --reconfigure).\n");
  return 0;
#else
  tt_opencl_device_info *list = NULL;
  int n = 0;
  tt_error err;
  if (tt_opencl_list_devices(&list, &n, &err) != TT_OK) return tt_cli_fail("devices", &err);
  if (n == 0) {
    printf(
        "No OpenCL platform found. For OpenCL on the CPU install PoCL\n"
        "(Debian/Ubuntu: sudo apt-get install pocl-opencl-icd); for a GPU, its vendor's OpenCL driver.\n"
        "Until then ttrace runs on OpenBLAS (`-b openblas`, and `-b auto` falls back to it).\n");
    free(list);
    return 0;
  }
  int last_platform = -1;
  for (int i = 0; i < n; i++) {
    const tt_opencl_device_info *d = &list[i];
    if (d->platform != last_platform) {
      printf("platform %d: %s (%s)\n", d->platform, d->platform_name, d->platform_version);
      last_platform = d->platform;
    }
    if (d->device < 0) {
      printf("  (no devices)\n");
      continue;
    }
    printf("  device %d:%d  %s%s\n", d->platform, d->device, d->name, d->is_default ? "  [default]" : "");
    printf("    type %s, %u compute units,", d->type, d->compute_units);
    print_mib(" global memory", d->global_mem);
    print_mib(" (largest buffer", d->max_alloc);
    print_mib("), local memory", d->local_mem);
    printf("\n    max work-group size %zu, %s, %s, driver %s\n", d->max_work_group, d->version, d->c_version,
           d->driver);
  }
  printf("Pick one with TTRACE_OPENCL_DEVICE=P:D (default: the first GPU, else the first device).\n");
  free(list);
  return 0;
#endif
}
