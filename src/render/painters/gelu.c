// gelu: the activation as a curve, and every (pre, post) pair of one layer's FFN as a
// dot on it, so the class sees that the numbers really went through that function.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render_int.h"

double tt_activation(tt_act_kind a, double x) {
  switch (a) {
  case TT_ACT_RELU:
    return x > 0 ? x : 0;
  case TT_ACT_SILU:
    return x / (1 + exp(-x));
  case TT_ACT_IDENTITY:
    return x;
  case TT_ACT_GELU_ERF:
    return 0.5 * x * (1 + erf(x / sqrt(2.0)));
  default:
    return 0.5 * x * (1 + tanh(sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
  }
}

// Values beyond a million are drawn at the edge (a hostile trace may hold 1e38, or inf,
// whose axis would not fit an int); NaN does not widen the axes.
#define PLOT_LIMIT 1e6f
static float plotted(float v) {
  return isnan(v) ? 0.0f : fmaxf(-PLOT_LIMIT, fminf(PLOT_LIMIT, v));
}

// Grid spacing: 1 up to a span of 20, then 5, 50, 500, ... so at most about 20 lines.
static int grid_step(float span) {
  int step = span > 20 ? 5 : 1;
  while (span / (float)step > 20.0f) step *= 10;
  return step;
}

// The first multiple of step at or above lo.
static int first_line(float lo, int step) {
  return (int)ceilf(lo / (float)step) * step;
}

// The plot: its rectangle and the value ranges on its axes.
typedef struct {
  SDL_Rect plot;
  float xmin, xmax, ymin, ymax, sx, sy;  // sx, sy: pixels per unit
} figure;
// Equal units on both axes would squash the plot; it uses the space and marks the axes.
#define PX(f, xv) ((f)->plot.x + (int)(((xv) - (f)->xmin) * (f)->sx))
#define PY(f, yv) ((f)->plot.y + (f)->plot.h - (int)(((yv) - (f)->ymin) * (f)->sy))

// The ranges: at least [-4, 3] on x (the bend stays visible), at most what the data needs.
static void ranges(figure *f, tt_act_kind a, const tt_tensor *pre, const tt_tensor *post) {
  int64_t n = tt_tensor_numel(pre);
  float xmin = 0, xmax = 0;
  for (int64_t i = 0; i < n; i++) {
    float v = plotted(tt_tensor_at(pre, i));
    if (v < xmin) xmin = v;
    if (v > xmax) xmax = v;
  }
  xmin = fminf(floorf(xmin), -4.0f);
  xmax = fmaxf(ceilf(xmax), 3.0f);
  float ymin = fminf((float)tt_activation(a, xmin), -1.0f), ymax = (float)tt_activation(a, xmax);
  for (int64_t i = 0; i < n; i++) {
    float v = plotted(tt_tensor_at(post, i));
    if (v < ymin) ymin = v;
    if (v > ymax) ymax = v;
  }
  f->xmin = xmin, f->xmax = xmax, f->ymin = ymin, f->ymax = ymax;
  f->sx = (float)f->plot.w / (xmax - xmin), f->sy = (float)f->plot.h / (ymax - ymin);
}

// Grid lines with their numbers.
static void axes(tt_paint *p, const figure *f) {
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  int u = p->unit;
  const tt_type type = tt_type_for(u);
  cv->fill(cv, f->plot.x, f->plot.y, f->plot.w, f->plot.h, pal->panel);
  char buf[48];
  int step = grid_step(f->xmax - f->xmin);
  // Numbers only where they stand apart: every k-th grid line.
  int kx = 1, ky = 1,
      num_w = tt_text_width(cv->fonts,
                            "\xE2\x88\x92"
                            "00",
                            type.label, TT_FONT_SANS);
  while ((float)(step * kx) * f->sx < (float)(num_w + u / 2)) kx = kx == 1 ? 2 : kx * 5 / 2;
  for (int gx = first_line(f->xmin, step); gx <= (int)f->xmax; gx += step) {
    cv->fill(cv, PX(f, gx), f->plot.y, 1, f->plot.h, gx == 0 ? pal->dim : pal->bg);
    if ((gx / step) % kx != 0) continue;
    tt_fmt_num(gx, "%.0f", buf, sizeof buf);
    tt_note(cv, "axis_number");
    tt_draw_text(cv, PX(f, gx), f->plot.y + f->plot.h + u / 3, buf, type.label, TT_FONT_SANS, pal->fg, TT_ALIGN_CENTER);
  }
  int ystep = grid_step(f->ymax - f->ymin);
  while ((float)(ystep * ky) * f->sy < (float)type.label * 1.3f) ky = ky == 1 ? 2 : ky * 5 / 2;
  for (int gy = first_line(ceilf(f->ymin), ystep); gy <= (int)f->ymax; gy += ystep) {
    cv->fill(cv, f->plot.x, PY(f, gy), f->plot.w, 1, gy == 0 ? pal->dim : pal->bg);
    // Every ky-th line, and none so low that it would meet the x axis's numbers.
    if ((gy / ystep) % ky != 0 || PY(f, gy) + type.label / 2 > f->plot.y + f->plot.h) continue;
    tt_fmt_num(gy, "%.0f", buf, sizeof buf);
    tt_note(cv, "axis_number");
    tt_draw_text(cv, f->plot.x - u / 2, PY(f, gy) - u / 2, buf, type.label, TT_FONT_SANS, pal->fg, TT_ALIGN_RIGHT);
  }
}

// The points rasterised into a gw × gh image (light grid lines again: the image covers them).
static void dot_image(const tt_paint *p, const figure *f, const tt_tensor *pre, const tt_tensor *post, int gw, int gh,
                      tt_rgba *img) {
  const tt_palette *pal = p->pal;
  float xmin = f->xmin, xmax = f->xmax, ymin = f->ymin, ymax = f->ymax;
  for (int i = 0; i < gw * gh; i++) img[i] = pal->panel;
  int fine = xmax - xmin > 100 ? grid_step(xmax - xmin) : 1, yfine = ymax - ymin > 100 ? grid_step(ymax - ymin) : 1;
  for (int gx = first_line(xmin, fine); gx <= (int)xmax; gx += fine) {
    int c = (int)(((float)gx - xmin) / (xmax - xmin) * (float)gw);
    if (c >= 0 && c < gw)
      for (int y = 0; y < gh; y++) img[y * gw + c] = gx == 0 ? pal->dim : pal->bg;
  }
  for (int gy = first_line(ceilf(ymin), yfine); gy <= (int)ymax; gy += yfine) {
    int rr = gh - 1 - (int)(((float)gy - ymin) / (ymax - ymin) * (float)gh);
    if (rr >= 0 && rr < gh)
      for (int x = 0; x < gw; x++) img[rr * gw + x] = gy == 0 ? pal->dim : pal->bg;
  }
  int dot = gw > 300 ? 2 : 1;
  int64_t n = tt_tensor_numel(pre);
  for (int64_t i = 0; i < n; i++) {
    float x = tt_tensor_at(pre, i), y = tt_tensor_at(post, i);
    if (!isfinite(x) || !isfinite(y)) continue;  // NaN and infinities have no place on the plot
    x = plotted(x), y = plotted(y);
    int c = (int)((x - xmin) / (xmax - xmin) * (float)(gw - 1));
    int rr = gh - 1 - (int)((y - ymin) / (ymax - ymin) * (float)(gh - 1));
    for (int dy = -dot; dy <= dot; dy++)
      for (int dx = -dot; dx <= dot; dx++) {
        int yy = rr + dy, xx = c + dx;
        if (yy >= 0 && yy < gh && xx >= 0 && xx < gw) img[yy * gw + xx] = pal->accent;
      }
  }
}

// The points (a few hundred thousand for long prompts) as one cached cell image.
static void dots(tt_paint *p, const figure *f, tt_act_kind a, const tt_tensor *pre, const tt_tensor *post) {
  tt_canvas *cv = p->cv;
  int gw = f->plot.w < cv->max_cells ? f->plot.w : cv->max_cells;
  int gh = f->plot.h < cv->max_cells ? f->plot.h : cv->max_cells;
  uint64_t key = tt_hash(0, &pre->data, sizeof pre->data);
  int kk[4] = {gw, gh, (int)p->st->theme, (int)a};
  key = tt_hash(key, kk, sizeof kk);
  if (cv->cells_cached(cv, key, f->plot)) return;
  tt_rgba *img = malloc(sizeof(tt_rgba) * (size_t)gw * (size_t)gh);
  if (!img) return;
  dot_image(p, f, pre, post, gw, gh, img);
  tt_cells cells = {.rows = gh,
                    .cols = gw,
                    .rgb = img,
                    .cell_w = (float)f->plot.w / (float)gw,
                    .cell_h = (float)f->plot.h / (float)gh};
  cv->cells(cv, key, &cells, f->plot);
  free(img);
}

void tt_paint_gelu(tt_paint *p, SDL_Rect r, int layer) {
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  int u = p->unit;
  const tt_type type = tt_type_for(u);
  const tt_tensor *pre = tt_find_hook(p->tr, layer, "mlp.hook_pre");
  const tt_tensor *post = tt_find_hook(p->tr, layer, "mlp.hook_post");
  if (!pre || !post || tt_tensor_numel(pre) != tt_tensor_numel(post)) {
    tt_draw_para(cv, r.x, r.y, r.w, tt_str(p->st->lang, TT_S_NOT_RECORDED), u, TT_FONT_SANS, pal->warn);
    return;
  }
  tt_config cfg;
  bool have_cfg = tt_trace_config(p->tr, &cfg);
  if (have_cfg && cfg.arch == TT_ARCH_LLAMA) {  // post = act(pre)·up: the dots would lie off the curve
    tt_draw_para(cv, r.x, r.y, r.w, tt_str(p->st->lang, TT_S_GATED_MLP), u, TT_FONT_SANS, pal->fg);
    return;
  }
  tt_act_kind a = have_cfg ? cfg.activation : TT_ACT_GELU_TANH;
  int lab = u * 3;
  char line[300];
  snprintf(line, sizeof line, tt_str(p->st->lang, TT_S_GELU_DOTS_FMT), tt_act_name(a), (long long)tt_tensor_numel(pre),
           layer);
  // Below the plot: the numbers, the axis title, then the caption (wrapped, in label type).
  int cap_h = type.label * 13 / 10 * (tt_text_width(cv->fonts, line, type.label, TT_FONT_SANS) / (r.w - lab) + 1);
  int below = type.line * 2 + u / 2 + cap_h;
  figure f = {.plot = {r.x + lab, r.y + u / 2, r.w - lab - u, r.h - u / 2 - below}};
  if (f.plot.w < 40 || f.plot.h < 40) return;
  ranges(&f, a, pre, post);
  axes(p, &f);
  dots(p, &f, a, pre, post);
  // The curve on top.
  int segs = 240;
  for (int i = 0; i < segs; i++) {
    double x0 = f.xmin + (f.xmax - f.xmin) * i / segs, x1 = f.xmin + (f.xmax - f.xmin) * (i + 1) / segs;
    int X0 = PX(&f, x0), Y0 = PY(&f, tt_activation(a, x0)), X1 = PX(&f, x1), Y1 = PY(&f, tt_activation(a, x1));
    for (int w = -1; w <= 1; w++) cv->line(cv, X0, Y0 + w, X1, Y1 + w, pal->fg);
  }
  SDL_Rect plot = f.plot;
  tt_draw_rect(cv, plot.x - 1, plot.y - 1, plot.w + 2, plot.h + 2, pal->dim);
  tt_draw_text(cv, plot.x + plot.w, plot.y + plot.h + type.line, "u (hook_pre)", type.label, TT_FONT_SANS, pal->dim,
               TT_ALIGN_RIGHT);
  tt_note(cv, "gelu_count layer=%d", layer);
  tt_draw_para(cv, plot.x, plot.y + plot.h + type.line * 2 + u / 2, r.x + r.w - plot.x, line, type.label, TT_FONT_SANS,
               pal->fg);
  tt_draw_text(cv, plot.x + u / 2, plot.y + u / 3, "g (hook_post)", type.label, TT_FONT_SANS, pal->dim, TT_ALIGN_LEFT);
}
#undef PX
#undef PY
