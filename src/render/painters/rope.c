// rope: rotary positions of one layer and head. A few pairs of dimensions (the fastest,
// a middle and the slowest frequency) drawn as arrows on circles, one circle per position:
// q's pair before the rotation (hook_q) and after it (hook_rot_q), with each angle t·θᵢ;
// the numbers of the chosen position (st->position, else the last) for q and k; and the
// shift test: the same q and k rotated at other positions give the same raw scores, measured
// against the recorded hook_attn_scores_raw.
// Every text is measured (the pairs' labels in a column of their own, wrapped where it is
// narrow): the view takes the largest type that fits, down to a readable size; where even
// that has no room it leaves out the shift test, then the position's numbers, and says so.
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_int.h"

#define MAX_PAIRS 3
#define SHIFT_POSITIONS 128  // the shift test covers the first positions (T·T·H·D products)
#define MIN_UNIT 13          // the smallest type unit: its small type is 10 px
#define WANT_POSITIONS 8     // the pairs' labels wrap rather than leave room for fewer positions

typedef struct {
  int layer, head, kv, H, G, D, T, offset, pos;
  int first, shown;  // the positions drawn as circles: first .. first + shown − 1 (around pos)
  double theta;
  const tt_tensor *q, *rq, *k, *rk, *raw;
  int pair[MAX_PAIRS], n_pairs;
  int shift, n_shift;    // the shift test: every position moved by shift, over the first n_shift
  double diff, largest;  // its max |S′ − S| and max |S|
  bool shift_ok;         // measured (false: out of memory, the test is left out)
} rope_view;

// What the view shows at one type unit u, and its parts' sizes in pixels.
typedef struct {
  int u;
  bool table, shift;  // the chosen position's numbers, the shift test
  bool wide;          // the table's q, q′, k, k′ on one line per pair (else k, k′ on a second line)
  int pairs;          // pair rows drawn (fewer only where MIN_UNIT has no room for them all)
  int title_h, rule_h, heads_h, lw, label_h, step, rad, angle_h, row_h;
  int col[6], table_h, shift_h, more_h, h;
  int first, shown;  // the positions drawn as circles
} rope_fit;

// θᵢ = θ^(−2i/D): the angle pair i turns by per position.
static double frequency(const rope_view *c, int i) {
  return pow(c->theta, -2.0 * i / c->D);
}

// The pairs shown: the fastest (0), the view's pair (st->pair; -1: one in the middle), the
// slowest (D/2 − 1), without repeats.
static void choose_pairs(rope_view *c, int chosen) {
  int half = c->D / 2, want[MAX_PAIRS] = {0, chosen >= 0 && chosen < half ? chosen : half / 2, half - 1};
  c->n_pairs = 0;
  for (int k = 0; k < MAX_PAIRS; k++) {
    bool seen = false;
    for (int j = 0; j < c->n_pairs; j++) seen |= c->pair[j] == want[k];
    if (!seen && want[k] >= 0) c->pair[c->n_pairs++] = want[k];
  }
}

// (x[i], x[i + D/2]) of head h, position t of a head-major (heads, T, D) tensor.
static void pair_of(const tt_tensor *t, const rope_view *c, int h, int pos, int i, double *a, double *b) {
  int64_t at = ((int64_t)h * c->T + pos) * c->D;
  *a = tt_tensor_at(t, at + i);
  *b = tt_tensor_at(t, at + i + c->D / 2);
}

// x (D) turned at position p (rotate-half), into out (D), in double.
static void rotate(const rope_view *c, const tt_tensor *t, int h, int pos, int p, double *out) {
  int half = c->D / 2;
  for (int i = 0; i < half; i++) {
    double a, b, ang = (double)p * frequency(c, i);
    pair_of(t, c, h, pos, i, &a, &b);
    out[i] = a * cos(ang) - b * sin(ang);
    out[i + half] = b * cos(ang) + a * sin(ang);
  }
}

