// export: the render context, drawing into any SDL renderer, and the headless outputs:
// a surface from a software renderer, PNG (atomic), SVG.
#include <SDL_image.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render_int.h"

tt_status tt_render_create(tt_render **out, tt_error *err) {
  tt_render *rc = calloc(1, sizeof *rc);
  if (!rc) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  tt_status st = tt_fonts_open(&rc->fonts, err);
  if (st != TT_OK) {
    free(rc);
    return st;
  }
  rc->cache = tt_sdl_cache_create();
  if (!rc->cache) {
    tt_render_destroy(rc);
    return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  }
  *out = rc;
  return TT_OK;
}

void tt_render_destroy(tt_render *rc) {
  if (!rc) return;
  tt_ffn_collapse_free(&rc->collapse);
  tt_lens_free(&rc->lens);
  tt_sdl_cache_destroy(rc->cache);
  tt_fonts_close(rc->fonts);
  free(rc);
}

void tt_render_set_extras(tt_render *rc, const tt_render_extras *ex) {
  if (ex)
    rc->ex = *ex;
  else
    memset(&rc->ex, 0, sizeof rc->ex);
  rc->wte_view = (tt_tensor){
      .name = "wte", .dtype = TT_F32, .ndim = 2, .shape = {rc->ex.vocab, rc->ex.width}, .data = (void *)rc->ex.wte};
  tt_ffn_collapse_free(&rc->collapse);  // made from the previous trace or model
  rc->collapse_of = NULL;
  tt_lens_free(&rc->lens);
  rc->lens_of = NULL;
  tt_render_forget(rc);
}

void tt_render_set_frame_budget(tt_render *rc, double budget_ms) {
  tt_sdl_cache_set_budget(rc->cache, budget_ms);
}

bool tt_render_incomplete(const tt_render *rc) {
  return tt_sdl_cache_deferred(rc->cache) > 0;
}

void tt_render_forget(tt_render *rc) {
  tt_sdl_cache_forget(rc->cache);
  memset(rc->scales, 0, sizeof rc->scales);
  rc->next_scale = 0;
  rc->n_norms = 0;
}

// Zoomed type keeps at least this many units of room across and down (1280 × 800 at × 1.6,
// the tightest projector the zoomed checks draw): a larger zoom would run text into text.
#define ZOOM_ROOM_W 40.0f
#define ZOOM_ROOM_H 25.0f

// The unzoomed unit of an area, and the most that zooming may make of it.
static float base_unit(int w, int h, float *most) {
  float u = fminf((float)w / 64.0f, (float)h / 40.0f);
  if (u < 13) u = 13;  // small type (8/10 of it) at 10 px at least
  if (u > 64) u = 64;
  *most = fmaxf(u, fminf((float)w / ZOOM_ROOM_W, (float)h / ZOOM_ROOM_H));
  return u;
}

// Type size for an area: large enough for a projector, scaled with the area.
int tt_unit_for(const tt_view_state *st, int w, int h) {
  float most, u = base_unit(w, h, &most);
  return (int)lrintf(fminf(u * (st->font_scale > 0 ? st->font_scale : 1), most));
}

float tt_render_font_scale_max(int w, int h) {
  float most, u = base_unit(w, h, &most);
  return most / u;
}

int tt_unit_fit(const tt_view_state *st, int u, int most) {
  float scale = st->font_scale > 1 ? st->font_scale : 1;
  int unzoomed = (int)lrintf((float)u / scale);
  if (u <= most) return u;
  return most > unzoomed ? most : unzoomed;
}

tt_type tt_type_for(int u) {
  return (tt_type){.display = u * 16 / 10,
                   .formula = u * 14 / 10,
                   .title = u * 13 / 10,
                   .heading = u * 12 / 10,
                   .large = u * 11 / 10,
                   .body = u,
                   .cell = u * 85 / 100,
                   .label = u * 9 / 10,
                   .small = u * 8 / 10,
                   .big = u * 3 / 2,
                   .line = u * 3 / 2,
                   .line_loose = u * 17 / 10};
}

