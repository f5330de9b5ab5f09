// ttrace render: one view of a trace as PNG or SVG, drawn headless by the same painters
// as the window.
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "render_again.h"
#include "safetensors/safetensors.h"
#include "trace_arg.h"
#include "render/render.h"
#include "trace/hooks.h"

static const char usage[] =
    "usage: ttrace render TRACE --step HOOK [OPTIONS] -o FIG.png|FIG.svg\n"
    "       ttrace render A --compare B --step HOOK [OPTIONS] -o FIG.png|FIG.svg\n"
    "       ttrace render --again FIG.png|FIG.svg [-o OUT]\n"
    "\n"
    "Draws one view of a saved trace without a display, with the same painters as the window.\n"
    "The figure is cut to what it shows (--size is the most it may take), has no window hints,\n"
    "and records where it came from: the PNG's text chunks or the SVG's <metadata> hold the\n"
    "ttrace version, the trace's path, FNV-1a hash and prompt, the hook, layer, head and every\n"
    "option, so that --again draws it again.\n"
    "\n"
    "  --step HOOK        a hook name (blocks.0.attn.hook_pattern) or a layer-free suffix\n"
    "                     (attn.hook_pattern) completed by --layer; 'tokens', 'hook_probs', ...\n"
    "  --layer L          layer for a suffix (default 0)\n"
    "  --head H           head of (H, T, T) and (H, T, D) tensors (default 0)\n"
    "  --view NAME        heatmap, table, grid (all heads), overview (layers x heads), tokens,\n"
    "                     bars, layernorm, gelu, embed, positions, qkv, collapse, gradnorm\n"
    "                     (gradient norms of a --grad trace) (default: the step's own);\n"
    "                     of a `ttrace generate -o` trace: timeline (--position: which new token),\n"
    "                     kvcache (--step blocks.L.attn.hook_k: layer L; --position S or\n"
    "                     --step decode.S.blocks.L.attn.hook_k: after decode step S);\n"
    "                     of the Llama block (--step blocks.L...: layer L): rope (--head H,\n"
    "                     --position: the token whose numbers are shown), gqa (the K/V head\n"
    "                     groups and the cache they save), swiglu (--position: the token),\n"
    "                     blocks (GPT-2 and Llama side by side with both models' shapes)\n"
    "  --frame            draw the step navigator, formula and explanation as the window does\n"
    "  --compare B        the same view of trace B beside it and the difference A - B\n"
    "  --size WxH         image size in pixels (default 1600x1000)\n"
    "  --theme light|dark colours (default light)\n"
    "  --lang en|ko       language of labels and explanations (default en)\n"
    "  --zoom Z           show 1/Z of the cells along each axis (default 1: the whole tensor)\n"
    "  --pan ROW,COL      first visible cell when zoomed\n"
    "  --pin ROW,COL      pin a cell: the figure shows how it was computed\n"
    "  --hover ROW,COL    the pointer on a cell the figure shows, with the window's tooltip\n"
    "                     (value, row and column labels, index; with --compare a, b and a - b)\n"
    "  --temperature T    bars: softmax(logits / T) (default 1)\n"
    "  --position I       bars: the token whose next-token distribution is shown (default last);\n"
    "                     rope, swiglu: the token shown (default last);\n"
    "                     timeline: the generated token (default last); kvcache: the decode step\n"
    "                     (default -1: after the prompt pass)\n"
    "  --top K            bars: candidates shown (default 10)\n"
    "  --pair I           rope: the pair of dimensions (I, I + D/2) shown between the fastest\n"
    "                     and the slowest (default D/4)\n"
    "  --font-scale S     type size factor (default 1)\n"
    "  --title TEXT       the figure's title (the tensor's name then opens the subtitle)\n"
    "  --again FIG        draw FIG again from the trace and options it records (into FIG, or\n"
    "                     -o OUT); fails when that trace is gone or has changed since\n"
    "  -m, --model DIR    model folder for vocabulary strings and W_E (default: the trace's);\n"
    "                     its weights are read only for the embed view and --pin\n"
    "  -o, --output FILE  .png or .svg (written atomically)\n";

static bool parse_pair(const char *s, int *a, int *b) {
  char *end;
  *a = (int)strtol(s, &end, 10);
  if (*end != ',' && *end != 'x') return false;
  *b = (int)strtol(end + 1, &end, 10);
  return *end == 0;
}