// max |S′ − S| over heads and the first n positions, S′ from q and k rotated at positions
// first + t instead of offset + t; *largest is max |S|. false when out of memory.
static bool measure_shift(const rope_view *c, int first, int n, double *diff, double *largest) {
  double *q = malloc(sizeof *q * (size_t)c->H * n * c->D), *k = malloc(sizeof *k * (size_t)c->G * n * c->D);
  bool ok = q && k;
  for (int h = 0; ok && h < c->H; h++)
    for (int t = 0; t < n; t++) rotate(c, c->q, h, t, first + t, q + ((size_t)h * n + t) * c->D);
  for (int g = 0; ok && g < c->G; g++)
    for (int t = 0; t < n; t++) rotate(c, c->k, g, t, first + t, k + ((size_t)g * n + t) * c->D);
  *diff = *largest = 0;
  for (int h = 0; ok && h < c->H; h++)
    for (int t = 0; t < n; t++)
      for (int s = 0; s < n; s++) {
        const double *qv = q + ((size_t)h * n + t) * c->D, *kv = k + ((size_t)(h / (c->H / c->G)) * n + s) * c->D;
        double dot = 0;
        for (int d = 0; d < c->D; d++) dot += qv[d] * kv[d];
        double rec = tt_tensor_at(c->raw, ((int64_t)h * c->T + t) * c->T + s);
        *diff = fmax(*diff, fabs(dot - rec));
        *largest = fmax(*largest, fabs(rec));
      }
  free(q);
  free(k);
  return ok;
}

// A circle of radius rad around (cx, cy), as line segments.
static void circle(tt_canvas *cv, int cx, int cy, int rad, tt_rgba col) {
  const int n = 32;
  for (int s = 0; s < n; s++) {
    double a0 = 2 * M_PI * s / n, a1 = 2 * M_PI * (s + 1) / n;
    cv->line(cv, cx + (int)lround(rad * cos(a0)), cy - (int)lround(rad * sin(a0)), cx + (int)lround(rad * cos(a1)),
             cy - (int)lround(rad * sin(a1)), col);
  }
}

// An arrow from (cx, cy) to the point (a, b) of the plane (b up), thick lines and a head.
// A point that is not finite draws nothing; one far off is cut to 4096 pixels (the pixel
// sums stay in int).
static void arrow(tt_canvas *cv, int cx, int cy, double a, double b, tt_rgba col) {
  if (!isfinite(a) || !isfinite(b)) return;
  a = fmax(-4096, fmin(4096, a)), b = fmax(-4096, fmin(4096, b));
  int x1 = cx + (int)lround(a), y1 = cy - (int)lround(b);
  for (int w = -1; w <= 1; w++) {
    cv->line(cv, cx + w, cy, x1 + w, y1, col);
    cv->line(cv, cx, cy + w, x1, y1 + w, col);
  }
  double len = hypot(a, b), ang = atan2(b, a);
  if (len < 6) return;
  for (int side = -1; side <= 1; side += 2) {
    double h = ang + M_PI + side * 0.45;
    cv->line(cv, x1, y1, x1 + (int)lround(len * 0.3 * cos(h)), y1 - (int)lround(len * 0.3 * sin(h)), col);
  }
}

// The pair's largest length over the positions shown, before and after the rotation (the
// arrows' scale; a rotation keeps the length, a trace that does not still fits).
static double pair_extent(const rope_view *c, int i) {
  double m = 0;
  for (int t = c->first; t < c->first + c->shown; t++) {
    double a, b;
    pair_of(c->q, c, c->head, t, i, &a, &b);
    m = fmax(m, hypot(a, b));
    pair_of(c->rq, c, c->head, t, i, &a, &b);
    m = fmax(m, hypot(a, b));
  }
  return m > 0 ? m : 1;
}

