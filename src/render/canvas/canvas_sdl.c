// canvas_sdl: the canvas over an SDL_Renderer (a window, or a software renderer on a
// surface when headless). Text and cell images become textures kept in a small cache,
// so a redrawn frame that did not change costs only texture copies.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render_int.h"

#define CACHE_SLOTS 4096
#define CACHE_MAX 2800

typedef struct {
  uint64_t key;
  SDL_Texture *tex;
  int w, h;
  uint64_t used;  // the cache's clock when last drawn
  bool cells;     // a cell image (else text)
} slot;

struct tt_sdl_cache {
  SDL_Renderer *owner;
  slot slots[CACHE_SLOTS];
  int count;
  size_t cell_bytes;  // pixels of the cell images held, 4 bytes each
  uint64_t clock;
  uint64_t budget_ns;  // a frame's time for making cell images (0: no limit)
  int deferred;        // cell images the last canvas's frame left for a later one
};

uint64_t tt_hash(uint64_t h, const void *p, size_t n) {
  h = tt_fnv1a64(h ? h : TT_FNV1A64_BASIS, p, n);  // core's FNV-1a; 0 stays free to mean "start"
  return h ? h : 1;
}

tt_sdl_cache *tt_sdl_cache_create(void) {
  return calloc(1, sizeof(tt_sdl_cache));
}

static void cache_flush(tt_sdl_cache *c) {
  for (int i = 0; i < CACHE_SLOTS; i++) {
    if (c->slots[i].tex) SDL_DestroyTexture(c->slots[i].tex);
    c->slots[i].tex = NULL;
    c->slots[i].key = 0;
  }
  c->count = 0;
  c->cell_bytes = 0;
}

void tt_sdl_cache_forget(tt_sdl_cache *c) {
  cache_flush(c);
  c->owner = NULL;
}

void tt_sdl_cache_destroy(tt_sdl_cache *c) {
  if (!c) return;
  cache_flush(c);
  free(c);
}

size_t tt_sdl_cache_cell_bytes(const tt_sdl_cache *c) {
  return c->cell_bytes;
}

static slot *cache_find(tt_sdl_cache *c, uint64_t key) {
  for (int i = 0; i < CACHE_SLOTS; i++) {
    slot *s = &c->slots[(key + (uint64_t)i) % CACHE_SLOTS];
    if (!s->tex) return NULL;
    if (s->key == key) {
      s->used = ++c->clock;
      return s;
    }
  }
  return NULL;
}

static void cache_insert(tt_sdl_cache *c, const slot *e) {
  for (int i = 0; i < CACHE_SLOTS; i++) {
    slot *s = &c->slots[(e->key + (uint64_t)i) % CACHE_SLOTS];
    if (!s->tex) {
      *s = *e;
      c->count++;
      c->cell_bytes += e->cells ? (size_t)e->w * (size_t)e->h * 4 : 0;
      return;
    }
  }
  SDL_DestroyTexture(e->tex);
}

static int by_use(const void *a, const void *b) {
  const slot *x = a, *y = b;
  return (x->used > y->used) - (x->used < y->used);
}

// Drops the least recently drawn cell images until they hold at most target bytes, and
// puts the rest back (open addressing: the table is rebuilt, so no probe chain breaks).
static void evict_cells(tt_sdl_cache *c, size_t target) {
  slot *all = malloc(sizeof(slot) * CACHE_SLOTS);
  if (!all) {
    cache_flush(c);
    return;
  }
  int n = 0;
  for (int i = 0; i < CACHE_SLOTS; i++)
    if (c->slots[i].tex) all[n++] = c->slots[i];
  qsort(all, (size_t)n, sizeof(slot), by_use);
  size_t bytes = c->cell_bytes;
  for (int i = 0; i < n && bytes > target; i++)
    if (all[i].cells) {
      bytes -= (size_t)all[i].w * (size_t)all[i].h * 4;
      SDL_DestroyTexture(all[i].tex);
      all[i].tex = NULL;
    }
  memset(c->slots, 0, sizeof c->slots);
  c->count = 0;
  c->cell_bytes = 0;
  for (int i = 0; i < n; i++)
    if (all[i].tex) cache_insert(c, &all[i]);
  free(all);
}

static void cache_put(tt_sdl_cache *c, uint64_t key, SDL_Texture *tex, int w, int h, bool cells) {
  if (c->count >= CACHE_MAX) cache_flush(c);
  slot e = {.key = key, .tex = tex, .w = w, .h = h, .used = ++c->clock, .cells = cells};
  cache_insert(c, &e);
  // Cell images are as large as their panels (a heatmap on a large screen: ~7 MiB) and a pan
  // or zoom makes a new one every frame: past the bound the least recently drawn go, down
  // to half of it (text textures are small and stay).
  if (c->cell_bytes > TT_SDL_CELL_BYTES_MAX) evict_cells(c, TT_SDL_CELL_BYTES_MAX / 2);
}

