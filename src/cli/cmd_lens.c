// ttrace lens: the logit lens of a trace as a table (see lens/lens.h).
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "trace_arg.h"
#include "lens/lens.h"
#include "tokenizer/tokenizer.h"

static const char usage[] =
    "usage: ttrace lens [OPTIONS] TRACE\n"
    "\n"
    "The logit lens: block 0's input and every block's output put through the model's own\n"
    "final norm (ln_final) and unembedding, then softmax, as if the model stopped there.\n"
    "For each position, one row per stream with its K most probable tokens (the piece, with\n"
    "a space shown as \xE2\x90\xA3 and the bytes of a character split across tokens in hex\n"
    "between \xE2\x80\xB9 and \xE2\x80\xBA with the character they spell, as the views write\n"
    "them; its id and its probability). The last row is the model's own prediction\n"
    "(hook_probs). The model folder is the one the trace names (metadata 'model').\n"
    "\n"
    "  -k K         tokens per stream (default 3; 1..vocabulary size)\n"
    "  --pos P      only position P (negative counts from the end: -1 is the last token)\n"
    "  -m DIR       the model folder, instead of the trace's\n"
    "\n"
    "Exit codes: 2 a bad option; 3 a malformed trace, a model that is not the trace's, -k or\n"
    "--pos outside the trace; 4 a trace or model folder that cannot be read.\n";

typedef struct {
  int K;
  long pos;  // with one_pos: the position asked for (negative: from the end)
  bool one_pos;
  const char *model_dir;
  const char *trace;
} lens_args;

static bool parse_long(const char *s, long *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end) return false;
  *out = v;
  return true;
}

static int parse_args(int argc, char **argv, lens_args *a) {
  static const struct option longs[] = {
      {"pos", required_argument, 0, 'p'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
  *a = (lens_args){.K = 3};
  long v;
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, ":hk:m:", longs, NULL)) != -1) {
    switch (c) {
    case 'k':
      if (!parse_long(optarg, &v) || v < 1 || v > 1000000000)
        return tt_cli_usage_error("lens", "-k takes a whole number of at least 1, not '%s'", optarg);
      a->K = (int)v;
      break;
    case 'p':
      if (!parse_long(optarg, &a->pos))
        return tt_cli_usage_error("lens", "--pos takes a whole number, not '%s'", optarg);
      a->one_pos = true;
      break;
    case 'm':
      a->model_dir = optarg;
      break;
    case 'h':
      fputs(usage, stdout);
      return -1;
    default:
      return tt_cli_option_error("lens", c, argv);
    }
  }
  if (optind >= argc) return tt_cli_usage_error("lens", "missing TRACE");
  if (argc - optind > 1) return tt_cli_usage_error("lens", "too many arguments");
  a->trace = argv[optind];
  return 0;
}

// The model the trace names (or -m's), loaded and with its tokenizer.
static tt_status open_model(const lens_args *a, const tt_trace *tr, tt_model **m, tt_tokenizer **tok, tt_error *err) {
  const char *dir = a->model_dir ? a->model_dir : tt_trace_meta(tr, "model");
  if (!dir || !dir[0]) return tt_fail(err, TT_ERR_FORMAT, "%s names no model folder (give one with -m DIR)", a->trace);
  if (access(dir, F_OK) != 0)
    return a->model_dir
               ? tt_fail(err, TT_ERR_IO, "model folder %s (given with -m) does not exist", dir)
               : tt_fail(err, TT_ERR_IO,
                         "model folder %s, named by the trace, does not exist (give the model with -m DIR)", dir);
  tt_status st = tt_model_load(dir, m, err);
  if (st) return st;
  char tokdir[4096];
  if (tt_tokenizer_files_in(dir))
    snprintf(tokdir, sizeof tokdir, "%s", dir);
  else if (!tt_asset_path("tokenizer", tokdir, sizeof tokdir))
    return tt_fail(err, TT_ERR_IO, "no tokenizer files in %s and no bundled GPT-2 tokenizer", dir);
  return tt_tokenizer_load(tokdir, tok, err);
}

// The prompt's bytes as its tokens spell them, and where each token begins (offs[t], T + 1
// entries): a token's label needs the bytes around it.
typedef struct {
  char *text;
  size_t *offs;
} prompt_bytes;

static bool prompt_bytes_of(const tt_trace *tr, const tt_tokenizer *tok, prompt_bytes *pb) {
  int T = tt_trace_n_tokens(tr);
  size_t total = 0, n = 0;
  for (int t = 0; t < T; t++)
    if (tt_tokenizer_token_bytes(tok, tt_trace_token_id(tr, t), &n)) total += n;
  pb->text = malloc(total + 1);
  pb->offs = malloc(sizeof(size_t) * (size_t)(T + 1));
  if (!pb->text || !pb->offs) return false;
  pb->offs[0] = 0;
  for (int t = 0; t < T; t++) {
    const char *b = tt_tokenizer_token_bytes(tok, tt_trace_token_id(tr, t), &n);
    if (!b) n = 0;
    memcpy(pb->text + pb->offs[t], b ? b : "", n);
    pb->offs[t + 1] = pb->offs[t] + n;
  }
  return true;
}