// The title: the layer, the head and its K/V head, θ, D and the positions; broken into
// lines (for tt_draw_para) between its parts, as many parts to a line as fit in w at px.
static const char *title_text(const tt_paint *p, const rope_view *c, int px, int w, char *buf, size_t len) {
  char raw[300], th[32], line[300] = "", cand[300];
  snprintf(raw, sizeof raw, tt_str(p->st->lang, TT_S_ROPE_TITLE_FMT), c->layer, c->head, c->kv,
           tt_fmt_num(c->theta, "%.0f", th, sizeof th), c->D, c->offset, c->offset + c->T - 1);
  buf[0] = 0;
  for (const char *s = raw; *s;) {
    const char *sep = strstr(s, "   ");
    int k = sep ? (int)(sep - s) : (int)strlen(s);
    snprintf(cand, sizeof cand, "%s%s%.*s", line, line[0] ? "   " : "", k, s);
    if (line[0] && tt_text_width(p->cv->fonts, cand, px, TT_FONT_BOLD) > w) {
      snprintf(buf + strlen(buf), len - strlen(buf), "%s\n", line);
      snprintf(line, sizeof line, "%.*s", k, s);
    } else {
      memcpy(line, cand, sizeof line);
    }
    for (s += k; *s == ' ';) s++;
  }
  snprintf(buf + strlen(buf), len - strlen(buf), "%s", line);
  return buf;
}

// Line j of pair k's label (0: the pair and its dims, 1: θᵢ, 2: one turn); its note kind
// and its type size at unit u.
static const char *const label_note[3] = {"rope_pair", "rope_freq", "rope_turn"};
static const char *label_text(const tt_paint *p, const rope_view *c, int k, int j, char *buf, size_t len) {
  int i = c->pair[k];
  double f = frequency(c, i);
  char num[48];
  if (j == 0)
    snprintf(buf, len, tt_str(p->st->lang, TT_S_ROPE_PAIR_FMT), i, i, i + c->D / 2);
  else if (j == 1)
    snprintf(buf, len, tt_str(p->st->lang, TT_S_ROPE_FREQ_FMT), i, tt_fmt_num(f, "%.4g", num, sizeof num));
  else
    snprintf(buf, len, tt_str(p->st->lang, TT_S_ROPE_TURN_FMT), tt_fmt_num(2 * M_PI / f, "%.4g", num, sizeof num));
  return buf;
}
static int label_px(int u, int j) {
  return j == 0 ? tt_type_for(u).body : tt_type_for(u).label;
}

// Pair k's label lines at (x, y) in a column w wide, each wrapped there; their height (only
// measured when !draw).
static int pair_labels(tt_paint *p, const rope_view *c, int k, int u, int x, int y, int w, bool draw) {
  char buf[200];
  int h = 0;
  for (int j = 0; j < 3; j++) {
    tt_font_kind font = j == 0 ? TT_FONT_BOLD : TT_FONT_SANS;
    label_text(p, c, k, j, buf, sizeof buf);
    if (!draw) {
      h += tt_para_height(p->cv, w, buf, label_px(u, j), font);
      continue;
    }
    tt_note(p->cv, "%s i=%d", label_note[j], c->pair[k]);
    h += tt_draw_para(p->cv, x, y + h, w, buf, label_px(u, j), font, j == 2 ? p->pal->dim : p->pal->fg);
  }
  return h;
}

// The pair rows at f->u in width w: the labels' column (as wide as the widest label, at most
// what the circles of up to WANT_POSITIONS positions leave, two fifths of w at least), the
// positions around the chosen one that have room, the circles' radius.
static void fit_rows(tt_paint *p, const rope_view *c, int w, rope_fit *f) {
  const tt_type type = tt_type_for(f->u);
  char buf[200];
  int widest = 0, u = f->u;
  for (int k = 0; k < c->n_pairs; k++)
    for (int j = 0; j < 3; j++)
      widest = tt_max_i(widest, tt_text_width(p->cv->fonts, label_text(p, c, k, j, buf, sizeof buf), label_px(u, j),
                                              j == 0 ? TT_FONT_BOLD : TT_FONT_SANS));
  double widest_angle = (double)(c->offset + c->T - 1) * frequency(c, 0);
  int angle_w =
      tt_text_width(p->cv->fonts, tt_fmt_num(widest_angle, "%.2f", buf, sizeof buf), type.small, TT_FONT_SANS);
  int min_step = tt_max_i(u * 5 / 2, angle_w + u / 2), want = c->T < WANT_POSITIONS ? c->T : WANT_POSITIONS;
  f->lw = tt_min_i(widest, tt_max_i(w * 2 / 5, w - u - want * min_step));
  f->label_h = 0;
  for (int k = 0; k < c->n_pairs; k++) f->label_h = tt_max_i(f->label_h, pair_labels(p, c, k, u, 0, 0, f->lw, false));
  int area = w - f->lw - u;  // the circles, a unit right of the labels
  int n = area / min_step;
  n = n > c->T ? c->T : n < 1 ? 1 : n;
  f->shown = n;
  f->first = c->pos - n / 2 < 0 ? 0 : c->pos - n / 2 > c->T - n ? c->T - n : c->pos - n / 2;  // pos in view
  f->step = tt_min_i(area / n, u * 6);
  f->angle_h = type.small * 13 / 10;
  f->rad = tt_min_i(f->step * 2 / 5, tt_max_i(u * 3 / 4, (f->label_h - f->angle_h - 4) / 2));
  f->row_h = tt_max_i(f->label_h, 2 * f->rad + 4 + f->angle_h) + u / 3;
  f->heads_h = type.small * 13 / 10 * 2 + u / 4;
}

