// provenance: where a figure came from, inside the figure file: PNG text chunks (tEXt for
// ASCII values, iTXt for UTF-8) and an SVG <metadata> block, written and read back.
#include <SDL_image.h>
#include <stdlib.h>
#include <string.h>

#include "render_int.h"

// ---- PNG -------------------------------------------------------------------------------------
// The CRC of PNG chunks (ISO 3309, polynomial 0xEDB88320), continuing from c.
static uint32_t crc32_of(uint32_t c, const uint8_t *p, size_t n) {
  c = ~c;
  for (size_t i = 0; i < n; i++) {
    c ^= p[i];
    for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
  }
  return ~c;
}

static void put_be32(FILE *fp, uint32_t v) {
  uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
  fwrite(b, 1, 4, fp);
}

static uint32_t get_be32(const uint8_t *b) {
  return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static void put_chunk(FILE *fp, const char type[4], const uint8_t *data, size_t n) {
  put_be32(fp, (uint32_t)n);
  fwrite(type, 1, 4, fp);
  fwrite(data, 1, n, fp);
  put_be32(fp, crc32_of(crc32_of(0, (const uint8_t *)type, 4), data, n));
}

static bool ascii(const char *s) {
  for (; *s; s++)
    if ((unsigned char)*s >= 0x80) return false;
  return true;
}

// One text chunk: tEXt "key\0value" for ASCII, else iTXt "key\0" 0 0 "\0" "\0" value.
static bool put_text(FILE *fp, const char *key, const char *value) {
  size_t k = strlen(key), v = strlen(value);
  bool plain = ascii(value);
  size_t n = k + 1 + (plain ? 0 : 4) + v;
  uint8_t *b = malloc(n ? n : 1);
  if (!b) return false;
  memcpy(b, key, k + 1);
  size_t at = k + 1;
  if (!plain) {
    memcpy(b + at, "\0\0\0\0", 4);  // not compressed, method 0, no language, no translated key
    at += 4;
  }
  memcpy(b + at, value, v);
  put_chunk(fp, plain ? "tEXt" : "iTXt", b, n);
  free(b);
  return true;
}

tt_status tt_render_save_png_text(SDL_Surface *s, const char *path, const char *const (*pairs)[2], int n,
                                  tt_error *err) {
  char *png = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&png, &len);
  if (!mem) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  SDL_RWops *rw = SDL_RWFromFP(mem, SDL_FALSE);
  int bad = !rw || IMG_SavePNG_RW(s, rw, 0) != 0;
  if (rw) SDL_RWclose(rw);
  fclose(mem);
  // The encoder ends with the 12 bytes of IEND; the text goes before them.
  if (bad || len < 8 + 25 + 12 || memcmp(png + len - 8, "IEND", 4) != 0) {
    free(png);
    return tt_fail(err, TT_ERR_IO, "cannot encode %s as PNG: %s", path, IMG_GetError());
  }
  tt_atomic_file af;
  tt_status st = tt_atomic_open(&af, path, err);
  if (st != TT_OK) {
    free(png);
    return st;
  }
  fwrite(png, 1, len - 12, af.fp);
  bool ok = true;
  for (int i = 0; i < n && ok; i++) ok = put_text(af.fp, pairs[i][0], pairs[i][1]);
  fwrite(png + len - 12, 1, 12, af.fp);
  free(png);
  if (!ok) {
    tt_atomic_abort(&af);
    return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  }
  return tt_atomic_commit(&af, err);
}

// Latin-1 text as UTF-8 (tEXt values written by other programs), malloc'd.
static char *latin1_utf8(const uint8_t *s, size_t n) {
  char *o = malloc(n * 2 + 1);
  if (!o) return NULL;
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < 0x80) {
      o[k++] = (char)s[i];
    } else {
      o[k++] = (char)(0xC0 | s[i] >> 6);
      o[k++] = (char)(0x80 | (s[i] & 0x3F));
    }
  }
  o[k] = 0;
  return o;
}

