// pass_options: the options of a forward pass on the command line (pass_options.h).
#include "pass_options.h"

#include <getopt.h>
#include <string.h>

#include "cli.h"

void tt_cli_pass_options_init(tt_cli_pass_options *o) {
  memset(o, 0, sizeof *o);
  o->session.set = o->sets;
  o->in.record = o->records;
}

int tt_cli_pass_option(const char *cmd, int c, tt_cli_pass_options *o) {
  switch (c) {
  case 'm':
    o->session.model_dir = optarg;
    return 0;
  case 'b':
    o->session.backend = optarg;
    return 0;
  case 'o':
    o->output = optarg;
    return 0;
  case 's':
    if (o->session.n_set == TT_CLI_MAX_LIST) return tt_cli_usage_error(cmd, "too many --set options");
    o->sets[o->session.n_set++] = optarg;
    return 0;
  case 'r':
    if (o->in.n_record == TT_CLI_MAX_LIST) return tt_cli_usage_error(cmd, "too many --record options");
    o->records[o->in.n_record++] = optarg;
    return 0;
  case 'q':
    o->quiet = true;
    return 0;
  case TT_CLI_OPT_BOS:
    o->in.bos = true;
    return 0;
  default:
    return -1;
  }
}
