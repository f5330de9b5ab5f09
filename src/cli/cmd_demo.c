// ttrace demo: the classroom demo. Traces "The weather is nice" on the default model and
// opens the window; without a display, writes every step as numbered PNGs instead.
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "session/session.h"
#include "ui/ui.h"
#include "viewdata/viewdata.h"

static const char usage[] =
    "usage: ttrace demo [OPTIONS] [PROMPT]\n"
    "\n"
    "Traces \"The weather is nice\" (or PROMPT) on the default model and opens the window at\n"
    "the first step. Without a display it writes the whole step sequence as numbered PNGs\n"
    "into ./ttrace-demo/ (or --out DIR) and says so.\n"
    "\n"
    "  -m, --model DIR     another model folder\n"
    "  -b, --backend NAME  openblas (default), opencl or auto\n"
    "      --lang en|ko    language (default en)\n"
    "      --theme light|dark\n"
    "      --size WxH      window (or PNG) size (default 1280x800)\n"
    "      --play          step on its own from the start\n"
    "      --shots DIR     where S saves screenshots\n"
    "      --script FILE, --state-out FILE   tests\n"
    "\n"
    "  TTRACE_DEMO_OUT=DIR sets the folder for the PNGs when there is no display.\n";

int tt_view_parse_ui_opts(int argc, char **argv, const char *cmd, tt_ui_opts *o, const char **model, int *rc);

int tt_cmd_demo(int argc, char **argv) {
  tt_ui_opts o;
  const char *model = NULL;
  int rc;
  tt_view_parse_ui_opts(argc, argv, "demo", &o, &model, &rc);
  if (rc == 0) {
    fputs(usage, stdout);
    return 0;
  }
  if (rc > 0) return rc;
  const char *prompt = optind < argc ? argv[optind] : "The weather is nice";
  if (argc - optind > 1) return tt_cli_usage_error("demo", "quote the prompt as one argument");
  tt_error err = {0};
  tt_session *s = NULL;
  tt_trace *tr = NULL;
  tt_session_opts so = {.model_dir = model, .backend = o.backend};
  tt_status st = tt_session_open(&so, &s, &err);
  if (!st) tt_cli_note("demo", s->backend_note);
  if (!st) st = tt_session_trace(s, prompt, NULL, 0, &tr, &err);
  tt_session_close(s);
  if (st) return tt_cli_fail("demo", &err);
  if (tt_ui_display_available()) {
    st = tt_ui_run(&o, tr, &err);
  } else {
    const char *dir = getenv("TTRACE_DEMO_OUT");
    if (!dir || !dir[0]) dir = "ttrace-demo";
    printf("ttrace demo: no display here, so every step goes into %s/ as numbered PNGs "
           "(`ttrace render` draws single views)\n", dir);
    fflush(stdout);
    tt_viz_data *vd = NULL;
    tt_render_extras ex;
    int n = 0;
    st = tt_viz_data_open(model, tr, &vd, &err);
    if (!st) {
      tt_viz_data_extras(vd, tr, &ex);
      st = tt_viz_write_sequence(tr, &ex, dir, o.width > 0 ? o.width : 1280, o.height > 0 ? o.height : 800, o.lang,
                                o.theme, &n, &err);
    }
    tt_viz_data_close(vd);
    if (!st) printf("wrote %d images: %s/001-tokenize.png ...\n", n, dir);
  }
  tt_trace_destroy(tr);
  return st ? tt_cli_fail("demo", &err) : 0;
}