// The text of the table's column col (0: pair, 1: angle, 2–5: q, q′, k, k′) for pair k at
// the chosen position.
static const char *const cell_note[6] = {"pair", "angle", "q", "rq", "k", "rk"};
static const char *cell_text(const rope_view *c, int k, int col, char *buf, size_t len) {
  int i = c->pair[k];
  if (col == 0) {
    snprintf(buf, len, "%d", i);
    return buf;
  }
  if (col == 1) return tt_fmt_num((double)(c->offset + c->pos) * frequency(c, i), "%.4f", buf, len);
  const tt_tensor *src[4] = {c->q, c->rq, c->k, c->rk};
  double a, b;
  char na[32], nb[32];
  pair_of(src[col - 2], c, col < 4 ? c->head : c->kv, c->pos, i, &a, &b);
  snprintf(buf, len, "(%s, %s)", tt_fmt_num(a, "%.3f", na, sizeof na), tt_fmt_num(b, "%.3f", nb, sizeof nb));
  return buf;
}
static const int col_head[6] = {TT_S_ROPE_H_PAIR, TT_S_ROPE_H_ANGLE, TT_S_ROPE_H_Q,
                                TT_S_ROPE_H_RQ,   TT_S_ROPE_H_K,     TT_S_ROPE_H_RK};

// Column col's slot: wide, six slots on one line; else k and k′ in the slots of q and q′,
// on a second line.
static int slot_of(bool wide, int col) {
  return wide || col < 4 ? col : col - 2;
}

// The table's slots' offsets in f->col, measured at f->u, wide or not; its width.
static int table_columns(tt_paint *p, const rope_view *c, rope_fit *f) {
  int px = tt_type_for(f->u).cell, gap = f->u / 2, w[6] = {0}, slots = f->wide ? 6 : 4;
  char buf[96];
  for (int col = 0; col < 6; col++) {
    int s = slot_of(f->wide, col);
    w[s] = tt_max_i(w[s], tt_text_width(p->cv->fonts, tt_str(p->st->lang, (tt_str_id)col_head[col]), px, TT_FONT_BOLD));
    for (int k = 0; k < c->n_pairs; k++)
      w[s] = tt_max_i(w[s], tt_text_width(p->cv->fonts, cell_text(c, k, col, buf, sizeof buf), px, TT_FONT_MONO));
  }
  f->col[0] = 0;
  for (int s = 1; s < slots; s++) f->col[s] = f->col[s - 1] + w[s - 1] + gap;
  return f->col[slots - 1] + w[slots - 1];
}

// The table's line height and a pair's block (its lines, and a gap when there are two).
static int table_line(int u) {
  return tt_type_for(u).cell * 7 / 5;
}
static int table_block(const rope_fit *f) {
  return f->wide ? table_line(f->u) : table_line(f->u) * 7 / 3;
}

// The table's height at f->u in width w, one line per pair where that fits, else two (the
// columns spread over the room left, up to two units more apart); -1 when not even two fit.
static int fit_table(tt_paint *p, const rope_view *c, int w, rope_fit *f) {
  int width;
  f->wide = true;
  if ((width = table_columns(p, c, f)) > w) {
    f->wide = false;
    if ((width = table_columns(p, c, f)) > w) return -1;
  }
  int slots = f->wide ? 6 : 4, extra = tt_min_i((w - width) / (slots - 1), f->u * 2);
  for (int s = 1; s < slots; s++) f->col[s] += s * extra;
  return tt_type_for(f->u).body * 7 / 5 + table_block(f) * (c->n_pairs + 1);
}

