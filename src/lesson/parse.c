// parse: the lesson text format (lessons/README.md) into a tt_lesson.
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lesson_internal.h"
#include "trace/hooks.h"
#include "pipeline/pipeline.h"

// The pipeline's view names (tt_view_parse) but "auto", plus "norms", a lesson-only view.
bool tt_lesson_view_known(const char *name) {
  tt_view_kind k;
  return strcmp(name, "norms") == 0 || (tt_view_parse(name, &k) && k != TT_VIEW_AUTO);
}

// "tokens, heatmap, ..., norms" for error messages.
static void view_list(char *buf, size_t len) {
  size_t n = 0;
  buf[0] = 0;
  for (int k = TT_VIEW_AUTO + 1; k < TT_VIEW_COUNT && n < len; k++)
    n += (size_t)snprintf(buf + n, len - n, "%s, ", tt_view_name((tt_view_kind)k));
  if (n < len) snprintf(buf + n, len - n, "norms");
}

typedef struct {
  tt_lesson *l;
  tt_error *err;
  const char *text;
  size_t len, pos;
  int line;  // number of the line last read
} parser;

__attribute__((format(printf, 3, 4))) static tt_status fail_at(parser *p, int line, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return tt_fail(p->err, TT_ERR_FORMAT, "%s:%d: %s", p->l->name, line, msg);
}

// Next line without its newline (and without a trailing '\r'), NUL-terminated in the arena.
// NULL at the end of the text.
static char *next_line(parser *p) {
  if (p->pos >= p->len) return NULL;
  const char *s = p->text + p->pos;
  const char *nl = memchr(s, '\n', p->len - p->pos);
  size_t n = nl ? (size_t)(nl - s) : p->len - p->pos;
  p->pos += n + (nl ? 1 : 0);
  p->line++;
  if (n > 0 && s[n - 1] == '\r') n--;
  char *out = tt_arena_alloc(p->l->arena, n + 1, 1);
  if (!out) return NULL;
  memcpy(out, s, n);
  out[n] = 0;
  return out;
}

static char *trim(char *s) {
  while (*s == ' ' || *s == '\t') s++;
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t')) s[--n] = 0;
  return s;
}

static bool is_separator(const char *line) {
  char buf[8];
  size_t n = strlen(line);
  if (n >= sizeof buf) return false;
  memcpy(buf, line, n + 1);
  return strcmp(trim(buf), "---") == 0;
}

// "key: value" with key in [a-z_]; returns false when the line has another shape.
static bool split_field(char *line, char **key, char **value) {
  char *s = line;
  while (*s && (islower((unsigned char)*s) || *s == '_')) s++;
  if (s == line || *s != ':') return false;
  *s = 0;
  *key = line;
  *value = trim(s + 1);
  return true;
}

static bool parse_int(const char *s, int *out) {
  if (!*s) return false;
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (*end || errno || v < -1000000 || v > 1000000) return false;
  *out = (int)v;
  return true;
}

static bool valid_name(const char *s) {
  if (!*s) return false;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-') return false;
  return true;
}

static bool valid_hook(const char *s) {
  if (!*s) return false;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.') return false;
  return true;
}

// ---- growing lists in the arena ----
static bool push_str(tt_arena *a, const char ***list, int *n, const char *s) {
  const char **grown = tt_arena_alloc(a, sizeof(char *) * (size_t)(*n + 1), _Alignof(char *));
  if (!grown) return false;
  if (*n) memcpy(grown, *list, sizeof(char *) * (size_t)*n);
  grown[(*n)++] = s;
  *list = grown;
  return true;
}

