// lesson_window: `ttrace lesson FILE` in the window. The lesson player (src/lesson) holds
// the lesson, its saved traces and the current step; each step is resolved to its tensors
// and narration and turned into the window's view state (hook, layer, head, view, row,
// temperature) and a lesson page (src/render/lesson_page.c). The window's loop, script
// player, screenshots and state dump are the ordinary ones (window.c).
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lesson/lesson.h"
#include "ui_int.h"

struct tt_ui_lesson {
  tt_lesson_player *pl;
  char path[4096];
  const char *traces_dir;
  char traces_buf[4096];
  char twin[4096];     // the same lesson in the other language ("" when there is none)
  char twin_lang[16];  // its language code
  tt_lesson_view v;
  bool has_view;
  char error[1100];
  char jump[8];         // digits typed so far
  bool hide_narration;  // N: the view takes the whole width
  int narration_below;  // lines of narration below the panel (the painter says)
  char label_a[64], label_b[64];
  tt_compare cmp;
  tt_lesson_page page;
};

static tt_lang lang_of(const char *code, tt_lang fallback) {
  tt_lang lang = fallback;
  tt_lang_parse(code, &lang);
  return lang;
}

// The same lesson in language `to` when the path names language `from`'s folder
// (lessons/en/05-x.lesson → lessons/ko/05-x.lesson); false when that file is absent.
static bool twin_path(const char *path, const char *from, const char *to, char *out, size_t len) {
  char dir[16];
  snprintf(dir, sizeof dir, "/%s/", from);
  size_t k = strlen(dir);
  const char *hit = NULL;
  for (const char *p = strstr(path, dir); p; p = strstr(p + 1, dir)) hit = p;
  int n;
  if (hit)
    n = snprintf(out, len, "%.*s/%s/%s", (int)(hit - path), path, to, hit + k);
  else if (strncmp(path, dir + 1, k - 1) == 0)
    n = snprintf(out, len, "%s/%s", to, path + k - 1);  // "en/05-x.lesson"
  else
    return false;
  return n > 0 && (size_t)n < len && access(out, R_OK) == 0;
}

// The twin in the next interface language that has one (tt_lang_next, round).
static void find_twin(tt_ui_lesson *ls) {
  ls->twin[0] = ls->twin_lang[0] = 0;
  for (int a = 0; a < TT_LANG_COUNT; a++)
    for (tt_lang b = tt_lang_next((tt_lang)a); b != (tt_lang)a; b = tt_lang_next(b))
      if (twin_path(ls->path, tt_lang_code((tt_lang)a), tt_lang_code(b), ls->twin, sizeof ls->twin)) {
        snprintf(ls->twin_lang, sizeof ls->twin_lang, "%s", tt_lang_code(b));
        return;
      }
  ls->twin[0] = 0;
}

static const char *trace_name(const tt_lesson *l, int i) {
  const tt_lesson_trace *t = i >= 0 && i < tt_lesson_n_traces(l) ? tt_lesson_trace_at(l, i) : NULL;
  return t && t->name ? t->name : "?";
}

