// ttrace trace: prompt → forward pass → trace file.
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "pass_options.h"
#include "prompt_arg.h"
#include "session/session.h"

static const char usage[] =
    "usage: ttrace trace [-m MODEL_DIR] [-b BACKEND] [--set KEY=VALUE]... [--record GLOB]... [--bos] [--grad] -o FILE "
    "PROMPT\n"
    "       ttrace trace [OPTIONS] -o FILE --ids ID,ID,...\n"
    "\n"
    "Runs PROMPT through the model and saves every recorded tensor to FILE (safetensors;\n"
    "see docs/trace-format.md). PROMPT '-' reads standard input.\n"
    "\n"
    "  -m, --model DIR     a GPT-2 or Llama model folder (config.json, model.safetensors or its\n"
    "                      shards, and tokenizer.json or vocab.json + merges.txt; GPT-2's bundled\n"
    "                      tokenizer when it has none);\n"
    "                      default: the embedded default model\n"
    "  -b, --backend NAME  openblas (default), opencl, or auto (OpenCL when a device exists)\n"
    "  -o, --output FILE   the trace file to write (written atomically)\n"
    "      --set KEY=VALUE change the forward pass (repeatable; KEY=VALUE,KEY=VALUE sets several):\n"
    "                      scale_attn=false, causal=false, positions=learned|sinusoidal|none,\n"
    "                      activation=gelu_new|gelu|relu|silu|identity, residual=false,\n"
    "                      block=post_ln, norm=rmsnorm\n"
    "      --record GLOB   keep only hooks matching GLOB (repeatable), e.g. 'blocks.0.attn.*';\n"
    "                      --record none keeps nothing (for timing); it filters gradients too\n"
    "      --grad          also run the backward pass of the mean next-token loss and record\n"
    "                      grad.<hook> and grad.<weight> (the prompt needs at least 2 tokens)\n"
    "      --bos           put the BOS token first: <|endoftext|> (50256) for GPT-2, as TransformerLens'\n"
    "                      prepend_bos does; for a tokenizer.json, its BOS (or <|endoftext|>);\n"
    "                      always when the folder's tokenizer_config.json has add_bos_token: true\n"
    "      --ids LIST      trace these token ids (comma-separated, e.g. 464,6193,318,3621) instead of a PROMPT\n"
    "  -q, --quiet         print nothing on success\n";

// The three likeliest next tokens after the last prompt token, for the summary line.
static void print_prediction(const tt_session *s, const tt_trace *tr) {
  const tt_tensor *probs = tt_trace_find(tr, "hook_probs");
  if (!probs) return;
  int64_t T = probs->shape[0], V = probs->shape[1];
  const float *last = (const float *)probs->data + (T - 1) * V;
  int best[3] = {-1, -1, -1};
  for (int64_t v = 0; v < V; v++)
    for (int k = 0; k < 3; k++)
      if (best[k] < 0 || last[v] > last[best[k]]) {
        for (int j = 2; j > k; j--) best[j] = best[j - 1];
        best[k] = (int)v;
        break;
      }
  printf("next token:");
  for (int k = 0; k < 3 && best[k] >= 0; k++) {
    char piece[128];
    printf(" '%s' %.3g", tt_tokenizer_token_display(s->tok, best[k], piece, sizeof piece), last[best[k]]);
  }
  printf("\n");
}

// The input: --ids, or the prompt words.
static tt_status read_input(int argc, char **argv, const char *ids_arg, tt_trace_input *in, char **prompt,
                            int32_t **ids, tt_error *err) {
  if (!ids_arg) {
    tt_status st = tt_prompt_from_args(argc, argv, prompt, err);
    in->prompt = *prompt;
    return st;
  }
  (void)argc;
  tt_status st = tt_ids_from_arg(ids_arg, ids, &in->n_ids, err);
  in->ids = *ids;
  return st;
}