// A whole number, nothing after it.
static bool parse_int_arg(const char *s, int *out) {
  char *end;
  long v = strtol(s, &end, 10);
  if (end == s || *end || v < -1000000 || v > 1000000) return false;
  *out = (int)v;
  return true;
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

// Only the embedding, collapse, lens and neighbours views draw from weights; every other view reads the trace alone,
// so the model folder (gigabytes for larger models) is not loaded for it.
static bool needs_weights(const tt_view_state *vs) {
  tt_hook_ref ref;
  if (vs->pin_row >= 0) return true;  // a pinned cell's arithmetic reads the weights
  if (vs->view == TT_VIEW_AUTO) return tt_hook_lookup(vs->hook, &ref) && strcmp(ref.view, "embed") == 0;
  return vs->view == TT_VIEW_COLLAPSE || vs->view == TT_VIEW_LENS || vs->view == TT_VIEW_NEIGHBOURS ||
         strcmp(tt_view_name(vs->view), "embed") == 0;
}

typedef struct {
  tt_view_state vs;
  const char *trace, *step, *output, *model, *compare, *title, *again, *token;
  int w, h, layer;
  bool view_set, svg;
} render_options;

enum {
  O_STEP = 256,
  O_LAYER,
  O_HEAD,
  O_VIEW,
  O_FRAME,
  O_SIZE,
  O_THEME,
  O_LANG,
  O_ZOOM,
  O_PAN,
  O_PIN,
  O_TEMP,
  O_POS,
  O_TOP,
  O_PAIR,
  O_FONT,
  O_COMPARE,
  O_TITLE,
  O_AGAIN,
  O_TOKEN,
  O_HOVER
};

// An option that sets the look of the figure (theme, language, zoom, pin, ...). Returns -1
// when c is not one of them, 0 when it was applied, else the exit code of its error.
static int parse_look_option(int c, render_options *o) {
  tt_view_state *vs = &o->vs;
  switch (c) {
  case O_THEME:
    if (strcmp(optarg, "light") && strcmp(optarg, "dark"))
      return tt_cli_usage_error("render", "--theme is light or dark");
    vs->theme = strcmp(optarg, "dark") == 0 ? TT_THEME_DARK : TT_THEME_LIGHT;
    return 0;
  case O_LANG:
    if (strcmp(optarg, "en") && strcmp(optarg, "ko")) return tt_cli_usage_error("render", "--lang is en or ko");
    vs->lang = strcmp(optarg, "ko") == 0 ? TT_LANG_KO : TT_LANG_EN;
    return 0;
  case O_ZOOM:
    vs->zoom = (float)atof(optarg);
    return 0;
  case O_PAN: {
    int a, b;
    if (!parse_pair(optarg, &a, &b)) return tt_cli_usage_error("render", "--pan wants ROW,COL");
    vs->pan_row = (float)a;
    vs->pan_col = (float)b;
    return 0;
  }
  case O_PIN:
    if (!parse_pair(optarg, &vs->pin_row, &vs->pin_col)) return tt_cli_usage_error("render", "--pin wants ROW,COL");
    return 0;
  case O_HOVER:
    if (!parse_pair(optarg, &vs->hover_row, &vs->hover_col) || vs->hover_row < 0 || vs->hover_col < 0)
      return tt_cli_usage_error("render", "--hover wants ROW,COL (0 or more)");
    return 0;
  case O_TEMP:
    vs->temperature = (float)atof(optarg);
    return 0;
  case O_POS:
    vs->position = atoi(optarg);
    return 0;
  case O_TOP:
    vs->top_k = atoi(optarg);
    return 0;
  case O_PAIR:
    if (!parse_int_arg(optarg, &vs->pair) || vs->pair < 0)
      return tt_cli_usage_error("render", "--pair wants a pair index I >= 0 (dimensions I and I + D/2)");
    return 0;
  case O_FONT:
    vs->font_scale = (float)atof(optarg);
    return 0;
  case O_TITLE:
    o->title = optarg;
    return 0;
  case O_TOKEN:
    o->token = optarg;
    return 0;
  default:
    return -1;
  }
}

// An option that picks what is drawn and where. Returns -1 when c is not one of them,
// 0 when it was applied, else the exit code of its error.
static int parse_what_option(int c, render_options *o) {
  switch (c) {
  case O_STEP:
    o->step = optarg;
    return 0;
  case O_LAYER:
    o->layer = atoi(optarg);
    return 0;
  case O_HEAD:
    o->vs.head = atoi(optarg);
    return 0;
  case O_VIEW:
    if (!tt_view_parse(optarg, &o->vs.view)) return tt_cli_usage_error("render", "unknown view '%s'", optarg);
    o->view_set = true;
    return 0;
  case O_FRAME:
    o->vs.frame = true;
    return 0;
  case O_SIZE:
    if (!parse_pair(optarg, &o->w, &o->h)) return tt_cli_usage_error("render", "--size wants WxH, e.g. 1600x1000");
    return 0;
  case 'm':
    o->model = optarg;
    return 0;
  case 'o':
    o->output = optarg;
    return 0;
  case O_COMPARE:
    o->compare = optarg;
    return 0;
  case O_AGAIN:
    o->again = optarg;
    return 0;
  default:
    return -1;
  }
}

// The options after the getopt loop: TRACE, -o and the ranges of the numbers.
static int check_options(int argc, char **argv, render_options *o) {
  if (o->again) return optind < argc ? tt_cli_usage_error("render", "--again takes the figure, no TRACE") : 0;
  if (optind >= argc) return tt_cli_usage_error("render", "missing TRACE");
  if (argc - optind > 1) return tt_cli_usage_error("render", "one TRACE at a time");
  o->trace = argv[optind];
  if (!o->output) return tt_cli_usage_error("render", "missing -o FIG.png or FIG.svg");
  o->svg = ends_with(o->output, ".svg");
  if (!o->svg && !ends_with(o->output, ".png")) return tt_cli_usage_error("render", "-o must end in .png or .svg");
  if (!(o->vs.zoom >= 1)) return tt_cli_usage_error("render", "--zoom must be 1 or more");
  if (!(o->vs.temperature > 0)) return tt_cli_usage_error("render", "--temperature must be above 0");
  if (!(o->vs.font_scale > 0.2f && o->vs.font_scale < 5))
    return tt_cli_usage_error("render", "--font-scale between 0.2 and 5");
  if (o->vs.head < 0) return tt_cli_usage_error("render", "--head must be 0 or more");
  if (o->token && o->vs.view != TT_VIEW_NEIGHBOURS)
    return tt_cli_usage_error("render", "--token is for --view neighbours");
  return 0;
}

// Fills o from argv. Returns true to go on drawing; false with *code the exit status
// (0 after --help).
static bool parse_options(int argc, char **argv, render_options *o, int *code) {
  static const struct option longs[] = {{"step", required_argument, 0, O_STEP},
                                        {"layer", required_argument, 0, O_LAYER},
                                        {"head", required_argument, 0, O_HEAD},
                                        {"view", required_argument, 0, O_VIEW},
                                        {"frame", no_argument, 0, O_FRAME},
                                        {"size", required_argument, 0, O_SIZE},
                                        {"theme", required_argument, 0, O_THEME},
                                        {"lang", required_argument, 0, O_LANG},
                                        {"zoom", required_argument, 0, O_ZOOM},
                                        {"pan", required_argument, 0, O_PAN},
                                        {"pin", required_argument, 0, O_PIN},
                                        {"temperature", required_argument, 0, O_TEMP},
                                        {"position", required_argument, 0, O_POS},
                                        {"top", required_argument, 0, O_TOP},
                                        {"pair", required_argument, 0, O_PAIR},
                                        {"font-scale", required_argument, 0, O_FONT},
                                        {"model", required_argument, 0, 'm'},
                                        {"output", required_argument, 0, 'o'},
                                        {"help", no_argument, 0, 'h'},
                                        {"compare", required_argument, 0, O_COMPARE},
                                        {"title", required_argument, 0, O_TITLE},
                                        {"again", required_argument, 0, O_AGAIN},
                                        {"token", required_argument, 0, O_TOKEN},
                                        {"hover", required_argument, 0, O_HOVER},
                                        {0, 0, 0, 0}};
  memset(o, 0, sizeof *o);
  tt_view_state_init(&o->vs);
  o->w = 1600, o->h = 1000, o->layer = -1;
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, ":m:o:h", longs, NULL)) != -1) {
    if (c == 'h') {
      fputs(usage, stdout);
      *code = 0;
      return false;
    }
    int r = parse_what_option(c, o);
    if (r < 0) r = parse_look_option(c, o);
    if (r < 0) r = tt_cli_option_error("render", c, argv);
    if (r) {
      *code = r;
      return false;
    }
  }
  *code = check_options(argc, argv, o);
  return *code == 0;
}