// Points the window at the player's current step.
static void apply_step(tt_ui *ui) {
  tt_ui_lesson *ls = ui->lesson;
  tt_lesson *l = ls->pl->lesson;
  if (ls->has_view) tt_lesson_view_free(&ls->v);
  ls->has_view = false;
  tt_lesson_page *pg = &ls->page;
  memset(pg, 0, sizeof *pg);
  pg->lesson_title = tt_lesson_title(l);
  pg->step = ls->pl->step;
  pg->n_steps = tt_lesson_n_steps(l);
  pg->row = -1;
  pg->other_lang = ls->twin[0] ? tt_lang_label(lang_of(ls->twin_lang, TT_LANG_EN)) : NULL;
  const tt_lesson_step *step = tt_lesson_step_at(l, ls->pl->step);
  pg->step_title = step && step->title ? step->title : "";
  tt_view_state *vs = &ui->vs;
  vs->zoom = 1;
  vs->pan_row = vs->pan_col = 0;
  vs->pin_row = vs->pin_col = -1;
  ui->dirty = true;
  tt_error err = {0};
  if (tt_lesson_player_view(ls->pl, ui->ex.token_text, ui->ex.token_ctx, &ls->v, &err) != TT_OK) {
    snprintf(ls->error, sizeof ls->error, "%s", err.msg);
    pg->error = ls->error;
    return;
  }
  ls->has_view = true;
  const tt_lesson_view *v = &ls->v;
  if (v->trace != ui->tr) tt_ui_set_trace(ui, v->trace);
  const tt_tensor *t0 = v->n_tensors > 0 ? v->tensors[0] : NULL;
  snprintf(vs->hook, sizeof vs->hook, "%s", t0 ? t0->name : step->hook);
  bool norms = strcmp(step->view, "norms") == 0;
  tt_view_kind kind = TT_VIEW_HEATMAP;
  if (!norms && !tt_view_parse(step->view, &kind)) kind = TT_VIEW_AUTO;
  vs->view = kind;
  int L = -1;
  vs->step = tt_step_find(ui->tr, vs->hook, &L);
  vs->layer = L >= 0 ? L : 0;
  bool all_heads = kind == TT_VIEW_GRID || kind == TT_VIEW_OVERVIEW;
  vs->head = step->head >= 0 ? step->head : all_heads ? -1 : 0;
  vs->temperature = step->temperature > 0 ? step->temperature : 1;
  int T = tt_trace_n_tokens(v->trace);
  int row = step->row == TT_LESSON_ALL_ROWS ? -1 : step->row < 0 ? T + step->row : step->row;
  if (row >= T) row = -1;
  pg->row = row < 0 ? -1 : row;
  bool by_token = kind == TT_VIEW_BARS || kind == TT_VIEW_ROPE || kind == TT_VIEW_SWIGLU ||
                  kind == TT_VIEW_NEIGHBOURS || kind == TT_VIEW_GATES;  // row: the token shown
  vs->position = by_token && row >= 0 ? row : -1;
  pg->narration = v->narration;
  if (norms) {
    pg->layers = v->tensors;
    pg->n_layers = v->n_tensors;
  }
  if (v->compare) {
    snprintf(ls->label_a, sizeof ls->label_a, "%s", trace_name(l, step->trace));
    snprintf(ls->label_b, sizeof ls->label_b, "%s", trace_name(l, step->compare));
    ls->cmp = (tt_compare){v->compare, ls->label_a, ls->label_b};
    pg->compare = &ls->cmp;
    if (norms) pg->layers_b = v->compare_tensors;
  }
}

// Replaces the lesson by its twin in the other language, at the same step.
static void switch_language(tt_ui *ui) {
  tt_ui_lesson *ls = ui->lesson;
  if (!ls->twin[0]) {
    snprintf(ui->status, sizeof ui->status, "%s", tt_str(ui->vs.lang, TT_S_LESSON_NO_TWIN));
    return;
  }
  tt_lesson_player *np = NULL;
  tt_error err = {0};
  if (tt_lesson_player_open(ls->twin, ls->traces_dir, &np, &err) != TT_OK) {
    snprintf(ui->status, sizeof ui->status, "%.590s", err.msg);
    return;
  }
  int step = ls->pl->step;
  tt_lesson_player *old = ls->pl;
  if (ls->has_view) tt_lesson_view_free(&ls->v);
  ls->has_view = false;
  ls->pl = np;
  if (!tt_lesson_player_jump(np, step)) tt_lesson_player_jump(np, tt_lesson_n_steps(np->lesson) - 1);
  char prev[4096];
  snprintf(prev, sizeof prev, "%s", ls->path);
  snprintf(ls->path, sizeof ls->path, "%s", ls->twin);
  ui->vs.lang = lang_of(tt_lesson_lang(np->lesson), ui->vs.lang);
  tt_derived_reset(ui->derived);
  ui->lay->n_panels = 0;
  tt_ui_set_trace(ui, np->traces[0]);  // nothing may point into the old traces (closed below)
  find_twin(ls);
  apply_step(ui);
  tt_lesson_player_close(old);
  ui->status[0] = 0;
}

static void screenshot(tt_ui *ui) {
  tt_ui_lesson *ls = ui->lesson;
  const char *base = strrchr(ls->path, '/');
  base = base ? base + 1 : ls->path;
  int n = (int)strcspn(base, ".");
  char path[4400];
  snprintf(path, sizeof path, "%s/%.*s-%s-step%02d.png", ui->opts.shot_dir ? ui->opts.shot_dir : ".", n, base,
           tt_lesson_lang(ls->pl->lesson), ls->pl->step + 1);
  tt_ui_shot_status(ui, path);
}

