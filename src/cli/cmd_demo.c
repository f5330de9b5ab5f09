// ttrace demo: the classroom demo. Traces "The weather is nice" on the default model and
// opens the window; without a display, writes every step as numbered PNGs instead.
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "view_args.h"

static const char usage[] =
    "usage: ttrace demo [OPTIONS] [PROMPT]\n"
    "\n"
    "Traces \"The weather is nice\" (or PROMPT) on the default model and opens the window at\n"
    "the first step. With --out DIR, or without a display, it writes the whole step sequence\n"
    "as numbered PNGs instead (001-tokenize.png, ...) and opens no window; without a display\n"
    "and without --out they go into ./ttrace-demo/ (or $TTRACE_DEMO_OUT).\n"
    "\n"
    "  -m, --model DIR     another model folder\n"
    "  -b, --backend NAME  openblas (default), opencl or auto\n"
    "      --out DIR       write the step sequence as PNGs into DIR (created if missing)\n"
    "      --bos           put the BOS token first (<|endoftext|>, 50256, for GPT-2)\n"
    "      --ids LIST      trace these token ids (464,6193,...) instead of a PROMPT\n"
    "      --lang en|ko    language (default en)\n"
    "      --theme light|dark\n"
    "      --size WxH      window (or PNG) size (default 1280x800)\n"
    "      --play          step on its own from the start\n"
    "      --font-scale S  type size factor, 0.5 to 3 (Ctrl + / Ctrl \xE2\x88\x92 in the window)\n"
    "      --shots DIR     where S saves screenshots\n"
    "      --script FILE, --state-out FILE   tests\n";

// The step sequence as numbered PNGs in dir.
static tt_status write_pngs(const tt_view_args *a, const tt_trace *tr, const char *dir, tt_error *err) {
  tt_viz_data *vd = NULL;
  tt_render_extras ex;
  int n = 0;
  tt_status st = tt_viz_data_open(a->model, tr, &vd, err);
  if (!st) {
    tt_viz_data_extras(vd, tr, &ex);
    st = tt_render_write_sequence(tr, &ex, dir, a->ui.width > 0 ? a->ui.width : 1280,
                                  a->ui.height > 0 ? a->ui.height : 800, a->ui.lang, a->ui.theme, a->ui.font_scale, &n,
                                  err);
  }
  tt_viz_data_close(vd);
  char images[32];
  if (!st)
    printf("wrote %s: %s/001-tokenize.png ...\n", tt_cli_count(images, sizeof images, n, "image", "images"), dir);
  return st;
}

int tt_cmd_demo(int argc, char **argv) {
  tt_view_args a;
  int rc;
  tt_view_parse_args(argc, argv, "demo", &a, &rc);
  if (rc == 0) {
    fputs(usage, stdout);
    return 0;
  }
  if (rc > 0) return rc;
  const char *prompt = optind < argc ? argv[optind] : "The weather is nice";
  if (argc - optind > 1) return tt_cli_usage_error("demo", "quote the prompt as one argument");
  if (a.ids && optind < argc) return tt_cli_usage_error("demo", "--ids goes without a PROMPT (got '%s')", argv[optind]);
  tt_error err = {0};
  tt_session *s = NULL;
  tt_trace *tr = NULL;
  tt_session_opts so = {.model_dir = a.model, .backend = a.ui.backend};
  tt_status st = tt_session_open(&so, &s, &err);
  if (!st) tt_cli_note("demo", s->backend_note);
  if (!st) st = tt_view_trace(s, &a, prompt, &tr, &err);
  tt_session_close(s);
  if (st) return tt_cli_fail("demo", &err);
  if (!a.out && tt_ui_display_available()) {
    st = tt_ui_run(&a.ui, tr, &err);
  } else {
    const char *dir = a.out ? a.out : getenv("TTRACE_DEMO_OUT");
    if (!dir || !dir[0]) dir = "ttrace-demo";
    if (!a.out) {
      printf(
          "ttrace demo: no display here, so every step goes into %s/ as numbered PNGs "
          "(`ttrace render` draws single views)\n",
          dir);
      fflush(stdout);
    }
    st = write_pngs(&a, tr, dir, &err);
  }
  tt_trace_destroy(tr);
  return st ? tt_cli_fail("demo", &err) : 0;
}
