// colormap: viridis (sequential: probabilities, attention weights) and a blue-white-red
// diverging map centred at zero (signed values), both interpolated between fixed stops.
#include <math.h>

#include "render_int.h"

// matplotlib's viridis at t = 0, 0.1, ..., 1.
static const uint8_t viridis[11][3] = {{0x44, 0x01, 0x54}, {0x48, 0x24, 0x75}, {0x41, 0x44, 0x87}, {0x35, 0x5f, 0x8d},
                                       {0x2a, 0x78, 0x8e}, {0x21, 0x91, 0x8c}, {0x22, 0xa8, 0x84}, {0x44, 0xbf, 0x70},
                                       {0x7a, 0xd1, 0x51}, {0xbd, 0xdf, 0x26}, {0xfd, 0xe7, 0x25}};

// ColorBrewer RdBu (reversed: blue for negative) at t = -1, -0.75, ..., 1.
static const uint8_t diverging[9][3] = {{0x21, 0x66, 0xac}, {0x43, 0x93, 0xc3}, {0x92, 0xc5, 0xde},
                                        {0xd1, 0xe5, 0xf0}, {0xf7, 0xf7, 0xf7}, {0xfd, 0xdb, 0xc7},
                                        {0xf4, 0xa5, 0x82}, {0xd6, 0x60, 0x4d}, {0xb2, 0x18, 0x2b}};

static tt_rgba lerp_stops(const uint8_t (*stops)[3], int n, float t) {
  if (!(t >= 0)) t = 0;  // also NaN
  if (t > 1) t = 1;
  float x = t * (float)(n - 1);
  int i = (int)x;
  if (i >= n - 1) i = n - 2;
  float f = x - (float)i;
  tt_rgba c = {0, 0, 0, 255};
  c.r = (uint8_t)lrintf((float)stops[i][0] + f * (float)(stops[i + 1][0] - stops[i][0]));
  c.g = (uint8_t)lrintf((float)stops[i][1] + f * (float)(stops[i + 1][1] - stops[i][1]));
  c.b = (uint8_t)lrintf((float)stops[i][2] + f * (float)(stops[i + 1][2] - stops[i][2]));
  return c;
}

tt_rgba tt_cmap_viridis(float t) {
  return lerp_stops(viridis, 11, t);
}

tt_rgba tt_cmap_diverging(float t) {
  return lerp_stops(diverging, 9, (t + 1) * 0.5f);
}
