// fuzz_trace: any bytes as a trace file. A trace that loads goes through dump's readers
// (the summary, statistics and every tensor as a table, with the GPT-2 vocabulary for
// labels, also --full for one head) and through the real `ttrace dump` and `ttrace diff`
// commands: a trace is compared with itself under `diff --tol 0` and with a saved lesson
// trace. Output goes to /dev/null; errors are one line with a documented exit code.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "dump/dump.h"
#include "fuzz_util.h"
#include "model/model.h"
#include "trace/trace.h"

static char other[4096];
static tt_tokenizer *vocab;
static FILE *sink;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  if (!freopen("/dev/null", "w", stdout) || !(sink = fopen("/dev/null", "w"))) fuzz_fail("no /dev/null");
  if (!tt_lessons_path(other, sizeof other)) fuzz_fail("no lessons folder");
  strncat(other, "/traces/02-words.safetensors", sizeof other - strlen(other) - 1);
  char dir[4096];
  tt_error err = {0};
  if (!tt_asset_path("tokenizer", dir, sizeof dir) || tt_tokenizer_load(dir, &vocab, &err)) fuzz_fail("no tokenizer");
  return 0;
}

static int run(int (*cmd)(int, char **), const char *a0, const char *a1, const char *a2, const char *a3) {
  char *argv[5] = {(char *)a0, (char *)a1, (char *)a2, (char *)a3, NULL};
  int argc = 0;
  while (argv[argc]) argc++;
  int rc = cmd(argc, argv);
  if (rc < 0 || rc > 5) fuzz_fail("an undocumented exit code");
  return rc;
}

static void dump_all(const tt_trace *tr) {
  tt_dump_summary(sink, tr);
  tt_dump_opts o;
  tt_dump_default_opts(&o);
  o.vocab = vocab;
  for (size_t i = 0; i < tt_trace_count(tr) && i < 64; i++) {
    const tt_tensor *t = tt_trace_get(tr, i);
    double mn, mx, mean;
    int64_t neg;
    tt_dump_stats(t, &mn, &mx, &mean, &neg);
    tt_dump_axes(tr, t->name);
    tt_dump_tensor(sink, tr, t, &o);
    if (tt_tensor_numel(t) <= 4096) {
      tt_dump_opts full = o;
      full.max_cols = 0, full.head = 1, full.top_k = 2, full.precision = 9;
      tt_dump_tensor(sink, tr, t, &full);
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_write("in.safetensors", data, size);
  tt_trace *tr = NULL;
  tt_error err = {0};
  tt_status st = tt_trace_load(path, &tr, &err);
  if (st) {
    fuzz_check_error(st, &err);
    if (run(tt_cmd_dump, "dump", path, NULL, NULL) == 0) fuzz_fail("dump opened what the loader refused");
    return 0;
  }
  dump_all(tr);
  if (run(tt_cmd_dump, "dump", path, NULL, NULL) != 0) fuzz_fail("dump refused a trace that loads");
  run(tt_cmd_diff, "diff", "--tol=0", path, path);
  run(tt_cmd_diff, "diff", path, other, NULL);
  tt_trace_destroy(tr);
  return 0;
}
