// safetensors: write → read round trips, and every kind of malformed file rejected clearly.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>

#include "safetensors/safetensors.h"

static char dir[] = "/tmp/tt_st_XXXXXX";

static void path_in(char *buf, const char *name) { snprintf(buf, 512, "%s/%s", dir, name); }

// Writes raw bytes: an 8-byte little-endian length, the header text, then data bytes.
static void write_raw(const char *path, const char *header, const void *data, size_t data_len, int64_t fake_len) {
  FILE *fp = fopen(path, "wb");
  uint64_t n = fake_len >= 0 ? (uint64_t)fake_len : strlen(header);
  for (int i = 0; i < 8; i++) fputc((int)((n >> (8 * i)) & 0xff), fp);
  fputs(header, fp);
  if (data_len) fwrite(data, 1, data_len, fp);
  fclose(fp);
}

static void test_round_trip(void **state) {
  (void)state;
  float a[6] = {1, -2, 3.5f, 0, 1e-7f, -1e7f};
  int32_t ids[3] = {464, 6193, 318};
  uint16_t h[2] = {tt_f32_to_f16(1.5f), tt_f32_to_f16(-0.25f)};
  tt_tensor ts[3] = {{"a", TT_F32, 2, {2, 3}, a}, {"ids", TT_I32, 1, {3}, ids}, {"half", TT_F16, 1, {2}, h}};
  tt_st_meta meta[2] = {{"format", "test"}, {"prompt", "The weather is nice ☀"}};
  char path[512];
  path_in(path, "rt.safetensors");
  tt_error err = {0};
  assert_int_equal(tt_st_write(path, ts, 3, meta, 2, &err), TT_OK);
  tt_st_file *f = NULL;
  assert_int_equal(tt_st_open(path, &f, &err), TT_OK);
  assert_int_equal(tt_st_count(f), 3);
  for (int i = 0; i < 3; i++) {  // data order is write order
    const tt_tensor *t = tt_st_get(f, (size_t)i);
    assert_string_equal(t->name, ts[i].name);
    assert_int_equal(t->dtype, ts[i].dtype);
    assert_int_equal(t->ndim, ts[i].ndim);
    assert_memory_equal(t->data, ts[i].data, tt_tensor_nbytes(&ts[i]));
    assert_int_equal((uintptr_t)t->data % 4, 0);
  }
  assert_string_equal(tt_st_metadata(f, "prompt"), "The weather is nice ☀");
  assert_null(tt_st_metadata(f, "missing"));
  assert_null(tt_st_find(f, "nope"));
  assert_float_equal(tt_f16_to_f32(((const uint16_t *)tt_st_find(f, "half")->data)[0]), 1.5f, 0);
  tt_st_close(f);
}

static void expect_error(const char *header, const void *data, size_t len, int64_t fake_len, tt_status want,
                         const char *fragment) {
  char path[512];
  path_in(path, "bad.safetensors");
  write_raw(path, header, data, len, fake_len);
  tt_st_file *f = NULL;
  tt_error err = {0};
  tt_status st = tt_st_open(path, &f, &err);
  if (st != want || !strstr(err.msg, fragment)) fail_msg("got %d '%s', wanted %d containing '%s'", st, err.msg, want, fragment);
  assert_null(f);
  assert_null(strchr(err.msg, '\n'));
}

