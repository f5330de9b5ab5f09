// ttrace diff: compare two traces hook by hook (max abs and relative difference).
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "trace_arg.h"
#include "trace/hooks.h"
#include "trace/trace.h"

static const char usage[] =
    "usage: ttrace diff [OPTIONS] A.safetensors B.safetensors [GLOB]\n"
    "\n"
    "Compares two traces tensor by tensor: for every hook both hold (or those matching GLOB,\n"
    "e.g. 'blocks.*.attn.hook_pattern') its shape, max|A|, max|A-B| and the relative\n"
    "difference max|A-B| / max|A|; then the hooks only one of them holds. Tensors of\n"
    "different shapes (prompts of different lengths) are named, not compared.\n"
    "Masked entries (-inf in both) count as equal; entries finite on one side only (masked\n"
    "in one trace, not the other) are counted apart, not subtracted; max|A| and max|A-B|\n"
    "are over finite entries. Any dtype is compared by value.\n"
    "\n"
    "  --permute P   compare A's token i with B's token P[i] on every token axis, e.g.\n"
    "                --permute 2,1,0 for ' dog bites man' against ' man bites dog'\n"
    "                (hook_loss, whose positions are next-token targets, is skipped)\n"
    "  --tol R       exit 1 when a compared tensor differs by more than R x max(1, max|A|),\n"
    "                or has entries masked on one side only, or shapes differ, or a hook\n"
    "                is in one trace only (for tests and CI)\n"
    "  --quiet       with --tol: print only the tensors beyond the tolerance\n"
    "  --shared      with --tol: hooks in one trace only are listed, not counted (for a trace\n"
    "                made by `ttrace import`, which holds the hooks the other tool saved)\n"
    "With --tol, the first compared tensor beyond it, in the order A recorded them (the order\n"
    "they were computed), is named: where the two computations part.\n"
    "\n"
    "Exit status: 0 (also when the traces differ), 1 only with --tol as above.\n";

#define MAX_T 4096

typedef struct {
  int perm[MAX_T];
  int n;  // 0: no permutation
} permutation;

static bool parse_perm(const char *s, permutation *p) {
  p->n = 0;
  while (*s) {
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || v < 0 || v >= MAX_T || p->n == MAX_T) return false;
    p->perm[p->n++] = (int)v;
    s = end;
    if (*s == ',')
      s++;
    else if (*s)
      return false;
  }
  // Must be a permutation of 0..n-1.
  bool seen[MAX_T] = {false};
  for (int i = 0; i < p->n; i++) {
    if (p->perm[i] >= p->n || seen[p->perm[i]]) return false;
    seen[p->perm[i]] = true;
  }
  return p->n > 0;
}

typedef struct {
  const tt_tensor *t;
  const bool *is_T;
  const permutation *p;
} b_map;

// Index into B for A's flat index i: token axes (letters "T") mapped through the permutation.
static int64_t b_index(void *ctx, int64_t i) {
  const b_map *m = ctx;
  const tt_tensor *t = m->t;
  int64_t idx[TT_MAX_DIMS], rest = i;
  for (int d = t->ndim - 1; d >= 0; d--) {
    idx[d] = rest % t->shape[d];
    rest /= t->shape[d];
  }
  int64_t out = 0;
  for (int d = 0; d < t->ndim; d++) out = out * t->shape[d] + (m->is_T[d] ? m->p->perm[idx[d]] : idx[d]);
  return out;
}

// Which axes of a hook are token axes, from the hook catalogue. Returns false for hooks
// whose positions are not tokens (hook_loss: T-1, decode steps) or that the catalogue lacks.
static bool token_axes(const tt_tensor *t, bool *is_T) {
  tt_hook_ref ref;
  if (!tt_hook_lookup(t->name, &ref) || ref.decode >= 0) return false;
  const char *axes = ref.def->axes;
  int d = 0;
  for (const char *s = axes; *s && d < TT_MAX_DIMS; d++) {
    const char *comma = strchr(s, ',');
    size_t len = comma ? (size_t)(comma - s) : strlen(s);
    if (len == 3 && strncmp(s, "T-1", 3) == 0) return false;
    is_T[d] = len == 1 && *s == 'T';
    s = comma ? comma + 1 : s + len;
  }
  return d == t->ndim;
}

static void describe(const char *label, const char *path, const tt_trace *tr) {
  const char *prompt = tt_trace_meta(tr, "prompt"), *variant = tt_trace_meta(tr, "variant");
  char count[32];
  printf("%s: %s  \"%s\"  (%s)", label, path, prompt ? prompt : "?",
         tt_cli_count(count, sizeof count, tt_trace_n_tokens(tr), "token", "tokens"));
  if (variant && strcmp(variant, "{}") != 0) printf("  variant %s", variant);
  printf("\n");
}