static int digit_of(SDL_Keycode c) {
  if (c >= SDLK_0 && c <= SDLK_9) return (int)(c - SDLK_0);
  if (c >= SDLK_KP_1 && c <= SDLK_KP_9) return (int)(c - SDLK_KP_1) + 1;
  if (c == SDLK_KP_0) return 0;
  return -1;
}

static void go(tt_ui *ui, bool moved) {
  ui->status[0] = 0;
  ui->lesson->page.narration_scroll = 0;
  if (moved) apply_step(ui);
}

// Digits, Enter and Backspace of the "number then Enter" jump; false for any other key.
static bool jump_key(tt_ui *ui, SDL_Keycode c) {
  tt_ui_lesson *ls = ui->lesson;
  tt_lesson_player *pl = ls->pl;
  int dg = digit_of(c);
  if (dg >= 0) {
    size_t len = strlen(ls->jump);
    if (len + 1 < sizeof ls->jump && !(len == 0 && dg == 0)) {
      ls->jump[len] = (char)('0' + dg);
      ls->jump[len + 1] = 0;
    }
    return true;
  }
  if (c == SDLK_RETURN || c == SDLK_KP_ENTER) {
    if (ls->jump[0]) {
      int want = atoi(ls->jump);
      ls->jump[0] = 0;
      if (tt_lesson_player_jump(pl, want - 1))
        go(ui, true);
      else
        snprintf(ui->status, sizeof ui->status, tt_str(ui->vs.lang, TT_S_LESSON_NO_STEP_FMT), want,
                 tt_lesson_n_steps(pl->lesson));
    } else {
      go(ui, tt_lesson_player_next(pl));
    }
    return true;
  }
  if (c == SDLK_BACKSPACE) {
    if (ls->jump[0])
      ls->jump[strlen(ls->jump) - 1] = 0;
    else
      go(ui, tt_lesson_player_prev(pl));
    return true;
  }
  return false;
}

bool tt_ui_lesson_key(tt_ui *ui, const SDL_KeyboardEvent *k) {
  tt_ui_lesson *ls = ui->lesson;
  tt_lesson_player *pl = ls->pl;
  SDL_Keycode c = k->keysym.sym;
  int n = tt_lesson_n_steps(pl->lesson);
  if (jump_key(ui, c)) return true;
  switch (c) {
  case SDLK_ESCAPE:
    if (ui->vs.show_help)
      ui->vs.show_help = false;
    else if (ls->jump[0])
      ls->jump[0] = 0;
    else if (ui->vs.pin_row >= 0)
      ui->vs.pin_row = ui->vs.pin_col = -1;
    else
      ui->quit = true;
    return true;
  case SDLK_RIGHT:
  case SDLK_SPACE:
  case SDLK_PAGEDOWN:
    go(ui, tt_lesson_player_next(pl));
    return true;
  case SDLK_LEFT:
  case SDLK_PAGEUP:
    go(ui, tt_lesson_player_prev(pl));
    return true;
  case SDLK_HOME:
    go(ui, pl->step != 0 && tt_lesson_player_jump(pl, 0));
    return true;
  case SDLK_END:
    go(ui, pl->step != n - 1 && tt_lesson_player_jump(pl, n - 1));
    return true;
  case SDLK_l:
    switch_language(ui);
    return true;
  case SDLK_n:
    ls->hide_narration = !ls->hide_narration;
    return true;
  case SDLK_s:
    screenshot(ui);
    return true;
  // Up / Down scroll a narration longer than its panel.
  case SDLK_UP:
    if (ls->page.narration_scroll > 0) ls->page.narration_scroll--;
    return true;
  case SDLK_DOWN:
    if (ls->narration_below > 0) ls->page.narration_scroll++;
    return true;
  // The lesson decides the tensor: no layer keys, view toggles that leave the step, play
  // or typed prompts here.
  case SDLK_g:
  case SDLK_o:
  case SDLK_p:
    return true;
  default:
    break;
  }
  return false;
}