// Appends the comma-separated items of value to list.
static tt_status push_items(parser *p, const char ***list, int *n, const char *value, const char *what,
                            bool need_equals) {
  const char *s = value;
  while (true) {
    const char *comma = strchr(s, ',');
    size_t len = comma ? (size_t)(comma - s) : strlen(s);
    char *item = tt_arena_alloc(p->l->arena, len + 1, 1);
    if (!item) return tt_fail(p->err, TT_ERR_NOMEM, "out of memory");
    memcpy(item, s, len);
    item[len] = 0;
    item = trim(item);
    if (!*item) return fail_at(p, p->line, "empty item in %s=\"%s\"", what, value);
    if (need_equals && (!strchr(item, '=') || item[0] == '='))
      return fail_at(p, p->line, "%s item '%s' is not key=value", what, item);
    if (!push_str(p->l->arena, list, n, item)) return tt_fail(p->err, TT_ERR_NOMEM, "out of memory");
    if (!comma) return TT_OK;
    s = comma + 1;
  }
}

// One value of a trace line: "quoted" (\" \\ \n \t escapes) or bare up to whitespace.
static tt_status read_value(parser *p, const char **cursor, char **out) {
  const char *s = *cursor;
  size_t cap = strlen(s) + 1;
  char *v = tt_arena_alloc(p->l->arena, cap, 1);
  if (!v) return tt_fail(p->err, TT_ERR_NOMEM, "out of memory");
  size_t n = 0;
  if (*s == '"') {
    s++;
    while (*s && *s != '"') {
      if (*s == '\\') {
        s++;
        switch (*s) {
        case '"':
          v[n++] = '"';
          break;
        case '\\':
          v[n++] = '\\';
          break;
        case 'n':
          v[n++] = '\n';
          break;
        case 't':
          v[n++] = '\t';
          break;
        default:
          return fail_at(p, p->line, "unknown escape '\\%c' in a quoted value", *s ? *s : ' ');
        }
        s++;
      } else {
        v[n++] = *s++;
      }
    }
    if (*s != '"') return fail_at(p, p->line, "quoted value is not closed (missing \")");
    s++;
    if (*s && *s != ' ' && *s != '\t') return fail_at(p, p->line, "expected a space after a quoted value");
  } else {
    while (*s && *s != ' ' && *s != '\t') v[n++] = *s++;
  }
  v[n] = 0;
  *cursor = s;
  *out = v;
  return TT_OK;
}

static tt_lesson_trace *add_trace(tt_lesson *l) {
  if (l->n_traces == l->cap_traces) {
    int cap = l->cap_traces ? 2 * l->cap_traces : 4;
    tt_lesson_trace *grown = realloc(l->traces, sizeof *grown * (size_t)cap);
    if (!grown) return NULL;
    l->traces = grown;
    l->cap_traces = cap;
  }
  tt_lesson_trace *t = &l->traces[l->n_traces++];
  memset(t, 0, sizeof *t);
  return t;
}

// model=NAME: a folder name under assets/models/ (letters, digits, '_', '-', '.'; not "." or "..").
static tt_status parse_model_key(parser *p, tt_lesson_trace *t, const char *value) {
  if (t->model) return fail_at(p, p->line, "model= given twice");
  bool ok = *value && strcmp(value, ".") && strcmp(value, "..");
  for (const char *c = value; ok && *c; c++) ok = isalnum((unsigned char)*c) || strchr("_-.", *c);
  if (!ok) return fail_at(p, p->line, "model=%s: expected a folder name under assets/models/ (tiny-llama)", value);
  t->model = value;
  return TT_OK;
}

// grad=true, train=LR (a positive number), steps=N (1 to 1000, with train=), model=NAME.
static tt_status parse_training_key(parser *p, tt_lesson_trace *t, const char *key, const char *value) {
  char *end = NULL;
  if (strcmp(key, "model") == 0) return parse_model_key(p, t, value);
  if (strcmp(key, "grad") == 0) {
    if (strcmp(value, "true") && strcmp(value, "false")) return fail_at(p, p->line, "grad= is true or false");
    t->grad = strcmp(value, "true") == 0;
  } else if (strcmp(key, "train") == 0) {
    double lr = strtod(value, &end);
    if (end == value || *end || !(lr > 0) || !isfinite(lr))
      return fail_at(p, p->line, "train=%s: expected a positive learning rate", value);
    t->train = value;
  } else if (strcmp(key, "steps") == 0) {
    long n = strtol(value, &end, 10);
    if (end == value || *end || n < 1 || n > 1000) return fail_at(p, p->line, "steps=%s: expected 1 to 1000", value);
    t->steps = n;
  } else {
    return fail_at(p, p->line, "unknown trace key '%s' (known: prompt, set, record, file, grad, train, steps, model)",
                   key);
  }
  return TT_OK;
}

