// clock: the one monotonic clock, for timings, spin limits and frame budgets.
#include <time.h>

#include "core.h"

uint64_t tt_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double tt_now_seconds(void) {
  return (double)tt_now_ns() * 1e-9;
}
