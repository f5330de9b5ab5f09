// ttrace tokenize: text → GPT-2 tokens, as a table, as ids, or merge by merge.
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "prompt_arg.h"
#include "session/session.h"
#include "tokenizer/tokenizer.h"

static const char usage[] =
    "usage: ttrace tokenize [--ids | --merges] [--bos] [--dir DIR] TEXT...\n"
    "       ttrace tokenize [--bos] [--dir DIR] --ids=ID,ID,...\n"
    "\n"
    "Splits TEXT into tokens with GPT-2's byte-level BPE (or the tokenizer in --dir). The words\n"
    "of TEXT are joined with single spaces; TEXT \"-\" reads standard input (one trailing newline\n"
    "dropped).\n"
    "Default output: one row per token with its index, id, the piece as vocab.json spells it\n"
    "(a space is \"Ġ\", a newline \"Ċ\") and as text (a space shown as \"␣\", a byte that is only\n"
    "part of a character as \\xNN).\n"
    "\n"
    "  --ids        only the ids, on one line: 464 6193 318 3621\n"
    "  --ids=LIST   (with '=') the table for these token ids instead of a TEXT: --ids=464,6193\n"
    "  --bos        put the BOS token first: <|endoftext|> (50256) for GPT-2; for a\n"
    "               tokenizer.json, its BOS (or <|endoftext|>); always when the folder's\n"
    "               tokenizer_config.json has add_bos_token: true\n"
    "  --merges     each pre-token's byte-pair merges in order, with their ranks (rank r is\n"
    "               line r + 2 of merges.txt; lower ranks merge first), then its pieces; a\n"
    "               piece of a character is its bytes with the character: ‹EB 8B:다›\n"
    "  --dir DIR    a folder with tokenizer.json, or vocab.json and merges.txt, such as a model\n"
    "               folder; tokenizer.json wins when it has both (default: the bundled GPT-2\n"
    "               files in assets/tokenizer)\n"
    "\n"
    "\"<|endoftext|>\" in TEXT is ordinary text, split like any other characters (so is any\n"
    "special token of a tokenizer.json; its non-special added tokens are found in TEXT).\n";

static void print_padded(const char *s, int width) {
  fputs(s, stdout);
  for (int pad = width - tt_utf8_columns(s); pad > 0; pad--) putchar(' ');
}

static void print_table(const tt_tokenizer *tok, const int32_t *ids, int n) {
  int wide = 5;  // "piece"
  for (int i = 0; i < n; i++) {
    int w = tt_utf8_columns(tt_tokenizer_token_spelling(tok, ids[i]));
    if (w > wide) wide = w;
  }
  printf("%5s  %6s  ", "index", "id");
  print_padded("piece", wide);
  printf("  text\n");
  char buf[256];
  for (int i = 0; i < n; i++) {
    printf("%5d  %6d  ", i, (int)ids[i]);
    print_padded(tt_tokenizer_token_spelling(tok, ids[i]), wide);
    printf("  %s\n", tt_tokenizer_token_visible(tok, ids[i], buf, sizeof buf));
  }
}

static void print_ids(const int32_t *ids, int n) {
  for (int i = 0; i < n; i++) printf(i ? " %d" : "%d", (int)ids[i]);
  putchar('\n');
}

typedef struct {
  const tt_tokenizer *tok;
  int steps;
} merge_ctx;

// One merge as bytes a learner can read: a space as ␣, a piece of a character as its bytes
// with the character it helps spell (‹EB:먹›), not GPT-2's byte-to-unicode letters.
static void print_merge(void *ctx, const tt_merge_step *s) {
  merge_ctx *m = ctx;
  m->steps++;
  char l[160], r[160], ab[160], merge[512];
  tt_merge_labels(m->tok, s, l, r, ab, sizeof l);
  snprintf(merge, sizeof merge, "%s + %s → %s", l, r, ab);
  printf("  %4d  ", s->step);
  print_padded(merge, 36);
  printf("  %6d\n", s->rank);
}

// Text with newline, tab, carriage return and other control characters escaped.
static void print_escaped(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '\n')
      fputs("\\n", stdout);
    else if (c == '\t')
      fputs("\\t", stdout);
    else if (c == '\r')
      fputs("\\r", stdout);
    else if (c < 0x20 || c == 0x7F)
      printf("\\x%02X", c);
    else
      putchar(c);
  }
}

