// ttrace view: a saved trace (or a prompt traced on the spot) in the window.
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "prompt_arg.h"
#include "trace_arg.h"
#include "view_args.h"

static const char usage[] =
    "usage: ttrace view [OPTIONS] TRACE\n"
    "       ttrace view [OPTIONS] -m MODEL_DIR \"PROMPT\"\n"
    "       ttrace view [OPTIONS] -m MODEL_DIR --ids ID,ID,...\n"
    "       ttrace view [OPTIONS] A.safetensors --compare B.safetensors\n"
    "\n"
    "Opens a trace in the window: the steps of the forward pass on the left, the formula,\n"
    "shapes and explanation on top, the tensors as heatmaps and tables. F1 lists the keys.\n"
    "Without a display it says so; `ttrace render` draws any view into a PNG or SVG.\n"
    "\n"
    "  -m, --model DIR     trace PROMPT with this model (and retrace typed prompts with it)\n"
    "      --bos           with -m: put the BOS token first (<|endoftext|>, 50256, for GPT-2)\n"
    "      --ids LIST      with -m: trace these token ids (464,6193,...) instead of a PROMPT\n"
    "      --compare B     show the same step of trace B beside it, with the difference A - B\n"
    "                      (max |A - B| on top; pointing at a cell shows A, B and A - B there)\n"
    "  -b, --backend NAME  openblas (default), opencl or auto, for tracing\n"
    "      --lang en|ko    language of the interface (default en)\n"
    "      --theme light|dark\n"
    "      --size WxH      window size (default 1280x800)\n"
    "      --play          start stepping on its own (Space pauses)\n"
    "      --font-scale S  type size factor, 0.5 to 3 (Ctrl + / Ctrl \xE2\x88\x92 in the window)\n"
    "      --shots DIR     where S saves screenshots (default: the current folder)\n"
    "      --script FILE   synthetic input (tests; see src/ui/script.c)\n"
    "      --state-out F   write the final view state to F (tests)\n";

enum { O_LANG = 256, O_THEME, O_SIZE, O_PLAY, O_SHOTS, O_SCRIPT, O_STATE, O_COMPARE, O_BOS, O_IDS, O_OUT, O_FONT };

// An option of the window itself (language, theme, size, playing, test files). Returns -1
// when c is not one of them, 0 when it was applied, else the exit code of its error.
static int parse_window_option(int c, const char *cmd, tt_ui_opts *o) {
  switch (c) {
  case O_LANG:
    if (strcmp(optarg, "en") && strcmp(optarg, "ko")) return tt_cli_usage_error(cmd, "--lang is en or ko");
    o->lang = strcmp(optarg, "ko") == 0 ? TT_LANG_KO : TT_LANG_EN;
    return 0;
  case O_THEME:
    if (strcmp(optarg, "light") && strcmp(optarg, "dark")) return tt_cli_usage_error(cmd, "--theme is light or dark");
    o->theme = strcmp(optarg, "dark") == 0 ? TT_THEME_DARK : TT_THEME_LIGHT;
    return 0;
  case O_SIZE:
    if (sscanf(optarg, "%dx%d", &o->width, &o->height) != 2 || o->width < 320 || o->height < 240)
      return tt_cli_usage_error(cmd, "--size wants WxH of at least 320x240");
    return 0;
  case O_PLAY:
    o->start_playing = true;
    return 0;
  case O_FONT:
    o->font_scale = (float)atof(optarg);
    if (!(o->font_scale >= 0.5f && o->font_scale <= 3))
      return tt_cli_usage_error(cmd, "--font-scale between 0.5 and 3");
    return 0;
  case O_SHOTS:
    o->shot_dir = optarg;
    return 0;
  case O_SCRIPT:
    o->script = optarg;
    return 0;
  case O_STATE:
    o->state_out = optarg;
    return 0;
  default:
    return -1;
  }
}

// An option for what is shown (model, backend, --compare, --bos, --ids, --out). Returns -1
// when c is not one of them, 0 when it was applied, else the exit code of its error.
static int parse_input_option(int c, const char *cmd, tt_view_args *a) {
  bool demo = strcmp(cmd, "demo") == 0;
  tt_ui_opts *o = &a->ui;
  switch (c) {
  case 'm':
    a->model = o->model_dir = optarg;
    return 0;
  case 'b':
    o->backend = optarg;
    return 0;
  case O_COMPARE:  // the path rides in label_b until the caller loads the trace
    if (demo) return tt_cli_usage_error(cmd, "--compare goes with `ttrace view`");
    o->label_b = optarg;
    return 0;
  case O_BOS:
    a->bos = o->bos = true;
    return 0;
  case O_IDS:
    a->ids = optarg;
    return 0;
  case O_OUT:
    if (!demo) return tt_cli_usage_error(cmd, "--out goes with `ttrace demo`");
    a->out = optarg;
    return 0;
  default:
    return -1;
  }
}

