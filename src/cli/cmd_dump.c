// ttrace dump: a trace's tensors as terminal tables.
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "trace_arg.h"
#include "dump/dump.h"
#include "trace/hooks.h"

static const char usage[] =
    "usage: ttrace dump [OPTIONS] TRACE [HOOK|GLOB]\n"
    "\n"
    "Without HOOK: the trace's metadata and one line per tensor (shape, min, max, mean).\n"
    "With HOOK (a name or a glob such as 'blocks.0.attn.*'): the tensors' values as tables\n"
    "labelled with tokens (T axes), heads (h0, h1, ...) and indices.\n"
    "\n"
    "  --head N       only head N of (H, ...) tensors\n"
    "  --full         every column (default: the first and last ones)\n"
    "  --cols N       columns shown before eliding the middle (default 10)\n"
    "  --top K        entries per token for (T, V) tensors (default 5)\n"
    "  --precision P  digits after the point (default 4)\n"
    "  --names        only the tensor names, one a line (for scripts and shell completion)\n";

static void print_metadata(const tt_trace *tr) {
  static const char *keys[] = {"prompt",   "token_ids", "token_strings", "model",   "tokenizer", "bos",
                               "from_ids", "backend",   "device",        "variant", "record",    "time_ms"};
  for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
    char *v = tt_trace_meta(tr, keys[i]) ? tt_escape_text_dup(tt_trace_meta(tr, keys[i])) : NULL;
    if (v) printf("%-14s %s\n", keys[i], v);  // escaped: the file's text cannot drive the terminal
    free(v);
  }
  char count[32];
  printf("%-14s %s, %.2f MiB\n\n", "recorded",
         tt_cli_count(count, sizeof count, (long long)tt_trace_count(tr), "tensor", "tensors"),
         (double)tt_trace_bytes(tr) / (1 << 20));
}

static tt_tokenizer *load_vocab(void) {
  char dir[4096];
  tt_tokenizer *tok = NULL;
  if (tt_asset_path("tokenizer", dir, sizeof dir)) tt_tokenizer_load(dir, &tok, NULL);
  return tok;
}

int tt_cmd_dump(int argc, char **argv) {
  static const struct option longs[] = {{"head", required_argument, 0, 'H'},      {"full", no_argument, 0, 'f'},
                                        {"cols", required_argument, 0, 'c'},      {"top", required_argument, 0, 'k'},
                                        {"precision", required_argument, 0, 'p'}, {"help", no_argument, 0, 'h'},
                                        {"names", no_argument, 0, 'n'},           {0, 0, 0, 0}};
  tt_dump_opts o;
  bool names = false;
  tt_dump_default_opts(&o);
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, ":h", longs, NULL)) != -1) {
    switch (c) {
    case 'H':
      o.head = atoi(optarg);
      break;
    case 'f':
      o.max_cols = 0;
      break;
    case 'c':
      o.max_cols = atoi(optarg);
      break;
    case 'k':
      o.top_k = atoi(optarg);
      break;
    case 'p':
      o.precision = atoi(optarg) < 0 ? 0 : atoi(optarg) > 9 ? 9 : atoi(optarg);
      break;
    case 'n':
      names = true;
      break;
    case 'h':
      fputs(usage, stdout);
      return 0;
    default:
      return tt_cli_option_error("dump", c, argv);
    }
  }
  if (optind >= argc) return tt_cli_usage_error("dump", "missing TRACE");
  if (argc - optind > 2) return tt_cli_usage_error("dump", "too many arguments");
  tt_error err = {0};
  tt_trace *tr = NULL;
  if (tt_cli_load_trace(argv[optind], &tr, &err)) return tt_cli_fail("dump", &err);
  int rc = 0;
  if (names) {
    for (size_t i = 0; i < tt_trace_count(tr); i++) puts(tt_trace_get(tr, i)->name);
  } else if (argc - optind == 1) {
    print_metadata(tr);
    tt_dump_summary(stdout, tr);
  } else {
    const char *pattern = argv[optind + 1];
    tt_tokenizer *vocab = load_vocab();
    o.vocab = vocab;
    int shown = 0;
    for (size_t i = 0; i < tt_trace_count(tr); i++) {
      const tt_tensor *t = tt_trace_get(tr, i);
      if (!tt_glob_match(pattern, t->name)) continue;
      if (shown++) putchar('\n');
      tt_dump_tensor(stdout, tr, t, &o);
    }
    if (!shown) {
      tt_fail(&err, TT_ERR_ARG, "%s has no tensor matching '%s' (`ttrace dump %s` lists them)", argv[optind], pattern,
              argv[optind]);
      rc = tt_cli_fail("dump", &err);
    }
    tt_tokenizer_destroy(vocab);
  }
  tt_trace_destroy(tr);
  return rc;
}
