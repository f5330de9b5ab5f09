// claims: a step's check: lines, so what the narration says about the numbers ("this head
// puts almost all its weight on 'The'") is tested against the traces, not only quoted.
//
// A claim is "A OP B". A side is a number, a placeholder body ("max x[1]"), or an
// expression: numbers, {{placeholders}}, + - * / ^, parentheses, pi, and the functions
// exp log sqrt abs sin cos (element by element) and max min sum mean (to one number). A {{...}}
// without a function stands for every value of its slice, so one claim can speak of a
// whole row; a comparison of two slices holds when it holds element by element.
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lesson_internal.h"

static const char *const ops[] = {" <= ", " >= ", " == ", " != ", " ~= ", " < ", " > "};

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

// ---- values: one number, or the values of a slice --------------------------------------
typedef struct {
  double *v;
  int64_t n;
} vec;

static bool vec_make(vec *x, int64_t n) {
  x->v = calloc((size_t)(n > 0 ? n : 1), sizeof *x->v);
  x->n = n;
  return x->v != NULL;
}

static void vec_free(vec *x) {
  free(x->v);
  x->v = NULL;
}

// What an expression is evaluated against; traces NULL: syntax only (every value is 1).
typedef struct {
  const tt_lesson *l;
  int trace;
  const tt_trace *const *traces;
  int line;
  const char *s;  // the cursor
  tt_error *err;
} expr_ctx;

static tt_status bad(expr_ctx *c, const char *what) {
  return tt_fail(c->err, TT_ERR_FORMAT, "%s at '%.20s'", what, c->s);
}

static void skip(expr_ctx *c) {
  while (*c->s == ' ') c->s++;
}

// A placeholder body: its value (a named function), or its slice (none).
static tt_status placeholder_value(expr_ctx *c, const char *body, size_t n, vec *out) {
  tt_placeholder ph;
  tt_status st = tt_placeholder_parse(body, n, &ph, c->err);
  if (st) return st;
  if (ph.fmt[0])
    return tt_fail(c->err, TT_ERR_FORMAT, "'%.*s': a check compares numbers; drop the format", (int)n, body);
  if (ph.func == TT_PH_TOKEN || ph.func == TT_PH_WORD || ph.func == TT_PH_LIST || ph.func == TT_PH_SHAPE ||
      ph.func == TT_PH_LENS_WORD || ph.func == TT_PH_NEAR_WORD)
    return tt_fail(c->err, TT_ERR_FORMAT, "'%.*s' is not a number", (int)n, body);
  int ti = ph.trace[0] ? tt_lesson_find_trace(c->l, ph.trace) : c->trace;
  if (ti < 0) return tt_fail(c->err, TT_ERR_FORMAT, "trace '%s' is not defined in the header", ph.trace);
  if (!c->traces) {
    if (!vec_make(out, 1)) return tt_fail(c->err, TT_ERR_NOMEM, "out of memory");
    out->v[0] = 1;
    return TT_OK;
  }
  if (ph.func == TT_PH_VALUE) {
    tt_slice sl;
    if (!tt_trace_find(c->traces[ti], ph.ref))
      return tt_fail(c->err, TT_ERR_FORMAT, "trace '%s' has no tensor %s", c->l->traces[ti].name, ph.ref);
    st = tt_lesson_slice(&ph, c->traces[ti], &sl, c->err);
    if (st) return st;
    out->v = sl.v;
    out->n = sl.n;
    return TT_OK;
  }
  char text[300], *filled = NULL;
  snprintf(text, sizeof text, "{{%.*s %%.17g}}", (int)n, body);
  st = tt_lesson_fill(c->l, c->trace, text, c->line, c->traces, NULL, NULL, &filled, c->err);
  if (st) return st;
  double v;
  bool ok = is_number(filled, &v);
  free(filled);
  if (!ok) return tt_fail(c->err, TT_ERR_FORMAT, "'%.*s' is not a number", (int)n, body);
  if (!vec_make(out, 1)) return tt_fail(c->err, TT_ERR_NOMEM, "out of memory");
  out->v[0] = v;
  return TT_OK;
}

