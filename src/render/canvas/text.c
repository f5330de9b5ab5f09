// text: the bundled fonts and mixed-script text. Each glyph is drawn with DejaVu when
// DejaVu has it and with Nanum Gothic otherwise (Hangul), with baselines lined up.
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "render_int.h"

enum {
  FILE_SANS = TT_FONT_FILE_SANS,
  FILE_BOLD = TT_FONT_FILE_BOLD,
  FILE_MONO = TT_FONT_FILE_MONO,
  FILE_HANGUL = TT_FONT_FILE_HANGUL,
  FILE_HANGUL_BOLD = TT_FONT_FILE_HANGUL_BOLD,
  N_FILES = TT_FONT_FILES
};
static const char *const font_files[N_FILES] = {"fonts/DejaVuSans.ttf", "fonts/DejaVuSans-Bold.ttf",
                                                "fonts/DejaVuSansMono.ttf", "fonts/NanumGothic.ttf",
                                                "fonts/NanumGothicBold.ttf"};

#define MAX_SIZES 64
typedef struct {
  int kind, px;
  TTF_Font *latin, *hangul;
} face_pair;

struct tt_fonts {
  char *data[N_FILES];
  size_t len[N_FILES];
  face_pair sizes[MAX_SIZES];
  int n_sizes;
  tt_font_usage *shared;  // see tt_fonts_shared_usage
};

const char *tt_fonts_file_data(const tt_fonts *f, int file, size_t *len) {
  *len = f->len[file];
  return f->data[file];
}

tt_font_usage *tt_fonts_shared_usage(const tt_fonts *f) {
  return f->shared;
}
void tt_fonts_set_shared_usage(tt_fonts *f, tt_font_usage *u) {
  f->shared = u;
}

tt_status tt_fonts_open(tt_fonts **out, tt_error *err) {
  if (!TTF_WasInit() && TTF_Init() != 0) return tt_fail(err, TT_ERR_UNSUPPORTED, "SDL_ttf: %s", TTF_GetError());
  tt_fonts *f = calloc(1, sizeof *f);
  if (!f) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  for (int i = 0; i < N_FILES; i++) {
    char path[4096];
    if (!tt_asset_path(font_files[i], path, sizeof path)) {
      tt_fonts_close(f);
      return tt_fail(err, TT_ERR_IO, "font %s not found in the assets folder (set TTRACE_ASSETS to ttrace's assets/)",
                     font_files[i]);
    }
    tt_status st = tt_read_file(path, &f->data[i], &f->len[i], err);
    if (st != TT_OK) {
      tt_fonts_close(f);
      return st;
    }
  }
  *out = f;
  return TT_OK;
}

static void close_sizes(tt_fonts *f) {
  for (int i = 0; i < f->n_sizes; i++) {
    if (f->sizes[i].latin) TTF_CloseFont(f->sizes[i].latin);
    if (f->sizes[i].hangul) TTF_CloseFont(f->sizes[i].hangul);
  }
  f->n_sizes = 0;
}

void tt_fonts_close(tt_fonts *f) {
  if (!f) return;
  close_sizes(f);
  for (int i = 0; i < N_FILES; i++) free(f->data[i]);
  free(f);
}

static TTF_Font *open_mem(tt_fonts *f, int file, int px) {
  SDL_RWops *rw = SDL_RWFromConstMem(f->data[file], (int)f->len[file]);
  if (!rw) return NULL;
  TTF_Font *font = TTF_OpenFontRW(rw, 1, px);
  if (font) TTF_SetFontHinting(font, TTF_HINTING_LIGHT);
  return font;
}

static face_pair *faces(tt_fonts *f, int px, tt_font_kind k) {
  if (px < 6) px = 6;
  if (px > 400) px = 400;
  for (int i = 0; i < f->n_sizes; i++)
    if (f->sizes[i].px == px && f->sizes[i].kind == (int)k) return &f->sizes[i];
  if (f->n_sizes == MAX_SIZES) close_sizes(f);
  face_pair *p = &f->sizes[f->n_sizes];
  int latin = k == TT_FONT_BOLD ? FILE_BOLD : k == TT_FONT_MONO ? FILE_MONO : FILE_SANS;
  int hangul = k == TT_FONT_BOLD ? FILE_HANGUL_BOLD : FILE_HANGUL;
  p->kind = (int)k;
  p->px = px;
  p->latin = open_mem(f, latin, px);
  p->hangul = open_mem(f, hangul, px);
  if (!p->latin || !p->hangul) {
    if (p->latin) TTF_CloseFont(p->latin);
    if (p->hangul) TTF_CloseFont(p->hangul);
    return NULL;
  }
  f->n_sizes++;
  return p;
}