void tt_view_parse_args(int argc, char **argv, const char *cmd, tt_view_args *a, int *rc) {
  static const struct option longs[] = {
      {"model", required_argument, 0, 'm'},         {"backend", required_argument, 0, 'b'},
      {"lang", required_argument, 0, O_LANG},       {"theme", required_argument, 0, O_THEME},
      {"size", required_argument, 0, O_SIZE},       {"play", no_argument, 0, O_PLAY},
      {"shots", required_argument, 0, O_SHOTS},     {"script", required_argument, 0, O_SCRIPT},
      {"state-out", required_argument, 0, O_STATE}, {"help", no_argument, 0, 'h'},
      {"compare", required_argument, 0, O_COMPARE}, {"bos", no_argument, 0, O_BOS},
      {"ids", required_argument, 0, O_IDS},         {"out", required_argument, 0, O_OUT},
      {"font-scale", required_argument, 0, O_FONT}, {0, 0, 0, 0}};
  memset(a, 0, sizeof *a);
  int c;
  optind = 1;
  *rc = -1;
  while ((c = getopt_long(argc, argv, ":m:b:h", longs, NULL)) != -1) {
    if (c == 'h') {
      *rc = 0;
      return;
    }
    int r = parse_input_option(c, cmd, a);
    if (r < 0) r = parse_window_option(c, cmd, &a->ui);
    if (r < 0) r = tt_cli_option_error(cmd, c, argv);
    if (r) {
      *rc = r;
      return;
    }
  }
}

tt_status tt_view_trace(tt_session *s, const tt_view_args *a, const char *prompt, tt_trace **out, tt_error *err) {
  tt_trace_input in = {.prompt = prompt, .bos = a->bos};
  int32_t *ids = NULL;
  tt_status st = a->ids ? tt_ids_from_arg(a->ids, &ids, &in.n_ids, err) : TT_OK;
  in.ids = ids;
  if (!st) st = tt_session_trace_input(s, &in, out, err);
  free(ids);
  return st;
}

// The words after the options joined with spaces (malloc'd).
static char *join_words(int argc, char **argv) {
  size_t len = 1;
  for (int i = 0; i < argc; i++) len += strlen(argv[i]) + 1;
  char *prompt = calloc(1, len);
  for (int i = 0; prompt && i < argc; i++) {
    if (i) strcat(prompt, " ");
    strcat(prompt, argv[i]);
  }
  return prompt;
}

// The trace to show: traced on the spot with -m, else loaded from argv[optind].
static tt_status view_input(const tt_view_args *a, int argc, char **argv, tt_trace **tr, tt_error *err) {
  if (!a->model) return tt_cli_load_trace(argv[optind], tr, err);
  char *prompt = a->ids ? NULL : join_words(argc - optind, argv + optind);
  if (!a->ids && !prompt) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  tt_session_opts so = {.model_dir = a->model, .backend = a->ui.backend};
  tt_session *s = NULL;
  tt_status st = tt_session_open(&so, &s, err);
  if (!st) tt_cli_note("view", s->backend_note);
  if (!st) st = tt_view_trace(s, a, prompt, tr, err);
  tt_session_close(s);
  free(prompt);
  return st;
}

int tt_cmd_view(int argc, char **argv) {
  tt_view_args a;
  int rc;
  tt_view_parse_args(argc, argv, "view", &a, &rc);
  if (rc == 0) {
    fputs(usage, stdout);
    return 0;
  }
  if (rc > 0) return rc;
  tt_ui_opts o = a.ui;
  const char *model = a.model;
  if ((a.bos || a.ids) && !model) return tt_cli_usage_error("view", "--bos and --ids go with -m MODEL_DIR");
  if (a.ids && optind < argc) return tt_cli_usage_error("view", "--ids goes without a PROMPT (got '%s')", argv[optind]);
  if (optind >= argc && !a.ids) return tt_cli_usage_error("view", "missing TRACE (or -m MODEL_DIR and a PROMPT)");
  if (!model && argc - optind > 1) return tt_cli_usage_error("view", "one TRACE at a time");
  tt_error err = {0};
  tt_trace *tr = NULL;
  if (view_input(&a, argc, argv, &tr, &err)) return tt_cli_fail("view", &err);
  tt_trace *cmp = NULL;
  if (o.label_b) {
    const char *b_path = o.label_b;
    if (tt_cli_load_trace(b_path, &cmp, &err)) {
      tt_trace_destroy(tr);
      return tt_cli_fail("view", &err);
    }
    o.compare = cmp;
    o.label_b = strrchr(b_path, '/') ? strrchr(b_path, '/') + 1 : b_path;
    o.label_a = model ? "A" : strrchr(argv[optind], '/') ? strrchr(argv[optind], '/') + 1 : argv[optind];
  }
  if (!tt_ui_display_available()) {
    if (cmp)
      fprintf(stderr,
              "ttrace view: no display here; `ttrace render A --compare B --step HOOK -o fig.png` draws the "
              "comparison without one\n");
    else
      fprintf(stderr,
              "ttrace view: no display here; `ttrace render TRACE --step HOOK -o fig.png` draws any view "
              "without one\n");
    tt_trace_destroy(tr);
    tt_trace_destroy(cmp);
    return 5;  // the device (a display) is missing
  }
  tt_status st = tt_ui_run(&o, tr, &err);
  tt_trace_destroy(tr);
  tt_trace_destroy(cmp);
  return st ? tt_cli_fail("view", &err) : 0;
}
