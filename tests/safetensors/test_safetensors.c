// safetensors: write → read round trips, and every kind of malformed file rejected clearly.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <dirent.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safetensors/safetensors.h"
#include <xxhash.h>

static char dir[] = "/tmp/tt_st_XXXXXX";

static void path_in(char *buf, const char *name) {
  snprintf(buf, 512, "%s/%s", dir, name);
}

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
  if (st != want || !strstr(err.msg, fragment))
    fail_msg("got %d '%s', wanted %d containing '%s'", st, err.msg, want, fragment);
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
  expect_error(
      "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
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
  // A metadata value that is not UTF-8 cannot be a JSON string: refused, not left out.
  tt_st_meta cut[2] = {{"format", "test"}, {"generated_text", "\xEC\x98"}};
  path_in(path, "cut.safetensors");
  assert_int_equal(tt_st_write(path, &t, 1, cut, 2, &err), TT_ERR_ARG);
  assert_non_null(strstr(err.msg, "metadata 'generated_text' is not valid UTF-8"));
  assert_int_equal(access(path, F_OK), -1);
}

// Shapes whose element count wraps around 2^64 (to 0 bytes) are refused, not accepted.
static void test_shape_overflow(void **state) {
  (void)state;
  const char *shapes[] = {"[4294967296,4294967296]", "[1099511627776,16777216]", "[16,1073741824,1073741824]",
                          "[0,4294967296,4294967296]", "[2305843009213693952]"};
  for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
    char header[256];
    snprintf(header, sizeof header, "{\"a\":{\"dtype\":\"F32\",\"shape\":%s,\"data_offsets\":[0,0]}}", shapes[i]);
    expect_error(header, NULL, 0, -1, TT_ERR_FORMAT, "larger than its 0 data bytes");
  }
  float d[4] = {0};
  expect_error("{\"a\":{\"dtype\":\"F64\",\"shape\":[2305843009213693952],\"data_offsets\":[0,16]}}", d, 16, -1,
               TT_ERR_FORMAT, "larger than");
}

// A tensor name twice, or __metadata__ twice, is refused (the last would silently win).
static void test_duplicates(void **state) {
  (void)state;
  float d[4] = {0};
  expect_error(
      "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
      "\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,16]}}",
      d, 16, -1, TT_ERR_FORMAT, "duplicate object key");
  expect_error("{\"__metadata__\":{\"k\":\"1\"},\"__metadata__\":{\"k\":\"2\"}}", NULL, 0, -1, TT_ERR_FORMAT,
               "duplicate object key");
}

// A name from the file with control bytes stays on one line, escaped, in the error.
static void test_error_escapes(void **state) {
  (void)state;
  float d[2] = {0};
  expect_error("{\"a\\n\\u001b[2Jb\":{\"dtype\":\"Q4\",\"shape\":[2],\"data_offsets\":[0,8]}}", d, 8, -1,
               TT_ERR_UNSUPPORTED, "tensor 'a\\n\\x1B[2Jb' has unsupported dtype Q4");
  char buf[64];
  assert_string_equal(tt_escape_text("x\ty\r\x7f\xc2\x9b\xff\xea\xb0\x80", buf, sizeof buf, false),
                      "x\\ty\\r\\x7F\\u009B\\xFF\xea\xb0\x80");
  assert_string_equal(tt_escape_text("line\nnext", buf, sizeof buf, true), "line\nnext");
  assert_string_equal(tt_escape_text("\x1b\x1b\x1b", buf, 9, false), "\\x1B\\x1B");  // cut before an escape
}

// A FIFO where a file should be is refused at once (opening it would block forever).
static void test_fifo_not_opened(void **state) {
  (void)state;
  char path[512];
  path_in(path, "fifo.safetensors");
  assert_int_equal(mkfifo(path, 0600), 0);
  tt_st_file *f = NULL;
  tt_error err = {0};
  alarm(10);  // a blocking open fails the test instead of hanging it
  assert_int_equal(tt_st_open(path, &f, &err), TT_ERR_IO);
  assert_non_null(strstr(err.msg, "a FIFO, not a regular file"));
  char *text = NULL;
  assert_int_equal(tt_read_file(path, &text, NULL, &err), TT_ERR_IO);
  assert_non_null(strstr(err.msg, "a FIFO"));
  assert_int_equal(tt_read_file("/dev/zero", &text, NULL, &err), TT_ERR_IO);
  assert_non_null(strstr(err.msg, "a character device"));
  alarm(0);
  unlink(path);
}

static int count_entries(const char *d) {
  DIR *dp = opendir(d);
  int n = 0;
  for (struct dirent *e; (e = readdir(dp));) n += e->d_name[0] != '.' || strncmp(e->d_name, ".ttrace-", 8) == 0;
  closedir(dp);
  return n;
}