// Sets vs.hook, vs.step and vs.layer from --step and --layer (default step: tokens).
static tt_status resolve_step(tt_trace *tr, render_options *o, tt_error *err) {
  tt_view_state *vs = &o->vs;
  const char *step = o->step ? o->step : "tokens";
  int layer = o->layer;
  tt_status st = tt_resolve_hook(tr, step, layer, vs->hook, sizeof vs->hook, err);
  if (st) {
    // A step whose view draws several tensors (tokens, bars, layernorm, ...) may name a hook
    // that is not recorded itself.
    char full[96];
    tt_hook_ref ref;
    if (tt_hook_lookup(step, &ref) || !tt_hook_at(step, layer < 0 ? 0 : layer, &ref) ||
        !tt_hook_name(&ref, full, sizeof full))
      snprintf(full, sizeof full, "%.95s", step);
    int si = tt_step_find(tr, full, NULL);
    tt_view_kind v = si >= 0 ? tt_step_get(tr, si)->view : TT_VIEW_HEATMAP;
    if (v != TT_VIEW_HEATMAP && v != TT_VIEW_TABLE) {
      snprintf(vs->hook, sizeof vs->hook, "%s", full);
      st = TT_OK;
    }
  }
  if (st) return st;
  int L = -1;
  vs->step = tt_step_find(tr, vs->hook, &L);
  // The generation's views are steps of their own (after the forward pass's).
  for (int i = tt_step_count(); o->view_set && i < tt_step_count_for(tr); i++)
    if (tt_step_get(tr, i)->view == vs->view) vs->step = i;
  vs->layer = L >= 0 ? L : (layer < 0 ? 0 : layer);
  if (!o->view_set) vs->view = TT_VIEW_AUTO;
  return TT_OK;
}