// "trace NAME: prompt="..." set=k=v,k=v record=glob,glob file=NAME.safetensors"
static tt_status parse_trace_line(parser *p, char *line) {
  char *s = line + strlen("trace");
  while (*s == ' ' || *s == '\t') s++;
  char *colon = strchr(s, ':');
  if (!colon) return fail_at(p, p->line, "expected 'trace NAME: prompt=\"...\" file=NAME.safetensors'");
  *colon = 0;
  char *name = trim(s);
  if (!valid_name(name)) return fail_at(p, p->line, "trace name '%s' must be letters, digits, '_' or '-'", name);
  if (tt_lesson_find_trace(p->l, name) >= 0) return fail_at(p, p->line, "trace '%s' is defined twice", name);
  tt_lesson_trace *t = add_trace(p->l);
  if (!t) return tt_fail(p->err, TT_ERR_NOMEM, "out of memory");
  t->name = name;
  t->line = p->line;
  const char *c = colon + 1;
  while (true) {
    while (*c == ' ' || *c == '\t') c++;
    if (!*c) break;
    const char *k = c;
    while (islower((unsigned char)*c)) c++;
    if (*c != '=' || c == k) return fail_at(p, p->line, "expected key=value at '%.20s'", k);
    char key[16];
    size_t kn = (size_t)(c - k);
    if (kn >= sizeof key) return fail_at(p, p->line, "unknown trace key '%.*s'", (int)kn, k);
    memcpy(key, k, kn);
    key[kn] = 0;
    c++;
    char *value = NULL;
    tt_status st = read_value(p, &c, &value);
    if (st) return st;
    if (strcmp(key, "prompt") == 0) {
      if (t->prompt) return fail_at(p, p->line, "prompt= given twice");
      if (!*value) return fail_at(p, p->line, "prompt is empty");
      t->prompt = value;
    } else if (strcmp(key, "file") == 0) {
      if (t->file) return fail_at(p, p->line, "file= given twice");
      size_t n = strlen(value);
      if (strchr(value, '/') || n <= strlen(".safetensors") ||
          strcmp(value + n - strlen(".safetensors"), ".safetensors") != 0)
        return fail_at(p, p->line, "file '%s' must be a plain file name ending in .safetensors", value);
      t->file = value;
    } else if (strcmp(key, "set") == 0) {
      st = push_items(p, &t->set, &t->n_set, value, "set", true);
      if (st) return st;
    } else if (strcmp(key, "record") == 0) {
      st = push_items(p, &t->record, &t->n_record, value, "record", false);
      if (st) return st;
    } else {
      st = parse_training_key(p, t, key, value);
      if (st) return st;
    }
  }
  if (!t->prompt) return fail_at(p, p->line, "trace '%s' has no prompt=\"...\"", name);
  if (!t->file) return fail_at(p, p->line, "trace '%s' has no file=NAME.safetensors", name);
  if (t->steps && !t->train) return fail_at(p, p->line, "steps= needs train=LR");
  if (!t->steps) t->steps = 1;
  for (int i = 0; i < p->l->n_traces - 1; i++)
    if (strcmp(p->l->traces[i].file, t->file) == 0 && !tt_lesson_trace_same(&p->l->traces[i], t))
      return fail_at(p, p->line, "traces '%s' and '%s' share file %s but differ", p->l->traces[i].name, name, t->file);
  return TT_OK;
}

