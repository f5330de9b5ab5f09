// fuzz_tokenizer_load: a tokenizer folder from any bytes: vocab.json up to the first NUL
// byte, then merges.txt. A tokenizer that loads encodes text and decodes it back exactly.
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "tokenizer_oracle.h"
#include "tokenizer/tokenizer.h"

static void round_trip(const tt_tokenizer *tok, const char *text, size_t n) {
  int32_t *ids = NULL;
  int k = 0;
  tt_error err = {0};
  if (tt_tokenizer_encode(tok, text, n, &ids, &k, NULL, NULL, &err)) return;  // invalid UTF-8
  if (!fuzz_decodes_to(tok, ids, k, text, n)) fuzz_fail("decode(encode(x)) != x");
  char buf[64];
  for (int i = 0; i < k; i++) tt_tokenizer_token_visible(tok, ids[i], buf, sizeof buf);
  free(ids);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const uint8_t *vocab, *merges;
  size_t nv, nm;
  fuzz_split(data, size, &vocab, &nv, &merges, &nm);
  fuzz_write("vocab.json", vocab, nv);
  fuzz_write("merges.txt", merges, nm);
  tt_tokenizer *tok = NULL;
  tt_error err = {0};
  tt_status st = tt_tokenizer_load(fuzz_dir(), &tok, &err);
  if (st) {
    fuzz_check_error(st, &err);
    return 0;
  }
  static const char sample[] = "Hello world, it's 2024!\n  \xED\x95\x9C\xEA\xB8\x80 \xF0\x9F\x98\x80";
  round_trip(tok, sample, sizeof sample - 1);
  round_trip(tok, (const char *)merges, nm < 512 ? nm : 512);
  tt_tokenizer_destroy(tok);
  return 0;
}
