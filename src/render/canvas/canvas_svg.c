// canvas_svg: the canvas as SVG elements: rectangles for cells (runs of equal colour
// merged), <text> for labels with the same fonts named, a hatch pattern for masked cells.
// Each text carries what it is (data-tt: "cell r=2 c=0", "label axis=T i=3", ...) and what
// it belongs to (data-tt-panel: the hook, head, layer, trace), so that a checker can
// recompute every printed number; never the value itself.
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "render_int.h"

static const char *family(tt_font_kind k) {
  return tt_font_css_families(k);
}

static void color(FILE *fp, const char *attr, tt_rgba c) {
  fprintf(fp, " %s=\"#%02x%02x%02x\"", attr, c.r, c.g, c.b);
  if (c.a != 255) fprintf(fp, " %s-opacity=\"%.3f\"", attr, c.a / 255.0);
}

// Grows the box of what was drawn by the rectangle (x, y, w, h).
static void drawn(tt_svg_state *sv, int x, int y, int w, int h) {
  if (sv->x1 < sv->x0) {
    sv->x0 = x, sv->y0 = y, sv->x1 = x + w, sv->y1 = y + h;
    return;
  }
  if (x < sv->x0) sv->x0 = x;
  if (y < sv->y0) sv->y0 = y;
  if (x + w > sv->x1) sv->x1 = x + w;
  if (y + h > sv->y1) sv->y1 = y + h;
}

static void svg_fill(tt_canvas *cv, int x, int y, int w, int h, tt_rgba c) {
  tt_svg_state *sv = cv->impl;
  if (w <= 0 || h <= 0) return;
  if (!(x <= 0 && y <= 0 && x + w >= sv->w && y + h >= sv->h)) drawn(sv, x, y, w, h);  // not the background
  fprintf(sv->fp, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"", x, y, w, h);
  color(sv->fp, "fill", c);
  fputs("/>\n", sv->fp);
}

static void svg_line(tt_canvas *cv, int x0, int y0, int x1, int y1, tt_rgba c) {
  tt_svg_state *sv = cv->impl;
  drawn(sv, x0 < x1 ? x0 : x1, y0 < y1 ? y0 : y1, abs(x1 - x0) + 1, abs(y1 - y0) + 1);
  fprintf(sv->fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"", x0 + 0.5, y0 + 0.5, x1 + 0.5, y1 + 0.5);
  color(sv->fp, "stroke", c);
  fputs("/>\n", sv->fp);
}

static void escaped(FILE *fp, const char *s) {
  for (; *s; s++) {
    switch (*s) {
    case '<':
      fputs("&lt;", fp);
      break;
    case '>':
      fputs("&gt;", fp);
      break;
    case '&':
      fputs("&amp;", fp);
      break;
    case '"':
      fputs("&quot;", fp);
      break;
    default:
      if ((unsigned char)*s >= 0x20 || *s == '\t') fputc(*s, fp);
    }
  }
}

void tt_note(tt_canvas *cv, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cv->note, sizeof cv->note, fmt, ap);
  va_end(ap);
}

void tt_note_scope(tt_canvas *cv, const char *fmt, ...) {
  cv->scope[0] = 0;
  if (!fmt) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cv->scope, sizeof cv->scope, fmt, ap);
  va_end(ap);
}

static void svg_text(tt_canvas *cv, int x, int y, const char *s, int px, tt_font_kind k, tt_rgba c, bool rot90) {
  tt_svg_state *sv = cv->impl;
  char note[sizeof cv->note];
  memcpy(note, cv->note, sizeof note);
  cv->note[0] = 0;
  if (!s || !s[0]) return;
  tt_text_run runs[64];
  int w, h;
  int nr = tt_text_layout(cv->fonts, s, px, k, runs, 64, &w, &h);
  int base = nr > 0 ? runs[0].dy + TTF_FontAscent(runs[0].font) : px;
  double ax = x, ay = y + base;
  if (rot90) {
    ax = x + base;
    ay = y + w;
  }
  if (rot90)
    drawn(sv, x, y, h, w);
  else
    drawn(sv, x, y, w, h);
  fprintf(sv->fp, "<text x=\"%.1f\" y=\"%.1f\" font-family=\"%s\" font-size=\"%d\"%s", ax, ay, family(k), px,
          k == TT_FONT_BOLD ? " font-weight=\"bold\"" : "");
  if (rot90) fprintf(sv->fp, " transform=\"rotate(-90 %.1f %.1f)\"", ax, ay);
  // Pin the width to what the layout measured, so the SVG matches the PNG's geometry.
  fprintf(sv->fp, " textLength=\"%d\" lengthAdjust=\"spacingAndGlyphs\" xml:space=\"preserve\"", w);
  color(sv->fp, "fill", c);
  if (note[0]) {
    fputs(" data-tt=\"", sv->fp);
    escaped(sv->fp, note);
    fputc('"', sv->fp);
  }
  if (cv->scope[0]) {
    fputs(" data-tt-panel=\"", sv->fp);
    escaped(sv->fp, cv->scope);
    fputc('"', sv->fp);
  }
  if (cv->trace[0]) {
    fputs(" data-tt-trace=\"", sv->fp);
    escaped(sv->fp, cv->trace);
    fputc('"', sv->fp);
  }
  fputc('>', sv->fp);
  tt_font_usage_add(sv->usage, k, s);
  escaped(sv->fp, s);
  fputs("</text>\n", sv->fp);
}