static float one[1] = {1};
static const tt_tensor t_one = {"a", TT_F32, 1, {1}, one};

// -o PATH writes over regular files only: a FIFO, a device, a directory or a symlink to a
// directory is an error and stays as it was; a symlink to a file writes that file.
static void test_atomic_targets(void **state) {
  (void)state;
  char sub[512], path[600], link[600];
  path_in(sub, "targets");
  assert_int_equal(mkdir(sub, 0700), 0);
  tt_error err = {0};
  snprintf(path, sizeof path, "%s/fifo", sub);
  assert_int_equal(mkfifo(path, 0600), 0);
  assert_int_equal(tt_st_write(path, &t_one, 1, NULL, 0, &err), TT_ERR_IO);
  assert_non_null(strstr(err.msg, "it is a FIFO, not a regular file"));
  struct stat st;
  assert_int_equal(lstat(path, &st), 0);
  assert_true(S_ISFIFO(st.st_mode));
  assert_int_equal(tt_st_write("/dev/null", &t_one, 1, NULL, 0, &err), TT_ERR_IO);
  assert_non_null(strstr(err.msg, "a character device"));
  assert_int_equal(tt_st_write(sub, &t_one, 1, NULL, 0, &err), TT_ERR_IO);
  assert_non_null(strstr(err.msg, "a directory"));
  snprintf(link, sizeof link, "%s/to_dir", sub);
  assert_int_equal(symlink(sub, link), 0);
  assert_int_equal(tt_st_write(link, &t_one, 1, NULL, 0, &err), TT_ERR_IO);
  assert_non_null(strstr(err.msg, "a directory"));
  assert_int_equal(lstat(link, &st), 0);
  assert_true(S_ISLNK(st.st_mode));
  snprintf(path, sizeof path, "%s/real.safetensors", sub);
  snprintf(link, sizeof link, "%s/to_file", sub);
  assert_int_equal(symlink("real.safetensors", link), 0);
  assert_int_equal(tt_st_write(link, &t_one, 1, NULL, 0, &err), TT_ERR_IO);  // dangling
  assert_non_null(strstr(err.msg, "symbolic link to nothing"));
  FILE *fp = fopen(path, "w");
  fclose(fp);
  assert_int_equal(tt_st_write(link, &t_one, 1, NULL, 0, &err), TT_OK);
  assert_int_equal(lstat(link, &st), 0);
  assert_true(S_ISLNK(st.st_mode));  // the link stays; the file it names was written
  assert_int_equal(lstat(path, &st), 0);
  assert_true(S_ISREG(st.st_mode) && st.st_size > 8);
  assert_int_equal(count_entries(sub), 4);  // fifo, to_dir, to_file, real: no temporary file
}

// The target keeps its mode; a new file gets 0666 & ~umask; a 250-byte name works.
static void test_atomic_mode_and_long_name(void **state) {
  (void)state;
  char path[900];
  path_in(path, "mode.safetensors");
  tt_error err = {0};
  mode_t old = umask(022);
  assert_int_equal(tt_st_write(path, &t_one, 1, NULL, 0, &err), TT_OK);
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(st.st_mode & 07777, 0644);
  assert_int_equal(chmod(path, 0640), 0);
  assert_int_equal(tt_st_write(path, &t_one, 1, NULL, 0, &err), TT_OK);
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(st.st_mode & 07777, 0640);
  umask(old);
  char name[251];
  memset(name, 'n', 250);
  name[250] = 0;
  for (int pass = 0; pass < 2; pass++) {  // a new file, then over it
    path_in(path, name);
    if (tt_st_write(path, &t_one, 1, NULL, 0, &err)) fail_msg("%s", err.msg);
    tt_st_file *f = NULL;
    assert_int_equal(tt_st_open(path, &f, &err), TT_OK);
    tt_st_close(f);
  }
  unlink(path);
}

// Without O_TMPFILE (as on a filesystem that has none) the named temporary file is used:
// the same results, nothing left behind.
static void test_atomic_named_fallback(void **state) {
  char sub[512], path[600];
  path_in(sub, "named");
  assert_int_equal(mkdir(sub, 0700), 0);
  setenv("TTRACE_NO_O_TMPFILE", "1", 1);
  snprintf(path, sizeof path, "%s/x.safetensors", sub);
  tt_error err = {0};
  assert_int_equal(tt_st_write(path, &t_one, 1, NULL, 0, &err), TT_OK);
  assert_int_equal(tt_st_write(path, &t_one, 1, NULL, 0, &err), TT_OK);
  tt_atomic_file af;
  assert_int_equal(tt_atomic_open(&af, path, &err), TT_OK);
  assert_non_null(af.tmp_path);
  assert_int_equal(count_entries(sub), 2);
  tt_atomic_abort(&af);
  assert_int_equal(count_entries(sub), 1);
  unsetenv("TTRACE_NO_O_TMPFILE");
  assert_int_equal(tt_atomic_open(&af, path, &err), TT_OK);
  assert_null(af.tmp_path);  // unnamed: nothing in the folder until the commit
  assert_int_equal(count_entries(sub), 1);
  fputs("new", af.fp);
  assert_int_equal(tt_atomic_commit(&af, &err), TT_OK);
  char *text = NULL;
  assert_int_equal(tt_read_file(path, &text, NULL, &err), TT_OK);
  assert_string_equal(text, "new");
  free(text);
  assert_int_equal(count_entries(sub), 1);
  (void)state;
}

