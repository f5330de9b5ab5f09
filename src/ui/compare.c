// compare: `ttrace view A --compare B` in the window. The window's frame and keys stay as
// they are (they move one view state), and the view area shows the current step of A and
// of B side by side with A − B; the state dump says what was compared and what is hovered.
#include <math.h>

#include "ui_int.h"

void tt_ui_compare_draw(tt_ui *ui) {
  tt_render_draw_compare(ui->rc, ui->ren, (SDL_Rect){0, 0, ui->out_w, ui->out_h}, ui->tr, &ui->cmp, &ui->vs,
                         ui->derived, ui->lay);
}

static void value(FILE *fp, float v) {
  if (isnan(v))
    fprintf(fp, " nan");
  else
    fprintf(fp, " %.9g", (double)v);
}

void tt_ui_compare_state(tt_ui *ui, FILE *fp, const tt_compare *cmp) {
  tt_compare_info in;
  tt_derived_info(ui->derived, &in);
  fprintf(fp, "compare_a %s\ncompare_b %s\n", cmp->label_a ? cmp->label_a : "A", cmp->label_b ? cmp->label_b : "B");
  fprintf(fp, "compare_hook %s\ncompare_diff %d\n", in.hook[0] ? in.hook : "-", in.diff);
  fprintf(fp, "compare_max_abs %.9g\ncompare_max_at %lld\ncompare_one_sided %lld\n", (double)in.max_abs,
          (long long)in.max_at, (long long)in.n_one_sided);
  if (in.hover) {
    fprintf(fp, "compare_hover %c\ncompare_hover_index %d %d %d\ncompare_hover_values", in.side, in.head, in.row,
            in.col);
    value(fp, in.a);
    value(fp, in.b);
    value(fp, in.d);
    fprintf(fp, "\n");
  } else {
    fprintf(fp, "compare_hover -\n");
  }
}