static void print_summary(const tt_session *s, const tt_trace *tr, const char *output) {
  char tokens[32], tensors[32];
  printf("traced %s on %s in %s ms: %s, %.1f MiB -> %s\n",
         tt_cli_count(tokens, sizeof tokens, tt_trace_n_tokens(tr), "token", "tokens"), s->be->name,
         tt_trace_meta(tr, "time_ms"),
         tt_cli_count(tensors, sizeof tensors, (long long)tt_trace_count(tr), "tensor", "tensors"),
         (double)tt_trace_bytes(tr) / (1 << 20), output);
  print_prediction(s, tr);
}

typedef struct {
  tt_cli_pass_options pass;
  const char *ids_arg;
} trace_options;

enum { O_IDS = 256 };

// Applies one option. Returns 0, or the exit code of its error.
static int parse_option(int c, char **argv, trace_options *o) {
  int code = tt_cli_pass_option("trace", c, &o->pass);
  if (code >= 0) return code;
  switch (c) {
  case O_IDS:
    o->ids_arg = optarg;
    return 0;
  case 'g':
    o->pass.session.grad = true;
    return 0;
  default:
    return tt_cli_option_error("trace", c, argv);
  }
}

// Fills o from argv. Returns true to go on tracing; false with *code the exit status
// (0 after --help).
static bool parse_options(int argc, char **argv, trace_options *o, int *code) {
  static const struct option longs[] = {{"model", required_argument, 0, 'm'},
                                        {"backend", required_argument, 0, 'b'},
                                        {"output", required_argument, 0, 'o'},
                                        {"set", required_argument, 0, 's'},
                                        {"record", required_argument, 0, 'r'},
                                        {"quiet", no_argument, 0, 'q'},
                                        {"bos", no_argument, 0, TT_CLI_OPT_BOS},
                                        {"ids", required_argument, 0, O_IDS},
                                        {"grad", no_argument, 0, 'g'},
                                        {"help", no_argument, 0, 'h'},
                                        {0, 0, 0, 0}};
  memset(o, 0, sizeof *o);
  tt_cli_pass_options_init(&o->pass);
  int c;
  optind = 1;
  *code = 0;
  while ((c = getopt_long(argc, argv, ":m:b:o:qh", longs, NULL)) != -1) {
    if (c == 'h') {
      fputs(usage, stdout);
      return false;
    }
    if ((*code = parse_option(c, argv, o))) return false;
  }
  if (!o->pass.output)
    *code = tt_cli_usage_error("trace", "missing -o FILE");
  else if (o->ids_arg && optind < argc)
    *code = tt_cli_usage_error("trace", "--ids goes without a PROMPT (got '%s')", argv[optind]);
  return *code == 0;
}

int tt_cmd_trace(int argc, char **argv) {
  trace_options o;
  int rc;
  if (!parse_options(argc, argv, &o, &rc)) return rc;
  tt_error err = {0};
  char *prompt = NULL;
  int32_t *ids = NULL;
  tt_status st = read_input(argc - optind, argv + optind, o.ids_arg, &o.pass.in, &prompt, &ids, &err);
  if (!st && !tt_cli_folder_writable(o.pass.output))
    st = tt_fail(&err, TT_ERR_IO, "cannot write %s: %s", o.pass.output, strerror(errno));
  tt_session *s = NULL;
  tt_trace *tr = NULL;
  if (!st) st = tt_session_open(&o.pass.session, &s, &err);
  if (!st && !o.pass.quiet) tt_cli_note("trace", s->backend_note);
  if (!st) st = tt_session_trace_input(s, &o.pass.in, &tr, &err);
  if (!st) st = tt_trace_save(tr, o.pass.output, &err);
  if (!st && !o.pass.quiet) print_summary(s, tr, o.pass.output);
  rc = st ? tt_cli_fail("trace", &err) : 0;
  tt_trace_destroy(tr);
  tt_session_close(s);
  free(prompt);
  free(ids);
  return rc;
}