static void set_color(SDL_Renderer *r, tt_rgba c) {
  SDL_SetRenderDrawBlendMode(r, c.a == 255 ? SDL_BLENDMODE_NONE : SDL_BLENDMODE_BLEND);
  SDL_SetRenderDrawColor(r, c.r, c.g, c.b, c.a);
}

static void sdl_fill(tt_canvas *cv, int x, int y, int w, int h, tt_rgba c) {
  tt_sdl_cache *im = cv->impl;
  if (w <= 0 || h <= 0) return;
  set_color(im->owner, c);
  SDL_Rect rr = {x, y, w, h};
  SDL_RenderFillRect(im->owner, &rr);
}

static void sdl_line(tt_canvas *cv, int x0, int y0, int x1, int y1, tt_rgba c) {
  tt_sdl_cache *im = cv->impl;
  set_color(im->owner, c);
  SDL_RenderDrawLine(im->owner, x0, y0, x1, y1);
}

static SDL_Texture *text_texture(tt_canvas *cv, const char *s, int px, tt_font_kind k, tt_rgba c, int *w, int *h) {
  tt_sdl_cache *im = cv->impl;
  uint64_t key = tt_hash(0, s, strlen(s));
  int meta[3] = {px, (int)k, (int)(c.r | c.g << 8 | c.b << 16 | (uint32_t)c.a << 24)};
  key = tt_hash(key, meta, sizeof meta);
  slot *hit = cache_find(im, key);
  if (hit) {
    *w = hit->w;
    *h = hit->h;
    return hit->tex;
  }
  tt_text_run runs[64];
  int nr = tt_text_layout(cv->fonts, s, px, k, runs, 64, w, h);
  if (nr == 0 || *w <= 0 || *h <= 0) return NULL;
  // Each run as SDL_ttf draws it: its surface can be taller than the line (DejaVu Sans
  // Mono's underscore lies below the font's descent at many sizes), so the texture takes
  // the runs' full extent and the underscore is not cut off.
  SDL_Surface *rs[64];
  SDL_Color col = {c.r, c.g, c.b, c.a};
  char tmp[1024];
  for (int i = 0; i < nr; i++) {
    memcpy(tmp, s + runs[i].start, (size_t)runs[i].len);
    tmp[runs[i].len] = 0;
    rs[i] = TTF_RenderUTF8_Blended(runs[i].font, tmp, col);
    if (rs[i] && runs[i].dy + rs[i]->h > *h) *h = runs[i].dy + rs[i]->h;
  }
  SDL_Surface *all = SDL_CreateRGBSurfaceWithFormat(0, *w, *h, 32, SDL_PIXELFORMAT_ARGB8888);
  if (all) SDL_FillRect(all, NULL, SDL_MapRGBA(all->format, c.r, c.g, c.b, 0));
  for (int i = 0; i < nr; i++) {
    if (!rs[i]) continue;
    SDL_SetSurfaceBlendMode(rs[i], SDL_BLENDMODE_NONE);
    SDL_Rect d = {runs[i].x, runs[i].dy, rs[i]->w, rs[i]->h};
    if (all) SDL_BlitSurface(rs[i], NULL, all, &d);
    SDL_FreeSurface(rs[i]);
  }
  if (!all) return NULL;
  SDL_Texture *tex = SDL_CreateTextureFromSurface(im->owner, all);
  SDL_FreeSurface(all);
  if (!tex) return NULL;
  SDL_SetTextureBlendMode(tex, SDL_BLENDMODE_BLEND);
  cache_put(im, key, tex, *w, *h, false);
  return tex;
}

static void sdl_text(tt_canvas *cv, int x, int y, const char *s, int px, tt_font_kind k, tt_rgba c, bool rot90) {
  tt_sdl_cache *im = cv->impl;
  cv->note[0] = 0;  // notes are for readers of SVG
  if (!s || !s[0]) return;
  int w = 0, h = 0;
  SDL_Texture *tex = text_texture(cv, s, px, k, c, &w, &h);
  if (!tex) return;
  if (!rot90) {
    SDL_Rect d = {x, y, w, h};
    SDL_RenderCopy(im->owner, tex, NULL, &d);
  } else {
    // The rotated box is h wide and w tall; rotate about the centre of the unrotated rect.
    int cx = x + h / 2, cy = y + w / 2;
    SDL_Rect d = {cx - w / 2, cy - h / 2, w, h};
    SDL_RenderCopyEx(im->owner, tex, NULL, &d, -90.0, NULL, SDL_FLIP_NONE);
  }
}

static uint64_t cells_key(uint64_t key, SDL_Rect dst) {
  int meta[2] = {dst.w, dst.h};
  return tt_hash(key, meta, sizeof meta);
}