typedef struct {
  permutation *perm;
  double tol;  // < 0: no --tol
  bool quiet, shared_only;
  const char *path_a, *path_b, *glob;
} diff_options;

// What the comparison found, for the summary and the exit status.
typedef struct {
  int shared, identical, bad, only_a, only_b;
  double worst_rel;
  const char *worst, *first_beyond;  // in A's order: the order the engine computed
} diff_tally;

// Fills o from argv. Returns true to go on comparing; false with *code the exit status
// (0 after --help).
static bool parse_options(int argc, char **argv, diff_options *o, int *code) {
  static const struct option longs[] = {{"permute", required_argument, 0, 'p'}, {"tol", required_argument, 0, 't'},
                                        {"quiet", no_argument, 0, 'q'},         {"shared", no_argument, 0, 's'},
                                        {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
  o->perm->n = 0;
  o->tol = -1;
  o->quiet = o->shared_only = false;
  int c;
  optind = 1;
  *code = 0;
  while ((c = getopt_long(argc, argv, ":h", longs, NULL)) != -1) {
    switch (c) {
    case 'p':
      if (!parse_perm(optarg, o->perm))
        *code = tt_cli_usage_error("diff", "--permute '%s' is not a permutation of 0..T-1 such as 2,1,0", optarg);
      break;
    case 't': {
      char *end;
      o->tol = strtod(optarg, &end);
      if (*end || !(o->tol >= 0)) *code = tt_cli_usage_error("diff", "--tol '%s' should be a number >= 0", optarg);
      break;
    }
    case 'q':
      o->quiet = true;
      break;
    case 's':
      o->shared_only = true;
      break;
    case 'h':
      fputs(usage, stdout);
      return false;
    default:
      *code = tt_cli_option_error("diff", c, argv);
    }
    if (*code) return false;
  }
  int nargs = argc - optind;
  if (nargs < 2) *code = tt_cli_usage_error("diff", "need two trace files");
  if (nargs > 3) *code = tt_cli_usage_error("diff", "too many arguments");
  if (*code) return false;
  o->path_a = argv[optind], o->path_b = argv[optind + 1], o->glob = nargs == 3 ? argv[optind + 2] : "*";
  return true;
}

static void print_header(const diff_options *o, const tt_trace *a, const tt_trace *b) {
  describe("A", o->path_a, a);
  describe("B", o->path_b, b);
  if (o->perm->n) {
    printf("permutation: A token i against B token P[i], P =");
    for (int i = 0; i < o->perm->n; i++) printf(" %d", o->perm->perm[i]);
    printf("\n");
  }
  printf("\n%-40s %-16s %11s %11s %11s\n", "hook", "shape", "max|A|", "max|A-B|", "rel");
}

// One hook both traces hold: its line and its share of the tally.
static void compare_tensor(const tt_tensor *ta, const tt_tensor *tb, const diff_options *o, bool print_all,
                           diff_tally *t) {
  double tol = o->tol;
  char sa[64], sb[64];
  tt_shape_str(ta->shape, ta->ndim, sa, sizeof sa);
  tt_shape_str(tb->shape, tb->ndim, sb, sizeof sb);
  if (strcmp(sa, sb) != 0) {
    t->bad += tol >= 0;
    printf("%-40s %-16s shapes differ: B is %s\n", ta->name, sa, sb);
    return;
  }
  bool is_T[TT_MAX_DIMS] = {false};
  if (o->perm->n && !token_axes(ta, is_T)) {
    if (print_all) printf("%-40s %-16s skipped: its positions do not permute with the tokens\n", ta->name, sa);
    return;
  }
  tt_diff_stats r;
  b_map map = {ta, is_T, o->perm};
  tt_diff_tensors(ta, tb, o->perm->n ? b_index : NULL, &map, &r);
  double rel = tt_diff_relative(&r);
  int64_t unmatched = r.n_one_sided + r.n_nonfinite;
  bool beyond = tol >= 0 && (r.max_diff > tol * (r.max_abs_a > 1 ? r.max_abs_a : 1) || unmatched);
  t->bad += beyond;
  if (beyond && !t->first_beyond) t->first_beyond = ta->name;
  t->identical += tt_diff_identical(&r);
  if (!t->worst || rel > t->worst_rel) t->worst_rel = rel, t->worst = ta->name;
  if (print_all || beyond) {
    printf("%-40s %-16s %11.4e %11.4e %11.4e", ta->name, sa, r.max_abs_a, r.max_diff, rel);
    if (r.n_one_sided) printf("  %lld masked on one side only", (long long)r.n_one_sided);
    if (r.n_nonfinite) printf("  %lld NaN or opposite infinities", (long long)r.n_nonfinite);
    printf("%s\n", beyond ? "  beyond tolerance" : "");
  }
}

// Every hook of A matching the glob, in A's order; counts those B lacks.
static void compare_shared(const tt_trace *a, const tt_trace *b, const diff_options *o, bool print_all, diff_tally *t) {
  for (size_t i = 0; i < tt_trace_count(a); i++) {
    const tt_tensor *ta = tt_trace_get(a, i);
    if (!tt_glob_match(o->glob, ta->name)) continue;
    const tt_tensor *tb = tt_trace_find(b, ta->name);
    if (!tb) {
      t->only_a++;
      continue;
    }
    t->shared++;
    compare_tensor(ta, tb, o, print_all, t);
  }
}

// Counts and lists the hooks matching the glob that only one trace holds.
static void list_one_sided(const tt_trace *a, const tt_trace *b, const diff_options *o, diff_tally *t) {
  for (size_t i = 0; i < tt_trace_count(b); i++) {
    const tt_tensor *tb = tt_trace_get(b, i);
    if (tt_glob_match(o->glob, tb->name) && !tt_trace_find(a, tb->name)) t->only_b++;
  }
  if (!t->only_a && !t->only_b) return;
  for (int side = 0; side < 2; side++) {
    const tt_trace *x = side ? b : a, *y = side ? a : b;
    if (!(side ? t->only_b : t->only_a)) continue;
    printf("\nonly in %s:", side ? "B" : "A");
    for (size_t i = 0; i < tt_trace_count(x); i++) {
      const char *name = tt_trace_get(x, i)->name;
      if (tt_glob_match(o->glob, name) && !tt_trace_find(y, name)) printf(" %s", name);
    }
    printf("\n");
  }
  if (o->tol >= 0 && !o->shared_only) t->bad += t->only_a + t->only_b;
}

// The closing lines; returns the exit status (1 only with --tol and a problem).
static int print_summary(const diff_options *o, bool print_all, const diff_tally *t) {
  if (t->shared + t->only_a + t->only_b == 0) printf("no tensor in either trace matches '%s'\n", o->glob);
  if (print_all) {
    char count[32];
    printf("\n%s, %d identical", tt_cli_count(count, sizeof count, t->shared, "shared hook", "shared hooks"),
           t->identical);
    if (t->worst) printf("; largest relative difference %.4e in %s", t->worst_rel, t->worst);
    printf("\n");
  }
  if (o->tol < 0) return 0;
  int bad = t->bad;
  if (t->first_beyond) printf("first hook beyond tolerance, in A's order: %s\n", t->first_beyond);
  printf("%s: %d problem%s at tolerance %g x max(1, max|A|)\n", bad ? "DIFFERENT" : "SAME", bad, bad == 1 ? "" : "s",
         o->tol);
  return bad ? 1 : 0;
}

static int compare_traces(const tt_trace *a, const tt_trace *b, const diff_options *o) {
  int n = o->perm->n;
  if (n && (n != tt_trace_n_tokens(a) || n != tt_trace_n_tokens(b)))
    return tt_cli_usage_error("diff", "--permute has %d entries but the traces have %d and %d tokens", n,
                              tt_trace_n_tokens(a), tt_trace_n_tokens(b));
  bool print_all = !(o->quiet && o->tol >= 0);
  if (print_all) print_header(o, a, b);
  diff_tally t = {0};
  compare_shared(a, b, o, print_all, &t);
  list_one_sided(a, b, o, &t);
  return print_summary(o, print_all, &t);
}

int tt_cmd_diff(int argc, char **argv) {
  static permutation perm;
  diff_options o = {.perm = &perm};
  int code;
  if (!parse_options(argc, argv, &o, &code)) return code;
  tt_error err = {0};
  tt_trace *a = NULL, *b = NULL;
  if (tt_cli_load_trace(o.path_a, &a, &err)) return tt_cli_fail("diff", &err);
  if (tt_cli_load_trace(o.path_b, &b, &err)) {
    tt_trace_destroy(a);
    return tt_cli_fail("diff", &err);
  }
  code = compare_traces(a, b, &o);
  tt_trace_destroy(a);
  tt_trace_destroy(b);
  return code;
}
