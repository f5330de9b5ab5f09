// thirds: the fused Q/K/V tensor (T, 3C) drawn as what it is, three (T, C) matrices side
// by side: a separator at columns C and 2C and a large Q, K, V over each third.
#include <string.h>

#include "render_int.h"
#include "trace/hooks.h"

int tt_qkv_third(const tt_tensor *t) {
  tt_hook_ref ref;
  if (t->ndim != 2 || !t->name || !tt_hook_lookup(t->name, &ref) || strcmp(ref.def->suffix, "attn.hook_qkv") != 0)
    return 0;
  if (t->shape[1] < 3 || t->shape[1] % 3 != 0) return 0;
  return (int)(t->shape[1] / 3);  // C
}

int tt_thirds_height(int u) {
  return u * 5 / 2;
}

void tt_paint_thirds(tt_paint *p, const tt_panel *pn, int C) {
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  int u = p->unit, px = u * 2;
  SDL_Rect r = pn->rect;
  int top = r.y - tt_thirds_height(u);
  float col_end = pn->col0 + (float)r.w / pn->cell_w;
  // Separators: a thick line in the text colour inside a background-coloured halo, so it
  // reads on any cell colour of either theme.
  int lw = u / 5 > 3 ? u / 5 : 3;
  for (int b = 1; b <= 2; b++) {
    float c = (float)(b * C);
    if (c <= pn->col0 || c >= col_end) continue;
    int x = r.x + (int)((c - pn->col0) * pn->cell_w + 0.5f);
    cv->fill(cv, x - lw / 2 - 2, top, lw + 4, r.y + r.h - top, pal->bg);
    cv->fill(cv, x - lw / 2, top, lw, r.y + r.h - top, pal->fg);
  }
  // Letters centred over the visible part of each third.
  static const char *const letters[3] = {"Q", "K", "V"};
  int lw_px = tt_text_width(cv->fonts, "Q", px, TT_FONT_BOLD);
  for (int i = 0; i < 3; i++) {
    float a = (float)(i * C), b = (float)((i + 1) * C);
    if (a < pn->col0) a = pn->col0;
    if (b > col_end) b = col_end;
    if ((b - a) * pn->cell_w < (float)lw_px) continue;
    int x = r.x + (int)(((a + b) / 2 - pn->col0) * pn->cell_w);
    tt_draw_text(cv, x, top, letters[i], px, TT_FONT_BOLD, pal->fg, TT_ALIGN_CENTER);
  }
}
