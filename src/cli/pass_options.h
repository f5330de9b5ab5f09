// pass_options: the options `ttrace trace` and `ttrace generate` share (which model and
// backend, the variant knobs, what to record, the output file, --bos, --quiet).
#ifndef TT_PASS_OPTIONS_H
#define TT_PASS_OPTIONS_H

#include "session/session.h"

#define TT_CLI_MAX_LIST 64

typedef struct {
  tt_session_opts session;  // session.set points into sets
  tt_trace_input in;        // in.record points into records
  const char *sets[TT_CLI_MAX_LIST], *records[TT_CLI_MAX_LIST], *output;
  bool quiet;
} tt_cli_pass_options;

// getopt_long's code for --bos (above every command's own long-option codes).
enum { TT_CLI_OPT_BOS = 0x1000 };

// Clears o and points its lists at its arrays.
void tt_cli_pass_options_init(tt_cli_pass_options *o);
// Applies c (-m, -b, -o, -s, -r, -q or TT_CLI_OPT_BOS) with getopt's optarg for command
// cmd. Returns 0, the exit code of its error, or -1 when c is none of them.
int tt_cli_pass_option(const char *cmd, int c, tt_cli_pass_options *o);

#endif
