// ttrace export-html: a lesson or a trace as one self-contained HTML page (src/html).
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli.h"
#include "html/html.h"
#include "trace_arg.h"
#include "ui/ui.h"

static const char usage[] =
    "usage: ttrace export-html LESSON -o PAGE.html [--lang en|ko|both] [--traces DIR] [--size WxH]\n"
    "       ttrace export-html TRACE.safetensors -o PAGE.html [--lang en|ko|both] [--size WxH]\n"
    "\n"
    "Writes one HTML file that needs nothing else: a teacher sends it, a student opens it in\n"
    "any browser, offline. A lesson plays step by step, the narration beside each step's view;\n"
    "a trace walks its steps as `ttrace demo` does. The views are inline SVG, the fonts are\n"
    "embedded (only the glyphs the page uses). Keys: right arrow, Space or PgDn next; left\n"
    "arrow or PgUp back; Home, End; L switches the language. PAGE.html#step=N opens step N.\n"
    "\n"
    "LESSON is a lesson file, or a lesson's number or name in the lessons folder.\n"
    "  -o PAGE.html     where to write the page (atomically)\n"
    "  --lang en|ko|both  the language (default: the lesson's own, en for a trace); both: the\n"
    "                   lesson and its twin in the other language, with a switch\n"
    "  --traces DIR     where the lesson's saved traces are (default: lessons/traces)\n"
    "  --size WxH       size of each view in pixels (default 1280x800)\n";

typedef struct {
  const char *input, *out, *lang, *traces;
  int w, h;
} html_options;

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

static int parse(int argc, char **argv, html_options *o) {
  static const struct option longs[] = {{"lang", required_argument, 0, 'L'},
                                        {"traces", required_argument, 0, 'T'},
                                        {"size", required_argument, 0, 'S'},
                                        {"output", required_argument, 0, 'o'},
                                        {0, 0, 0, 0}};
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, ":o:", longs, NULL)) != -1) {
    if (c == 'o') {
      o->out = optarg;
    } else if (c == 'L') {
      o->lang = optarg;
    } else if (c == 'T') {
      o->traces = optarg;
    } else if (c == 'S') {
      char *end;
      o->w = (int)strtol(optarg, &end, 10);
      o->h = *end == 'x' ? (int)strtol(end + 1, &end, 10) : 0;
      if (*end || o->w < 320 || o->h < 240 || o->w > 8192 || o->h > 8192)
        return tt_cli_usage_error("export-html", "--size wants WxH between 320x240 and 8192x8192");
    } else {
      return tt_cli_option_error("export-html", c, argv);
    }
  }
  if (optind != argc - 1) return tt_cli_usage_error("export-html", "give one LESSON or TRACE");
  o->input = argv[optind];
  if (!o->out) return tt_cli_usage_error("export-html", "-o PAGE.html is required");
  if (o->lang && strcmp(o->lang, "en") && strcmp(o->lang, "ko") && strcmp(o->lang, "both"))
    return tt_cli_usage_error("export-html", "--lang wants en, ko or both");
  return 0;
}

static int export_trace(const html_options *o) {
  tt_error err = {0};
  tt_trace *tr = NULL;
  if (o->traces) return tt_cli_usage_error("export-html", "--traces is for lessons");
  tt_status st = tt_cli_load_trace(o->input, &tr, &err);
  if (st) return tt_cli_fail("export-html", &err);
  const char *both[] = {"en", "ko"}, *one[] = {o->lang ? o->lang : "en"};
  bool all = o->lang && strcmp(o->lang, "both") == 0;
  const char *base = strrchr(o->input, '/');
  st = tt_html_export_trace(tr, base ? base + 1 : o->input, all ? both : one, all ? 2 : 1, o->w, o->h, o->out, &err);
  tt_trace_destroy(tr);
  if (st) return tt_cli_fail("export-html", &err);
  printf("%s -> %s\n", o->input, o->out);
  return 0;
}

static int export_lesson(const html_options *o) {
  tt_error err = {0};
  char first[4096], twin[4096];
  const char *lang = o->lang && strcmp(o->lang, "both") != 0 ? o->lang : "en";
  if (!tt_cli_find_lesson(o->input, lang, first, sizeof first)) {
    fprintf(stderr, "ttrace export-html: no lesson or trace file '%s'\n", o->input);
    return 3;
  }
  const char *paths[2] = {first, twin};
  int n = 1;
  if (o->lang && strcmp(o->lang, "both") == 0) {
    if (!tt_ui_lesson_twin(first, "ko", twin, sizeof twin) && !tt_ui_lesson_twin(first, "en", twin, sizeof twin)) {
      fprintf(stderr, "ttrace export-html: %s has no twin in another language for --lang both\n", first);
      return 3;
    }
    n = 2;
  } else if (o->lang && access(o->input, 0) == 0 && tt_ui_lesson_twin(first, o->lang, twin, sizeof twin)) {
    paths[0] = twin;  // a file of the other language named, --lang asks for this one
  }
  tt_status st = tt_html_export_lesson(paths, n, o->traces, o->w, o->h, o->out, &err);
  if (st) return tt_cli_fail("export-html", &err);
  printf("%s -> %s\n", paths[0], o->out);
  return 0;
}

int tt_cmd_export_html(int argc, char **argv) {
  if (tt_cli_wants_help(argc, argv)) {
    fputs(usage, stdout);
    return 0;
  }
  html_options o = {0};
  int rc = parse(argc, argv, &o);
  if (rc) return rc;
  if (!o.w) o.w = 1280, o.h = 800;
  return ends_with(o.input, ".safetensors") ? export_trace(&o) : export_lesson(&o);
}
