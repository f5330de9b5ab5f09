// collect: the steps of a page, from a lesson (each step's page drawn as the window draws
// it, without the narration, which goes beside it as text) or from a trace (the step
// sequence of `ttrace demo`); the SVGs go through one temporary file each in turn.
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "html_int.h"
#include "lesson/lesson.h"
#include "ui/ui.h"

static char *dup_str(const char *s) {
  return strdup(s ? s : "");
}

tt_status tt_html_add_step(tt_html_page *p, tt_html_track *t, const char *title, const char *narr, const char *svg_path,
                           tt_error *err) {
  if (t->n == t->cap) {
    int cap = t->cap ? 2 * t->cap : 16;
    tt_html_step *s = realloc(t->steps, (size_t)cap * sizeof *s);
    if (!s) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
    t->steps = s;
    t->cap = cap;
  }
  char *svg = NULL;
  size_t len = 0;
  tt_status st = tt_read_file(svg_path, &svg, &len, err);
  if (st) return st;
  char *start = strstr(svg, "<svg");
  if (!start) {
    free(svg);
    return tt_fail(err, TT_ERR_FORMAT, "%s: not an SVG", svg_path);
  }
  memmove(svg, start, strlen(start) + 1);
  tt_html_step *s = &t->steps[t->n];
  s->title = dup_str(title);
  s->narration = dup_str(narr);
  s->svg = svg;
  if (!s->title || !s->narration) {
    free(s->title), free(s->narration), free(svg);
    return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  }
  t->n++;
  tt_font_usage_add(p->fonts, TT_FONT_BOLD, title);
  tt_font_usage_add(p->fonts, TT_FONT_SANS, narr);
  return TT_OK;
}

void tt_html_page_free(tt_html_page *p) {
  for (int k = 0; k < p->n_tracks; k++) {
    tt_html_track *t = &p->tracks[k];
    for (int i = 0; i < t->n; i++) free(t->steps[i].title), free(t->steps[i].narration), free(t->steps[i].svg);
    free(t->steps);
    free(t->title);
  }
  tt_font_usage_destroy(p->fonts);
  memset(p, 0, sizeof *p);
}

// A new language block titled title; the header's own texts are noted in the fonts.
static tt_html_track *add_track(tt_html_page *p, tt_lang lang, const char *title, tt_error *err) {
  if (p->n_tracks == TT_HTML_MAX_TRACKS) {
    tt_fail(err, TT_ERR_ARG, "at most %d languages on one page", TT_HTML_MAX_TRACKS);
    return NULL;
  }
  tt_html_track *t = &p->tracks[p->n_tracks];
  t->lang = lang;
  t->title = dup_str(title);
  if (!t->title) {
    tt_fail(err, TT_ERR_NOMEM, "out of memory");
    return NULL;
  }
  p->n_tracks++;
  tt_font_usage_add(p->fonts, TT_FONT_BOLD, title);
  tt_font_usage_add(p->fonts, TT_FONT_SANS, tt_lang_label(lang));
  tt_font_usage_add(p->fonts, TT_FONT_SANS, "0123456789 / \xC2\xB7 L " TT_HTML_KEYS);
  return t;
}

// A private folder for the SVG of the step being drawn.
static tt_status temp_svg(char *dir, size_t dlen, char *path, size_t plen, tt_error *err) {
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, dlen, "%s/ttrace-html-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) return tt_fail(err, TT_ERR_IO, "cannot make a temporary folder in %s", tmp ? tmp : "/tmp");
  snprintf(path, plen, "%s/view.svg", dir);
  return TT_OK;
}

static void temp_done(const char *dir, const char *path) {
  unlink(path);
  rmdir(dir);
}

static tt_status finish(tt_html_page *p, tt_status st, const char *out, tt_error *err) {
  tt_render *rc = NULL;
  if (!st) st = tt_render_create(&rc, err);
  if (!st) st = tt_html_page_write(p, rc, out, err);
  tt_render_destroy(rc);
  tt_html_page_free(p);
  return st;
}

// ---- lessons ------------------------------------------------------------------------
typedef struct {
  tt_html_page *page;
  tt_html_track *track;
  const char *svg_path;
} lesson_job;