static void test_f16_conversion(void **state) {
  (void)state;
  const float values[] = {0.0f, -0.0f,   1.0f, -2.5f, 65504.0f, 6.103515625e-05f, 5.9604644775390625e-08f,
                          0.1f, 3.14159f};
  for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
    float back = tt_f16_to_f32(tt_f32_to_f16(values[i]));
    float tol = values[i] == 0 ? 0 : fabsf(values[i]) * 1e-3f;
    assert_true(fabsf(back - values[i]) <= tol);
  }
  assert_int_equal(tt_f32_to_f16(1e6f), 0x7c00);  // overflow to inf
  assert_float_equal(tt_bf16_to_f32(0x3fc0), 1.5f, 0);
}

// The data's hash in every written file (a caller's stale one replaced), the identity of a
// file by its header, a changed data byte caught when verified, and a file without the
// hash known by all its bytes.
static void hex_of(XXH64_hash_t h, char out[17]) {
  snprintf(out, 17, "%016llx", (unsigned long long)h);
}

static unsigned char *slurp(const char *path, size_t *len) {
  FILE *fp = fopen(path, "rb");
  fseek(fp, 0, SEEK_END);
  *len = (size_t)ftell(fp);
  rewind(fp);
  unsigned char *b = malloc(*len);
  assert_int_equal(fread(b, 1, *len, fp), *len);
  fclose(fp);
  return b;
}

static void test_data_hash(void **state) {
  (void)state;
  float a[5] = {1, 2, 3, 4, 5};
  tt_tensor t = {"a", TT_F32, 1, {5}, a};
  tt_st_meta stale[1] = {{TT_ST_DATA_HASH_KEY, "0123456789abcdef"}};
  char path[512], want[17], got[17];
  path_in(path, "hash.safetensors");
  tt_error err = {0};
  assert_int_equal(tt_st_write(path, &t, 1, stale, 1, &err), TT_OK);
  size_t len;
  unsigned char *b = slurp(path, &len);
  size_t head = 8;
  for (int i = 0; i < 8; i++) head += (size_t)b[i] << (8 * i);
  assert_int_equal(len - head, sizeof a);
  tt_st_file *f = NULL;
  assert_int_equal(tt_st_open(path, &f, &err), TT_OK);
  hex_of(XXH3_64bits(b + head, len - head), want);
  assert_string_equal(tt_st_metadata(f, TT_ST_DATA_HASH_KEY), want);
  tt_st_close(f);
  hex_of(XXH3_64bits(b, head), want);
  assert_int_equal(tt_st_identity(path, true, got, &err), TT_OK);
  assert_string_equal(got, want);
  b[len - 1] ^= 1;  // one data byte, the header as it was
  FILE *fp = fopen(path, "wb");
  fwrite(b, 1, len, fp);
  fclose(fp);
  assert_int_equal(tt_st_identity(path, false, got, &err), TT_OK);
  assert_string_equal(got, want);  // unverified: the header is the same
  assert_int_equal(tt_st_identity(path, true, got, &err), TT_ERR_FORMAT);
  assert_non_null(strstr(err.msg, "does not match"));
  free(b);
  const char *header = "{\"a\":{\"dtype\":\"F32\",\"shape\":[5],\"data_offsets\":[0,20]}}";
  write_raw(path, header, a, sizeof a, -1);
  b = slurp(path, &len);
  hex_of(XXH3_64bits(b, len), want);
  assert_int_equal(tt_st_identity(path, true, got, &err), TT_OK);
  assert_string_equal(got, want);
  free(b);
  unlink(path);
}

// Tensors made on the way out (data NULL: fill) between stored ones: the data is written
// by a second thread while the next is made, two fill buffers taking turns, so a buffer
// filled again before its bytes were written would show here as another tensor's bytes.
enum { FILLED_FLOATS = 70001 };  // 280 KB each, odd: chunks of every size end mid-page

static bool fill_pattern(void *ctx, size_t i, void *dst) {
  (void)ctx;
  float *f = dst;
  for (size_t k = 0; k < FILLED_FLOATS; k++) f[k] = (float)(i * 1000003 + k);
  return true;
}

