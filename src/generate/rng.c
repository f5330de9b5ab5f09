// rng: the seeded generator of sampling. xoshiro256** (Blackman and Vigna, 2018), its
// state filled by splitmix64 from the seed as its authors recommend; both are exact
// 64-bit integer arithmetic, so the same seed gives the same numbers on every machine.
#include "generate.h"

// splitmix64: state += 0x9E3779B97F4A7C15, then two xor-shift-multiply rounds.
static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

void tt_rng_seed(tt_rng *r, uint64_t seed) {
  for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}

uint64_t tt_rng_next(tt_rng *r) {
  uint64_t *s = r->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

double tt_rng_double(tt_rng *r) {
  return (double)(tt_rng_next(r) >> 11) * 0x1.0p-53;
}