static tt_status add_lesson_step(void *ctx, int step, int n_steps, const tt_lesson_page *pg, tt_error *err) {
  lesson_job *j = ctx;
  (void)step, (void)n_steps;
  return tt_html_add_step(j->page, j->track, pg->step_title, pg->narration, j->svg_path, err);
}

static tt_status add_lesson(tt_html_page *p, const char *path, const char *traces_dir, int w, int h,
                            const char *svg_path, tt_error *err) {
  tt_lesson *l = NULL;
  tt_status st = tt_lesson_load(path, &l, err);
  if (st) return st;
  tt_lang lang = TT_LANG_EN;
  tt_lang_parse(tt_lesson_lang(l), &lang);
  tt_html_track *t = add_track(p, lang, tt_lesson_title(l), err);
  tt_lesson_destroy(l);
  if (!t) return TT_ERR_ARG;
  lesson_job j = {p, t, svg_path};
  tt_ui_lesson_pages_opts o = {w, h, p->fonts, svg_path, add_lesson_step, &j};
  return tt_ui_lesson_pages(path, traces_dir, &o, err);
}

tt_status tt_html_export_lesson(const char *const *paths, int n_paths, const char *traces_dir, int w, int h,
                                const char *out, tt_error *err) {
  tt_html_page p = {0};
  char dir[4096], svg[4200];
  tt_status st = tt_font_usage_create(&p.fonts, err);
  if (!st) st = temp_svg(dir, sizeof dir, svg, sizeof svg, err);
  if (st) return finish(&p, st, out, err);
  for (int i = 0; i < n_paths && !st; i++) st = add_lesson(&p, paths[i], traces_dir, w, h, svg, err);
  temp_done(dir, svg);
  return finish(&p, st, out, err);
}

// ---- traces -------------------------------------------------------------------------
typedef struct {
  tt_html_page *page;
  tt_html_track *track;
  tt_render *rc;
  const tt_trace *tr;
  const char *svg_path;
  int w, h;
} trace_job;

static tt_status add_trace_step(void *ctx, const tt_view_state *vs, const char *name, tt_error *err) {
  trace_job *j = ctx;
  (void)name;
  tt_status st = tt_render_svg(j->rc, j->tr, vs, j->w, j->h, j->svg_path, err);
  if (!st) st = tt_html_add_step(j->page, j->track, "", "", j->svg_path, err);
  return st;
}

static tt_status add_trace(tt_html_page *p, trace_job *j, const char *name, const char *code, tt_error *err) {
  tt_lang lang;
  if (!tt_lang_parse(code, &lang)) return tt_fail(err, TT_ERR_ARG, "unknown language '%s' (en or ko)", code);
  j->track = add_track(p, lang, name, err);
  if (!j->track) return TT_ERR_ARG;
  int n = 0;
  return tt_render_each_step(j->tr, lang, TT_THEME_LIGHT, add_trace_step, j, &n, err);
}

tt_status tt_html_export_trace(const tt_trace *tr, const char *name, const char *const *langs, int n_langs, int w,
                               int h, const char *out, tt_error *err) {
  tt_html_page p = {0};
  char dir[4096], svg[4200];
  tt_viz_data *vd = NULL;
  trace_job j = {&p, NULL, NULL, tr, svg, w, h};
  tt_status st = tt_font_usage_create(&p.fonts, err);
  if (!st) st = tt_viz_data_open(NULL, tr, &vd, err);
  if (!st) st = tt_render_create(&j.rc, err);
  if (!st) st = temp_svg(dir, sizeof dir, svg, sizeof svg, err);
  if (!st) {
    tt_render_extras ex;
    tt_viz_data_extras(vd, tr, &ex);
    tt_render_set_extras(j.rc, &ex);
    tt_render_share_fonts(j.rc, p.fonts);
    for (int i = 0; i < n_langs && !st; i++) st = add_trace(&p, &j, name, langs[i], err);
    temp_done(dir, svg);
  }
  tt_render_destroy(j.rc);
  tt_viz_data_close(vd);
  return finish(&p, st, out, err);
}