static tt_status parse_header(parser *p) {
  tt_lesson *l = p->l;
  char *line;
  while ((line = next_line(p))) {
    if (is_separator(line)) break;
    char *s = trim(line);
    if (!*s || *s == '#') continue;
    if (strncmp(s, "trace", 5) == 0 && (s[5] == ' ' || s[5] == '\t')) {
      tt_status st = parse_trace_line(p, s);
      if (st) return st;
      continue;
    }
    char *key, *value;
    if (!split_field(s, &key, &value))
      return fail_at(p, p->line, "expected 'key: value' or 'trace NAME: ...' in the header, got '%.40s'", s);
    if (!*value) return fail_at(p, p->line, "%s: is empty", key);
    const char **slot = strcmp(key, "title") == 0   ? &l->title
                        : strcmp(key, "lang") == 0  ? &l->lang
                        : strcmp(key, "model") == 0 ? &l->model
                                                    : NULL;
    if (!slot) return fail_at(p, p->line, "unknown header key '%s' (known: title, lang, model, trace)", key);
    if (*slot) return fail_at(p, p->line, "%s: given twice", key);
    *slot = value;
  }
  if (!line) return fail_at(p, p->line, "no steps: a line '---' starts each step");
  if (!l->title) return fail_at(p, 1, "the header has no 'title:'");
  if (!l->lang) return fail_at(p, 1, "the header has no 'lang:'");
  for (const char *c = l->lang; *c; c++)
    if (!islower((unsigned char)*c) || c - l->lang > 7)
      return fail_at(p, 1, "lang '%s' should be a language code such as en or ko", l->lang);
  if (!l->model) l->model = "default";
  if (l->n_traces == 0) return fail_at(p, p->line, "the header defines no trace (trace NAME: ...)");
  return TT_OK;
}

static tt_lesson_step *add_step(tt_lesson *l) {
  if (l->n_steps == l->cap_steps) {
    int cap = l->cap_steps ? 2 * l->cap_steps : 8;
    tt_lesson_step *grown = realloc(l->steps, sizeof *grown * (size_t)cap);
    if (!grown) return NULL;
    l->steps = grown;
    l->cap_steps = cap;
  }
  tt_lesson_step *s = &l->steps[l->n_steps++];
  *s = (tt_lesson_step){.title = "",
                        .trace = 0,
                        .layer = TT_LESSON_NONE,
                        .head = TT_LESSON_ALL,
                        .row = TT_LESSON_ALL_ROWS,
                        .compare = -1,
                        .temperature = 1.0f};
  return s;
}

// An int, or "all" (→ all_value); false otherwise.
static bool int_or_all(const char *v, int all_value, int *out) {
  if (strcmp(v, "all") == 0) {
    *out = all_value;
    return true;
  }
  return parse_int(v, out);
}

typedef struct {
  const char *show, *trace, *layer, *head, *row, *view, *compare, *title, *temperature;
  int show_line, layer_line, head_line, trace_line, compare_line, view_line, row_line, temperature_line;
  const char **checks;
  int *check_lines;
  int n_checks;
} step_fields;

// A check: line (repeatable): kept with its line number.
static tt_status add_check(parser *p, step_fields *f, const char *value) {
  tt_status st = tt_claim_check_syntax(p->l, value, p->line, p->err);
  if (st) return st;
  int n = f->n_checks;
  if (!push_str(p->l->arena, &f->checks, &f->n_checks, value)) return tt_fail(p->err, TT_ERR_NOMEM, "out of memory");
  int *lines = tt_arena_alloc(p->l->arena, sizeof(int) * (size_t)(n + 1), _Alignof(int));
  if (!lines) return tt_fail(p->err, TT_ERR_NOMEM, "out of memory");
  if (n) memcpy(lines, f->check_lines, sizeof(int) * (size_t)n);
  lines[n] = p->line;
  f->check_lines = lines;
  return TT_OK;
}

