// test_opencl_cache: the compiled-program cache. In a fresh $XDG_CACHE_HOME the first
// backend compiles and says so once; the second loads the binary silently; a corrupt
// cache file is rebuilt. Also: with no OpenCL platform (OCL_ICD_VENDORS pointing at an
// empty folder) creation fails with a clear message. Exits 77 only without a platform.
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "backend/backend.h"
#include "backend/opencl/opencl_devices.h"

static char tmp[256];

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

// Creates the default OpenCL backend with stderr captured into *text (malloc'd).
static tt_status create_captured(tt_backend **be, char **text, double *seconds, tt_error *err) {
  char path[300];
  snprintf(path, sizeof path, "%s/stderr.txt", tmp);
  fflush(stderr);
  int saved = dup(2), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  assert_true(saved >= 0 && fd >= 0);
  dup2(fd, 2);
  close(fd);
  double t0 = now_s();
  tt_status st = tt_backend_opencl_create(-1, -1, be, err);
  *seconds = now_s() - t0;
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  size_t len;
  tt_error e2;
  assert_int_equal(tt_read_file(path, text, &len, &e2), TT_OK);
  assert_int_equal(len, 0);  // the backend prints nothing: its remark is in be->note
  free(*text);
  *text = strdup(st == TT_OK ? (*be)->note : "");
  return st;
}

// The one .clbin file in tmp/ttrace (its path into buf); fails unless exactly one.
static void the_cache_file(char *buf, size_t len) {
  char dir[300];
  snprintf(dir, sizeof dir, "%s/ttrace", tmp);
  DIR *d = opendir(dir);
  assert_non_null(d);
  int count = 0;
  for (struct dirent *e; (e = readdir(d));) {
    size_t n = strlen(e->d_name);
    if (n > 6 && strcmp(e->d_name + n - 6, ".clbin") == 0) {
      snprintf(buf, len, "%s/%s", dir, e->d_name);
      count++;
    }
  }
  closedir(d);
  assert_int_equal(count, 1);
}

// A 3x2 · 2x2 product with bias through the backend, checked by hand.
static void small_matmul_works(tt_backend *be) {
  const float a[6] = {1, 2, 3, 4, 5, 6}, b[4] = {1, 0, 0, 1}, bias[2] = {10, 20};
  tt_error err;
  tt_buf da, db, dbias, dout;
  assert_int_equal(be->alloc(be, 6, &da, &err), TT_OK);
  assert_int_equal(be->alloc(be, 4, &db, &err), TT_OK);
  assert_int_equal(be->alloc(be, 2, &dbias, &err), TT_OK);
  assert_int_equal(be->alloc(be, 6, &dout, &err), TT_OK);
  assert_int_equal(be->upload(be, da, a, 6, &err), TT_OK);
  assert_int_equal(be->upload(be, db, b, 4, &err), TT_OK);
  assert_int_equal(be->upload(be, dbias, bias, 2, &err), TT_OK);
  assert_int_equal(be->matmul(be, dout, da, db, dbias, 3, 2, 2, false, &err), TT_OK);
  float out[6];
  assert_int_equal(be->download(be, dout, out, 6, &err), TT_OK);
  const float want[6] = {11, 22, 13, 24, 15, 26};
  assert_memory_equal(out, want, sizeof want);
  be->release(be, &da), be->release(be, &db), be->release(be, &dbias), be->release(be, &dout);
}

static void test_cache(void **state) {
  (void)state;
  tt_backend *be = NULL;
  tt_error err;
  char *text = NULL, file[600];
  double t_first, t_second, t_corrupt;

  // First run: compiles, says so once, writes one cache file.
  if (create_captured(&be, &text, &t_first, &err) != TT_OK) fail_msg("%s", err.msg);
  assert_non_null(strstr(text, "compiled OpenCL kernels for "));
  assert_non_null(strstr(text, "; cached"));
  assert_null(strstr(strstr(text, "compiled") + 1, "compiled"));
  free(text);
  small_matmul_works(be);
  tt_backend_destroy(be);
  the_cache_file(file, sizeof file);
  struct stat st;
  assert_int_equal(stat(file, &st), 0);
  assert_true(st.st_size > 64);

  // Second run: loads the binary, says nothing, and works.
  if (create_captured(&be, &text, &t_second, &err) != TT_OK) fail_msg("%s", err.msg);
  assert_null(strstr(text, "compiled"));
  free(text);
  small_matmul_works(be);
  tt_backend_destroy(be);

  // A corrupt cache file is replaced by a fresh compile.
  FILE *fp = fopen(file, "wb");
  assert_non_null(fp);
  fputs("not a program binary", fp);
  fclose(fp);
  if (create_captured(&be, &text, &t_corrupt, &err) != TT_OK) fail_msg("%s", err.msg);
  assert_non_null(strstr(text, "compiled OpenCL kernels for "));
  free(text);
  small_matmul_works(be);
  tt_backend_destroy(be);
  the_cache_file(file, sizeof file);
  assert_int_equal(stat(file, &st), 0);
  assert_true(st.st_size > 64);  // a program again (its size may differ: PoCL adds what it compiled since)

  printf("backend creation: first %.2f s (cold compile), second %.2f s (cached), after corruption %.2f s\n", t_first,
         t_second, t_corrupt);
}

static void test_no_platform(void **state) {
  (void)state;
  char empty[300];
  snprintf(empty, sizeof empty, "%s/no-icds", tmp);
  assert_int_equal(mkdir(empty, 0755), 0);
  setenv("OCL_ICD_VENDORS", empty, 1);
  tt_backend *be = NULL;
  tt_error err;
  // ocl-icd reads OCL_ICD_VENDORS once per process, so only check when it had not loaded
  // platforms yet; this test runs first.
  assert_int_equal(tt_backend_opencl_create(-1, -1, &be, &err), TT_ERR_DEVICE);
  assert_null(be);
  assert_non_null(strstr(err.msg, "no OpenCL platform found"));
  assert_non_null(strstr(err.msg, "pocl-opencl-icd"));
  tt_opencl_device_info *list = NULL;
  int n = -1;
  assert_int_equal(tt_opencl_list_devices(&list, &n, &err), TT_OK);
  assert_int_equal(n, 0);
  free(list);
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb, (void)flag, (void)ftw;
  return remove(path);
}

int main(int argc, char **argv) {
  snprintf(tmp, sizeof tmp, "/tmp/ttrace-clcache-XXXXXX");
  if (!mkdtemp(tmp)) return 1;
  setenv("XDG_CACHE_HOME", tmp, 1);  // a cold cache for ttrace and for PoCL's own kernel cache
  int rc;
  if (argc > 1 && strcmp(argv[1], "--no-platform") == 0) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_no_platform)};
    rc = cmocka_run_group_tests(tests, NULL, NULL);
  } else {
    cl_uint np = 0;
    if (clGetPlatformIDs(0, NULL, &np) != CL_SUCCESS || np == 0) {
      printf("skipped: no OpenCL platform on this machine (install pocl-opencl-icd for OpenCL on the CPU)\n");
      rc = 77;
    } else {
      const struct CMUnitTest tests[] = {cmocka_unit_test(test_cache)};
      rc = cmocka_run_group_tests(tests, NULL, NULL);
    }
  }
  nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  return rc;
}