static bool svg_cells_cached(tt_canvas *cv, uint64_t key, SDL_Rect dst) {
  (void)cv, (void)key, (void)dst;
  return false;
}

static int pattern_for(tt_svg_state *sv, tt_rgba bg, tt_rgba line, float cell) {
  uint32_t key = (uint32_t)bg.r << 24 | (uint32_t)bg.g << 16 | (uint32_t)line.r << 8 | line.g;
  for (int i = 0; i < sv->n_patterns; i++)
    if (sv->pattern_key[i] == key) return i;
  int id = sv->n_patterns < 8 ? sv->n_patterns++ : 7;
  sv->pattern_key[id] = key;
  double size = fmax(6.0, cell / 3.0);
  fprintf(sv->fp,
          "<defs><pattern id=\"hatch%d\" patternUnits=\"userSpaceOnUse\" width=\"%.1f\" height=\"%.1f\" "
          "patternTransform=\"rotate(45)\"><rect width=\"%.1f\" height=\"%.1f\" fill=\"#%02x%02x%02x\"/>"
          "<rect width=\"2\" height=\"%.1f\" fill=\"#%02x%02x%02x\"/></pattern></defs>\n",
          id, size, size, size, size, bg.r, bg.g, bg.b, size, line.r, line.g, line.b);
  return id;
}

static void svg_cells(tt_canvas *cv, uint64_t key, const tt_cells *c, SDL_Rect dst) {
  tt_svg_state *sv = cv->impl;
  (void)key;
  drawn(sv, dst.x, dst.y, dst.w, dst.h);
  int pat = c->masked ? pattern_for(sv, c->mask_bg, c->mask_line, fminf(c->cell_w, c->cell_h)) : 0;
  float gap = (c->grid && c->cell_w >= 6 && c->cell_h >= 6) ? 1.0f : 0.0f;
  if (gap > 0) svg_fill(cv, dst.x, dst.y, dst.w, dst.h, c->grid_rgb);
  for (int r = 0; r < c->rows; r++) {
    double y0 = dst.y + r * (double)c->cell_h - c->off_y, y1 = y0 + c->cell_h;
    if (y1 <= dst.y || y0 >= dst.y + dst.h) continue;
    y0 = fmax(y0, dst.y);
    y1 = fmin(y1, dst.y + dst.h);
    int j = 0;
    while (j < c->cols) {
      size_t i = (size_t)r * (size_t)c->cols + (size_t)j;
      bool m = c->masked && c->masked[i];
      tt_rgba col = c->rgb[i];
      int k = j + 1;
      while (k < c->cols && gap == 0) {
        size_t ik = (size_t)r * (size_t)c->cols + (size_t)k;
        bool mk = c->masked && c->masked[ik];
        if (mk != m || (!m && memcmp(&c->rgb[ik], &col, sizeof col) != 0)) break;
        k++;
      }
      double x0 = dst.x + j * (double)c->cell_w - c->off_x, x1 = dst.x + k * (double)c->cell_w - c->off_x;
      x0 = fmax(x0, dst.x);
      x1 = fmin(x1, dst.x + dst.w);
      if (x1 > x0) {
        fprintf(sv->fp, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"", x0 + (j ? gap : 0),
                y0 + (r ? gap : 0), x1 - x0 - (j ? gap : 0), y1 - y0 - (r ? gap : 0));
        if (m)
          fprintf(sv->fp, " fill=\"url(#hatch%d)\"", pat);
        else
          color(sv->fp, "fill", col);
        fputs("/>\n", sv->fp);
      }
      j = k;
    }
  }
}