int tt_unit_smaller(int u) {
  int s = u * 85 / 100, floor = u < 18 ? u : 18;
  return s > floor ? s : floor;
}

int tt_cell_number_min(int u) {
  int m = u * 78 / 100;  // 14 px for the 18 px unit of smaller type at 1280 x 800
  return m > 10 ? m : 10;
}

static void paint(tt_render *rc, tt_canvas *cv, SDL_Rect area, const tt_trace *tr, const tt_view_state *st,
                  tt_layout *lay) {
  tt_paint p = {cv, tr, st, &rc->ex, tt_palette_for(st->theme), lay, tt_unit_for(st, area.w, area.h), rc};
  memset(lay, 0, sizeof *lay);
  cv->fill(cv, area.x, area.y, area.w, area.h, p.pal->bg);
  if (st->frame) {
    tt_paint_frame(&p, area, NULL, NULL);
  } else {
    int m = p.unit;
    SDL_Rect inner = {area.x + m, area.y + m * 3 / 4, area.w - 2 * m, area.h - m * 3 / 2};
    tt_paint_view(&p, inner);
    if (st->show_help) tt_paint_help(&p, inner);
  }
}

void tt_render_draw(tt_render *rc, SDL_Renderer *r, SDL_Rect area, const tt_trace *tr, const tt_view_state *st,
                    tt_layout *lay) {
  tt_canvas cv;
  tt_canvas_sdl(&cv, r, rc->cache, rc->fonts);
  tt_layout *own = NULL;
  if (!lay) lay = own = malloc(sizeof *lay);
  if (!lay) return;
  paint(rc, &cv, area, tr, st, lay);
  SDL_RenderSetClipRect(r, NULL);
  free(own);
}

tt_status tt_headless_surface(tt_render *rc, int w, int h, tt_headless_fn fn, void *ctx, SDL_Surface **out,
                              tt_error *err) {
  if (w < 64 || h < 64 || w > 16384 || h > 16384)
    return tt_fail(err, TT_ERR_ARG, "image size %dx%d is out of range (64 to 16384 pixels a side)", w, h);
  SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_ARGB8888);
  if (!s) return tt_fail(err, TT_ERR_NOMEM, "cannot make a %dx%d image: %s", w, h, SDL_GetError());
  SDL_Renderer *r = SDL_CreateSoftwareRenderer(s);
  if (!r) {
    SDL_FreeSurface(s);
    return tt_fail(err, TT_ERR_DEVICE, "software renderer: %s", SDL_GetError());
  }
  // Textures belong to this renderer only: a private cache, dropped with it.
  tt_sdl_cache *saved = rc->cache;
  rc->cache = tt_sdl_cache_create();
  if (!rc->cache) {
    rc->cache = saved;
    SDL_DestroyRenderer(r);
    SDL_FreeSurface(s);
    return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  }
  fn(rc, r, (SDL_Rect){0, 0, w, h}, ctx);
  SDL_RenderPresent(r);
  tt_sdl_cache_destroy(rc->cache);
  rc->cache = saved;
  SDL_DestroyRenderer(r);
  SDL_Surface *rgb = SDL_ConvertSurfaceFormat(s, SDL_PIXELFORMAT_RGB24, 0);
  SDL_FreeSurface(s);
  if (!rgb) return tt_fail(err, TT_ERR_NOMEM, "cannot convert the image: %s", SDL_GetError());
  *out = rgb;
  return TT_OK;
}

tt_status tt_headless_png(tt_render *rc, int w, int h, tt_headless_fn fn, void *ctx, const char *path, tt_error *err) {
  SDL_Surface *s = NULL;
  tt_status st = tt_headless_surface(rc, w, h, fn, ctx, &s, err);
  if (st != TT_OK) return st;
  st = tt_render_save_png(s, path, err);
  SDL_FreeSurface(s);
  return st;
}