static bool sdl_cells_cached(tt_canvas *cv, uint64_t key, SDL_Rect dst) {
  tt_sdl_cache *im = cv->impl;
  slot *hit = cache_find(im, cells_key(key, dst));
  if (!hit) return false;
  SDL_RenderCopy(im->owner, hit->tex, NULL, &dst);
  return true;
}

static inline uint32_t pack(tt_rgba c) {
  return 0xFF000000u | (uint32_t)c.r << 16 | (uint32_t)c.g << 8 | (uint32_t)c.b;
}

static void sdl_cells(tt_canvas *cv, uint64_t key, const tt_cells *c, SDL_Rect dst) {
  tt_sdl_cache *im = cv->impl;
  if (dst.w <= 0 || dst.h <= 0 || c->rows <= 0 || c->cols <= 0) return;
  SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, dst.w, dst.h, 32, SDL_PIXELFORMAT_ARGB8888);
  int *cx = malloc(sizeof(int) * (size_t)dst.w);
  uint8_t *gx = malloc((size_t)dst.w);
  if (!s || !cx || !gx) {
    SDL_FreeSurface(s);
    free(cx);
    free(gx);
    return;
  }
  bool grid_x = c->grid && c->cell_w >= 6, grid_y = c->grid && c->cell_h >= 6;
  for (int x = 0; x < dst.w; x++) {
    int i = (int)floorf(((float)x + 0.5f + c->off_x) / c->cell_w);
    cx[x] = i < 0 ? 0 : i >= c->cols ? c->cols - 1 : i;
    gx[x] = grid_x && x > 0 && cx[x] != cx[x - 1];
  }
  uint32_t grid = pack(c->grid_rgb), mbg = pack(c->mask_bg), mline = pack(c->mask_line);
  int prev_row = -1;
  int stripe = (int)fmaxf(6.0f, fminf(c->cell_w, c->cell_h) / 3.0f);
  for (int y = 0; y < dst.h; y++) {
    int row = (int)floorf(((float)y + 0.5f + c->off_y) / c->cell_h);
    row = row < 0 ? 0 : row >= c->rows ? c->rows - 1 : row;
    uint32_t *px = (uint32_t *)((uint8_t *)s->pixels + (size_t)y * (size_t)s->pitch);
    if (grid_y && y > 0 && row != prev_row) {
      for (int x = 0; x < dst.w; x++) px[x] = grid;
      prev_row = row;
      continue;
    }
    prev_row = row;
    const tt_rgba *rgb = c->rgb + (size_t)row * (size_t)c->cols;
    const uint8_t *m = c->masked ? c->masked + (size_t)row * (size_t)c->cols : NULL;
    for (int x = 0; x < dst.w; x++) {
      if (gx[x]) {
        px[x] = grid;
      } else if (m && m[cx[x]]) {
        int d = (x + dst.x + y + dst.y) % stripe;
        px[x] = d < 2 ? mline : mbg;
      } else {
        px[x] = pack(rgb[cx[x]]);
      }
    }
  }
  free(cx);
  free(gx);
  SDL_Texture *tex = SDL_CreateTextureFromSurface(im->owner, s);
  SDL_FreeSurface(s);
  if (!tex) return;
  // Every pixel is opaque: copied, not alpha-blended (SDL blends a texture made from a
  // surface with an alpha channel, pixel by pixel; the result is the same, slower).
  SDL_SetTextureBlendMode(tex, SDL_BLENDMODE_NONE);
  SDL_RenderCopy(im->owner, tex, NULL, &dst);
  if (key)
    cache_put(im, cells_key(key, dst), tex, dst.w, dst.h, true);
  else
    SDL_DestroyTexture(tex);
}

static void sdl_clip(tt_canvas *cv, const SDL_Rect *r) {
  tt_sdl_cache *im = cv->impl;
  SDL_RenderSetClipRect(im->owner, r);
}

void tt_sdl_cache_set_budget(tt_sdl_cache *c, double budget_ms) {
  c->budget_ns = budget_ms > 0 ? (uint64_t)(budget_ms * 1e6) : 0;
}

int tt_sdl_cache_deferred(const tt_sdl_cache *c) {
  return c->deferred;
}

void tt_canvas_sdl(tt_canvas *cv, SDL_Renderer *r, tt_sdl_cache *cache, tt_fonts *fonts) {
  if (cache->owner != r) {
    cache_flush(cache);
    cache->owner = r;
  }
  memset(cv, 0, sizeof *cv);
  cache->deferred = 0;
  cv->deferred = &cache->deferred;
  cv->budget_ns = cache->budget_ns;
  cv->fill = sdl_fill;
  cv->line = sdl_line;
  cv->text = sdl_text;
  cv->cells_cached = sdl_cells_cached;
  cv->cells = sdl_cells;
  cv->clip = sdl_clip;
  cv->max_cells = 1 << 20;
  cv->fonts = fonts;
  cv->impl = cache;
}
