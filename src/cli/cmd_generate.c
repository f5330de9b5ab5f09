// ttrace generate: a prompt, then N tokens appended one at a time with the KV cache,
// printed as they come; optionally the whole run as a trace file.
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "generate/generate.h"
#include "pass_options.h"
#include "prompt_arg.h"

static const char usage[] =
    "usage: ttrace generate [-m MODEL_DIR] [-n N] [--temperature X] [--top-k K] [--top-p P] [--seed S]\n"
    "                       [-b BACKEND] [--set KEY=VALUE]... [--record GLOB]... [--bos] [-o FILE] PROMPT\n"
    "\n"
    "Appends N tokens to PROMPT, one at a time: the prompt pass keeps every layer's keys and\n"
    "values (the KV cache), and each new token runs through the model alone. The continuation\n"
    "is printed as it comes (a character cut across tokens, as a Hangul syllable often is, once\n"
    "its last byte comes; a byte no token completes as \\xNN). PROMPT '-' reads standard input.\n"
    "\n"
    "  -m, --model DIR       a GPT-2 or Llama model folder; default: the embedded default model\n"
    "  -n, --tokens N        how many tokens to append (default 20). When the prompt and the\n"
    "                        tokens would not fit the model's context, generation stops at the\n"
    "                        context with a note on stderr; what was generated is kept (and\n"
    "                        written with -o) and the exit status is 0\n"
    "      --temperature X   divide the logits by X before the softmax (default 1); 0 is greedy:\n"
    "                        always the likeliest token\n"
    "      --top-k K         draw only from the K likeliest tokens (K >= 1; default: all)\n"
    "      --top-p P         then only from the smallest likeliest set with probability >= P,\n"
    "                        0 < P <= 1 (default 1: all)\n"
    "      --seed S          the generator's seed, 0..18446744073709551615 (default 0); the same\n"
    "                        seed gives the same tokens (docs/generation.md)\n"
    "  -b, --backend NAME    openblas (default), opencl, or auto\n"
    "      --set KEY=VALUE   a variant knob, as for `ttrace trace` (causal=false is refused)\n"
    "      --record GLOB     keep only hooks matching GLOB in the trace (decode steps are\n"
    "                        decode.S.<hook>, e.g. 'decode.*.hook_logits')\n"
    "      --bos             put the BOS token first\n"
    "  -o, --output FILE     write the prompt pass and every decode step as a trace (atomically)\n"
    "  -q, --quiet           print only the continuation\n";

typedef struct {
  tt_cli_pass_options pass;
  tt_generate_opts gen;
} generate_options;

enum { O_TEMPERATURE = 256, O_TOP_K, O_TOP_P, O_SEED };

// A whole decimal number in text, or false.
static bool parse_u64(const char *text, unsigned long long *out) {
  if (!text[0] || text[0] == '-' || text[0] == '+' || text[0] == ' ') return false;
  char *end;
  errno = 0;
  *out = strtoull(text, &end, 10);
  return errno == 0 && *end == 0;
}

static bool parse_int(const char *text, int *out) {
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (!text[0] || *end || errno || v < -1000000000L || v > 1000000000L) return false;
  *out = (int)v;
  return true;
}

static bool parse_real(const char *text, double *out) {
  char *end;
  errno = 0;
  *out = strtod(text, &end);
  return text[0] && !*end && errno == 0 && isfinite(*out);
}

// The sampling options; 0, or the exit code of a bad value.
static int parse_sampling(int c, generate_options *o) {
  tt_sampling *s = &o->gen.sampling;
  unsigned long long seed;
  switch (c) {
  case 'n':
    if (!parse_int(optarg, &o->gen.n) || o->gen.n < 1)
      return tt_cli_usage_error("generate", "-n %s: the number of tokens must be a whole number >= 1", optarg);
    return 0;
  case O_TEMPERATURE:
    if (!parse_real(optarg, &s->temperature) || s->temperature < 0)
      return tt_cli_usage_error("generate", "--temperature %s: must be a number >= 0 (0 is greedy)", optarg);
    return 0;
  case O_TOP_K:
    if (!parse_int(optarg, &s->top_k) || s->top_k < 1)
      return tt_cli_usage_error("generate", "--top-k %s: must be a whole number >= 1", optarg);
    return 0;
  case O_TOP_P:
    if (!parse_real(optarg, &s->top_p) || !(s->top_p > 0 && s->top_p <= 1))
      return tt_cli_usage_error("generate", "--top-p %s: must be a number in (0, 1]", optarg);
    return 0;
  case O_SEED:
    if (!parse_u64(optarg, &seed))
      return tt_cli_usage_error("generate", "--seed %s: must be a whole number 0..18446744073709551615", optarg);
    s->seed = seed;
    return 0;
  }
  return -1;
}

// Applies one option. Returns 0, or the exit code of its error.
static int parse_option(int c, char **argv, generate_options *o) {
  int code = parse_sampling(c, o);
  if (code < 0) code = tt_cli_pass_option("generate", c, &o->pass);
  return code >= 0 ? code : tt_cli_option_error("generate", c, argv);
}

