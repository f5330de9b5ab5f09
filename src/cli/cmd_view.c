// ttrace view: a saved trace (or a prompt traced on the spot) in the window.
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "session/session.h"
#include "ui/ui.h"

static const char usage[] =
    "usage: ttrace view [OPTIONS] TRACE\n"
    "       ttrace view [OPTIONS] -m MODEL_DIR \"PROMPT\"\n"
    "       ttrace view [OPTIONS] A.safetensors --compare B.safetensors\n"
    "\n"
    "Opens a trace in the window: the steps of the forward pass on the left, the formula,\n"
    "shapes and explanation on top, the tensors as heatmaps and tables. F1 lists the keys.\n"
    "Without a display it says so; `ttrace render` draws any view into a PNG or SVG.\n"
    "\n"
    "  -m, --model DIR     trace PROMPT with this model (and retrace typed prompts with it)\n"
    "      --compare B     show the same step of trace B beside it, with the difference A - B\n"
    "                      (max |A - B| on top; pointing at a cell shows A, B and A - B there)\n"
    "  -b, --backend NAME  openblas (default), opencl or auto, for tracing\n"
    "      --lang en|ko    language of the interface (default en)\n"
    "      --theme light|dark\n"
    "      --size WxH      window size (default 1280x800)\n"
    "      --play          start stepping on its own (Space pauses)\n"
    "      --shots DIR     where S saves screenshots (default: the current folder)\n"
    "      --script FILE   synthetic input (tests; see src/ui/script.c)\n"
    "      --state-out F   write the final view state to F (tests)\n";

int tt_view_parse_ui_opts(int argc, char **argv, const char *cmd, tt_ui_opts *o, const char **model, int *rc);

int tt_view_parse_ui_opts(int argc, char **argv, const char *cmd, tt_ui_opts *o, const char **model, int *rc) {
  enum { O_LANG = 256, O_THEME, O_SIZE, O_PLAY, O_SHOTS, O_SCRIPT, O_STATE, O_COMPARE };
  static const struct option longs[] = {
      {"model", required_argument, 0, 'm'}, {"backend", required_argument, 0, 'b'},
      {"lang", required_argument, 0, O_LANG}, {"theme", required_argument, 0, O_THEME},
      {"size", required_argument, 0, O_SIZE}, {"play", no_argument, 0, O_PLAY},
      {"shots", required_argument, 0, O_SHOTS}, {"script", required_argument, 0, O_SCRIPT},
      {"state-out", required_argument, 0, O_STATE}, {"help", no_argument, 0, 'h'},
      {"compare", required_argument, 0, O_COMPARE},
      {0, 0, 0, 0}};
  memset(o, 0, sizeof *o);
  int c;
  optind = 1;
  *rc = -1;
  while ((c = getopt_long(argc, argv, "m:b:h", longs, NULL)) != -1) {
    switch (c) {
      case 'm': *model = o->model_dir = optarg; break;
      case 'b': o->backend = optarg; break;
      case O_LANG:
        if (strcmp(optarg, "en") && strcmp(optarg, "ko")) return *rc = tt_cli_usage_error(cmd, "--lang is en or ko");
        o->lang = strcmp(optarg, "ko") == 0 ? TT_LANG_KO : TT_LANG_EN;
        break;
      case O_THEME:
        if (strcmp(optarg, "light") && strcmp(optarg, "dark"))
          return *rc = tt_cli_usage_error(cmd, "--theme is light or dark");
        o->theme = strcmp(optarg, "dark") == 0 ? TT_THEME_DARK : TT_THEME_LIGHT;
        break;
      case O_SIZE:
        if (sscanf(optarg, "%dx%d", &o->width, &o->height) != 2 || o->width < 320 || o->height < 240)
          return *rc = tt_cli_usage_error(cmd, "--size wants WxH of at least 320x240");
        break;
      case O_PLAY: o->start_playing = true; break;
      case O_SHOTS: o->shot_dir = optarg; break;
      case O_SCRIPT: o->script = optarg; break;
      case O_STATE: o->state_out = optarg; break;
      case O_COMPARE:  // the path rides in label_b until the caller loads the trace
        if (strcmp(cmd, "view") != 0) return *rc = tt_cli_usage_error(cmd, "--compare goes with `ttrace view`");
        o->label_b = optarg;
        break;
      case 'h': *rc = 0; return 0;
      default: return *rc = tt_cli_usage_error(cmd, "unknown option");
    }
  }
  return 0;
}

int tt_cmd_view(int argc, char **argv) {
  tt_ui_opts o;
  const char *model = NULL;
  int rc;
  tt_view_parse_ui_opts(argc, argv, "view", &o, &model, &rc);
  if (rc == 0) {
    fputs(usage, stdout);
    return 0;
  }
  if (rc > 0) return rc;
  if (optind >= argc) return tt_cli_usage_error("view", "missing TRACE (or -m MODEL_DIR and a PROMPT)");
  if (!model && argc - optind > 1) return tt_cli_usage_error("view", "one TRACE at a time");
  tt_error err = {0};
  tt_trace *tr = NULL;
  tt_session *s = NULL;
  tt_status st;
  if (model) {
    // The words after the options are the prompt.
    size_t len = 1;
    for (int i = optind; i < argc; i++) len += strlen(argv[i]) + 1;
    char *prompt = calloc(1, len);
    if (!prompt) return tt_cli_fail("view", &(tt_error){TT_ERR_NOMEM, "out of memory"});
    for (int i = optind; i < argc; i++) {
      if (i > optind) strcat(prompt, " ");
      strcat(prompt, argv[i]);
    }
    tt_session_opts so = {.model_dir = model, .backend = o.backend};
    st = tt_session_open(&so, &s, &err);
    if (!st) tt_cli_note("view", s->backend_note);
    if (!st) st = tt_session_trace(s, prompt, NULL, 0, &tr, &err);
    free(prompt);
  } else {
    st = tt_trace_load(argv[optind], &tr, &err);
  }
  tt_session_close(s);
  if (st) return tt_cli_fail("view", &err);
  tt_trace *cmp = NULL;
  if (o.label_b) {
    const char *b_path = o.label_b;
    if (tt_trace_load(b_path, &cmp, &err)) {
      tt_trace_destroy(tr);
      return tt_cli_fail("view", &err);
    }
    o.compare = cmp;
    o.label_b = strrchr(b_path, '/') ? strrchr(b_path, '/') + 1 : b_path;
    o.label_a = model ? "A" : strrchr(argv[optind], '/') ? strrchr(argv[optind], '/') + 1 : argv[optind];
  }
  if (!tt_ui_display_available()) {
    if (cmp)
      fprintf(stderr, "ttrace view: no display here; `ttrace render A --compare B --step HOOK -o fig.png` draws the "
                      "comparison without one\n");
    else
      fprintf(stderr, "ttrace view: no display here; `ttrace render TRACE --step HOOK -o fig.png` draws any view "
                      "without one\n");
    tt_trace_destroy(tr);
    tt_trace_destroy(cmp);
    return 5;  // the device (a display) is missing
  }
  st = tt_ui_run(&o, tr, &err);
  tt_trace_destroy(tr);
  tt_trace_destroy(cmp);
  return st ? tt_cli_fail("view", &err) : 0;
}