static const char *base_name(const char *path) {
  return strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
}

// A beside B and A - B; prints the largest difference drawn.
static tt_status draw_compare(tt_render *rc, tt_trace *tr, tt_trace *b, tt_derived *d, const render_options *o,
                              tt_error *err) {
  tt_compare cmp = {b, base_name(o->trace), base_name(o->compare)};
  tt_status st = o->svg ? tt_render_compare_svg(rc, tr, &cmp, &o->vs, o->w, o->h, d, o->output, err)
                        : tt_render_compare_png(rc, tr, &cmp, &o->vs, o->w, o->h, d, o->output, err);
  tt_compare_info in;
  tt_derived_info(d, &in);
  if (!st && in.diff)
    printf("max |A - B| = %.6g in %s\n", (double)in.max_abs, in.hook);
  else if (!st)
    printf("no difference drawn (the tensor is missing or the shapes differ)\n");
  return st;
}

// A path as the figure records it: absolute, so that --again finds it from anywhere.
static void put_path(tt_prov *p, const char *option, const char *path) {
  char *abs = realpath(path, NULL);
  tt_prov_option(p, option, "%s", abs ? abs : path);
  free(abs);
}

// Every option that shaped the figure, with the values in effect (defaults too), and the
// trace it was drawn from with its hash.
static tt_status record_provenance(tt_trace *tr, const render_options *o, tt_prov *p, tt_error *err) {
  const tt_view_state *vs = &o->vs;
  char hex[17];
  tt_status st = tt_st_identity(o->trace, false, hex, err);  // its header only
  if (st != TT_OK) return st;
  char *abs = realpath(o->trace, NULL);
  tt_prov_add(p, "ttrace:version", "%s", TT_VERSION);
  tt_prov_add(p, "ttrace:trace", "%s", abs ? abs : o->trace);
  free(abs);
  tt_prov_add(p, "ttrace:trace-xxh3", "%s", hex);
  const char *prompt = tt_trace_meta(tr, "prompt");
  tt_prov_add(p, "ttrace:prompt", "%s", prompt ? prompt : "");
  tt_prov_add(p, "ttrace:hook", "%s", vs->hook);
  tt_prov_add(p, "ttrace:layer", "%d", vs->layer);
  tt_prov_add(p, "ttrace:head", "%d", vs->head);
  tt_prov_add(p, "ttrace:view", "%s", tt_view_name(vs->view));
  tt_prov_option(p, "--step", "%s", vs->hook);
  tt_prov_option(p, "--layer", "%d", vs->layer);
  tt_prov_option(p, "--head", "%d", vs->head);
  if (o->view_set) tt_prov_option(p, "--view", "%s", tt_view_name(vs->view));
  if (vs->frame) tt_prov_option(p, "--frame", "%s", "");
  tt_prov_option(p, "--size", "%dx%d", o->w, o->h);
  tt_prov_option(p, "--theme", "%s", vs->theme == TT_THEME_DARK ? "dark" : "light");
  tt_prov_option(p, "--lang", "%s", vs->lang == TT_LANG_KO ? "ko" : "en");
  tt_prov_option(p, "--zoom", "%.9g", (double)vs->zoom);
  tt_prov_option(p, "--pan", "%.0f,%.0f", (double)vs->pan_row, (double)vs->pan_col);
  if (vs->pin_row >= 0 && vs->pin_col >= 0) tt_prov_option(p, "--pin", "%d,%d", vs->pin_row, vs->pin_col);
  if (vs->hover_row >= 0) tt_prov_option(p, "--hover", "%d,%d", vs->hover_row, vs->hover_col);
  tt_prov_option(p, "--temperature", "%.9g", (double)vs->temperature);
  tt_prov_option(p, "--position", "%d", vs->position);
  tt_prov_option(p, "--top", "%d", vs->top_k);
  if (o->token) tt_prov_option(p, "--token", "%s", o->token);
  if (vs->pair >= 0) tt_prov_option(p, "--pair", "%d", vs->pair);
  tt_prov_option(p, "--font-scale", "%.9g", (double)vs->font_scale);
  if (o->title) tt_prov_option(p, "--title", "%s", o->title);
  if (o->model) put_path(p, "--model", o->model);
  if (o->compare) {
    put_path(p, "--compare", o->compare);
    st = tt_st_identity(o->compare, false, hex, err);
    if (st != TT_OK) return st;
    tt_prov_add(p, "ttrace:compare-xxh3", "%s", hex);
  }
  return TT_OK;
}

