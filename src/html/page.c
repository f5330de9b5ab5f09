// page: the HTML page itself: the head with the embedded fonts and the layout, one block
// per language with one section per step (narration beside the view), and the script
// that steps through them. Without script the first step of the first language shows.
#include <stdlib.h>
#include <string.h>

#include "html_int.h"

static const char layout_css[] =
    "[hidden]{display:none!important}\n"
    "body{margin:0;background:#f1f2f6;color:#16181d;font-family:%s}\n"
    "header{display:flex;align-items:center;gap:12px;height:56px;padding:0 16px;background:#fff;"
    "border-bottom:1px solid #c8ccd6;box-sizing:border-box}\n"
    "header h1{flex:1;margin:0;font-size:22px;font-weight:bold;white-space:nowrap;overflow:hidden;"
    "text-overflow:ellipsis}\n"
    "button{font:inherit;font-size:18px;padding:4px 14px;cursor:pointer}\n"
    "#count{font-size:18px;min-width:5em;text-align:center}\n"
    ".keys{font-size:14px;color:#5a5f6b}\n"
    ".step{display:flex;gap:16px;padding:16px;align-items:flex-start}\n"
    ".narration{flex:0 0 360px;font-size:18px;line-height:1.5}\n"
    ".narration h2{margin:0 0 12px;font-size:22px;font-weight:bold}\n"
    ".narration p{margin:0 0 12px}\n"
    ".view{flex:1 1 auto;min-width:0;line-height:0}\n"
    ".view svg{display:block;max-width:100%%;height:auto}\n";

static const char script[] =
    "(function () {\n"
    "  var tracks = [].slice.call(document.querySelectorAll('.track')), t = 0, i = 0;\n"
    "  var count = document.getElementById('count'), title = document.getElementById('title');\n"
    "  var sw = document.getElementById('lang');\n"
    "  function show(nt, ni) {\n"
    "    t = (nt + tracks.length) % tracks.length;\n"
    "    var s = tracks[t].querySelectorAll('section');\n"
    "    i = Math.max(0, Math.min(s.length - 1, ni));\n"
    "    tracks.forEach(function (k, j) { k.hidden = j !== t; });\n"
    "    [].forEach.call(s, function (e, j) { e.hidden = j !== i; });\n"
    "    count.textContent = (i + 1) + ' / ' + s.length;\n"
    "    title.textContent = tracks[t].dataset.title;\n"
    "    document.documentElement.lang = tracks[t].dataset.lang;\n"
    "    if (sw) sw.textContent = tracks[(t + 1) % tracks.length].dataset.label;\n"
    "    var h = '#step=' + (i + 1) + (tracks.length > 1 ? '&lang=' + tracks[t].dataset.lang : '');\n"
    "    if (location.hash !== h) history.replaceState(null, '', h);\n"
    "  }\n"
    "  function fromHash() {\n"
    "    var m = /step=(\\d+)/.exec(location.hash), l = /lang=(\\w+)/.exec(location.hash), nt = t;\n"
    "    if (l) tracks.forEach(function (k, j) { if (k.dataset.lang === l[1]) nt = j; });\n"
    "    show(nt, m ? parseInt(m[1], 10) - 1 : i);\n"
    "  }\n"
    "  document.addEventListener('keydown', function (e) {\n"
    "    var k = e.key;\n"
    "    if (k === 'ArrowRight' || k === ' ' || k === 'PageDown') show(t, i + 1);\n"
    "    else if (k === 'ArrowLeft' || k === 'PageUp') show(t, i - 1);\n"
    "    else if (k === 'Home') show(t, 0);\n"
    "    else if (k === 'End') show(t, 1e9);\n"
    "    else if ((k === 'l' || k === 'L') && tracks.length > 1) show(t + 1, i);\n"
    "    else return;\n"
    "    e.preventDefault();\n"
    "  });\n"
    "  document.getElementById('prev').onclick = function () { show(t, i - 1); };\n"
    "  document.getElementById('next').onclick = function () { show(t, i + 1); };\n"
    "  if (sw) sw.onclick = function () { show(t + 1, i); };\n"
    "  window.addEventListener('hashchange', fromHash);\n"
    "  fromHash();\n"
    "})();\n";

