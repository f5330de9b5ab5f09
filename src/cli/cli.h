// cli: the ttrace command line. Each subcommand lives in cmd_NAME.c as
// int tt_cmd_NAME(int argc, char **argv) and returns the process exit code;
// src/cli/ is the only place that exits.
#ifndef TT_CLI_H
#define TT_CLI_H

#include "core/core.h"

// Exit codes (README "Exit codes"): 0 ok, 1 internal, 2 usage, 3 bad input, 4 i/o, 5 device.
#define TT_EXIT_USAGE 2

// Prints "ttrace CMD: message" on stderr and returns the exit code for err's status.
int tt_cli_fail(const char *cmd, const tt_error *err);
// Prints "ttrace CMD: usage error: ..." plus a pointer to --help; returns TT_EXIT_USAGE.
int tt_cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
// Prints "ttrace CMD: note" on stderr when note is not empty (a backend's remark).
void tt_cli_note(const char *cmd, const char *note);
// True when argv has -h or --help before any "--".
bool tt_cli_wants_help(int argc, char **argv);
// The one line for what getopt_long returned as c ('?' or ':'; getopt itself prints
// nothing: main sets opterr = 0, and optstrings start with ':'). Returns TT_EXIT_USAGE.
int tt_cli_option_error(const char *cmd, int c, char **argv);
// "1 token", "2 tokens": n with the singular or the plural noun.
const char *tt_cli_count(char *buf, size_t len, long long n, const char *one, const char *many);

// train-step's work (cmd_train_step.c), also for lesson traces made after training: the
// model folder a->output (absent or empty) made from a->model_dir (NULL: the default model)
// by a->steps SGD steps of learning rate a->lr on prompt, written atomically; prints the
// losses unless a->quiet. tt_train_remove removes such a folder again.
typedef struct {
  const char *model_dir, *backend, *output;
  double lr;
  long steps;
  bool quiet;
  bool report;  // after the steps: the loss per position before and after, the weights that
                // moved most, the rows of W_E that changed (train_report.h)
} tt_train_args;
tt_status tt_train_model(const tt_train_args *a, const char *prompt, tt_error *err);
void tt_train_remove(const char *dir);

#define TT_COMMAND(name, summary) int tt_cmd_##name(int argc, char **argv);
#include "commands.h"
#undef TT_COMMAND

#endif