// a OP b element by element; a number meets every element of a slice.
static tt_status combine(expr_ctx *c, char op, vec *a, vec *b) {
  if (a->n != b->n && a->n != 1 && b->n != 1) {
    tt_status st =
        tt_fail(c->err, TT_ERR_FORMAT, "slices of %lld and %lld values do not match", (long long)a->n, (long long)b->n);
    vec_free(a), vec_free(b);
    return st;
  }
  if (a->n == 1 && b->n > 1) {
    vec t = *a;
    *a = *b;
    *b = t;
    for (int64_t i = 0; i < a->n; i++) {
      double x = b->v[0], y = a->v[i];
      a->v[i] = op == '+' ? x + y : op == '-' ? x - y : op == '*' ? x * y : op == '/' ? x / y : pow(x, y);
    }
  } else {
    for (int64_t i = 0; i < a->n; i++) {
      double x = a->v[i], y = b->v[b->n == 1 ? 0 : i];
      a->v[i] = op == '+' ? x + y : op == '-' ? x - y : op == '*' ? x * y : op == '/' ? x / y : pow(x, y);
    }
  }
  vec_free(b);
  return TT_OK;
}

static tt_status parse_sum(expr_ctx *c, vec *out);

// name(args): element functions take one argument; reductions any number of them.
static tt_status call(expr_ctx *c, const char *name, size_t len, vec *out) {
  static const char *const elementwise[] = {"exp", "log", "sqrt", "abs", "sin", "cos"};
  static const char *const reductions[] = {"max", "min", "sum", "mean"};
  int fe = -1, fr = -1;
  for (int i = 0; i < 6; i++)
    if (strlen(elementwise[i]) == len && strncmp(name, elementwise[i], len) == 0) fe = i;
  for (int i = 0; i < 4; i++)
    if (strlen(reductions[i]) == len && strncmp(name, reductions[i], len) == 0) fr = i;
  if (fe < 0 && fr < 0) return bad(c, "unknown function (exp log sqrt abs sin cos max min sum mean)");
  c->s++;  // '('
  double acc = fr == 0 ? -INFINITY : fr == 1 ? INFINITY : 0;
  int64_t count = 0;
  for (;;) {
    vec x;
    tt_status st = parse_sum(c, &x);
    if (st) return st;
    if (fe >= 0) {
      for (int64_t i = 0; i < x.n; i++)
        x.v[i] = fe == 0   ? exp(x.v[i])
                 : fe == 1 ? log(x.v[i])
                 : fe == 2 ? sqrt(x.v[i])
                 : fe == 3 ? fabs(x.v[i])
                 : fe == 4 ? sin(x.v[i])
                           : cos(x.v[i]);
      *out = x;
    } else {
      for (int64_t i = 0; i < x.n; i++, count++)
        acc = fr == 0 ? fmax(acc, x.v[i]) : fr == 1 ? fmin(acc, x.v[i]) : acc + x.v[i];
      vec_free(&x);
    }
    skip(c);
    if (*c->s == ')') break;
    if (fe >= 0) {  // out holds the one argument: freed before any second one is read
      vec_free(out);
      return bad(c, *c->s == ',' ? "one argument expected" : "expected ')'");
    }
    if (*c->s != ',') return bad(c, "expected ',' or ')'");
    c->s++;
  }
  c->s++;
  if (fr >= 0) {
    if (!vec_make(out, 1)) return tt_fail(c->err, TT_ERR_NOMEM, "out of memory");
    out->v[0] = fr == 3 ? acc / (double)count : acc;
  }
  return TT_OK;
}