static void escaped(FILE *fp, const char *s, size_t n) {
  for (size_t i = 0; i < n && s[i]; i++) {
    char c = s[i];
    if (c == '<')
      fputs("&lt;", fp);
    else if (c == '>')
      fputs("&gt;", fp);
    else if (c == '&')
      fputs("&amp;", fp);
    else if (c == '"')
      fputs("&quot;", fp);
    else if (c == '\n' || c == '\t')
      fputc(' ', fp);
    else if ((unsigned char)c >= 0x20 && c != 0x7F)
      fputc(c, fp);
  }
}

static void text(FILE *fp, const char *s) {
  escaped(fp, s, strlen(s));
}

// Paragraphs separated by blank lines; single newlines reflow.
static void narration(FILE *fp, const char *s) {
  while (*s) {
    while (*s == '\n' || *s == ' ') s++;
    if (!*s) break;
    const char *end = strstr(s, "\n\n");
    size_t n = end ? (size_t)(end - s) : strlen(s);
    fputs("<p>", fp);
    escaped(fp, s, n);
    fputs("</p>\n", fp);
    s += n;
  }
}

static void write_track(FILE *fp, const tt_html_track *t, int k) {
  fprintf(fp, "<div class=\"track\" data-lang=\"%s\" data-label=\"%s\" data-title=\"", tt_lang_code(t->lang),
          tt_lang_label(t->lang));
  text(fp, t->title);
  fprintf(fp, "\" lang=\"%s\"%s>\n", tt_lang_code(t->lang), k ? " hidden" : "");
  for (int i = 0; i < t->n; i++) {
    const tt_html_step *s = &t->steps[i];
    fprintf(fp, "<section class=\"step\" id=\"%s-%d\"%s>\n", tt_lang_code(t->lang), i + 1, i ? " hidden" : "");
    if (s->title[0] || s->narration[0]) {
      fputs("<div class=\"narration\">", fp);
      if (s->title[0]) {
        fputs("<h2>", fp);
        text(fp, s->title);
        fputs("</h2>\n", fp);
      }
      narration(fp, s->narration);
      fputs("</div>\n", fp);
    }
    fputs("<div class=\"view\">", fp);
    fputs(s->svg, fp);
    fputs("</div>\n</section>\n", fp);
  }
  fputs("</div>\n", fp);
}

static tt_status write_head(FILE *fp, const tt_html_page *p, tt_render *rc, tt_error *err) {
  const tt_html_track *t0 = &p->tracks[0];
  fprintf(fp, "<!DOCTYPE html>\n<html lang=\"%s\">\n<head>\n<meta charset=\"utf-8\">\n", tt_lang_code(t0->lang));
  fputs(
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta name=\"generator\" content=\"ttrace " TT_VERSION "\">\n<title>",
      fp);
  text(fp, t0->title);
  fputs("</title>\n<style>\n", fp);
  tt_status st = tt_render_font_css(rc, p->fonts, fp, err);
  fprintf(fp, layout_css, tt_font_css_families(TT_FONT_SANS));
  fputs("</style>\n</head>\n<body>\n<header><h1 id=\"title\">", fp);
  text(fp, t0->title);
  fprintf(fp,
          "</h1><button id=\"prev\" type=\"button\">\xE2\x86\x90</button><span id=\"count\">1 / %d</span>"
          "<button id=\"next\" type=\"button\">\xE2\x86\x92</button>",
          t0->n);
  if (p->n_tracks > 1) fprintf(fp, "<button id=\"lang\" type=\"button\">%s</button>", tt_lang_label(p->tracks[1].lang));
  fprintf(fp, "<span class=\"keys\">%s</span>", p->n_tracks > 1 ? TT_HTML_KEYS " \xC2\xB7 L" : TT_HTML_KEYS);
  fputs("</header>\n<main>\n", fp);
  return st;
}

tt_status tt_html_page_write(const tt_html_page *p, tt_render *rc, const char *out, tt_error *err) {
  if (p->n_tracks == 0 || p->tracks[0].n == 0) return tt_fail(err, TT_ERR_ARG, "nothing to write: no steps");
  tt_atomic_file af;
  tt_status st = tt_atomic_open(&af, out, err);
  if (st) return st;
  st = write_head(af.fp, p, rc, err);
  for (int k = 0; k < p->n_tracks && !st; k++) write_track(af.fp, &p->tracks[k], k);
  if (!st) fprintf(af.fp, "</main>\n<script>\n%s</script>\n</body>\n</html>\n", script);
  if (st) {
    tt_atomic_abort(&af);
    return st;
  }
  return tt_atomic_commit(&af, err);
}
