// merges: the tokenizer's BPE merges under the pre-token each belongs to: a bold heading
// per pre-token (its text, and its pieces when it ends as more than one), then its merges
// in order with their ranks. The list flows in columns and shrinks to fit; what still does
// not fit ends with "… N more merges", so no line is cut.
#include <stdlib.h>
#include <string.h>

#include "render_int.h"

typedef struct {
  const char *s;
  bool head;
  int group;  // index of the heading item of its group (-1: none)
} item;

// The text of a line; again: a heading repeated at the top of a column that continues its
// merges, marked "… heading" so that it does not read as a second pre-token of that text.
static const char *text_of(const item *it, bool again, char *buf, size_t size) {
  if (!again) return it->s;
  snprintf(buf, size, "\xE2\x80\xA6 %s", it->s);
  return buf;
}

static int width_of(tt_paint *p, const item *it, int px, bool again) {
  char buf[620];
  return tt_text_width(p->cv->fonts, text_of(it, again, buf, sizeof buf), px, it->head ? TT_FONT_BOLD : TT_FONT_MONO);
}

static void line(tt_paint *p, int x, int y, int w, const item *it, int px, bool again) {
  char fit[620], buf[620];
  tt_font_kind k = it->head ? TT_FONT_BOLD : TT_FONT_MONO;
  // cuts only a line wider than the area
  tt_text_fit(p->cv->fonts, text_of(it, again, buf, sizeof buf), px, k, w, fit, sizeof fit);
  tt_note(p->cv, "%s", !it->head ? "merge" : again ? "merge_group_again" : "merge_group");
  tt_draw_text(p->cv, x, y, fit, px, k, it->head && !again ? p->pal->fg : p->pal->dim, TT_ALIGN_LEFT);
}

// Lays the items out in columns of r at px, each column as wide as its widest line
// (drawing them when draw); returns how many items were placed. *end_x, *end_y: the left
// and the bottom of the last column drawn.
static int flow(tt_paint *p, SDL_Rect r, const item *it, int n, int px, bool draw, int *end_x, int *end_y) {
  int u = p->unit, lh = px * 5 / 4, gap = px / 2, indent = u;
  int x = r.x, i = 0;
  *end_x = r.x;
  *end_y = r.y;
  while (i < n) {
    // Which items this column takes, and how wide it is.
    bool repeat = !it[i].head && it[i].group >= 0;  // a merge at the top repeats its heading
    int y = r.y + (repeat ? lh : 0), j = i;
    int w = repeat ? width_of(p, &it[it[i].group], px, true) : 0;
    while (j < n) {
      int h = lh + (it[j].head && y > r.y ? gap : 0);
      int need = h + (it[j].head && j + 1 < n && !it[j + 1].head ? lh : 0);  // a heading keeps its first merge
      if (y + need > r.y + r.h) break;
      int iw = width_of(p, &it[j], px, false) + (it[j].head ? 0 : indent);
      if (iw > w) w = iw;
      y += h;
      j++;
    }
    if (j == i) break;
    if (x + w > r.x + r.w) {
      if (x > r.x) break;  // the next column does not fit beside the others
      w = r.w;             // one column wider than the area: its long lines are cut
    }
    if (draw) {
      int yy = r.y;
      if (repeat) {
        line(p, x, yy, w, &it[it[i].group], px, true);
        yy += lh;
      }
      for (int k = i; k < j; k++) {
        if (it[k].head && yy > r.y) yy += gap;
        line(p, it[k].head ? x : x + indent, yy, it[k].head ? w : w - indent, &it[k], px, false);
        yy += lh;
      }
    }
    *end_x = x;
    *end_y = y;
    x += w + u * 2;
    i = j;
  }
  return i;
}

void tt_paint_merges(tt_paint *p, SDL_Rect r) {
  const tt_render_extras *ex = p->ex;
  int u = p->unit;
  int ng = ex->n_merge_groups, n = ng + ex->n_merges;
  item *it = malloc(sizeof *it * (size_t)n);
  char(*heads)[600] = ng ? malloc(sizeof *heads * (size_t)ng) : NULL;
  if (!it || (ng && !heads)) {
    free(it);
    free(heads);
    return;
  }
  int k = 0;
  if (ng == 0)
    for (int i = 0; i < ex->n_merges; i++) it[k++] = (item){ex->merges[i], false, -1};
  for (int g = 0; g < ng; g++) {
    const tt_merge_group *mg = &ex->merge_groups[g];
    char text[300];
    tt_token_display(mg->text, text, sizeof text);
    int o = snprintf(heads[g], sizeof heads[g], "%s", text);
    if (mg->pieces[0] && strcmp(mg->pieces, text) != 0)
      o += snprintf(heads[g] + o, sizeof heads[g] - (size_t)o, " \xE2\x86\x92 %s", mg->pieces);
    if (mg->count == 0)
      snprintf(heads[g] + o, sizeof heads[g] - (size_t)o, "%s", tt_str(p->st->lang, TT_S_MERGES_NONE));
    else
      snprintf(heads[g] + o, sizeof heads[g] - (size_t)o, ":");
    int hk = k;
    it[k++] = (item){heads[g], true, -1};
    for (int j = 0; j < mg->count && mg->first + j < ex->n_merges; j++)
      it[k++] = (item){ex->merges[mg->first + j], false, hk};
  }
  n = k;
  // The largest size from u down to 3/4 u (still readable on a projector) at which
  // everything fits.
  int lo = u * 3 / 4 < 12 ? 12 : u * 3 / 4, px = u, ex_x, ex_y;
  while (px > lo && flow(p, r, it, n, px, false, &ex_x, &ex_y) < n) px = px * 9 / 10 < lo ? lo : px * 9 / 10;
  if (flow(p, r, it, n, px, false, &ex_x, &ex_y) == n) {
    flow(p, r, it, n, px, true, &ex_x, &ex_y);
  } else {
    // Leave a line for the count of merges not shown.
    SDL_Rect less = {r.x, r.y, r.w, r.h - px * 5 / 4};
    int shown = flow(p, less, it, n, px, true, &ex_x, &ex_y), rest = 0;
    for (int i = shown; i < n; i++) rest += !it[i].head;
    char more[80];
    if (rest > 0)
      snprintf(more, sizeof more, tt_str(p->st->lang, TT_S_MERGES_MORE_FMT), rest, rest == 1 ? "" : "s");
    else
      snprintf(more, sizeof more, "\xE2\x80\xA6");
    tt_note(p->cv, "merge_more");
    tt_draw_text(p->cv, ex_x + u, ex_y + px / 4, more, px, TT_FONT_SANS, p->pal->dim, TT_ALIGN_LEFT);
  }
  free(heads);
  free(it);
}