// Opens what the figure needs besides the trace (vocabulary, --compare's trace) and draws it.
static int draw(tt_trace *tr, render_options *o, tt_error *err) {
  tt_viz_data *vd = NULL;
  tt_render_extras ex;
  tt_render *rc = NULL;
  tt_status st = tt_viz_data_open_for(o->model, tr, needs_weights(&o->vs), &vd, err);
  if (!st && o->token) {
    int32_t id = -1;
    st = tt_viz_data_token_id(vd, o->token, &id, err);
    o->vs.token = (int)id;
  }
  if (!st) {
    tt_viz_data_extras(vd, tr, &ex);
    st = tt_render_create(&rc, err);
  }
  tt_trace *b = NULL;
  tt_derived *d = NULL;
  if (!st && o->compare) {
    st = tt_cli_load_trace(o->compare, &b, err);
    if (!st) st = tt_derived_create(&d, err);
  }
  if (!st) {
    tt_render_set_extras(rc, &ex);
    if (b)
      st = draw_compare(rc, tr, b, d, o, err);
    else
      st = o->svg ? tt_render_svg(rc, tr, &o->vs, o->w, o->h, o->output, err)
                  : tt_render_png(rc, tr, &o->vs, o->w, o->h, o->output, err);
  }
  if (!st) printf("%s: %s, %dx%d -> %s\n", o->vs.hook, tt_view_name(o->vs.view), o->w, o->h, o->output);
  int code = st ? tt_cli_fail("render", err) : 0;
  tt_render_destroy(rc);
  tt_derived_destroy(d);
  tt_viz_data_close(vd);
  tt_trace_destroy(b);
  return code;
}

// --again FIG: the render command FIG records, run again.
static int again(const render_options *o) {
  tt_prov p;
  tt_prov_init(&p);
  char *argv[TT_PROV_MAX * 2 + 1];
  int argc = 0;
  tt_error err = {0};
  int code = tt_render_again_argv(o->again, o->output, &p, argv, &argc, &err) ? tt_cli_fail("render", &err)
                                                                              : tt_cmd_render(argc, argv);
  tt_prov_free(&p);
  return code;
}

int tt_cmd_render(int argc, char **argv) {
  render_options o;
  int code;
  if (!parse_options(argc, argv, &o, &code)) return code;
  if (o.again) return again(&o);
  tt_error err = {0};
  tt_trace *tr = NULL;
  if (tt_cli_load_trace(o.trace, &tr, &err)) return tt_cli_fail("render", &err);
  tt_prov prov;
  tt_prov_init(&prov);
  if (resolve_step(tr, &o, &err) || record_provenance(tr, &o, &prov, &err)) {
    tt_prov_free(&prov);
    tt_trace_destroy(tr);
    return tt_cli_fail("render", &err);
  }
  o.vs.figure = true;
  o.vs.title = o.title;
  o.vs.provenance = (const char *const(*)[2])prov.kv;
  o.vs.n_provenance = prov.n;
  code = draw(tr, &o, &err);
  tt_prov_free(&prov);
  tt_trace_destroy(tr);
  return code;
}