// Fills o from argv. Returns true to go on; false with *code the exit status (0 after --help).
static bool parse_options(int argc, char **argv, generate_options *o, int *code) {
  static const struct option longs[] = {{"model", required_argument, 0, 'm'},
                                        {"tokens", required_argument, 0, 'n'},
                                        {"temperature", required_argument, 0, O_TEMPERATURE},
                                        {"top-k", required_argument, 0, O_TOP_K},
                                        {"top-p", required_argument, 0, O_TOP_P},
                                        {"seed", required_argument, 0, O_SEED},
                                        {"backend", required_argument, 0, 'b'},
                                        {"output", required_argument, 0, 'o'},
                                        {"set", required_argument, 0, 's'},
                                        {"record", required_argument, 0, 'r'},
                                        {"bos", no_argument, 0, TT_CLI_OPT_BOS},
                                        {"quiet", no_argument, 0, 'q'},
                                        {"help", no_argument, 0, 'h'},
                                        {0, 0, 0, 0}};
  memset(o, 0, sizeof *o);
  tt_cli_pass_options_init(&o->pass);
  o->gen.n = 20;
  o->gen.sampling = (tt_sampling){.temperature = 1.0, .top_k = 0, .top_p = 1.0, .seed = 0};
  int c;
  optind = 1;
  *code = 0;
  while ((c = getopt_long(argc, argv, ":m:n:b:o:qh", longs, NULL)) != -1) {
    if (c == 'h') {
      fputs(usage, stdout);
      return false;
    }
    if ((*code = parse_option(c, argv, o))) return false;
  }
  return true;
}

typedef struct {
  const tt_session *s;
  const char *prompt;  // printed before the first token; NULL with --quiet
  bool started;
  char held[4];  // the start of a character whose other bytes the next token may bring
  size_t n_held;
} printer;

// Prints bytes (a string) with terminal controls escaped and newlines kept.
static void print_escaped(const char *bytes) {
  size_t cap = 6 * strlen(bytes) + 1;  // the longest escape, \u0080, is 6 bytes for 2
  char *shown = malloc(cap);
  if (shown) fputs(tt_escape_text(bytes, shown, cap, true), stdout);
  free(shown);
}

// Prints each token's text as it is chosen, the prompt before the first. A character split
// across tokens (a Hangul syllable is 3 bytes, often 2 tokens) is printed whole once its
// last byte comes; bytes that no token completes are printed as \xNN (print_flush).
static void print_token(void *ctx, const tt_pick *pick) {
  printer *pr = ctx;
  if (!pr->started && pr->prompt) {
    char *p = tt_escape_text_dup(pr->prompt);
    fputs(p ? p : "", stdout);
    free(p);
  }
  pr->started = true;
  char *text = tt_tokenizer_decode(pr->s->tok, &pick->id, 1);
  size_t n = text ? strlen(text) : 0;
  char *bytes = text ? malloc(pr->n_held + n + 1) : NULL;
  if (bytes) {
    memcpy(bytes, pr->held, pr->n_held);
    memcpy(bytes + pr->n_held, text, n + 1);
    n += pr->n_held;
    pr->n_held = tt_utf8_incomplete_tail(bytes, n);
    memcpy(pr->held, bytes + n - pr->n_held, pr->n_held);
    bytes[n - pr->n_held] = 0;
    print_escaped(bytes);
  }
  free(bytes);
  free(text);
  fflush(stdout);
}

// The bytes held back when generation ends: the start of a character never finished.
static void print_flush(printer *pr) {
  pr->held[pr->n_held] = 0;
  print_escaped(pr->held);
  pr->n_held = 0;
}

static void print_summary(const generate_options *o, const tt_session *s, const tt_trace *tr,
                          const tt_generate_result *res) {
  if (res->stopped_at_context)
    fprintf(stderr, "ttrace generate: stopped at the model's context (%d tokens): %d of the %d tokens asked for\n",
            res->n_ctx, res->n_generated, o->gen.n);
  if (o->pass.quiet) return;
  int steps = res->n_generated - 1;
  fprintf(stderr, "generated %d tokens on %s: prompt pass %s ms, %d decode steps in %.1f ms (%.1f tokens/s)%s%s\n",
          res->n_generated, s->be->name, tt_trace_meta(tr, "time_ms"), steps, res->decode_ms,
          res->decode_ms > 0 ? steps / (res->decode_ms / 1e3) : 0.0, o->pass.output ? " -> " : "",
          o->pass.output ? o->pass.output : "");
}

int tt_cmd_generate(int argc, char **argv) {
  generate_options o;
  int rc;
  if (!parse_options(argc, argv, &o, &rc)) return rc;
  tt_error err = {0};
  char *prompt = NULL;
  tt_status st = tt_prompt_from_args(argc - optind, argv + optind, &prompt, &err);
  o.pass.in.prompt = prompt;
  if (!st && o.pass.output && !tt_cli_folder_writable(o.pass.output))
    st = tt_fail(&err, TT_ERR_IO, "cannot write %s: %s", o.pass.output, strerror(errno));
  tt_session *s = NULL;
  tt_trace *tr = NULL;
  tt_generate_result res = {0};
  printer pr = {.prompt = o.pass.quiet ? NULL : prompt};
  if (!st) st = tt_session_open(&o.pass.session, &s, &err);
  if (!st && !o.pass.quiet) tt_cli_note("generate", s->backend_note);
  pr.s = s;
  o.gen.on_token = print_token;
  o.gen.ctx = &pr;
  if (!st) st = tt_generate(s, &o.pass.in, &o.gen, &res, &tr, &err);
  if (pr.started) print_flush(&pr), printf("\n");
  if (!st && o.pass.output) st = tt_trace_save(tr, o.pass.output, &err);
  if (!st) print_summary(&o, s, tr, &res);
  rc = st ? tt_cli_fail("generate", &err) : 0;
  tt_trace_destroy(tr);
  tt_session_close(s);
  free(prompt);
  return rc;
}