// Reads the step's fields up to the blank line that starts the narration.
static tt_status read_fields(parser *p, step_fields *f) {
  char *line;
  while ((line = next_line(p))) {
    if (is_separator(line)) return fail_at(p, p->line, "step has no narration (write it after a blank line)");
    char *s = trim(line);
    if (!*s) return TT_OK;  // blank line: the narration follows
    if (*s == '#') continue;
    char *key, *value;
    if (!split_field(s, &key, &value))
      return fail_at(p, p->line,
                     "expected a field (show:, view:, layer:, head:, row:, trace:, compare:, title:, "
                     "temperature:, check:) or a blank line before the narration, got '%.40s'",
                     s);
    if (strcmp(key, "check") == 0) {
      if (!*value) return fail_at(p, p->line, "check: is empty");
      tt_status st = add_check(p, f, value);
      if (st) return st;
      continue;
    }
    struct {
      const char *key;
      const char **slot;
      int *line;
    } known[] = {{"show", &f->show, &f->show_line},
                 {"trace", &f->trace, &f->trace_line},
                 {"layer", &f->layer, &f->layer_line},
                 {"head", &f->head, &f->head_line},
                 {"row", &f->row, &f->row_line},
                 {"view", &f->view, &f->view_line},
                 {"compare", &f->compare, &f->compare_line},
                 {"title", &f->title, NULL},
                 {"temperature", &f->temperature, &f->temperature_line}};
    size_t k = 0;
    while (k < sizeof known / sizeof *known && strcmp(known[k].key, key) != 0) k++;
    if (k == sizeof known / sizeof *known)
      return fail_at(p, p->line,
                     "unknown step field '%s' (known: show, view, layer, head, row, trace, compare, title, "
                     "temperature, check)",
                     key);
    if (*known[k].slot) return fail_at(p, p->line, "%s: given twice in one step", key);
    if (!*value) return fail_at(p, p->line, "%s: is empty", key);
    *known[k].slot = value;
    if (known[k].line) *known[k].line = p->line;
  }
  return fail_at(p, p->line, "step has no narration (write it after a blank line)");
}

static tt_status apply_fields(parser *p, tt_lesson_step *st, const step_fields *f) {
  tt_lesson *l = p->l;
  if (!f->show) return fail_at(p, st->line, "step has no 'show:' (the hook to show)");
  if (!f->view) return fail_at(p, st->line, "step has no 'view:'");
  if (!valid_hook(f->show)) return fail_at(p, f->show_line, "show: '%s' is not a hook name", f->show);
  if (!tt_lesson_view_known(f->view)) {
    char known[256];
    view_list(known, sizeof known);
    return fail_at(p, f->view_line, "unknown view '%s' (known: %s)", f->view, known);
  }
  st->view = f->view;
  if (f->trace) {
    st->trace = tt_lesson_find_trace(l, f->trace);
    if (st->trace < 0) return fail_at(p, f->trace_line, "trace '%s' is not defined in the header", f->trace);
  }
  if (f->compare) {
    st->compare = tt_lesson_find_trace(l, f->compare);
    if (st->compare < 0)
      return fail_at(p, f->compare_line, "compare: trace '%s' is not defined in the header", f->compare);
  }
  if (f->title) st->title = f->title;
  st->checks = f->checks;
  st->check_lines = f->check_lines;
  st->n_checks = f->n_checks;
  int layer = TT_LESSON_NONE;
  if (f->layer && (!int_or_all(f->layer, TT_LESSON_ALL_LAYERS, &layer) || layer < TT_LESSON_ALL_LAYERS ||
                   layer == TT_LESSON_ALL || layer == TT_LESSON_NONE))
    return fail_at(p, f->layer_line, "layer: '%s' should be a layer number or 'all'", f->layer);
  tt_hook_ref ref;
  if (strncmp(f->show, "blocks.", 7) == 0) {
    if (!tt_hook_lookup(f->show, &ref) || ref.grad || ref.decode >= 0 || ref.layer >= TT_LESSON_MAX_LAYERS)
      return fail_at(p, f->show_line, "show: '%s' should read blocks.LAYER.NAME (a hook of the catalogue)", f->show);
    if (f->layer && layer != ref.layer)
      return fail_at(p, f->layer_line, "layer: %s disagrees with show: %s (give the layer once)", f->layer, f->show);
    st->layer = ref.layer;
    st->hook = f->show;
  } else if (f->layer && layer == TT_LESSON_ALL_LAYERS) {
    st->layer = layer;
    st->hook = f->show;
  } else if (f->layer) {
    if (layer >= TT_LESSON_MAX_LAYERS) return fail_at(p, f->layer_line, "layer %d is too large", layer);
    char buf[256];
    if (!tt_hook_at(f->show, layer, &ref) || ref.layer < 0 || !tt_hook_name(&ref, buf, sizeof buf))
      return fail_at(p, f->show_line, "show: '%s' is not a block hook, so it takes no layer", f->show);
    st->layer = layer;
    st->hook = tt_arena_strdup(l->arena, buf);
    if (!st->hook) return tt_fail(p->err, TT_ERR_NOMEM, "out of memory");
  } else {
    st->hook = f->show;
  }
  if (f->head && (!int_or_all(f->head, TT_LESSON_ALL, &st->head) || st->head < TT_LESSON_ALL))
    return fail_at(p, f->head_line, "head: '%s' should be a head number or 'all'", f->head);
  if (f->row && !int_or_all(f->row, TT_LESSON_ALL_ROWS, &st->row))
    return fail_at(p, f->row_line, "row: '%s' should be a token index (negative counts from the end) or 'all'", f->row);
  if (f->temperature) {
    char *end;
    float t = strtof(f->temperature, &end);
    if (*end || !(t > 0.0f) || t > 1000.0f)
      return fail_at(p, f->temperature_line, "temperature: '%s' should be a positive number", f->temperature);
    st->temperature = t;
  }
  return TT_OK;
}