// The shift test's lines: 0 what is shifted, 1 what it measures, 2 why it holds.
static const char *shift_text(const tt_paint *p, const rope_view *c, int j, char *buf, size_t len) {
  tt_lang lang = p->st->lang;
  char s1[32], s2[32], s3[32];
  if (j == 0)
    snprintf(buf, len, tt_str(lang, TT_S_ROPE_SHIFT_FMT), c->offset + c->shift, c->offset + c->shift + c->T - 1,
             tt_fmt_num(c->shift, "%+.0f", s1, sizeof s1));
  else if (j == 1)
    snprintf(buf, len, tt_str(lang, TT_S_ROPE_MEASURE_FMT), tt_fmt_num(c->diff, "%.2e", s2, sizeof s2), c->H,
             c->n_shift, c->n_shift, tt_fmt_num(c->largest, "%.4g", s3, sizeof s3));
  else
    snprintf(buf, len, "%s", tt_str(lang, TT_S_ROPE_SHIFT_WHY));
  return buf;
}
static int shift_px(int u, int j) {
  return j < 2 ? tt_type_for(u).body : tt_type_for(u).label;
}
static const tt_font_kind shift_font[3] = {TT_FONT_BOLD, TT_FONT_SANS, TT_FONT_SANS};

// The shift test at (x, y) in width w at unit u, each line wrapped; its height (only
// measured when !draw; 0 when it could not be measured).
static int shift_lines(tt_paint *p, const rope_view *c, int u, int x, int y, int w, bool draw) {
  if (!c->shift_ok) return 0;
  tt_rgba col[3] = {p->pal->fg, p->pal->accent, p->pal->dim};
  char buf[400];
  int h = 0;
  for (int j = 0; j < 3; j++) {
    shift_text(p, c, j, buf, sizeof buf);
    if (!draw) {
      h += tt_para_height(p->cv, w, buf, shift_px(u, j), shift_font[j]);
      continue;
    }
    if (j == 0) tt_note(p->cv, "rope_shift layer=%d", c->layer);
    if (j == 1) tt_note(p->cv, "rope_measure layer=%d shift=%d n=%d", c->layer, c->shift, c->n_shift);
    h += tt_draw_para(p->cv, x, y + h, w, buf, shift_px(u, j), shift_font[j], col[j]);
  }
  return h;
}

// What the view leaves out, at (x, y) in width w: positions without circles, pair rows
// ("… N more rows"), the shift test, the position's numbers; its height (only measured
// when !draw).
static int more_lines(tt_paint *p, const rope_view *c, const rope_fit *f, int x, int y, int w, bool draw) {
  tt_lang lang = p->st->lang;
  char text[3][300], note[3][80];
  int n = 0, h = 0, o = c->offset;
  if (f->pairs > 0 && f->shown < c->T) {
    snprintf(text[n], sizeof text[n], tt_str(lang, TT_S_ROPE_MORE_POS_FMT), o + f->first, o + f->first + f->shown - 1,
             o, o + c->T - 1);
    snprintf(note[n++], sizeof note[0], "rope_pos_more first=%d shown=%d", f->first, f->shown);
  }
  if (f->pairs < c->n_pairs) {
    snprintf(text[n], sizeof text[n], tt_str(lang, TT_S_ROWS_MORE_FMT), c->n_pairs - f->pairs);
    snprintf(note[n++], sizeof note[0], "rope_rows_more n=%d", c->n_pairs - f->pairs);
  }
  if (!f->table || !f->shift) {
    if (f->table)
      snprintf(text[n], sizeof text[n], "%s", tt_str(lang, TT_S_ROPE_MORE_SHIFT));
    else
      snprintf(text[n], sizeof text[n], tt_str(lang, TT_S_ROPE_MORE_NUMS_FMT), o + c->pos);
    snprintf(note[n++], sizeof note[0], "rope_more t=%d table=%d", c->pos, f->table);
  }
  for (int i = 0; i < n; i++) {
    if (!draw) {
      h += tt_para_height(p->cv, w, text[i], tt_type_for(f->u).label, TT_FONT_SANS);
      continue;
    }
    tt_note(p->cv, "%s", note[i]);
    h += tt_draw_para(p->cv, x, y + h, w, text[i], tt_type_for(f->u).label, TT_FONT_SANS, p->pal->dim);
  }
  return h;
}