void tt_ui_lesson_draw(tt_ui *ui) {
  tt_ui_lesson *ls = ui->lesson;
  ls->page.jump = ls->jump[0] ? ls->jump : NULL;
  ls->page.narration_hidden = ls->hide_narration;
  ls->page.narration_below = &ls->narration_below;
  tt_render_draw_lesson(ui->rc, ui->ren, (SDL_Rect){0, 0, ui->out_w, ui->out_h}, ui->tr, &ui->vs, &ls->page,
                        ui->derived, ui->lay);
}

void tt_ui_lesson_state(tt_ui *ui, FILE *fp) {
  tt_ui_lesson *ls = ui->lesson;
  tt_lesson *l = ls->pl->lesson;
  const tt_lesson_step *step = tt_lesson_step_at(l, ls->pl->step);
  fprintf(fp, "lesson_file %s\nlesson_lang %s\nlesson_title %s\n", ls->path, tt_lesson_lang(l), tt_lesson_title(l));
  fprintf(fp, "lesson_step %d\nlesson_steps %d\n", ls->pl->step + 1, tt_lesson_n_steps(l));
  fprintf(fp, "lesson_step_title %s\n", step && step->title ? step->title : "");
  fprintf(fp, "lesson_trace %s\n", step ? trace_name(l, step->trace) : "-");
  fprintf(fp, "lesson_compare %s\n", step && step->compare >= 0 ? trace_name(l, step->compare) : "-");
  fprintf(fp, "lesson_view %s\nlesson_row %d\n", step ? step->view : "-", ls->page.row);
  fprintf(fp, "lesson_tensors %d\n", ls->has_view ? ls->v.n_tensors : 0);
  fprintf(fp, "lesson_jump %s\nlesson_twin %s\n", ls->jump[0] ? ls->jump : "-", ls->twin[0] ? ls->twin : "-");
  fprintf(fp, "lesson_narration_hidden %d\n", ls->hide_narration);
  fprintf(fp, "lesson_narration_scroll %d\nlesson_narration_below %d\n", ls->page.narration_scroll,
          ls->narration_below);
  fprintf(fp, "lesson_error %s\n", ls->page.error ? ls->page.error : "-");
  // The narration's first words, on one line.
  char buf[240];
  const char *s = ls->page.narration ? ls->page.narration : "";
  size_t o = 0;
  for (; *s && o + 1 < sizeof buf; s++) buf[o++] = *s == '\n' ? ' ' : *s;
  while (o > 0 && ((unsigned char)buf[o - 1] & 0xC0) == 0x80) o--;  // no cut character
  if (o > 0 && ((unsigned char)buf[o - 1] & 0xC0) == 0xC0) o--;
  buf[o] = 0;
  fprintf(fp, "lesson_narration %s\n", buf);
  if (ls->page.compare) tt_ui_compare_state(ui, fp, ls->page.compare);
}

tt_status tt_ui_run_lesson_opts(const tt_ui_opts *o, const char *path, const char *traces_dir, const char *lang,
                                tt_error *err) {
  if (!tt_ui_display_available()) return tt_fail(err, TT_ERR_UNSUPPORTED, "no display to open a window on");
  tt_ui_lesson *ls = calloc(1, sizeof *ls);
  if (!ls) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  snprintf(ls->path, sizeof ls->path, "%s", path);
  if (traces_dir) {
    snprintf(ls->traces_buf, sizeof ls->traces_buf, "%s", traces_dir);
    ls->traces_dir = ls->traces_buf;
  }
  tt_status st = tt_lesson_player_open(path, ls->traces_dir, &ls->pl, err);
  if (!st && tt_lesson_n_steps(ls->pl->lesson) == 0) st = tt_fail(err, TT_ERR_FORMAT, "%s has no steps", path);
  if (st) {
    tt_lesson_player_close(ls->pl);
    free(ls);
    return st;
  }
  find_twin(ls);
  tt_ui_opts oo = *o;
  oo.lang = lang_of(tt_lesson_lang(ls->pl->lesson), lang_of(lang, o->lang));
  oo.compare = NULL;
  oo.start_playing = false;
  tt_ui *ui = calloc(1, sizeof *ui);
  if (!ui) {
    tt_lesson_player_close(ls->pl);
    free(ls);
    return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  }
  ui->lesson = ls;
  st = tt_ui_open(ui, &oo, ls->pl->traces[0], err);
  if (!st) {
    char title[600];
    snprintf(title, sizeof title, "ttrace \xC2\xB7 %s", tt_lesson_title(ls->pl->lesson));
    SDL_SetWindowTitle(ui->win, title);
    ui->vs.frame = false;
    apply_step(ui);
    tt_ui_loop(ui);
    if (o->state_out) st = tt_ui_write_state(ui, o->state_out, err);
  }
  if (ls->has_view) tt_lesson_view_free(&ls->v);
  tt_lesson_player *pl = ls->pl;
  tt_ui_close(ui);  // before the traces it shows go away
  tt_lesson_player_close(pl);
  free(ls);
  return st;
}