static void svg_clip(tt_canvas *cv, const SDL_Rect *r) {
  tt_svg_state *sv = cv->impl;
  if (sv->group_open) fputs("</g>\n", sv->fp);
  sv->group_open = false;
  if (!r) return;
  int id = sv->n_clips++;
  fprintf(sv->fp, "<clipPath id=\"clip%d\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/></clipPath>\n", id, r->x,
          r->y, r->w, r->h);
  fprintf(sv->fp, "<g clip-path=\"url(#clip%d)\">\n", id);
  sv->group_open = true;
}

// A rectangle filled by a linear gradient through the colours, top to bottom: one
// continuous ramp, no strips with seams between them.
static void svg_vgradient(tt_canvas *cv, SDL_Rect r, const tt_rgba *c, int n) {
  tt_svg_state *sv = cv->impl;
  if (n < 2 || r.w <= 0 || r.h <= 0) return;
  drawn(sv, r.x, r.y, r.w, r.h);
  int id = sv->n_gradients++;
  fprintf(sv->fp, "<defs><linearGradient id=\"ramp%d\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"1\">", id);
  for (int i = 0; i < n; i++)
    fprintf(sv->fp, "<stop offset=\"%.4f\" stop-color=\"#%02x%02x%02x\"/>", (double)i / (n - 1), c[i].r, c[i].g,
            c[i].b);
  fprintf(sv->fp, "</linearGradient></defs>\n");
  fprintf(sv->fp, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"url(#ramp%d)\"/>\n", r.x, r.y, r.w, r.h,
          id);
}

void tt_svg_size_attrs(char *buf, size_t len, int x, int y, int w, int h) {
  snprintf(buf, len, "width=\"%d\" height=\"%d\" viewBox=\"%d %d %d %d\"", w, h, x, y, w, h);
}

void tt_svg_write_cropped(FILE *out, const char *body, size_t n, const tt_svg_state *sv, int margin) {
  char full[160], cut[160];
  tt_svg_size_attrs(full, sizeof full, 0, 0, sv->w, sv->h);
  const char *at = sv->x1 > sv->x0 ? strstr(body, full) : NULL;
  if (!at) {
    fwrite(body, 1, n, out);
    return;
  }
  int x0 = sv->x0 - margin < 0 ? 0 : sv->x0 - margin, y0 = sv->y0 - margin < 0 ? 0 : sv->y0 - margin;
  int x1 = sv->x1 + margin > sv->w ? sv->w : sv->x1 + margin, y1 = sv->y1 + margin > sv->h ? sv->h : sv->y1 + margin;
  tt_svg_size_attrs(cut, sizeof cut, x0, y0, x1 - x0, y1 - y0);
  fwrite(body, 1, (size_t)(at - body), out);
  fputs(cut, out);
  size_t rest = (size_t)(at - body) + strlen(full);
  fwrite(body + rest, 1, n - rest, out);
}

void tt_canvas_svg(tt_canvas *cv, tt_svg_state *svg, FILE *fp, tt_fonts *fonts, int w, int h) {
  memset(svg, 0, sizeof *svg);
  svg->fp = fp;
  svg->w = w, svg->h = h;
  svg->x1 = -1;  // nothing drawn yet
  memset(cv, 0, sizeof *cv);
  cv->fill = svg_fill;
  cv->line = svg_line;
  cv->text = svg_text;
  cv->cells_cached = svg_cells_cached;
  cv->cells = svg_cells;
  cv->clip = svg_clip;
  cv->vgradient = svg_vgradient;
  cv->max_cells = 160;
  cv->fonts = fonts;
  cv->impl = svg;
  svg->usage = tt_fonts_shared_usage(fonts);
  if (!svg->usage) {
    tt_error ignored;
    svg->no_memory = tt_font_usage_create(&svg->own, &ignored) != TT_OK;
    svg->usage = svg->own;
  }
  char size[160];
  tt_svg_size_attrs(size, sizeof size, 0, 0, w, h);
  fprintf(fp,
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<svg xmlns=\"http://www.w3.org/2000/svg\" %s>\n",
          size);
}

// The fonts come last: only then is the text known (CSS applies to the whole document).
tt_status tt_canvas_svg_end(tt_canvas *cv, tt_error *err) {
  tt_svg_state *sv = cv->impl;
  if (sv->group_open) fputs("</g>\n", sv->fp);
  sv->group_open = false;
  tt_status st = sv->no_memory ? tt_fail(err, TT_ERR_NOMEM, "out of memory") : TT_OK;
  if (!st && sv->own) {
    fputs("<defs><style>\n", sv->fp);
    st = tt_font_embed_css(cv->fonts, sv->own, sv->fp, err);
    fputs("</style></defs>\n", sv->fp);
  }
  tt_font_usage_destroy(sv->own);
  sv->own = sv->usage = NULL;
  fputs("</svg>\n", sv->fp);
  return st;
}