// The view at unit u in r with the parts asked for and the first `pairs` pair rows; f.h is
// its height (INT_MAX when the table is asked for and has no room across r).
static rope_fit try_fit(tt_paint *p, const rope_view *c, SDL_Rect r, int u, bool table, bool shift, int pairs) {
  rope_fit f = {.u = u, .table = table, .shift = shift, .pairs = pairs};
  const tt_type type = tt_type_for(u);
  char buf[300];
  int gap = u / 2;
  f.title_h =
      tt_para_height(p->cv, r.w, title_text(p, c, type.heading, r.w, buf, sizeof buf), type.heading, TT_FONT_BOLD);
  f.rule_h = tt_para_height(p->cv, r.w, tt_str(p->st->lang, TT_S_ROPE_RULE), type.label, TT_FONT_SANS) + gap;
  fit_rows(p, c, r.w, &f);
  f.table_h = table ? fit_table(p, c, r.w, &f) : 0;
  f.shift_h = shift ? shift_lines(p, c, u, 0, 0, r.w, false) : 0;
  f.more_h = more_lines(p, c, &f, 0, 0, r.w, false);
  if (f.table_h < 0) {
    f.h = INT_MAX;
    return f;
  }
  f.h = f.title_h + f.rule_h + (pairs > 0 ? f.heads_h + f.row_h * pairs : 0);
  f.h += (table ? gap + f.table_h : 0) + (shift ? gap + f.shift_h : 0) + (f.more_h ? gap + f.more_h : 0);
  return f;
}

// Bigger circles in the room left (up to two units, as the positions' columns allow).
static rope_fit grow_circles(rope_fit f, int room) {
  if (room <= 0 || f.pairs == 0) return f;
  int rad = tt_min_i(tt_min_i(f.step * 2 / 5, f.u * 2), f.rad + room / (2 * f.pairs));
  if (rad <= f.rad) return f;
  int row_h = tt_max_i(f.label_h, 2 * rad + 4 + f.angle_h) + f.u / 3;
  f.h += (row_h - f.row_h) * f.pairs;
  f.rad = rad, f.row_h = row_h;
  return f;
}

// The largest type that shows everything, down to a readable unit (tt_unit_smaller); else
// the same without the shift test, then without the position's numbers; else smaller type
// down to MIN_UNIT; else fewer pair rows. (A part that does not fit at the readable unit is
// not tried larger: the text is measured afresh for each try.)
static rope_fit choose_fit(tt_paint *p, const rope_view *c, SDL_Rect r) {
  int lo = tt_unit_smaller(p->unit);
  rope_fit f;
  for (int parts = 2; parts >= 0; parts--) {
    if (try_fit(p, c, r, lo, parts > 0, parts > 1, c->n_pairs).h > r.h) continue;
    for (int u = p->unit; u >= lo; u--)
      if ((f = try_fit(p, c, r, u, parts > 0, parts > 1, c->n_pairs)).h <= r.h) return grow_circles(f, r.h - f.h);
  }
  for (int u = lo - 1; u >= MIN_UNIT; u--)
    if ((f = try_fit(p, c, r, u, false, false, c->n_pairs)).h <= r.h) return grow_circles(f, r.h - f.h);
  for (int n = c->n_pairs - 1; n > 0; n--)
    if ((f = try_fit(p, c, r, MIN_UNIT, false, false, n)).h <= r.h) return f;
  return try_fit(p, c, r, MIN_UNIT, false, false, 0);
}