// Each pre-token: its text and spelling, its merges step by step, then its pieces.
static tt_status print_merges(const tt_tokenizer *tok, const char *text, tt_error *err) {
  tt_span *spans;
  int n_spans;
  tt_status st = tt_tokenizer_pretokenize(tok, text, strlen(text), &spans, &n_spans, err);
  if (st != TT_OK) return st;
  char buf[512];
  for (int p = 0; p < n_spans && st == TT_OK; p++) {
    const char *piece = text + spans[p].offset;
    int32_t *ids;
    int n;
    printf("%spre-token %d: \"", p ? "\n" : "", p + 1);
    print_escaped(piece, spans[p].len);
    char spelled[1024];
    printf("\"  spelled %s\n  %4s  ", tt_tokenizer_spell(tok, piece, spans[p].len, spelled, sizeof spelled), "step");
    print_padded("left + right → merged", 36);
    printf("  %6s\n", "rank");
    merge_ctx mc = {tok, 0};
    st = tt_tokenizer_bpe(tok, piece, spans[p].len, &ids, &n, print_merge, &mc, err);
    if (st != TT_OK) break;
    if (mc.steps == 0) printf("  %4s  (no merge applies)\n", "-");
    printf("  pieces:");
    size_t at = 0;
    for (int i = 0; i < n; i++) {
      size_t nb = 0;
      const char *b = tt_tokenizer_token_bytes(tok, ids[i], &nb);
      if (!b || at + nb > spans[p].len) nb = 0, b = "";
      tt_bytes_label(piece, at, b, nb, piece + at + nb, spans[p].len - at - nb, buf, sizeof buf);
      printf(" %s (%d, \"%s\")", tt_tokenizer_token_spelling(tok, ids[i]), (int)ids[i], buf);
      at += nb;
    }
    putchar('\n');
    free(ids);
  }
  free(spans);
  return st;
}

// The ids to show: TEXT tokenized (with its merges printed first for --merges), or --ids=LIST.
static tt_status input_ids(const tt_tokenizer *tok, const char *text, const char *ids_arg, bool bos, bool merges,
                           int32_t **ids, int *n, tt_error *err) {
  tt_trace_input in = {.prompt = text, .bos = bos};
  int32_t *given = NULL;
  tt_status st = ids_arg ? tt_ids_from_arg(ids_arg, &given, &in.n_ids, err) : TT_OK;
  in.ids = given;
  if (!st && merges) st = print_merges(tok, text, err);
  if (!st) st = tt_input_ids(tok, &in, tt_tokenizer_vocab_size(tok), INT32_MAX, ids, n, err);
  free(given);
  return st;
}

int tt_cmd_tokenize(int argc, char **argv) {
  enum { O_BOS = 256 };
  static const struct option longs[] = {{"ids", optional_argument, 0, 'i'}, {"merges", no_argument, 0, 'm'},
                                        {"dir", required_argument, 0, 'd'}, {"bos", no_argument, 0, O_BOS},
                                        {"help", no_argument, 0, 'h'},      {0, 0, 0, 0}};
  bool ids_only = false, merges = false, bos = false;
  const char *dir = NULL, *ids_arg = NULL;
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, ":h", longs, NULL)) != -1) {
    switch (c) {
    case 'i':
      if (optarg)
        ids_arg = optarg;
      else
        ids_only = true;
      break;
    case 'm':
      merges = true;
      break;
    case 'd':
      dir = optarg;
      break;
    case O_BOS:
      bos = true;
      break;
    case 'h':
      fputs(usage, stdout);
      return 0;
    default:
      return tt_cli_option_error("tokenize", c, argv);
    }
  }
  if (ids_only && merges) return tt_cli_usage_error("tokenize", "--ids and --merges do not go together");
  if (ids_arg && merges) return tt_cli_usage_error("tokenize", "--ids=LIST has no text to show merges of");
  if (ids_arg && optind < argc) return tt_cli_usage_error("tokenize", "--ids=LIST goes without a TEXT");
  if (!ids_arg && optind >= argc) return tt_cli_usage_error("tokenize", "missing TEXT");

  tt_error err = {0};
  char found[4096];
  if (!dir) {
    if (!tt_asset_path("tokenizer", found, sizeof found)) {
      tt_fail(&err, TT_ERR_IO,
              "cannot find the bundled tokenizer files (assets/tokenizer); set TTRACE_ASSETS or use --dir");
      return tt_cli_fail("tokenize", &err);
    }
    dir = found;
  }
  char *text = NULL;
  tt_tokenizer *tok = NULL;
  int32_t *ids = NULL;
  int n = 0;
  if ((!ids_arg && tt_prompt_from_args(argc - optind, argv + optind, &text, &err) != TT_OK) ||
      tt_tokenizer_load(dir, &tok, &err) != TT_OK || input_ids(tok, text, ids_arg, bos, merges, &ids, &n, &err)) {
    free(text);
    tt_tokenizer_destroy(tok);
    return tt_cli_fail("tokenize", &err);
  }
  if (ids_only) {
    print_ids(ids, n);
  } else if (merges) {
    char count[32];
    printf("\n%s:", tt_cli_count(count, sizeof count, n, "token", "tokens"));
    for (int i = 0; i < n; i++) printf(" %d", (int)ids[i]);
    putchar('\n');
  } else {
    print_table(tok, ids, n);
  }
  free(ids);
  free(text);
  tt_tokenizer_destroy(tok);
  return 0;
}