int tt_text_layout(tt_fonts *f, const char *s, int px, tt_font_kind k, tt_text_run *runs, int max, int *w, int *h) {
  face_pair *fp = faces(f, px, k);
  *w = 0;
  *h = 0;
  if (!fp || !s) return 0;
  int asc = TTF_FontAscent(fp->latin), hasc = TTF_FontAscent(fp->hangul);
  int top = asc > hasc ? asc : hasc;
  int lh = TTF_FontHeight(fp->latin), hh = TTF_FontHeight(fp->hangul) + (top - hasc);
  if (lh + (top - asc) > hh) hh = lh + (top - asc);
  *h = hh;
  size_t n = strlen(s);
  int nr = 0, x = 0;
  size_t i = 0;
  char tmp[1024];
  while (i < n && nr < max) {
    size_t start = i;
    TTF_Font *font = NULL;
    while (i < n) {
      uint32_t cp = 0;
      int used = tt_utf8_decode(s + i, n - i, &cp);
      if (used <= 0) {
        cp = 0xFFFD;
        used = 1;
      }
      TTF_Font *want = fp->latin;
      if (!TTF_GlyphIsProvided32(fp->latin, cp) && TTF_GlyphIsProvided32(fp->hangul, cp)) want = fp->hangul;
      if (font && want != font) break;
      font = want;
      i += (size_t)used;
    }
    size_t len = i - start;
    if (len >= sizeof tmp) len = sizeof tmp - 1;
    memcpy(tmp, s + start, len);
    tmp[len] = 0;
    int rw = 0, rh = 0;
    TTF_SizeUTF8(font, tmp, &rw, &rh);
    runs[nr].font = font;
    runs[nr].start = (int)start;
    runs[nr].len = (int)len;
    runs[nr].x = x;
    runs[nr].dy = top - TTF_FontAscent(font);
    nr++;
    x += rw;
  }
  *w = x;
  return nr;
}

void tt_text_size(tt_fonts *f, const char *s, int px, tt_font_kind k, int *w, int *h) {
  tt_text_run runs[64];
  tt_text_layout(f, s, px, k, runs, 64, w, h);
}

int tt_text_width(tt_fonts *f, const char *s, int px, tt_font_kind k) {
  int w, h;
  tt_text_size(f, s, px, k, &w, &h);
  return w;
}

int tt_text_px_fit(tt_fonts *f, const char *s, tt_font_kind k, int px, int least, int max_w) {
  while (px > least && tt_text_width(f, s, px, k) > max_w) px--;
  return px;
}

// Whether byte n of s is inside a number: "column 1…" must not stand for "column 108".
static bool inside_number(const char *s, size_t n) {
  bool digit_before = n > 0 && isdigit((unsigned char)s[n - 1]);
  bool digit_on = isdigit((unsigned char)s[n]) || (s[n] == '.' && isdigit((unsigned char)s[n + 1]));
  return digit_before && digit_on;
}

const char *tt_text_fit(tt_fonts *f, const char *s, int px, tt_font_kind k, int max_w, char *buf, size_t len) {
  snprintf(buf, len, "%s", s);
  if (tt_text_width(f, buf, px, k) <= max_w) return buf;
  size_t n = strlen(buf);
  while (n > 0) {
    // step back one code point
    do n--;
    while (n > 0 && ((unsigned char)buf[n] & 0xC0) == 0x80);
    if (n + 4 >= len || inside_number(s, n)) continue;
    memcpy(buf + n, "\xE2\x80\xA6", 4);  // "…"
    if (tt_text_width(f, buf, px, k) <= max_w) return buf;
  }
  buf[0] = 0;
  return buf;
}
