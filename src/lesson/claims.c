// claims: a step's check: lines, so what the narration says about the numbers ("this head
// puts almost all its weight on 'The'") is tested against the traces, not only quoted.
#include <stdlib.h>
#include <string.h>

#include "lesson_internal.h"

static const char *const ops[] = {" <= ", " >= ", " == ", " != ", " < ", " > "};

bool tt_claim_split(const char *claim, char *a, size_t na, char *op, char *b, size_t nb) {
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
    const char *at = strstr(claim, ops[i]);
    if (!at) continue;
    size_t la = (size_t)(at - claim), lo = strlen(ops[i]);
    const char *rest = at + lo;
    if (la >= na || strlen(rest) >= nb) return false;
    memcpy(a, claim, la);
    a[la] = 0;
    snprintf(op, 3, "%.*s", (int)(lo - 2), ops[i] + 1);
    strcpy(b, rest);
    return true;
  }
  return false;
}

static bool is_number(const char *s, double *v) {
  char *end;
  *v = strtod(s, &end);
  return end != s && *end == 0;
}

// One side's syntax: a number, or a placeholder body giving a number (no format).
static tt_status side_syntax(const tt_lesson *l, const char *side, tt_error *err) {
  double v;
  if (is_number(side, &v)) return TT_OK;
  tt_placeholder ph;
  tt_status st = tt_placeholder_parse(side, strlen(side), &ph, err);
  if (st) return st;
  if (ph.fmt[0]) return tt_fail(err, TT_ERR_FORMAT, "'%s': a check compares numbers; drop the format", side);
  if (ph.func == TT_PH_TOKEN || ph.func == TT_PH_WORD || ph.func == TT_PH_LIST || ph.func == TT_PH_SHAPE)
    return tt_fail(err, TT_ERR_FORMAT, "'%s' is not a number", side);
  if (ph.trace[0] && tt_lesson_find_trace(l, ph.trace) < 0)
    return tt_fail(err, TT_ERR_FORMAT, "trace '%s' is not defined in the header", ph.trace);
  return TT_OK;
}

tt_status tt_claim_check_syntax(const tt_lesson *l, const char *claim, int line, tt_error *err) {
  char a[256], b[256], op[3];
  if (!tt_claim_split(claim, a, sizeof a, op, b, sizeof b))
    return tt_fail(err, TT_ERR_FORMAT, "%s:%d: check: '%s' should read A OP B with OP one of < <= > >= == != "
                   "(spaces around it)", l->name, line, claim);
  tt_status st = side_syntax(l, a, err);
  if (!st) st = side_syntax(l, b, err);
  if (st) return tt_fail_prefix(err, "%s:%d: check: %s", l->name, line, claim);
  return TT_OK;
}

static tt_status side_value(const tt_lesson *l, int trace, const char *side, int line,
                            const tt_trace *const *traces, double *v, tt_error *err) {
  if (is_number(side, v)) return TT_OK;
  char text[300], *out = NULL;
  snprintf(text, sizeof text, "{{%s %%.17g}}", side);
  tt_status st = tt_lesson_fill(l, trace, text, line, traces, NULL, NULL, &out, err);
  if (st) return st;
  bool ok = is_number(out, v);
  free(out);
  return ok ? TT_OK : tt_fail(err, TT_ERR_FORMAT, "%s:%d: check: '%s' is not a number", l->name, line, side);
}

tt_status tt_lesson_check_claims(const tt_lesson *l, int step, const tt_trace *const *traces, tt_error *err) {
  const tt_lesson_step *st = tt_lesson_step_at(l, step);
  if (!st) return tt_fail(err, TT_ERR_ARG, "%s: no step %d", l->name, step + 1);
  for (int i = 0; i < st->n_checks; i++) {
    char a[256], b[256], op[3];
    int line = st->check_lines[i];
    tt_claim_split(st->checks[i], a, sizeof a, op, b, sizeof b);
    double x, y;
    tt_status s = side_value(l, st->trace, a, line, traces, &x, err);
    if (!s) s = side_value(l, st->trace, b, line, traces, &y, err);
    if (s) return s;
    bool holds = strcmp(op, "<") == 0    ? x < y
                 : strcmp(op, "<=") == 0 ? x <= y
                 : strcmp(op, ">") == 0  ? x > y
                 : strcmp(op, ">=") == 0 ? x >= y
                 : strcmp(op, "==") == 0 ? x == y
                                         : x != y;
    if (!holds)
      return tt_fail(err, TT_ERR_ARG, "%s:%d: check failed: %s (%.6g %s %.6g is false)", l->name, line,
                     st->checks[i], x, op, y);
  }
  return TT_OK;
}
