// theme: the two palettes. High contrast for projectors: near-black on white, or
// near-white on near-black; one accent colour for the current step and the pinned cell.
#include "render_int.h"

static const tt_palette light = {
    .bg = {255, 255, 255, 255},
    .panel = {240, 242, 246, 255},
    .fg = {20, 22, 28, 255},
    .dim = {85, 90, 100, 255},
    .accent = {200, 60, 0, 255},
    .accent_bg = {255, 226, 200, 255},
    .grid = {255, 255, 255, 255},
    .masked = {205, 205, 205, 255},
    .masked_line = {150, 150, 150, 255},
    .highlight = {255, 0, 160, 255},
    .warn = {170, 20, 20, 255},
};

static const tt_palette dark = {
    .bg = {16, 18, 24, 255},
    .panel = {34, 38, 48, 255},
    .fg = {240, 242, 245, 255},
    .dim = {165, 172, 185, 255},
    .accent = {255, 150, 60, 255},
    .accent_bg = {90, 50, 20, 255},
    .grid = {16, 18, 24, 255},
    .masked = {60, 62, 70, 255},
    .masked_line = {105, 108, 118, 255},
    .highlight = {255, 70, 200, 255},
    .warn = {255, 110, 110, 255},
};

const tt_palette *tt_palette_for(tt_theme th) {
  return th == TT_THEME_DARK ? &dark : &light;
}
