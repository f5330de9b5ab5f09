// view_args: the options `ttrace view` and `ttrace demo` share (cmd_view.c parses them).
#ifndef TT_VIEW_ARGS_H
#define TT_VIEW_ARGS_H

#include "session/session.h"
#include "ui/ui.h"

typedef struct {
  tt_ui_opts ui;
  const char *model;  // -m DIR
  bool bos;           // --bos
  const char *ids;    // --ids LIST
  const char *out;    // --out DIR (demo)
} tt_view_args;

// Parses argv into a; *rc is -1 to go on, 0 for --help, else the exit code of a usage error
// (already printed). optind is left at the first word after the options.
void tt_view_parse_args(int argc, char **argv, const char *cmd, tt_view_args *a, int *rc);

// Traces what a asks for (--ids LIST, or prompt, with --bos) in session s.
tt_status tt_view_trace(tt_session *s, const tt_view_args *a, const char *prompt, tt_trace **out, tt_error *err);

#endif