static tt_status parse_atom(expr_ctx *c, vec *out) {
  skip(c);
  const char *s = c->s;
  if (s[0] == '{' && s[1] == '{') {
    const char *close = strstr(s + 2, "}}");
    if (!close) return bad(c, "'{{' is not closed");
    c->s = close + 2;
    return placeholder_value(c, s + 2, (size_t)(close - s - 2), out);
  }
  if (*s == '(') {
    c->s++;
    tt_status st = parse_sum(c, out);
    if (st) return st;
    skip(c);
    if (*c->s != ')') return vec_free(out), bad(c, "expected ')'");
    c->s++;
    return TT_OK;
  }
  if (isalpha((unsigned char)*s)) {
    size_t len = 0;
    while (isalpha((unsigned char)s[len])) len++;
    c->s += len;
    if (*c->s == '(') return call(c, s, len, out);
    if (len != 2 || strncmp(s, "pi", 2) != 0) return c->s = s, bad(c, "unknown name (pi, or a function call)");
    if (!vec_make(out, 1)) return tt_fail(c->err, TT_ERR_NOMEM, "out of memory");
    out->v[0] = 3.14159265358979323846;
    return TT_OK;
  }
  char *end;
  double v = strtod(s, &end);
  if (end == s) return bad(c, "expected a number, {{...}}, '(' or a function");
  c->s = end;
  if (!vec_make(out, 1)) return tt_fail(c->err, TT_ERR_NOMEM, "out of memory");
  out->v[0] = v;
  return TT_OK;
}

static tt_status parse_power(expr_ctx *c, vec *out) {
  skip(c);
  if (*c->s == '-') {  // unary minus binds looser than ^: -2^2 = -4
    c->s++;
    tt_status st = parse_power(c, out);
    for (int64_t i = 0; !st && i < out->n; i++) out->v[i] = -out->v[i];
    return st;
  }
  tt_status st = parse_atom(c, out);
  if (st) return st;
  skip(c);
  if (*c->s != '^') return TT_OK;
  c->s++;
  vec e;
  st = parse_power(c, &e);
  if (st) return vec_free(out), st;
  return combine(c, '^', out, &e);
}

static tt_status parse_product(expr_ctx *c, vec *out) {
  tt_status st = parse_power(c, out);
  while (!st) {
    skip(c);
    char op = *c->s;
    if (op != '*' && op != '/') break;
    c->s++;
    vec r;
    st = parse_power(c, &r);
    if (st) return vec_free(out), st;
    st = combine(c, op, out, &r);
  }
  return st;
}

static tt_status parse_sum(expr_ctx *c, vec *out) {
  tt_status st = parse_product(c, out);
  while (!st) {
    skip(c);
    char op = *c->s;
    if (op != '+' && op != '-') break;
    c->s++;
    vec r;
    st = parse_product(c, &r);
    if (st) return vec_free(out), st;
    st = combine(c, op, out, &r);
  }
  return st;
}

// One side of a claim. A side that reads as a single placeholder body keeps that meaning
// ("max x[1]", "x[0,2]"); anything else is an expression.
static tt_status side_value(const tt_lesson *l, int trace, const char *side, int line, const tt_trace *const *traces,
                            vec *out, tt_error *err) {
  double v;
  expr_ctx c = {.l = l, .trace = trace, .traces = traces, .line = line, .s = side, .err = err};
  if (is_number(side, &v)) {
    if (!vec_make(out, 1)) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
    out->v[0] = v;
    return TT_OK;
  }
  tt_placeholder ph;
  tt_error ignored;
  if (!strchr(side, '{') && tt_placeholder_parse(side, strlen(side), &ph, &ignored) == TT_OK)
    return placeholder_value(&c, side, strlen(side), out);
  tt_status st = parse_sum(&c, out);
  if (st) return st;
  skip(&c);
  if (*c.s) return vec_free(out), bad(&c, "unexpected text");
  return TT_OK;
}

