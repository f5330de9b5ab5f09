// main: dispatches `ttrace SUBCOMMAND ...` and prints help and version.
#include <getopt.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include "backend/backend.h"
#include "cli.h"

typedef struct {
  const char *name, *summary;
  int (*run)(int argc, char **argv);
} command;

static const command commands[] = {
#define TT_COMMAND(name, summary) {#name, summary, tt_cmd_##name},
#include "commands.h"
#undef TT_COMMAND
};
static const size_t n_commands = sizeof commands / sizeof *commands;

// A command's spelling on the command line: its C name with '-' for '_' ("train-step").
static const char *spelled(const char *name, char *buf, size_t len) {
  snprintf(buf, len, "%s", name);
  for (char *p = buf; *p; p++)
    if (*p == '_') *p = '-';
  return buf;
}

static void print_help(FILE *out) {
  fprintf(out,
          "ttrace %s - a step-by-step transformer tracer and visualizer\n\n"
          "usage: ttrace COMMAND [OPTIONS] [ARGS]\n\ncommands:\n",
          TT_VERSION);
  char buf[64];
  for (size_t i = 0; i < n_commands; i++)
    fprintf(out, "  %-12s %s\n", spelled(commands[i].name, buf, sizeof buf), commands[i].summary);
  fprintf(out,
          "\n`ttrace COMMAND --help` describes one command.\n"
          "Exit codes: 0 ok, 1 internal error, 2 usage error, 3 bad input (model, trace, prompt),\n"
          "4 file could not be read or written, 5 device or memory failure.\n");
}

int tt_cli_fail(const char *cmd, const tt_error *err) {
  fprintf(stderr, "ttrace %s: %s\n", cmd, err->msg);
  return tt_status_exit_code(err->status);
}

int tt_cli_usage_error(const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "ttrace %s: ", cmd);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, " (see `ttrace %s --help`)\n", cmd);
  va_end(ap);
  return TT_EXIT_USAGE;
}

void tt_cli_note(const char *cmd, const char *note) {
  if (note && note[0]) fprintf(stderr, "ttrace %s: %s\n", cmd, note);
}

bool tt_cli_wants_help(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) return false;
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) return true;
  }
  return false;
}

int tt_cli_option_error(const char *cmd, int c, char **argv) {
  const char *arg = argv[optind - 1];
  bool is_long = strncmp(arg, "--", 2) == 0;
  if (c == ':') {
    if (is_long) return tt_cli_usage_error(cmd, "option %s needs a value", arg);
    return tt_cli_usage_error(cmd, "option -%c needs a value", optopt);
  }
  if (is_long) return tt_cli_usage_error(cmd, "unknown option or unexpected value: %s", arg);
  return tt_cli_usage_error(cmd, "unknown option -%c", optopt);
}

const char *tt_cli_count(char *buf, size_t len, long long n, const char *one, const char *many) {
  snprintf(buf, len, "%lld %s", n, n == 1 ? one : many);
  return buf;
}

// The commands whose work is the model's matrix products (lesson only with --make-traces).
static bool runs_model(int argc, char **argv) {
  static const char *const heavy[] = {"trace", "demo", "view", "train-step", "generate", "cost", "lens"};
  if (argc < 2) return false;
  for (size_t i = 0; i < sizeof heavy / sizeof *heavy; i++)
    if (strcmp(argv[1], heavy[i]) == 0) return true;
  if (strcmp(argv[1], "lesson") == 0)
    for (int i = 2; i < argc; i++)
      if (strcmp(argv[i], "--make-traces") == 0) return true;
  return false;
}

int main(int argc, char **argv) {
  // OpenBLAS reads OPENBLAS_CORETYPE only as it loads: when it chose kernels older than
  // this CPU's, a command that runs the model starts again once with the right ones (the
  // variable is then set). Commands that only read traces do not pay for the restart.
  const char *core = runs_model(argc, argv) ? tt_openblas_better_coretype() : NULL;
  if (core && setenv("OPENBLAS_CORETYPE", core, 1) == 0) execv("/proc/self/exe", argv);
  opterr = 0;  // getopt prints nothing; each command says what is wrong in one line
  if (argc < 2) {
    print_help(stderr);
    return TT_EXIT_USAGE;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
    print_help(stdout);
    return 0;
  }
  if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
    printf("ttrace %s\n", TT_VERSION);
    return 0;
  }
  char buf[64];
  for (size_t i = 0; i < n_commands; i++)
    if (strcmp(argv[1], spelled(commands[i].name, buf, sizeof buf)) == 0) return commands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "ttrace: unknown command '%s' (see `ttrace --help`)\n", argv[1]);
  return TT_EXIT_USAGE;
}

bool tt_cli_folder_writable(const char *path) {
  char *copy = strdup(path);
  bool ok = copy && access(dirname(copy), W_OK) == 0;
  free(copy);
  return ok;
}