// The text chunks of a PNG in memory; false when it is not a PNG.
static bool png_texts(const uint8_t *b, size_t n, tt_meta_fn fn, void *ctx, int *found) {
  if (n < 8 || memcmp(b, "\x89PNG\r\n\x1a\n", 8) != 0) return false;
  for (size_t at = 8; at + 12 <= n;) {
    uint32_t len = get_be32(b + at);
    if (len > n - at - 12) break;
    const uint8_t *type = b + at + 4, *d = b + at + 8;
    const uint8_t *z = memchr(d, 0, len);
    if (z && (memcmp(type, "tEXt", 4) == 0 || memcmp(type, "iTXt", 4) == 0)) {
      size_t klen = (size_t)(z - d);
      const uint8_t *v = z + 1, *end = d + len;
      bool itxt = type[0] == 'i';
      if (itxt) {  // compression flag and method, language tag, translated keyword
        if (end - v < 2 || v[0] != 0) goto next;
        v += 2;
        for (int skip = 0; skip < 2; skip++) {
          const uint8_t *e = memchr(v, 0, (size_t)(end - v));
          if (!e) goto next;
          v = e + 1;
        }
      }
      char *key = latin1_utf8(d, klen);
      char *val = itxt ? strndup((const char *)v, (size_t)(end - v)) : latin1_utf8(v, (size_t)(end - v));
      if (key && val) {
        fn(ctx, key, val);
        ++*found;
      }
      free(key);
      free(val);
    }
  next:
    if (memcmp(type, "IEND", 4) == 0) break;
    at += 12 + (size_t)len;
  }
  return true;
}

// ---- SVG -------------------------------------------------------------------------------------
static void xml_escaped(FILE *fp, const char *s) {
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '<')
      fputs("&lt;", fp);
    else if (c == '>')
      fputs("&gt;", fp);
    else if (c == '&')
      fputs("&amp;", fp);
    else if (c == '"')
      fputs("&quot;", fp);
    else if (c < 0x20)
      fprintf(fp, "&#%d;", c);  // newlines and tabs kept exactly
    else
      fputc(c, fp);
  }
}

void tt_svg_write_meta(FILE *fp, const char *const (*pairs)[2], int n) {
  if (n <= 0) return;
  fputs("<metadata><tt:figure xmlns:tt=\"" TT_SVG_META_NS "\">\n", fp);
  for (int i = 0; i < n; i++) {
    fputs("<tt:v k=\"", fp);
    xml_escaped(fp, pairs[i][0]);
    fputs("\">", fp);
    xml_escaped(fp, pairs[i][1]);
    fputs("</tt:v>\n", fp);
  }
  fputs("</tt:figure></metadata>\n", fp);
}

// Undoes xml_escaped (and the other numeric references) in place; returns s.
static char *xml_unescape(char *s) {
  static const char *const ent[][2] = {{"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}, {"&quot;", "\""}, {"&apos;", "'"}};
  char *o = s;
  for (char *p = s; *p;) {
    if (*p == '&') {
      bool done = false;
      for (size_t i = 0; i < sizeof ent / sizeof *ent && !done; i++) {
        size_t k = strlen(ent[i][0]);
        if (strncmp(p, ent[i][0], k) == 0) *o++ = ent[i][1][0], p += k, done = true;
      }
      if (!done && p[1] == '#') {
        char *end;
        long c = p[2] == 'x' ? strtol(p + 3, &end, 16) : strtol(p + 2, &end, 10);
        if (*end == ';' && c > 0 && c < 0x80) *o++ = (char)c, p = end + 1, done = true;
      }
      if (done) continue;
    }
    *o++ = *p++;
  }
  *o = 0;
  return s;
}

// The entries of ttrace's <metadata> in an SVG document (NUL-terminated); false when none.
static void svg_texts(char *doc, tt_meta_fn fn, void *ctx, int *found) {
  char *m = strstr(doc, "xmlns:tt=\"" TT_SVG_META_NS "\"");
  char *end = m ? strstr(m, "</tt:figure>") : NULL;
  if (!end) return;
  *end = 0;
  for (char *p = strstr(m, "<tt:v k=\""); p; p = strstr(p, "<tt:v k=\"")) {
    char *k = p + 9, *kq = strchr(k, '"');
    if (!kq || kq[1] != '>') break;
    char *v = kq + 2, *ve = strstr(v, "</tt:v>");
    if (!ve) break;
    *kq = 0, *ve = 0;
    fn(ctx, xml_unescape(k), xml_unescape(v));
    ++*found;
    p = ve + 1;
  }
}

tt_status tt_figure_read_meta(const char *path, tt_meta_fn fn, void *ctx, tt_error *err) {
  char *doc = NULL;
  size_t n = 0;
  tt_status st = tt_read_file(path, &doc, &n, err);
  if (st != TT_OK) return st;
  int found = 0;
  if (!png_texts((const uint8_t *)doc, n, fn, ctx, &found)) svg_texts(doc, fn, ctx, &found);
  free(doc);
  if (found == 0)
    return tt_fail(err, TT_ERR_FORMAT, "%s holds no ttrace figure metadata (not a PNG or SVG it wrote)", path);
  return TT_OK;
}
