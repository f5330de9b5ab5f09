// gelu: the activation as a curve, and every (pre, post) pair of one layer's FFN as a
// dot on it, so the class sees that the numbers really went through that function.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render_int.h"

static double act(tt_act_kind a, double x) {
  switch (a) {
    case TT_ACT_RELU: return x > 0 ? x : 0;
    case TT_ACT_SILU: return x / (1 + exp(-x));
    case TT_ACT_IDENTITY: return x;
    case TT_ACT_GELU_ERF: return 0.5 * x * (1 + erf(x / sqrt(2.0)));
    default: return 0.5 * x * (1 + tanh(sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
  }
}

// Values beyond a million are drawn at the edge (a hostile trace may hold 1e38, or inf,
// whose axis would not fit an int); NaN does not widen the axes.
#define PLOT_LIMIT 1e6f
static float plotted(float v) { return isnan(v) ? 0.0f : fmaxf(-PLOT_LIMIT, fminf(PLOT_LIMIT, v)); }

// Grid spacing: 1 up to a span of 20, then 5, 50, 500, ... so at most about 20 lines.
static int grid_step(float span) {
  int step = span > 20 ? 5 : 1;
  while (span / (float)step > 20.0f) step *= 10;
  return step;
}

// The first multiple of step at or above lo.
static int first_line(float lo, int step) { return (int)ceilf(lo / (float)step) * step; }

void tt_paint_gelu(tt_paint *p, SDL_Rect r, int layer) {
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  int u = p->unit;
  bool ko = p->st->lang == TT_LANG_KO;
  char name[128];
  snprintf(name, sizeof name, "blocks.%d.mlp.hook_pre", layer);
  const tt_tensor *pre = tt_trace_find(p->tr, name);
  snprintf(name, sizeof name, "blocks.%d.mlp.hook_post", layer);
  const tt_tensor *post = tt_trace_find(p->tr, name);
  if (!pre || !post || tt_tensor_numel(pre) != tt_tensor_numel(post)) {
    tt_draw_para(cv, r.x, r.y, r.w, tt_str(p->st->lang, TT_S_NOT_RECORDED), u, TT_FONT_SANS, pal->warn);
    return;
  }
  tt_config cfg;
  tt_act_kind a = tt_trace_config(p->tr, &cfg) ? cfg.activation : TT_ACT_GELU_TANH;
  int64_t n = tt_tensor_numel(pre);
  float xmin = 0, xmax = 0;
  for (int64_t i = 0; i < n; i++) {
    float v = plotted(tt_tensor_at(pre, i));
    if (v < xmin) xmin = v;
    if (v > xmax) xmax = v;
  }
  // Keep the bend visible: at least [-4, 3], at most what the data needs.
  xmin = fminf(floorf(xmin), -4.0f);
  xmax = fmaxf(ceilf(xmax), 3.0f);
  float ymin = fminf((float)act(a, xmin), -1.0f), ymax = (float)act(a, xmax);
  for (int64_t i = 0; i < n; i++) {
    float v = plotted(tt_tensor_at(post, i));
    if (v < ymin) ymin = v;
    if (v > ymax) ymax = v;
  }
  int lab = u * 4;
  SDL_Rect plot = {r.x + lab, r.y + u, r.w - lab - u * 2, r.h - u * 6};
  if (plot.w < 40 || plot.h < 40) return;
  // Equal units on both axes would squash the plot; use the space and mark the axes.
  float sx = (float)plot.w / (xmax - xmin), sy = (float)plot.h / (ymax - ymin);
#define PX(xv) (plot.x + (int)(((xv) - xmin) * sx))
#define PY(yv) (plot.y + plot.h - (int)(((yv) - ymin) * sy))
  cv->fill(cv, plot.x, plot.y, plot.w, plot.h, pal->panel);
  char buf[48];
  int step = grid_step(xmax - xmin);
  for (int gx = first_line(xmin, step); gx <= (int)xmax; gx += step) {
    cv->fill(cv, PX(gx), plot.y, 1, plot.h, gx == 0 ? pal->dim : pal->bg);
    snprintf(buf, sizeof buf, "%d", gx);
    tt_draw_text(cv, PX(gx), plot.y + plot.h + u / 3, buf, u * 9 / 10, TT_FONT_SANS, pal->fg, TT_ALIGN_CENTER);
  }
  int ystep = grid_step(ymax - ymin);
  for (int gy = first_line(ceilf(ymin), ystep); gy <= (int)ymax; gy += ystep) {
    cv->fill(cv, plot.x, PY(gy), plot.w, 1, gy == 0 ? pal->dim : pal->bg);
    snprintf(buf, sizeof buf, "%d", gy);
    tt_draw_text(cv, plot.x - u / 2, PY(gy) - u / 2, buf, u * 9 / 10, TT_FONT_SANS, pal->fg, TT_ALIGN_RIGHT);
  }
  // The points, rasterised (a few hundred thousand for long prompts): one cell image.
  int gw = plot.w < p->cv->max_cells ? plot.w : p->cv->max_cells;
  int gh = plot.h < p->cv->max_cells ? plot.h : p->cv->max_cells;
  uint64_t key = tt_hash(0, &pre->data, sizeof pre->data);
  int kk[4] = {gw, gh, (int)p->st->theme, (int)a};
  key = tt_hash(key, kk, sizeof kk);
  if (!cv->cells_cached(cv, key, plot)) {
    tt_rgba *img = malloc(sizeof(tt_rgba) * (size_t)gw * (size_t)gh);
    if (img) {
      for (int i = 0; i < gw * gh; i++) img[i] = pal->panel;
      // Light grid lines again (the image covers them).
      int fine = xmax - xmin > 100 ? step : 1, yfine = ymax - ymin > 100 ? ystep : 1;
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
      tt_rgba dc = pal->accent;
      for (int64_t i = 0; i < n; i++) {
        float x = tt_tensor_at(pre, i), y = tt_tensor_at(post, i);
        if (!isfinite(x) || !isfinite(y)) continue;  // NaN and infinities have no place on the plot
        x = plotted(x), y = plotted(y);
        int c = (int)((x - xmin) / (xmax - xmin) * (float)(gw - 1));
        int rr = gh - 1 - (int)((y - ymin) / (ymax - ymin) * (float)(gh - 1));
        for (int dy = -dot; dy <= dot; dy++)
          for (int dx = -dot; dx <= dot; dx++) {
            int yy = rr + dy, xx = c + dx;
            if (yy >= 0 && yy < gh && xx >= 0 && xx < gw) img[yy * gw + xx] = dc;
          }
      }
      tt_cells cells = {.rows = gh, .cols = gw, .rgb = img, .cell_w = (float)plot.w / (float)gw,
                        .cell_h = (float)plot.h / (float)gh};
      cv->cells(cv, key, &cells, plot);
      free(img);
    }
  }
  // The curve on top.
  int segs = 240;
  for (int i = 0; i < segs; i++) {
    double x0 = xmin + (xmax - xmin) * i / segs, x1 = xmin + (xmax - xmin) * (i + 1) / segs;
    int X0 = PX(x0), Y0 = PY(act(a, x0)), X1 = PX(x1), Y1 = PY(act(a, x1));
    for (int w = -1; w <= 1; w++) {
      cv->line(cv, X0, Y0 + w, X1, Y1 + w, pal->fg);
    }
  }
  tt_draw_rect(cv, plot.x - 1, plot.y - 1, plot.w + 2, plot.h + 2, pal->dim);
#undef PX
#undef PY
  char line[300];
  if (!ko) snprintf(line, sizeof line, "curve: %s.  dots: the %lld (input u, output g) pairs of blocks.%d.mlp", tt_act_name(a),
                    (long long)n, layer);
  else snprintf(line, sizeof line, "곡선: %s.  점: blocks.%d.mlp의 (입력 u, 출력 g) 쌍 %lld개", tt_act_name(a), layer,
                (long long)n);
  tt_draw_text(cv, plot.x, r.y + r.h - u * 3, line, u, TT_FONT_SANS, pal->fg, TT_ALIGN_LEFT);
  tt_draw_text(cv, plot.x + plot.w, plot.y + plot.h + u * 3 / 2, ko ? "u (hook_pre)" : "u (hook_pre)", u * 9 / 10,
               TT_FONT_SANS, pal->dim, TT_ALIGN_RIGHT);
  tt_draw_text(cv, plot.x + u / 2, plot.y + u / 3, "g (hook_post)", u * 9 / 10, TT_FONT_SANS, pal->dim, TT_ALIGN_LEFT);
}