static void test_bad_files(void **state) {
  (void)state;
  float d[4] = {0};
  expect_error("{}", NULL, 0, 1000, TT_ERR_FORMAT, "runs past the end");
  expect_error("{\"a\": ", NULL, 0, -1, TT_ERR_FORMAT, "not valid JSON");
  expect_error("[1,2]", NULL, 0, -1, TT_ERR_FORMAT, "not a JSON object");
  expect_error("{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}", d, 8, -1, TT_ERR_FORMAT,
               "past the end");
  expect_error("{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,16]}}", d, 16, -1, TT_ERR_FORMAT,
               "need 12");
  expect_error("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
               "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}",
               d, 16, -1, TT_ERR_FORMAT, "overlap");
  expect_error("{\"a\":{\"dtype\":\"Q4\",\"shape\":[2],\"data_offsets\":[0,8]}}", d, 8, -1, TT_ERR_UNSUPPORTED, "Q4");
  expect_error("{\"a\":{\"dtype\":\"F32\",\"shape\":[2]}}", d, 8, -1, TT_ERR_FORMAT, "data_offsets");
  expect_error("{\"a\":{\"dtype\":\"F32\",\"shape\":[-2],\"data_offsets\":[0,8]}}", d, 8, -1, TT_ERR_FORMAT, "shape");
  expect_error("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,0]}}", d, 8, -1, TT_ERR_FORMAT,
               "data_offsets");
  expect_error("{\"__metadata__\":{\"k\":3}}", NULL, 0, -1, TT_ERR_FORMAT, "not a string");
  char path[512];
  path_in(path, "short.safetensors");
  FILE *fp = fopen(path, "wb");
  fputs("abc", fp);
  fclose(fp);
  tt_st_file *f = NULL;
  tt_error err = {0};
  assert_int_equal(tt_st_open(path, &f, &err), TT_ERR_FORMAT);
  path_in(path, "missing.safetensors");
  assert_int_equal(tt_st_open(path, &f, &err), TT_ERR_IO);
  assert_non_null(strstr(err.msg, "missing.safetensors"));
}

// Every dtype of the format opens (a model file may carry a BOOL mask buffer beside its weights).
static void test_all_format_dtypes(void **state) {
  (void)state;
  unsigned char d[16] = {0};
  char path[512];
  path_in(path, "dtypes.safetensors");
  write_raw(path,
            "{\"m\":{\"dtype\":\"BOOL\",\"shape\":[2,2],\"data_offsets\":[0,4]},"
            "\"d\":{\"dtype\":\"F64\",\"shape\":[1],\"data_offsets\":[8,16]},"
            "\"e\":{\"dtype\":\"F8_E4M3\",\"shape\":[4],\"data_offsets\":[4,8]}}",
            d, 16, -1);
  tt_st_file *f = NULL;
  tt_error err = {0};
  if (tt_st_open(path, &f, &err)) fail_msg("%s", err.msg);
  assert_int_equal(tt_st_find(f, "m")->dtype, TT_BOOL);
  assert_int_equal(tt_st_find(f, "d")->dtype, TT_F64);
  tt_st_close(f);
}

static void test_atomic_write_failure(void **state) {
  (void)state;
  float a[1] = {1};
  tt_tensor t = {"a", TT_F32, 1, {1}, a};
  tt_error err = {0};
  assert_int_equal(tt_st_write("/nonexistent-dir/x.safetensors", &t, 1, NULL, 0, &err), TT_ERR_IO);
  assert_non_null(strstr(err.msg, "/nonexistent-dir/x.safetensors"));
  tt_tensor twice[2] = {t, t};
  char path[512];
  path_in(path, "twice.safetensors");
  assert_int_equal(tt_st_write(path, twice, 2, NULL, 0, &err), TT_ERR_ARG);
  assert_int_equal(access(path, F_OK), -1);
}

static void test_f16_conversion(void **state) {
  (void)state;
  const float values[] = {0.0f, -0.0f, 1.0f, -2.5f, 65504.0f, 6.103515625e-05f, 5.9604644775390625e-08f, 0.1f, 3.14159f};
  for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
    float back = tt_f16_to_f32(tt_f32_to_f16(values[i]));
    float tol = values[i] == 0 ? 0 : fabsf(values[i]) * 1e-3f;
    assert_true(fabsf(back - values[i]) <= tol);
  }
  assert_int_equal(tt_f32_to_f16(1e6f), 0x7c00);  // overflow to inf
  assert_float_equal(tt_bf16_to_f32(0x3fc0), 1.5f, 0);
}

int main(void) {
  if (!mkdtemp(dir)) return 1;
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_round_trip), cmocka_unit_test(test_bad_files),
                                     cmocka_unit_test(test_all_format_dtypes),
                                     cmocka_unit_test(test_atomic_write_failure), cmocka_unit_test(test_f16_conversion)};
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd)) return 1;
  return rc;
}