// The page of one step drawn headless as SVG: the window's state without a window.
// The window's state without a window: render context, derived tensors, the tokenizer.
static tt_status lesson_svg_setup(tt_ui *ui, tt_ui_lesson *ls, tt_error *err) {
  ui->lay = calloc(1, sizeof *ui->lay);
  tt_status st = ui->lay ? TT_OK : tt_fail(err, TT_ERR_NOMEM, "out of memory");
  if (!st) st = tt_render_create(&ui->rc, err);
  if (!st) st = tt_derived_create(&ui->derived, err);
  if (!st) st = tt_viz_data_open(NULL, ls->pl->traces[0], &ui->vd, err);
  if (st) return st;
  tt_view_state_init(&ui->vs);
  ui->vs.lang = lang_of(tt_lesson_lang(ls->pl->lesson), TT_LANG_EN);
  tt_ui_set_trace(ui, ls->pl->traces[0]);
  return TT_OK;
}

// Points the headless window at step (0-based); an error when the step cannot be shown.
static tt_status lesson_svg_step(tt_ui *ui, tt_ui_lesson *ls, int step, tt_error *err) {
  tt_lesson *l = ls->pl->lesson;
  if (!tt_lesson_player_jump(ls->pl, step))
    return tt_fail(err, TT_ERR_ARG, "--step %d: the lesson has steps 1 to %d", step + 1, tt_lesson_n_steps(l));
  apply_step(ui);
  if (ls->page.error) return tt_fail(err, TT_ERR_FORMAT, "step %d: %s", step + 1, ls->page.error);
  return TT_OK;
}

// The page of one step drawn headless as SVG.
static tt_status lesson_svg(tt_ui *ui, tt_ui_lesson *ls, const tt_ui_lesson_svg_opts *so, tt_error *err) {
  tt_lesson *l = ls->pl->lesson;
  if (so->step < 0 || so->step >= tt_lesson_n_steps(l))
    return tt_fail(err, TT_ERR_ARG, "--step %d: the lesson has steps 1 to %d", so->step + 1, tt_lesson_n_steps(l));
  tt_status st = lesson_svg_setup(ui, ls, err);
  if (st) return st;
  ui->vs.theme = so->theme;
  ui->vs.font_scale = so->font_scale > 0 ? so->font_scale : 1;
  st = lesson_svg_step(ui, ls, so->step, err);
  if (st) return st;
  return tt_render_lesson_svg(ui->rc, ui->tr, &ui->vs, &ls->page, so->width, so->height, ui->derived, so->out, err);
}

tt_status tt_ui_lesson_svg(const char *path, const char *traces_dir, const tt_ui_lesson_svg_opts *so, char *traces,
                           size_t len, tt_error *err) {
  tt_ui_lesson *ls = calloc(1, sizeof *ls);
  tt_ui *ui = calloc(1, sizeof *ui);
  tt_status st = ls && ui ? TT_OK : tt_fail(err, TT_ERR_NOMEM, "out of memory");
  if (!st) {
    snprintf(ls->path, sizeof ls->path, "%s", path);
    ui->lesson = ls;
    st = tt_lesson_player_open(path, traces_dir, &ls->pl, err);
  }
  if (!st) st = lesson_svg(ui, ls, so, err);
  if (!st && traces) {  // which trace files the page shows (A, and B beside it)
    const tt_lesson_step *s = tt_lesson_step_at(ls->pl->lesson, so->step);
    char a[4096] = "", b[4096] = "";
    tt_error e2;
    tt_lesson_trace_path(ls->pl->lesson, s->trace, traces_dir, a, sizeof a, &e2);
    if (s->compare >= 0) tt_lesson_trace_path(ls->pl->lesson, s->compare, traces_dir, b, sizeof b, &e2);
    snprintf(traces, len, "A %s\n%s%s%s", a, b[0] ? "B " : "", b, b[0] ? "\n" : "");
  }
  if (ls && ls->has_view) tt_lesson_view_free(&ls->v);
  tt_lesson_player *pl = ls ? ls->pl : NULL;
  if (ui) tt_ui_close(ui);  // before the traces it shows go away
  tt_lesson_player_close(pl);
  free(ls);
  return st;
}

