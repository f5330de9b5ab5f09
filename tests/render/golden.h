// golden: compare a rendered RGB24 image with tests/render/golden/NAME.png, or rewrite the
// golden when TTRACE_UPDATE_GOLDEN=1 (then look at it). Shared by the render and ui tests.
#ifndef TT_TEST_GOLDEN_H
#define TT_TEST_GOLDEN_H

#include <SDL.h>

// Returns 0 when at most 0.2% of pixels differ by more than 24 in some channel; otherwise
// prints why, saves this run's image as NAME.got.png and returns 1.
int tt_golden_check(const char *golden_dir, const char *name, SDL_Surface *rgb24);

#endif