static tt_status parse_steps(parser *p) {
  tt_lesson *l = p->l;
  bool more = true;
  while (more) {
    tt_lesson_step *st = add_step(l);
    if (!st) return tt_fail(p->err, TT_ERR_NOMEM, "out of memory");
    st->line = p->line;
    step_fields f = {0};
    tt_status s = read_fields(p, &f);
    if (s) return s;
    s = apply_fields(p, st, &f);
    if (s) return s;
    // Narration: up to the next "---" or the end; blank lines at either end dropped.
    size_t start = p->pos, end = p->pos;
    int text_line = 0;
    char *line;
    more = false;
    while (true) {
      size_t before = p->pos;
      line = next_line(p);
      if (!line) break;
      if (is_separator(line)) {
        more = true;
        break;
      }
      if (*trim(line)) {
        if (!text_line) {
          text_line = p->line;
          start = before;
        }
        end = p->pos;
      }
    }
    if (!text_line) return fail_at(p, st->line, "step has no narration");
    while (end > start && (p->text[end - 1] == '\n' || p->text[end - 1] == '\r')) end--;
    char *text = tt_arena_alloc(l->arena, end - start + 1, 1);
    if (!text) return tt_fail(p->err, TT_ERR_NOMEM, "out of memory");
    size_t n = 0;
    for (size_t i = start; i < end; i++)
      if (p->text[i] != '\r') text[n++] = p->text[i];
    text[n] = 0;
    st->text = text;
    st->text_line = text_line;
    s = tt_lesson_check_placeholders(l, text, text_line, p->err);
    if (s) return s;
  }
  return TT_OK;
}

tt_status tt_lesson_parse(const char *text, size_t len, const char *name, tt_lesson **out, tt_error *err) {
  *out = NULL;
  tt_lesson *l = calloc(1, sizeof *l);
  if (!l || !(l->arena = tt_arena_create(16384)) || !(l->derived = tt_lesson_derived_create())) {
    if (l) tt_arena_destroy(l->arena);
    free(l);
    return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  }
  l->name = tt_arena_strdup(l->arena, name ? name : "lesson");
  l->traces_dir = "";
  size_t bad;
  if (!tt_utf8_valid(text, len, &bad)) {
    int line = 1;
    for (size_t i = 0; i < bad; i++) line += text[i] == '\n';
    tt_fail(err, TT_ERR_FORMAT, "%s:%d: invalid UTF-8 at byte %zu", l->name, line, bad);
    tt_lesson_destroy(l);
    return TT_ERR_FORMAT;
  }
  parser p = {.l = l, .err = err, .text = text, .len = len};
  tt_status st = parse_header(&p);
  if (!st) st = parse_steps(&p);
  if (st) {
    tt_lesson_destroy(l);
    return st;
  }
  *out = l;
  return TT_OK;
}