// fill_pattern that cannot make tensor 5 (as out of memory).
static bool fill_but_five(void *ctx, size_t i, void *dst) {
  return i != 5 && fill_pattern(ctx, i, dst);
}

static void filled_set(tt_tensor *ts, char names[][8], float *stored, size_t n) {
  for (size_t i = 0; i < n; i++) {
    snprintf(names[i], 8, "t%zu", i);
    bool made = i % 3 != 1;  // two made, one stored, ...
    ts[i] = (tt_tensor){names[i], TT_F32, 1, {FILLED_FLOATS}, made ? NULL : stored + i * FILLED_FLOATS};
    if (!made) fill_pattern(NULL, i, stored + i * FILLED_FLOATS);
  }
}

static void test_filled_through_writer(void **state) {
  (void)state;
  enum { N = 11 };
  char names[N][8];
  tt_tensor ts[N];
  float *stored = malloc((size_t)N * FILLED_FLOATS * sizeof *stored), *want = malloc(FILLED_FLOATS * sizeof *want);
  filled_set(ts, names, stored, N);
  char path[512];
  path_in(path, "filled.safetensors");
  tt_error err = {0};
  assert_int_equal(tt_st_write_filled(path, ts, N, NULL, 0, fill_pattern, NULL, &err), TT_OK);
  tt_st_file *f = NULL;
  assert_int_equal(tt_st_open(path, &f, &err), TT_OK);
  for (size_t i = 0; i < N; i++) {
    fill_pattern(NULL, i, want);
    assert_memory_equal(tt_st_get(f, i)->data, want, FILLED_FLOATS * sizeof *want);
  }
  tt_st_close(f);
  char got[17];
  assert_int_equal(tt_st_identity(path, true, got, &err), TT_OK);  // the data hash matches every byte
  unlink(path);
  free(stored), free(want);
}

// Writes six tensors (filled_set) to STEM.safetensors through fill, with the file size
// limited to `limit` bytes when not 0 (SIGXFSZ ignored): the write fails with `want`, one
// message that contains `says`, and leaves neither the file nor its temporary behind.
static void assert_write_fails(const char *stem, tt_st_fill_fn fill, rlim_t limit, tt_status want, const char *says) {
  enum { N = 6 };
  char names[N][8], path[512], file[64];
  tt_tensor ts[N];
  float *stored = malloc((size_t)N * FILLED_FLOATS * sizeof *stored);
  filled_set(ts, names, stored, N);
  snprintf(file, sizeof file, "%s.safetensors", stem);
  path_in(path, file);
  struct rlimit old;
  assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
  struct rlimit small = {limit, old.rlim_max};
  void (*was)(int) = signal(SIGXFSZ, SIG_IGN);
  if (limit) assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
  tt_error err = {0};
  tt_status st = tt_st_write_filled(path, ts, N, NULL, 0, fill, NULL, &err);
  assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
  signal(SIGXFSZ, was);
  assert_int_equal(st, want);
  assert_non_null(strstr(err.msg, says));
  assert_int_equal(access(path, F_OK), -1);
  DIR *d = opendir(dir);
  for (struct dirent *e; (e = readdir(d));)
    if (strstr(e->d_name, stem)) fail_msg("left behind: %s", e->d_name);
  closedir(d);
  free(stored);
}

// A write that fails midway (here the file-size limit: EFBIG, as a full disk's ENOSPC).
static void test_write_fails_midway(void **state) {
  (void)state;
  assert_write_fails("full", fill_pattern, 600 * 1024, TT_ERR_IO, "write failed");
}

// A tensor whose bytes cannot be made (out of memory).
static void test_fill_fails(void **state) {
  (void)state;
  assert_write_fails("unmade", fill_but_five, 0, TT_ERR_NOMEM, "out of memory");
}

int main(void) {
  if (!mkdtemp(dir)) return 1;
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_round_trip),
                                     cmocka_unit_test(test_bad_files),
                                     cmocka_unit_test(test_all_format_dtypes),
                                     cmocka_unit_test(test_atomic_write_failure),
                                     cmocka_unit_test(test_f16_conversion),
                                     cmocka_unit_test(test_shape_overflow),
                                     cmocka_unit_test(test_duplicates),
                                     cmocka_unit_test(test_fifo_not_opened),
                                     cmocka_unit_test(test_atomic_targets),
                                     cmocka_unit_test(test_atomic_mode_and_long_name),
                                     cmocka_unit_test(test_atomic_named_fallback),
                                     cmocka_unit_test(test_error_escapes),
                                     cmocka_unit_test(test_data_hash),
                                     cmocka_unit_test(test_filled_through_writer),
                                     cmocka_unit_test(test_write_fails_midway),
                                     cmocka_unit_test(test_fill_fails)};
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd)) return 1;
  return rc;
}