typedef struct {
  const tt_trace *tr;
  const tt_view_state *st;
  tt_layout *lay;
} view_job;

static void view_fn(tt_render *rc, SDL_Renderer *r, SDL_Rect area, void *ctx) {
  const view_job *j = ctx;
  tt_render_draw(rc, r, area, j->tr, j->st, j->lay);
}

tt_status tt_render_surface(tt_render *rc, const tt_trace *tr, const tt_view_state *st, int w, int h, SDL_Surface **out,
                            tt_layout *lay, tt_error *err) {
  view_job j = {tr, st, lay};
  return tt_headless_surface(rc, w, h, view_fn, &j, out, err);
}

tt_status tt_render_save_png(SDL_Surface *s, const char *path, tt_error *err) {
  tt_atomic_file af;
  tt_status st = tt_atomic_open(&af, path, err);
  if (st != TT_OK) return st;
  SDL_RWops *rw = SDL_RWFromFP(af.fp, SDL_FALSE);
  if (!rw || IMG_SavePNG_RW(s, rw, 0) != 0) {
    if (rw) SDL_RWclose(rw);
    tt_atomic_abort(&af);
    return tt_fail(err, TT_ERR_IO, "cannot write %s: %s", path, IMG_GetError());
  }
  SDL_RWclose(rw);
  return tt_atomic_commit(&af, err);
}

