// fuzz_lesson: any bytes as a lesson file, parsed, and every step resolved (tensors and
// {{...}} placeholders), its checks evaluated and its narration refilled, against the
// saved lesson traces (a trace the lesson names is used when it is saved in
// lessons/traces/, else 01-weather). Errors are one line; nothing crashes.
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "lesson/lesson.h"

#define MAX_SAVED 64
static struct {
  char name[256];
  tt_trace *tr;
} saved[MAX_SAVED];
static int n_saved;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  char dir[4096];
  if (!tt_lessons_path(dir, sizeof dir)) fuzz_fail("no lessons folder");
  strncat(dir, "/traces", sizeof dir - strlen(dir) - 1);
  DIR *dp = opendir(dir);
  if (!dp) fuzz_fail("no lessons/traces");
  for (struct dirent *e; (e = readdir(dp)) && n_saved < MAX_SAVED;) {
    if (!strstr(e->d_name, ".safetensors")) continue;
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    tt_error err = {0};
    if (tt_trace_load(path, &saved[n_saved].tr, &err)) fuzz_fail(err.msg);
    snprintf(saved[n_saved].name, sizeof saved[0].name, "%s", e->d_name);
    // 01-weather first: the default for traces that are not saved
    if (strcmp(e->d_name, "01-weather.safetensors") == 0 && n_saved) {
      tt_trace *t = saved[0].tr;
      char nm[256];
      memcpy(nm, saved[0].name, sizeof nm);
      saved[0] = saved[n_saved];
      saved[n_saved].tr = t;
      memcpy(saved[n_saved].name, nm, sizeof nm);
    }
    n_saved++;
  }
  closedir(dp);
  if (!n_saved) fuzz_fail("no saved traces");
  return 0;
}

static const tt_trace *saved_trace(const char *file) {
  for (int i = 0; i < n_saved; i++)
    if (file && strcmp(saved[i].name, file) == 0) return saved[i].tr;
  return saved[0].tr;
}

static const char *decode(void *ctx, int32_t id, char *buf, size_t len) {
  (void)ctx;
  snprintf(buf, len, "<%d>", (int)id);
  return buf;
}

static void play(const tt_lesson *l) {
  int nt = tt_lesson_n_traces(l);
  const tt_trace **traces = calloc((size_t)nt + 1, sizeof *traces);
  for (int i = 0; i < nt; i++) traces[i] = saved_trace(tt_lesson_trace_at(l, i)->file);
  for (int s = 0; s < tt_lesson_n_steps(l); s++) {
    tt_lesson_view v;
    tt_error err = {0};
    tt_status st = tt_lesson_resolve(l, s, traces, (s & 1) ? decode : NULL, NULL, &v, &err);
    if (st) {
      fuzz_check_error(st, &err);
      continue;
    }
    if (!v.narration || v.n_tensors < 0 || v.n_tensors > TT_LESSON_MAX_LAYERS) fuzz_fail("a bad resolved view");
    for (int k = 0; k < v.n_tensors; k++)
      if (!v.tensors[k]) fuzz_fail("a resolved view without its tensor");
    const tt_lesson_step *step = tt_lesson_step_at(l, s);
    char *again = NULL;
    st = tt_lesson_fill(l, step->trace, step->text, step->text_line, traces, NULL, NULL, &again, &err);
    if (st) fuzz_check_error(st, &err);
    free(again);
    st = tt_lesson_check_claims(l, s, traces, &err);
    if (st) fuzz_check_error(st, &err);
    tt_lesson_view_free(&v);
  }
  for (int i = 0; i < nt; i++) {
    tt_error err = {0};
    tt_status st = tt_lesson_verify_trace(l, i, traces[i], &err);
    if (st) fuzz_check_error(st, &err);
  }
  free(traces);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tt_lesson *l = NULL;
  tt_error err = {0};
  char *text = malloc(size + 1);  // as tt_read_file hands it over: NUL-terminated
  memcpy(text, data, size);
  text[size] = 0;
  tt_status st = tt_lesson_parse(text, size, "fuzz.lesson", &l, &err);
  free(text);
  if (st) {
    fuzz_check_error(st, &err);
    return 0;
  }
  if (tt_lesson_n_steps(l) < 0 || tt_lesson_n_traces(l) < 0) fuzz_fail("negative counts");
  play(l);
  tt_lesson_destroy(l);
  return 0;
}
