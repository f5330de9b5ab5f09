// fuzz_tokenizer: any bytes through GPT-2's tokenizer (assets/tokenizer). The encoder
// accepts exactly the valid UTF-8 inputs (an independent oracle decides), every id is in
// the vocabulary, decoding gives back the input byte for byte, the pre-tokens tile the
// input, and pretokenize + bpe per piece gives the same ids as encode.
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "tokenizer_oracle.h"
#include "tokenizer/tokenizer.h"
#include "utf8_oracle.h"

static tt_tokenizer *tok;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  char dir[4096];
  tt_error err = {0};
  if (!tt_asset_path("tokenizer", dir, sizeof dir) || tt_tokenizer_load(dir, &tok, &err)) fuzz_fail("no tokenizer");
  return 0;
}

static void count_merge(void *ctx, const tt_merge_step *s) {
  if (!s->left || !s->right || !s->merged || s->step < 1 || s->rank < 0) fuzz_fail("a bad merge step");
  ++*(int *)ctx;
}

static void pieces_agree(const char *text, size_t n, const int32_t *ids, int n_ids) {
  tt_span *spans = NULL;
  int n_spans = 0;
  tt_error err = {0};
  if (tt_tokenizer_pretokenize(tok, text, n, &spans, &n_spans, &err)) fuzz_fail(err.msg);
  size_t at = 0;
  int k = 0;
  for (int i = 0; i < n_spans; i++) {
    if (spans[i].offset != at || spans[i].len == 0) fuzz_fail("pre-tokens do not tile the input");
    at += spans[i].len;
    int32_t *piece = NULL;
    int np = 0;
    if (tt_tokenizer_bpe(tok, text + spans[i].offset, spans[i].len, &piece, &np, NULL, NULL, &err)) fuzz_fail(err.msg);
    if (k + np > n_ids || memcmp(piece, ids + k, (size_t)np * sizeof *piece)) fuzz_fail("bpe per piece != encode");
    k += np;
    free(piece);
  }
  if (at != n || k != n_ids) fuzz_fail("pre-tokens do not cover the input");
  free(spans);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *text = (const char *)data;
  int32_t *ids = NULL;
  int n = 0, merges = 0;
  tt_error err = {0};
  bool with_merges = size && (data[0] & 1);
  tt_status st = tt_tokenizer_encode(tok, text, size, &ids, &n, with_merges ? count_merge : NULL, &merges, &err);
  bool valid = oracle_utf8_valid(data, size);
  if (st) {
    fuzz_check_error(st, &err);
    if (valid) fuzz_fail("valid UTF-8 refused");
    return 0;
  }
  if (!valid) fuzz_fail("invalid UTF-8 accepted");
  for (int i = 0; i < n; i++)
    if (ids[i] < 0 || ids[i] >= tt_tokenizer_vocab_size(tok)) fuzz_fail("an id outside the vocabulary");
  if (!fuzz_decodes_to(tok, ids, n, text, size)) fuzz_fail("decode(encode(x)) != x");
  char buf[64];
  for (int i = 0; i < n; i++) tt_tokenizer_token_display(tok, ids[i], buf, sizeof buf);
  pieces_agree(text, size, ids, n);
  free(ids);
  return 0;
}