// The positions over the circles, from x: the position number and its token.
static void position_heads(tt_paint *p, const rope_view *c, const rope_fit *f, int x, int y) {
  const tt_type type = tt_type_for(f->u);
  char num[32], tok[160], fit[160];
  for (int t = c->first; t < c->first + c->shown; t++) {
    int cx = x + f->step * (t - c->first) + f->step / 2;
    snprintf(num, sizeof num, "%d", c->offset + t);
    tt_note(p->cv, "rope_pos t=%d", t);
    tt_draw_text(p->cv, cx, y, num, type.small, TT_FONT_BOLD, t == c->pos ? p->pal->accent : p->pal->fg,
                 TT_ALIGN_CENTER);
    tt_token_label(p->tr, t, tok, sizeof tok);
    tt_text_fit(p->cv->fonts, tok, type.small, TT_FONT_MONO, f->step - 4, fit, sizeof fit);
    tt_note(p->cv, "rope_tok t=%d", t);
    tt_draw_text(p->cv, cx, y + type.small * 13 / 10, fit, type.small, TT_FONT_MONO, p->pal->dim, TT_ALIGN_CENTER);
  }
}

// Pair k's row at (x, y): its labels, then a circle per position with q before (dim) and
// after (accent) the rotation and the angle under it.
static void pair_row(tt_paint *p, const rope_view *c, const rope_fit *f, int k, int x, int y) {
  tt_canvas *cv = p->cv;
  const tt_type type = tt_type_for(f->u);
  int i = c->pair[k], rad = f->rad;
  char num[48];
  pair_labels(p, c, k, f->u, x, y, f->lw, true);
  double fr = frequency(c, i), scale = rad * 0.92 / pair_extent(c, i);
  for (int t = c->first; t < c->first + c->shown; t++) {
    int cx = x + f->lw + f->u + f->step * (t - c->first) + f->step / 2, cy = y + rad + 2;
    circle(cv, cx, cy, rad, t == c->pos ? p->pal->accent : p->pal->dim);
    double a, b;
    pair_of(c->q, c, c->head, t, i, &a, &b);
    arrow(cv, cx, cy, a * scale, b * scale, p->pal->dim);
    pair_of(c->rq, c, c->head, t, i, &a, &b);
    arrow(cv, cx, cy, a * scale, b * scale, p->pal->accent);
    tt_note(cv, "rope_angle i=%d t=%d", i, t);
    tt_draw_text(cv, cx, cy + rad + 3, tt_fmt_num((double)(c->offset + t) * fr, "%.2f", num, sizeof num), type.small,
                 TT_FONT_SANS, p->pal->fg, TT_ALIGN_CENTER);
  }
}

// The chosen position's numbers at (x, y) in width w: per pair the angle, q and k before
// and after the rotation, in the fit's columns.
static void numbers_table(tt_paint *p, const rope_view *c, const rope_fit *f, int x, int y, int w) {
  tt_canvas *cv = p->cv;
  const tt_type type = tt_type_for(f->u);
  char line[300], tok[160], fit[300], buf[96];
  tt_token_label(p->tr, c->pos, tok, sizeof tok);
  snprintf(line, sizeof line, tt_str(p->st->lang, TT_S_ROPE_AT_FMT), c->offset + c->pos, tok);
  tt_note(cv, "rope_at t=%d", c->pos);
  tt_draw_text(cv, x, y, tt_text_fit(cv->fonts, line, type.body, TT_FONT_BOLD, w, fit, sizeof fit), type.body,
               TT_FONT_BOLD, p->pal->fg, TT_ALIGN_LEFT);
  int lh = table_line(f->u), top = y + type.body * 7 / 5;
  for (int col = 0; col < 6; col++) {
    int s = slot_of(f->wide, col), l = s != col;  // k and k′ on the second line when narrow
    tt_draw_text(cv, x + f->col[s], top + l * lh, tt_str(p->st->lang, (tt_str_id)col_head[col]), type.cell,
                 TT_FONT_BOLD, p->pal->dim, TT_ALIGN_LEFT);
    for (int k = 0; k < c->n_pairs; k++) {
      tt_note(cv, "rope_num i=%d t=%d v=%s", c->pair[k], c->pos, cell_note[col]);
      tt_draw_text(cv, x + f->col[s], top + table_block(f) * (k + 1) + l * lh, cell_text(c, k, col, buf, sizeof buf),
                   type.cell, TT_FONT_MONO, p->pal->fg, TT_ALIGN_LEFT);
    }
  }
}

