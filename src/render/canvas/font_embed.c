// font_embed: the bundled fonts cut down to the glyphs a drawing uses (HarfBuzz hb-subset)
// and written as CSS @font-face rules with the subsets inline (base64), so that an SVG or
// an HTML page shows its text, Hangul included, where the fonts are not installed.
// Which file draws a character follows text.c: DejaVu when it has the glyph, else Nanum
// Gothic when that has it.
#include <hb-subset.h>
#include <hb.h>
#include <stdlib.h>
#include <string.h>

#include "render_int.h"

struct tt_font_usage {
  hb_set_t *chars[TT_FONT_KINDS];  // code points drawn in each face
};

tt_status tt_font_usage_create(tt_font_usage **out, tt_error *err) {
  tt_font_usage *u = calloc(1, sizeof *u);
  bool ok = u != NULL;
  for (int k = 0; ok && k < TT_FONT_KINDS; k++) {
    u->chars[k] = hb_set_create();
    ok = hb_set_allocation_successful(u->chars[k]);
  }
  if (!ok) {
    tt_font_usage_destroy(u);
    return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  }
  *out = u;
  return TT_OK;
}

void tt_font_usage_destroy(tt_font_usage *u) {
  if (!u) return;
  for (int k = 0; k < TT_FONT_KINDS; k++) hb_set_destroy(u->chars[k]);
  free(u);
}

void tt_font_usage_add(tt_font_usage *u, tt_font_kind k, const char *s) {
  if (!u || !s || k < 0 || k >= TT_FONT_KINDS) return;
  size_t n = strlen(s);
  for (size_t i = 0; i < n;) {
    uint32_t cp = 0xFFFD;
    int used = tt_utf8_decode(s + i, n - i, &cp);
    if (used <= 0) cp = 0xFFFD, used = 1;
    if (cp >= 0x20) hb_set_add(u->chars[k], cp);
    i += (size_t)used;
  }
}

// One face to embed: a font file, the CSS family and weight it stands for, its characters.
typedef struct {
  int file;
  const char *family;
  bool bold;
} face_spec;

static const face_spec faces[TT_FONT_FILES] = {{TT_FONT_FILE_SANS, "ttrace DejaVu Sans", false},
                                               {TT_FONT_FILE_BOLD, "ttrace DejaVu Sans", true},
                                               {TT_FONT_FILE_MONO, "ttrace DejaVu Sans Mono", false},
                                               {TT_FONT_FILE_HANGUL, "ttrace Nanum Gothic", false},
                                               {TT_FONT_FILE_HANGUL_BOLD, "ttrace Nanum Gothic", true}};

// The embedded faces come first under names of their own (a web font named like an
// installed family, "NanumGothic", is not used by Chromium), then the installed fonts.
const char *tt_font_css_families(tt_font_kind k) {
  return k == TT_FONT_MONO ? "ttrace DejaVu Sans Mono, ttrace Nanum Gothic, DejaVu Sans Mono, NanumGothic, monospace"
                           : "ttrace DejaVu Sans, ttrace Nanum Gothic, DejaVu Sans, NanumGothic, sans-serif";
}

static hb_face_t *face_of(const tt_fonts *f, int file) {
  size_t len = 0;
  const char *data = tt_fonts_file_data(f, file, &len);
  hb_blob_t *blob = hb_blob_create(data, (unsigned)len, HB_MEMORY_MODE_READONLY, NULL, NULL);
  hb_face_t *face = hb_face_create(blob, 0);
  hb_blob_destroy(blob);
  return face;
}

// Splits the characters of face kind k between its DejaVu file (latin) and its Nanum file.
static void split(const hb_set_t *chars, int latin, int hangul, hb_set_t *want[TT_FONT_FILES],
                  hb_set_t *has[TT_FONT_FILES]) {
  for (hb_codepoint_t cp = HB_SET_VALUE_INVALID; hb_set_next(chars, &cp);) {
    bool to_hangul = !hb_set_has(has[latin], cp) && hb_set_has(has[hangul], cp);
    hb_set_add(want[to_hangul ? hangul : latin], cp);
  }
}

static void base64(FILE *out, const unsigned char *p, size_t n) {
  static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
    char q[4] = {tab[v >> 18 & 63], tab[v >> 12 & 63], i + 1 < n ? tab[v >> 6 & 63] : '=',
                 i + 2 < n ? tab[v & 63] : '='};
    fwrite(q, 1, 4, out);
  }
}

// Writes one @font-face rule: the subset of face s holding chars.
static tt_status write_face(hb_face_t *face, const face_spec *s, hb_set_t *chars, FILE *out, tt_error *err) {
  hb_subset_input_t *in = hb_subset_input_create_or_fail();
  if (!in) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  hb_set_union(hb_subset_input_unicode_set(in), chars);
  hb_subset_input_set_flags(in, HB_SUBSET_FLAGS_NO_HINTING);
  hb_face_t *sub = hb_subset_or_fail(face, in);
  hb_subset_input_destroy(in);
  if (!sub) return tt_fail(err, TT_ERR_FORMAT, "cannot subset the font %s for embedding", s->family);
  hb_blob_t *blob = hb_face_reference_blob(sub);
  unsigned len = 0;
  const char *data = hb_blob_get_data(blob, &len);
  fprintf(out, "@font-face{font-family:\"%s\";font-weight:%s;src:url(data:font/ttf;base64,", s->family,
          s->bold ? "bold" : "normal");
  base64(out, (const unsigned char *)data, len);
  fputs(") format(\"truetype\");}\n", out);
  hb_blob_destroy(blob);
  hb_face_destroy(sub);
  return TT_OK;
}

tt_status tt_font_embed_css(const tt_fonts *f, const tt_font_usage *u, FILE *out, tt_error *err) {
  hb_face_t *face[TT_FONT_FILES];
  hb_set_t *has[TT_FONT_FILES], *want[TT_FONT_FILES];
  for (int i = 0; i < TT_FONT_FILES; i++) {
    face[i] = face_of(f, i);
    has[i] = hb_set_create();
    want[i] = hb_set_create();
    hb_face_collect_unicodes(face[i], has[i]);
  }
  split(u->chars[TT_FONT_SANS], TT_FONT_FILE_SANS, TT_FONT_FILE_HANGUL, want, has);
  split(u->chars[TT_FONT_BOLD], TT_FONT_FILE_BOLD, TT_FONT_FILE_HANGUL_BOLD, want, has);
  split(u->chars[TT_FONT_MONO], TT_FONT_FILE_MONO, TT_FONT_FILE_HANGUL, want, has);
  tt_status st = TT_OK;
  for (int i = 0; i < TT_FONT_FILES && !st; i++)
    if (!hb_set_is_empty(want[i])) st = write_face(face[faces[i].file], &faces[i], want[i], out, err);
  for (int i = 0; i < TT_FONT_FILES; i++) {
    hb_set_destroy(want[i]);
    hb_set_destroy(has[i]);
    hb_face_destroy(face[i]);
  }
  if (!st && ferror(out)) st = tt_fail(err, TT_ERR_IO, "cannot write the embedded fonts");
  return st;
}

void tt_render_share_fonts(tt_render *rc, tt_font_usage *u) {
  tt_fonts_set_shared_usage(rc->fonts, u);
}

tt_status tt_render_font_css(tt_render *rc, const tt_font_usage *u, FILE *out, tt_error *err) {
  return tt_font_embed_css(rc->fonts, u, out, err);
}