tt_status tt_claim_check_syntax(const tt_lesson *l, const char *claim, int line, tt_error *err) {
  char a[512], b[512], op[3];
  if (!tt_claim_split(claim, a, sizeof a, op, b, sizeof b))
    return tt_fail(err, TT_ERR_FORMAT,
                   "%s:%d: check: '%s' should read A OP B with OP one of < <= > >= == != ~= "
                   "(spaces around it)",
                   l->name, line, claim);
  double v;
  if (strcmp(op, "~=") == 0 && (!is_number(b, &v) || strpbrk(b, "eE")))
    return tt_fail(err, TT_ERR_FORMAT, "%s:%d: check: %s: the right side of ~= is a number as printed (0.84)", l->name,
                   line, claim);
  vec x = {0}, y = {0};
  tt_status st = side_value(l, 0, a, line, NULL, &x, err);
  if (!st) st = side_value(l, 0, b, line, NULL, &y, err);
  vec_free(&x), vec_free(&y);
  if (st) return tt_fail_prefix(err, "%s:%d: check: %s", l->name, line, claim);
  return TT_OK;
}

// Half a unit in the last written digit of a decimal number ("0.84" → 0.005).
static double half_unit(const char *num) {
  const char *dot = strchr(num, '.');
  int digits = dot ? (int)strspn(dot + 1, "0123456789") : 0;
  return 0.5 * pow(10, -digits);
}

static bool holds(const char *op, double x, double y, double tol) {
  return strcmp(op, "<") == 0    ? x < y
         : strcmp(op, "<=") == 0 ? x <= y
         : strcmp(op, ">") == 0  ? x > y
         : strcmp(op, ">=") == 0 ? x >= y
         : strcmp(op, "==") == 0 ? x == y
         : strcmp(op, "!=") == 0 ? x != y
                                 : fabs(x - y) <= tol * (1 + 1e-9);
}

tt_status tt_lesson_check_claims(const tt_lesson *l, int step, const tt_trace *const *traces, tt_error *err) {
  const tt_lesson_step *st = tt_lesson_step_at(l, step);
  if (!st) return tt_fail(err, TT_ERR_ARG, "%s: no step %d", l->name, step + 1);
  for (int i = 0; i < st->n_checks; i++) {
    char a[512], b[512], op[3];
    int line = st->check_lines[i];
    tt_claim_split(st->checks[i], a, sizeof a, op, b, sizeof b);
    vec x = {0}, y = {0};
    tt_status s = side_value(l, st->trace, a, line, traces, &x, err);
    if (!s) s = side_value(l, st->trace, b, line, traces, &y, err);
    if (!s && x.n != y.n && x.n != 1 && y.n != 1)
      s = tt_fail(err, TT_ERR_FORMAT, "slices of %lld and %lld values do not match", (long long)x.n, (long long)y.n);
    if (s) {
      vec_free(&x), vec_free(&y);
      return tt_fail_prefix(err, "%s:%d: check: %s", l->name, line, st->checks[i]);
    }
    double tol = strcmp(op, "~=") == 0 ? half_unit(b) : 0;
    int64_t n = x.n > y.n ? x.n : y.n, bad_at = -1;
    for (int64_t k = 0; k < n && bad_at < 0; k++)
      if (!holds(op, x.v[x.n == 1 ? 0 : k], y.v[y.n == 1 ? 0 : k], tol)) bad_at = k;
    if (bad_at >= 0) {
      double xv = x.v[x.n == 1 ? 0 : bad_at], yv = y.v[y.n == 1 ? 0 : bad_at];
      vec_free(&x), vec_free(&y);
      if (n > 1)
        return tt_fail(err, TT_ERR_ARG, "%s:%d: check failed: %s (element %lld: %.6g %s %.6g is false)", l->name, line,
                       st->checks[i], (long long)bad_at, xv, op, yv);
      return tt_fail(err, TT_ERR_ARG, "%s:%d: check failed: %s (%.6g %s %.6g is false)", l->name, line, st->checks[i],
                     xv, op, yv);
    }
    vec_free(&x), vec_free(&y);
  }
  return TT_OK;
}