tt_status tt_lesson_load(const char *path, tt_lesson **out, tt_error *err) {
  char *text;
  size_t len;
  tt_status st = tt_read_file(path, &text, &len, err);
  if (st) return st;
  st = tt_lesson_parse(text, len, path, out, err);
  free(text);
  if (st) return st;
  // Default traces folder: <folder of path>/../traces
  const char *slash = strrchr(path, '/');
  size_t n = slash ? (size_t)(slash - path) : 0;
  char *dir = tt_arena_alloc((*out)->arena, n + 16, 1);
  if (!dir) {
    tt_lesson_destroy(*out);
    *out = NULL;
    return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  }
  if (slash)
    snprintf(dir, n + 16, "%.*s/../traces", (int)n, path);
  else
    snprintf(dir, n + 16, "../traces");
  (*out)->traces_dir = dir;
  return TT_OK;
}

void tt_lesson_destroy(tt_lesson *l) {
  if (!l) return;
  free(l->traces);
  free(l->steps);
  tt_lesson_derived_destroy(l->derived);
  tt_arena_destroy(l->arena);
  free(l);
}

const char *tt_lesson_title(const tt_lesson *l) {
  return l->title;
}
const char *tt_lesson_lang(const tt_lesson *l) {
  return l->lang;
}
const char *tt_lesson_model(const tt_lesson *l) {
  return l->model;
}
const char *tt_lesson_name(const tt_lesson *l) {
  return l->name;
}
int tt_lesson_n_traces(const tt_lesson *l) {
  return l->n_traces;
}
const tt_lesson_trace *tt_lesson_trace_at(const tt_lesson *l, int i) {
  return i >= 0 && i < l->n_traces ? &l->traces[i] : NULL;
}
int tt_lesson_n_steps(const tt_lesson *l) {
  return l->n_steps;
}
const tt_lesson_step *tt_lesson_step_at(const tt_lesson *l, int i) {
  return i >= 0 && i < l->n_steps ? &l->steps[i] : NULL;
}

int tt_lesson_find_trace(const tt_lesson *l, const char *name) {
  for (int i = 0; i < l->n_traces; i++)
    if (strcmp(l->traces[i].name, name) == 0) return i;
  return -1;
}

tt_status tt_lesson_trace_path(const tt_lesson *l, int i, const char *traces_dir, char *buf, size_t len,
                               tt_error *err) {
  if (i < 0 || i >= l->n_traces) return tt_fail(err, TT_ERR_ARG, "%s: no trace %d", l->name, i);
  const char *dir = traces_dir ? traces_dir : l->traces_dir;
  int n = *dir ? snprintf(buf, len, "%s/%s", dir, l->traces[i].file) : snprintf(buf, len, "%s", l->traces[i].file);
  if (n < 0 || (size_t)n >= len) return tt_fail(err, TT_ERR_ARG, "%s: trace path too long", l->name);
  return TT_OK;
}

static bool same_list(const char **a, int na, const char **b, int nb) {
  if (na != nb) return false;
  for (int i = 0; i < na; i++)
    if (strcmp(a[i], b[i]) != 0) return false;
  return true;
}

bool tt_lesson_trace_same(const tt_lesson_trace *a, const tt_lesson_trace *b) {
  return strcmp(a->prompt, b->prompt) == 0 && same_list(a->set, a->n_set, b->set, b->n_set) &&
         same_list(a->record, a->n_record, b->record, b->n_record) && a->grad == b->grad && !a->train == !b->train &&
         (!a->train || strcmp(a->train, b->train) == 0) && a->steps == b->steps && !a->model == !b->model &&
         (!a->model || strcmp(a->model, b->model) == 0);
}