// Every step of a lesson for a page that holds them all: the page without its narration,
// one after another into the same file, the glyphs noted in fonts.
static tt_status each_svg(tt_ui *ui, tt_ui_lesson *ls, const tt_ui_lesson_pages_opts *pp, tt_error *err) {
  tt_status st = TT_OK;
  int n = tt_lesson_n_steps(ls->pl->lesson);
  for (int i = 0; i < n && !st; i++) {
    if (i == 0) {
      st = lesson_svg_setup(ui, ls, err);
      if (!st) tt_render_share_fonts(ui->rc, pp->fonts);
    }
    if (!st) st = lesson_svg_step(ui, ls, i, err);
    if (st) break;
    ls->page.narration_hidden = true;
    ls->page.no_key_line = true;  // the page has keys, a title and a step count of its own
    ls->page.no_top_bar = true;
    st =
        tt_render_lesson_svg(ui->rc, ui->tr, &ui->vs, &ls->page, pp->width, pp->height, ui->derived, pp->svg_path, err);
    if (!st) st = pp->fn(pp->ctx, i, n, &ls->page, err);
  }
  if (ui->rc) tt_render_share_fonts(ui->rc, NULL);
  return st;
}

tt_status tt_ui_lesson_pages(const char *path, const char *traces_dir, const tt_ui_lesson_pages_opts *pp,
                             tt_error *err) {
  tt_ui_lesson *ls = calloc(1, sizeof *ls);
  tt_ui *ui = calloc(1, sizeof *ui);
  tt_status st = ls && ui ? TT_OK : tt_fail(err, TT_ERR_NOMEM, "out of memory");
  if (!st) {
    snprintf(ls->path, sizeof ls->path, "%s", path);
    ui->lesson = ls;
    st = tt_lesson_player_open(path, traces_dir, &ls->pl, err);
  }
  if (!st) st = each_svg(ui, ls, pp, err);
  if (ls && ls->has_view) tt_lesson_view_free(&ls->v);
  tt_lesson_player *pl = ls ? ls->pl : NULL;
  if (ui) tt_ui_close(ui);  // before the traces it shows go away
  tt_lesson_player_close(pl);
  free(ls);
  return st;
}

bool tt_ui_lesson_twin(const char *path, const char *lang, char *out, size_t len) {
  for (int a = 0; a < TT_LANG_COUNT; a++)
    if (strcmp(tt_lang_code((tt_lang)a), lang) != 0 && twin_path(path, tt_lang_code((tt_lang)a), lang, out, len))
      return true;
  return false;
}

void tt_ui_lesson_env_opts(tt_ui_opts *o) {
  memset(o, 0, sizeof *o);
  o->script = getenv("TTRACE_UI_SCRIPT");
  o->state_out = getenv("TTRACE_UI_STATE_OUT");
  o->shot_dir = getenv("TTRACE_UI_SHOTS");
  const char *size = getenv("TTRACE_UI_SIZE"), *theme = getenv("TTRACE_UI_THEME");
  if (size && (sscanf(size, "%dx%d", &o->width, &o->height) != 2 || o->width < 320 || o->height < 240))
    o->width = o->height = 0;
  if (theme && strcmp(theme, "dark") == 0) o->theme = TT_THEME_DARK;
  if (o->script && !o->script[0]) o->script = NULL;
  if (o->state_out && !o->state_out[0]) o->state_out = NULL;
  if (o->shot_dir && !o->shot_dir[0]) o->shot_dir = NULL;
}

tt_status tt_ui_run_lesson(const char *path, const char *traces_dir, const char *lang, tt_error *err) {
  tt_ui_opts o;
  tt_ui_lesson_env_opts(&o);
  return tt_ui_run_lesson_opts(&o, path, traces_dir, lang, err);
}