// Token t labelled as the views label it: a piece of a character in the ‹BD:…› notation,
// with the character the bytes around it complete.
static const char *token_label(const prompt_bytes *pb, int T, int t, char *buf, size_t cap) {
  size_t at = pb->offs[t], n = pb->offs[t + 1] - at, rest = pb->offs[T] - (at + n);
  size_t nb = at < 3 ? at : 3, na = rest < 3 ? rest : 3;
  return tt_bytes_label(pb->text + at - nb, nb, pb->text + at, n, pb->text + at + n, na, buf, cap);
}

// A candidate (bytes s, n) read after the prompt up to token t, labelled the same way.
static const char *candidate_label(const prompt_bytes *pb, int t, const char *s, size_t n, char *buf, size_t cap) {
  size_t at = pb->offs[t + 1], nb = at < 3 ? at : 3;
  return tt_bytes_label(pb->text + at - nb, nb, s, n, "", 0, buf, cap);
}

// One position: a row per stream, K cells "piece id p"; the pieces as the views write them
// (a candidate read after the prompt up to this position).
static void print_position(const tt_lens *l, const tt_trace *tr, const tt_tokenizer *tok, const prompt_bytes *pb,
                           int t) {
  char shown[512];
  token_label(pb, tt_trace_n_tokens(tr), t, shown, sizeof shown);
  printf("\nposition %d: %s (id %d) \xE2\x86\x92 next token\n", t, shown, (int)tt_trace_token_id(tr, t));
  printf("  %-28s", "stream");
  for (int k = 0; k < l->K; k++) printf("  top %-20d", k + 1);
  printf("\n");
  for (int r = 0; r < l->n_rows; r++) {
    printf("  %-28s", l->row_hook[r]);
    for (int k = 0; k < l->K; k++) {
      size_t i = tt_lens_at(l, r, t, k), n = 0;
      const char *b = tt_tokenizer_token_bytes(tok, l->ids[i], &n);
      candidate_label(pb, t, b ? b : "", b ? n : 0, shown, sizeof shown);
      char cell[640];
      double pr = l->probs[i];  // 4 decimals; under 0.0001 two digits (2.0e-05, not 0.0000)
      snprintf(cell, sizeof cell, pr > 0 && pr < 1e-4 ? "%s %d %.1e" : "%s %d %.4f", shown, (int)l->ids[i], pr);
      int pad = 24 - tt_utf8_columns(cell);  // columns, not bytes: ␣ is three bytes
      printf("  %s%*s", cell, pad > 0 ? pad : 0, "");
    }
    printf("\n");
  }
}

static int run_lens(const lens_args *a, tt_trace *tr, tt_error *err) {
  tt_model *m = NULL;
  tt_tokenizer *tok = NULL;
  tt_lens l = {0};
  int T = tt_trace_n_tokens(tr);
  long pos = a->one_pos && a->pos < 0 ? a->pos + T : a->pos;
  tt_status st = TT_OK;
  if (a->one_pos && (pos < 0 || pos >= T))
    st = tt_fail(err, TT_ERR_ARG, "--pos %ld is outside the trace's %d positions (0..%d, or -%d..-1)", a->pos, T, T - 1,
                 T);
  if (!st) st = open_model(a, tr, &m, &tok, err);
  if (!st) st = tt_lens_compute(m, tr, a->K, &l, err);
  prompt_bytes pb = {0};
  if (!st && !prompt_bytes_of(tr, tok, &pb)) st = tt_fail(err, TT_ERR_NOMEM, "out of memory");
  if (!st) {
    const char *prompt = tt_trace_meta(tr, "prompt");
    char *shown = tt_escape_text_dup(prompt ? prompt : "");
    printf("logit lens of \xE2\x80\x9C%s\xE2\x80\x9D: each stream through ln_final and the unembedding, then softmax\n",
           shown ? shown : "");
    printf("model %s; %d streams, %d positions, top %d\n", m->dir, l.n_rows, l.T, l.K);
    free(shown);
    for (int t = a->one_pos ? (int)pos : 0; t < (a->one_pos ? (int)pos + 1 : T); t++)
      print_position(&l, tr, tok, &pb, t);
  }
  free(pb.text);
  free(pb.offs);
  tt_lens_free(&l);
  tt_tokenizer_destroy(tok);
  tt_model_destroy(m);
  return st ? tt_cli_fail("lens", err) : 0;
}

int tt_cmd_lens(int argc, char **argv) {
  lens_args a;
  int rc = parse_args(argc, argv, &a);
  if (rc) return rc < 0 ? 0 : rc;
  tt_error err = {0};
  tt_trace *tr = NULL;
  if (tt_cli_load_trace(a.trace, &tr, &err)) return tt_cli_fail("lens", &err);
  rc = run_lens(&a, tr, &err);
  tt_trace_destroy(tr);
  return rc;
}