SDL_Rect tt_content_box(SDL_Surface *s, tt_rgba bg, int margin) {
  int x0 = s->w, y0 = s->h, x1 = -1, y1 = -1;
  int bpp = s->format->BytesPerPixel;
  for (int y = 0; y < s->h; y++) {
    const uint8_t *row = (const uint8_t *)s->pixels + (size_t)y * (size_t)s->pitch;
    for (int x = 0; x < s->w; x++) {
      uint8_t r, g, b;
      SDL_GetRGB(bpp == 3 ? (uint32_t)row[x * 3] | (uint32_t)row[x * 3 + 1] << 8 | (uint32_t)row[x * 3 + 2] << 16
                          : ((const uint32_t *)row)[x],
                 s->format, &r, &g, &b);
      if (r == bg.r && g == bg.g && b == bg.b) continue;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
  }
  if (x1 < 0) return (SDL_Rect){0, 0, s->w, s->h};
  x0 = x0 - margin < 0 ? 0 : x0 - margin, y0 = y0 - margin < 0 ? 0 : y0 - margin;
  x1 = x1 + 1 + margin > s->w ? s->w : x1 + 1 + margin, y1 = y1 + 1 + margin > s->h ? s->h : y1 + 1 + margin;
  return (SDL_Rect){x0, y0, x1 - x0, y1 - y0};
}

tt_status tt_crop_surface(SDL_Surface **s, SDL_Rect box, tt_error *err) {
  SDL_Surface *c = SDL_CreateRGBSurfaceWithFormat(0, box.w, box.h, 24, (*s)->format->format);
  if (!c) return tt_fail(err, TT_ERR_NOMEM, "cannot make a %dx%d image: %s", box.w, box.h, SDL_GetError());
  SDL_Rect to = {0, 0, box.w, box.h};
  if (SDL_BlitSurface(*s, &box, c, &to) != 0) {
    SDL_FreeSurface(c);
    return tt_fail(err, TT_ERR_NOMEM, "cannot crop the image: %s", SDL_GetError());
  }
  SDL_FreeSurface(*s);
  *s = c;
  return TT_OK;
}

// A figure asked for a tooltip (st->hover_row) that fn did not draw: the cell is not shown.
static tt_status hover_missing(const tt_view_state *st, tt_error *err) {
  return tt_fail(err, TT_ERR_ARG,
                 "--hover %d,%d: the figure shows no such cell to point at (out of its shape, panned away, or cells "
                 "under a pixel: try --zoom)",
                 st->hover_row, st->hover_col);
}

// A figure's PNG: drawn by fn at w × h, cut to what was drawn (u pixels around it) when
// st->figure, with st's provenance as text chunks; refused when its --hover cell was not drawn.
tt_status tt_figure_png(tt_render *rc, const tt_view_state *st, int w, int h, tt_headless_fn fn, void *ctx,
                        const char *path, tt_error *err) {
  SDL_Surface *s = NULL;
  rc->hover_drawn = false;
  tt_status status = tt_headless_surface(rc, w, h, fn, ctx, &s, err);
  if (status == TT_OK && st->hover_row >= 0 && !rc->hover_drawn) status = hover_missing(st, err);
  if (status == TT_OK && st->figure)
    status = tt_crop_surface(&s, tt_content_box(s, tt_palette_for(st->theme)->bg, tt_unit_for(st, w, h)), err);
  if (status == TT_OK) status = tt_render_save_png_text(s, path, st->provenance, st->n_provenance, err);
  SDL_FreeSurface(s);
  return status;
}

tt_status tt_figure_svg(tt_render *rc, const tt_view_state *st, int w, int h, tt_svg_fn fn, void *ctx, const char *path,
                        tt_error *err) {
  if (w < 64 || h < 64 || w > 16384 || h > 16384)
    return tt_fail(err, TT_ERR_ARG, "image size %dx%d is out of range (64 to 16384 pixels a side)", w, h);
  char *body = NULL;
  size_t n = 0;
  FILE *mem = open_memstream(&body, &n);
  if (!mem) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  tt_canvas cv;
  tt_svg_state svg;
  tt_canvas_svg(&cv, &svg, mem, rc->fonts, w, h);
  rc->hover_drawn = false;
  fn(rc, &cv, (SDL_Rect){0, 0, w, h}, ctx);
  tt_svg_write_meta(mem, st->provenance, st->n_provenance);
  tt_status fonts = tt_canvas_svg_end(&cv, err);  // the @font-face rules of the glyphs drawn
  fclose(mem);
  if (!body) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  if (fonts == TT_OK && st->hover_row >= 0 && !rc->hover_drawn) fonts = hover_missing(st, err);
  if (fonts != TT_OK) {
    free(body);
    return fonts;
  }
  tt_atomic_file af;
  tt_status status = tt_atomic_open(&af, path, err);
  if (status == TT_OK) {
    if (st->figure)
      tt_svg_write_cropped(af.fp, body, n, &svg, tt_unit_for(st, w, h));
    else
      fwrite(body, 1, n, af.fp);
    status = tt_atomic_commit(&af, err);
  }
  free(body);
  return status;
}

tt_status tt_render_png(tt_render *rc, const tt_trace *tr, const tt_view_state *st, int w, int h, const char *path,
                        tt_error *err) {
  tt_layout *lay = malloc(sizeof *lay);
  if (!lay) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  view_job j = {tr, st, lay};
  tt_status status = tt_figure_png(rc, st, w, h, view_fn, &j, path, err);
  free(lay);
  return status;
}

typedef struct {
  const tt_trace *tr;
  const tt_view_state *st;
  tt_layout *lay;
} svg_job;

static void svg_view_fn(tt_render *rc, tt_canvas *cv, SDL_Rect area, void *ctx) {
  const svg_job *j = ctx;
  paint(rc, cv, area, j->tr, j->st, j->lay);
}

tt_status tt_render_svg(tt_render *rc, const tt_trace *tr, const tt_view_state *st, int w, int h, const char *path,
                        tt_error *err) {
  tt_layout *lay = malloc(sizeof *lay);
  if (!lay) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  svg_job j = {tr, st, lay};
  tt_status status = tt_figure_svg(rc, st, w, h, svg_view_fn, &j, path, err);
  free(lay);
  return status;
}
