// sampling_probe: prints what src/generate's generator and sampling rule give, for
// tests/generate/check_sampling.py to compare with its independent implementation.
//   sampling_probe rng SEED COUNT            COUNT outputs of tt_rng_next, then of tt_rng_double
//   sampling_probe sample FILE V T K P SEED  FILE: float32 rows of V logits; one pick per row
//                                            ("id p_model n_kept"), one generator for all rows
#include <stdio.h>
#include <stdlib.h>

#include "generate/generate.h"

static int probe_rng(unsigned long long seed, int count) {
  tt_rng r;
  tt_rng_seed(&r, seed);
  for (int i = 0; i < count; i++) printf("%llu\n", (unsigned long long)tt_rng_next(&r));
  tt_rng_seed(&r, seed);
  for (int i = 0; i < count; i++) printf("%.17g\n", tt_rng_double(&r));
  return 0;
}

static int probe_sample(const char *path, int V, const tt_sampling *s) {
  FILE *f = fopen(path, "rb");
  float *row = malloc((size_t)V * sizeof *row);
  tt_sampler *sp = NULL;
  tt_error err = {0};
  if (!f || !row || tt_sampler_create(V, &sp, &err)) return 1;
  tt_rng r;
  tt_rng_seed(&r, s->seed);
  while (fread(row, sizeof *row, (size_t)V, f) == (size_t)V) {
    tt_pick p = tt_sample(sp, row, s, &r);
    printf("%d %.17g %d\n", (int)p.id, p.p_model, p.n_kept);
  }
  fclose(f);
  free(row);
  tt_sampler_destroy(sp);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 4 && argv[1][0] == 'r') return probe_rng(strtoull(argv[2], NULL, 10), atoi(argv[3]));
  if (argc == 8) {
    tt_sampling s = {atof(argv[4]), atoi(argv[5]), atof(argv[6]), strtoull(argv[7], NULL, 10)};
    return probe_sample(argv[2], atoi(argv[3]), &s);
  }
  fprintf(stderr, "usage: sampling_probe rng SEED COUNT | sample FILE V T K P SEED\n");
  return 2;
}
