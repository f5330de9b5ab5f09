// html_int: the page as the collectors (collect.c) fill it and the writer (page.c) writes it.
#ifndef TT_HTML_INT_H
#define TT_HTML_INT_H

#include "html.h"
#include "pipeline/pipeline.h"
#include "render/render.h"

typedef struct {
  char *title;      // the step's title ("" when none)
  char *narration;  // paragraphs separated by blank lines ("" when none)
  char *svg;        // the view: "<svg ...>...</svg>"
} tt_html_step;

// One language's steps.
typedef struct {
  tt_lang lang;
  char *title;  // the lesson's title, or the trace's name
  tt_html_step *steps;
  int n, cap;
} tt_html_track;

// The keys the page answers to, as the header lists them.
#define TT_HTML_KEYS "\xE2\x86\x90 \xE2\x86\x92 Space PgUp PgDn Home End"

#define TT_HTML_MAX_TRACKS 4
typedef struct {
  tt_html_track tracks[TT_HTML_MAX_TRACKS];
  int n_tracks;
  tt_font_usage *fonts;  // every glyph the page shows (views, titles, narration)
} tt_html_page;

// Appends a step to track t; svg_path holds the SVG (its XML declaration is dropped).
tt_status tt_html_add_step(tt_html_page *p, tt_html_track *t, const char *title, const char *narration,
                           const char *svg_path, tt_error *err);
void tt_html_page_free(tt_html_page *p);
// Writes the page to out atomically; rc provides the fonts.
tt_status tt_html_page_write(const tt_html_page *p, tt_render *rc, const char *out, tt_error *err);

#endif
