// verify: the checks behind `ttrace lesson --check` that are not about one step: a saved
// trace still matches its definition, and two language versions of a lesson are twins.
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "lesson_internal.h"

const tt_tensor *tt_lesson_sibling(const tt_trace *tr, const char *name, const char *last) {
  const char *dot = strrchr(name, '.');
  int keep = dot ? (int)(dot - name + 1) : 0;
  char buf[256];
  snprintf(buf, sizeof buf, "%.*s%s", keep, name, last);
  return tt_trace_find(tr, buf);
}

// Every knob the definition sets is what the trace's config says.
static bool knobs_match(const tt_lesson_trace *def, const tt_trace *tr, char *why, size_t len) {
  tt_config cfg;
  if (!tt_trace_config(tr, &cfg)) return snprintf(why, len, "no config in its metadata"), false;
  char *have = tt_config_to_json(&cfg);
  bool ok = have != NULL;
  for (int i = 0; ok && i < def->n_set; i++) {
    const char *eq = strchr(def->set[i], '=');
    char key[64];
    snprintf(key, sizeof key, "%.*s", (int)(eq - def->set[i]), def->set[i]);
    tt_config want = cfg;
    if (tt_config_set(&want, key, eq + 1, NULL)) {
      snprintf(why, len, "unknown knob %s", def->set[i]);
      ok = false;
      break;
    }
    char *after = tt_config_to_json(&want);
    ok = after && strcmp(after, have) == 0;
    if (!ok) snprintf(why, len, "it was made without set=%s", def->set[i]);
    free(after);
  }
  free(have);
  return ok;
}

static bool record_matches(const tt_lesson_trace *def, const tt_trace *tr) {
  const char *meta = tt_trace_meta(tr, "record");
  json_t *rec = json_loads(meta ? meta : "[]", 0, NULL);
  bool ok = rec && json_is_array(rec) && json_array_size(rec) == (size_t)def->n_record;
  for (int i = 0; ok && i < def->n_record; i++) {
    const char *s = json_string_value(json_array_get(rec, (size_t)i));
    ok = s && strcmp(s, def->record[i]) == 0;
  }
  json_decref(rec);
  return ok;
}

// grad=: the trace holds gradients exactly when asked; train=: its "trained" metadata is the
// definition's ("lr=0.5 steps=1"), and only then.
const char *tt_lesson_training(const tt_lesson_trace *t, char *buf, size_t len) {
  if (t->train)
    snprintf(buf, len, "lr=%s steps=%ld", t->train, t->steps);
  else
    snprintf(buf, len, "%s", "");
  return buf;
}

static bool training_matches(const tt_lesson_trace *def, const tt_trace *tr) {
  bool has_grad = false;
  for (size_t i = 0; i < tt_trace_count(tr) && !has_grad; i++)
    has_grad = strncmp(tt_trace_get(tr, i)->name, "grad.", 5) == 0;
  const char *trained = tt_trace_meta(tr, "trained");
  char want[96];
  tt_lesson_training(def, want, sizeof want);
  return has_grad == def->grad && (def->train ? trained && strcmp(trained, want) == 0 : !trained);
}

// model=NAME: the trace was made with the folder NAME (the last part of its "model" metadata).
static bool model_matches(const tt_lesson_trace *def, const tt_trace *tr) {
  if (!def->model) return true;
  const char *m = tt_trace_meta(tr, "model");
  if (!m) return false;
  size_t n = strlen(m);
  while (n > 0 && m[n - 1] == '/') n--;
  size_t k = strlen(def->model);
  return n >= k && strncmp(m + n - k, def->model, k) == 0 && (n == k || m[n - k - 1] == '/');
}

tt_status tt_lesson_verify_trace(const tt_lesson *l, int i, const tt_trace *tr, tt_error *err) {
  const tt_lesson_trace *def = tt_lesson_trace_at(l, i);
  const char *prompt = tt_trace_meta(tr, "prompt");
  char why[256] = "";
  if (!prompt || strcmp(prompt, def->prompt) != 0)
    snprintf(why, sizeof why, "its prompt is \"%s\"", prompt ? prompt : "?");
  else if (!record_matches(def, tr))
    snprintf(why, sizeof why, "its record globs are %s",
             tt_trace_meta(tr, "record") ? tt_trace_meta(tr, "record") : "[]");
  else if (!training_matches(def, tr))
    snprintf(why, sizeof why, "it was made %s gradients, from %s", def->grad ? "without" : "with",
             tt_trace_meta(tr, "trained") ? tt_trace_meta(tr, "trained") : "the model itself");
  else if (!model_matches(def, tr))
    snprintf(why, sizeof why, "it was made with the model %s, not %s",
             tt_trace_meta(tr, "model") ? tt_trace_meta(tr, "model") : "?", def->model);
  else
    knobs_match(def, tr, why, sizeof why);
  if (why[0])
    return tt_fail(err, TT_ERR_FORMAT,
                   "%s:%d: trace '%s' (%s) does not match its definition: %s; run `ttrace lesson --make-traces`",
                   l->name, def->line, def->name, def->file, why);
  return TT_OK;
}

static bool same_step(const tt_lesson_step *x, const tt_lesson_step *y) {
  if (strcmp(x->hook, y->hook) || x->layer != y->layer || x->head != y->head || x->row != y->row ||
      strcmp(x->view, y->view) || x->trace != y->trace || x->compare != y->compare ||
      x->temperature != y->temperature || x->n_checks != y->n_checks)
    return false;
  for (int k = 0; k < x->n_checks; k++)
    if (strcmp(x->checks[k], y->checks[k]) != 0) return false;
  return true;
}

tt_status tt_lesson_verify_twins(const tt_lesson *a, const tt_lesson *b, tt_error *err) {
  if (a->n_traces != b->n_traces)
    return tt_fail(err, TT_ERR_FORMAT, "%s and %s define %d and %d traces", a->name, b->name, a->n_traces, b->n_traces);
  for (int i = 0; i < a->n_traces; i++) {
    const tt_lesson_trace *x = &a->traces[i], *y = &b->traces[i];
    if (strcmp(x->name, y->name) || strcmp(x->file, y->file) || !tt_lesson_trace_same(x, y))
      return tt_fail(err, TT_ERR_FORMAT, "%s:%d and %s:%d: trace %d differs", a->name, x->line, b->name, y->line,
                     i + 1);
  }
  if (a->n_steps != b->n_steps)
    return tt_fail(err, TT_ERR_FORMAT, "%s and %s have %d and %d steps", a->name, b->name, a->n_steps, b->n_steps);
  for (int i = 0; i < a->n_steps; i++)
    if (!same_step(&a->steps[i], &b->steps[i]))
      return tt_fail(err, TT_ERR_FORMAT, "%s:%d and %s:%d: step %d shows or checks different things", a->name,
                     a->steps[i].line, b->name, b->steps[i].line, i + 1);
  return TT_OK;
}
