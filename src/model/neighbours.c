// neighbours: the rows of the embedding matrix nearest one token's row by cosine
// similarity. Rows that are the same bit for bit are one entry with their count (the
// default model gives every token it never saw in training one shared row, and listing
// those tokens as "neighbours" of each other would say nothing about meaning).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

// How many rows equal row r bit for bit; *first receives the lowest such id, and each is
// marked in taken (when not NULL).
static int same_rows(const float *wte, int vocab, int width, int32_t r, int32_t *first, bool *taken) {
  const float *row = wte + (size_t)r * (size_t)width;  // (C)
  int n = 0;
  *first = r;
  for (int32_t i = 0; i < vocab; i++) {
    if (i != r && memcmp(wte + (size_t)i * (size_t)width, row, sizeof(float) * (size_t)width) != 0) continue;
    if (n++ == 0) *first = i;
    if (taken) taken[i] = true;
  }
  return n;
}

// cos[i] = W_E[i]·W_E[q] / (|W_E[i]| |W_E[q]|) in double; 0 where a row is all zeros.
static void cosines(const float *wte, int vocab, int width, int32_t q, double *cos) {
  const float *wq = wte + (size_t)q * (size_t)width;  // (C)
  double nq = 0;
  for (int c = 0; c < width; c++) nq += (double)wq[c] * wq[c];
  for (int32_t i = 0; i < vocab; i++) {
    const float *wi = wte + (size_t)i * (size_t)width;
    double dot = 0, ni = 0;
    for (int c = 0; c < width; c++) {
      dot += (double)wi[c] * wq[c];
      ni += (double)wi[c] * wi[c];
    }
    cos[i] = nq > 0 && ni > 0 ? dot / sqrt(nq * ni) : 0;
  }
}

tt_status tt_embedding_neighbours(const float *wte, int vocab, int width, int32_t id, int k, tt_neighbours *out,
                                  tt_error *err) {
  memset(out, 0, sizeof *out);
  if (!wte || vocab <= 0 || width <= 0) return tt_fail(err, TT_ERR_ARG, "no embedding matrix");
  if (id < 0 || id >= vocab) return tt_fail(err, TT_ERR_ARG, "token id %d is outside the vocabulary of %d", id, vocab);
  if (k < 1 || k > TT_MAX_NEIGHBOURS) return tt_fail(err, TT_ERR_ARG, "between 1 and %d neighbours", TT_MAX_NEIGHBOURS);
  double *cos = malloc(sizeof(double) * (size_t)vocab);
  bool *taken = calloc((size_t)vocab, sizeof(bool));
  if (!cos || !taken) {
    free(cos);
    free(taken);
    return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  }
  cosines(wte, vocab, width, id, cos);
  int32_t first;
  out->id = id;
  out->shared = same_rows(wte, vocab, width, id, &first, taken);  // the query's own row is no neighbour
  while (out->n < k) {
    int32_t best = -1;
    for (int32_t i = 0; i < vocab; i++)
      if (!taken[i] && (best < 0 || cos[i] > cos[best])) best = i;
    if (best < 0) break;
    tt_neighbour *nb = &out->near[out->n++];
    nb->shared = same_rows(wte, vocab, width, best, &first, taken);
    nb->id = first;
    nb->cosine = cos[best];
  }
  free(cos);
  free(taken);
  return TT_OK;
}
