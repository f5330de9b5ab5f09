// html: one self-contained HTML page that plays a lesson (narration beside each step's
// view, one or more languages with a switch) or walks a trace's steps. No network: every
// view is an inline SVG from the SVG export, the fonts are embedded once as subsets
// holding just the glyphs the page uses, and a few lines of script give next/previous,
// the keyboard (← → Space PgUp PgDn, Home/End, L for the language) and #step=N links.
// Pages are written atomically.
#ifndef TT_HTML_H
#define TT_HTML_H

#include "core/core.h"
#include "trace/trace.h"

// The lesson files in paths (the same lesson in one or more languages; the first is
// shown first), each step drawn from the saved traces in traces_dir (NULL: the lesson's
// folder), each view w × h pixels.
tt_status tt_html_export_lesson(const char *const *paths, int n_paths, const char *traces_dir, int w, int h,
                                const char *out, tt_error *err);
// The step sequence of tr as `ttrace demo` walks it, once per language code in langs.
tt_status tt_html_export_trace(const tt_trace *tr, const char *name, const char *const *langs, int n_langs, int w,
                               int h, const char *out, tt_error *err);

#endif