// The tensors and sizes of layer's head; false when the trace has no rotary positions there.
static bool setup(const tt_paint *p, rope_view *c, int layer, int head) {
  tt_config cfg;
  memset(c, 0, sizeof *c);
  if (!tt_trace_config(p->tr, &cfg) || cfg.positions != TT_POS_ROPE || layer < 0 || layer >= cfg.n_layer) return false;
  c->layer = layer, c->H = cfg.n_head, c->G = tt_config_kv_heads(&cfg), c->D = tt_config_head_dim(&cfg);
  c->T = tt_trace_n_tokens(p->tr), c->offset = cfg.rope_offset, c->theta = cfg.rope_theta;
  c->head = head < 0 ? 0 : head >= c->H ? c->H - 1 : head;
  c->kv = c->head / (c->H / c->G);
  c->pos = p->st->position >= 0 && p->st->position < c->T ? p->st->position : c->T - 1;
  c->q = tt_find_hook(p->tr, layer, "attn.hook_q"), c->rq = tt_find_hook(p->tr, layer, "attn.hook_rot_q");
  c->k = tt_find_hook(p->tr, layer, "attn.hook_k"), c->rk = tt_find_hook(p->tr, layer, "attn.hook_rot_k");
  c->raw = tt_find_hook(p->tr, layer, "attn.hook_attn_scores_raw");
  const int64_t want[5][3] = {
      {c->H, c->T, c->D}, {c->H, c->T, c->D}, {c->G, c->T, c->D}, {c->G, c->T, c->D}, {c->H, c->T, c->T}};
  const tt_tensor *have[5] = {c->q, c->rq, c->k, c->rk, c->raw};
  for (int i = 0; i < 5; i++)
    if (!have[i] || have[i]->ndim != 3 || memcmp(have[i]->shape, want[i], sizeof want[i]) != 0) return false;
  choose_pairs(c, p->st->pair);
  if (c->T <= 0 || c->D < 2) return false;
  c->shift = c->offset ? -c->offset : 4, c->n_shift = c->T < SHIFT_POSITIONS ? c->T : SHIFT_POSITIONS;
  c->shift_ok = measure_shift(c, c->offset + c->shift, c->n_shift, &c->diff, &c->largest);
  return true;
}

void tt_paint_rope(tt_paint *p, SDL_Rect r, int layer, int head) {
  tt_canvas *cv = p->cv;
  rope_view c;
  if (!setup(p, &c, layer, head)) {
    tt_draw_para(cv, r.x, r.y, r.w, tt_str(p->st->lang, TT_S_ROPE_NONE), p->unit, TT_FONT_SANS, p->pal->warn);
    return;
  }
  rope_fit f = choose_fit(p, &c, r);
  const tt_type type = tt_type_for(f.u);
  int gap = f.u / 2, bottom = r.y + r.h;
  char line[300];
  c.first = f.first, c.shown = f.shown;
  tt_note_scope(cv, "panel=rope layer=%d head=%d", c.layer, c.head);
  tt_note(cv, "rope_title");
  int y = r.y + tt_draw_para_cut(cv, r.x, r.y, r.w, title_text(p, &c, type.heading, r.w, line, sizeof line),
                                 type.heading, TT_FONT_BOLD, p->pal->fg, r.h);
  tt_note(cv, "fixed");
  y += tt_draw_para_cut(cv, r.x, y, r.w, tt_str(p->st->lang, TT_S_ROPE_RULE), type.label, TT_FONT_SANS, p->pal->dim,
                        bottom - y) +
       gap;
  if (f.pairs > 0) {
    position_heads(p, &c, &f, r.x + f.lw + f.u, y);
    y += f.heads_h;
    for (int k = 0; k < f.pairs; k++, y += f.row_h) pair_row(p, &c, &f, k, r.x, y);
  }
  if (f.table) {
    numbers_table(p, &c, &f, r.x, y + gap, r.w);
    y += gap + f.table_h;
  }
  if (f.shift) y += gap + shift_lines(p, &c, f.u, r.x, y + gap, r.w, true);
  if (f.more_h && y + gap + f.more_h <= bottom) more_lines(p, &c, &f, r.x, y + gap, r.w, true);
  tt_note_scope(cv, NULL);
}
