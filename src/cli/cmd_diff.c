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

int tt_cmd_diff(int argc, char **argv) {
  static const struct option longs[] = {{"permute", required_argument, 0, 'p'}, {"tol", required_argument, 0, 't'},
                                        {"quiet", no_argument, 0, 'q'},         {"shared", no_argument, 0, 's'},
                                        {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
  static permutation perm;
  perm.n = 0;
  double tol = -1;
  bool quiet = false, shared_only = false;
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, ":h", longs, NULL)) != -1) {
    switch (c) {
    case 'p':
      if (!parse_perm(optarg, &perm))
        return tt_cli_usage_error("diff", "--permute '%s' is not a permutation of 0..T-1 such as 2,1,0", optarg);
      break;
    case 't': {
      char *end;
      tol = strtod(optarg, &end);
      if (*end || !(tol >= 0)) return tt_cli_usage_error("diff", "--tol '%s' should be a number >= 0", optarg);
      break;
    }
    case 'q':
      quiet = true;
      break;
    case 's':
      shared_only = true;
      break;
    case 'h':
      fputs(usage, stdout);
      return 0;
    default:
      return tt_cli_option_error("diff", c, argv);
    }
  }
  int nargs = argc - optind;
  if (nargs < 2) return tt_cli_usage_error("diff", "need two trace files");
  if (nargs > 3) return tt_cli_usage_error("diff", "too many arguments");
  const char *path_a = argv[optind], *path_b = argv[optind + 1], *glob = nargs == 3 ? argv[optind + 2] : "*";
  tt_error err = {0};
  tt_trace *a = NULL, *b = NULL;
  if (tt_cli_load_trace(path_a, &a, &err)) return tt_cli_fail("diff", &err);
  if (tt_cli_load_trace(path_b, &b, &err)) {
    tt_trace_destroy(a);
    return tt_cli_fail("diff", &err);
  }
  int rc = 0;
  if (perm.n && (perm.n != tt_trace_n_tokens(a) || perm.n != tt_trace_n_tokens(b))) {
    rc = tt_cli_usage_error("diff", "--permute has %d entries but the traces have %d and %d tokens", perm.n,
                            tt_trace_n_tokens(a), tt_trace_n_tokens(b));
    goto done;
  }
  bool print_all = !(quiet && tol >= 0);
  if (print_all) {
    describe("A", path_a, a);
    describe("B", path_b, b);
    if (perm.n) {
      printf("permutation: A token i against B token P[i], P =");
      for (int i = 0; i < perm.n; i++) printf(" %d", perm.perm[i]);
      printf("\n");
    }
    printf("\n%-40s %-16s %11s %11s %11s\n", "hook", "shape", "max|A|", "max|A-B|", "rel");
  }
  int shared = 0, identical = 0, bad = 0, only_a = 0, only_b = 0;
  double worst_rel = 0;
  const char *worst = NULL, *first_beyond = NULL;  // in A's order: the order the engine computed
  for (size_t i = 0; i < tt_trace_count(a); i++) {
    const tt_tensor *ta = tt_trace_get(a, i);
    if (!tt_glob_match(glob, ta->name)) continue;
    const tt_tensor *tb = tt_trace_find(b, ta->name);
    if (!tb) {
      only_a++;
      continue;
    }
    shared++;
    char sa[64], sb[64];
    tt_shape_str(ta->shape, ta->ndim, sa, sizeof sa);
    tt_shape_str(tb->shape, tb->ndim, sb, sizeof sb);
    if (strcmp(sa, sb) != 0) {
      bad += tol >= 0;
      printf("%-40s %-16s shapes differ: B is %s\n", ta->name, sa, sb);
      continue;
    }
    bool is_T[TT_MAX_DIMS] = {false};
    if (perm.n && !token_axes(ta, is_T)) {
      if (print_all) printf("%-40s %-16s skipped: its positions do not permute with the tokens\n", ta->name, sa);
      continue;
    }
    tt_diff_stats r;
    b_map map = {ta, is_T, &perm};
    tt_diff_tensors(ta, tb, perm.n ? b_index : NULL, &map, &r);
    double rel = tt_diff_relative(&r);
    int64_t unmatched = r.n_one_sided + r.n_nonfinite;
    bool beyond = tol >= 0 && (r.max_diff > tol * (r.max_abs_a > 1 ? r.max_abs_a : 1) || unmatched);
    bad += beyond;
    if (beyond && !first_beyond) first_beyond = ta->name;
    identical += tt_diff_identical(&r);
    if (!worst || rel > worst_rel) worst_rel = rel, worst = ta->name;
    if (print_all || beyond) {
      printf("%-40s %-16s %11.4e %11.4e %11.4e", ta->name, sa, r.max_abs_a, r.max_diff, rel);
      if (r.n_one_sided) printf("  %lld masked on one side only", (long long)r.n_one_sided);
      if (r.n_nonfinite) printf("  %lld NaN or opposite infinities", (long long)r.n_nonfinite);
      printf("%s\n", beyond ? "  beyond tolerance" : "");
    }
  }
  for (size_t i = 0; i < tt_trace_count(b); i++) {
    const tt_tensor *tb = tt_trace_get(b, i);
    if (tt_glob_match(glob, tb->name) && !tt_trace_find(a, tb->name)) only_b++;
  }
  if (only_a || only_b) {
    for (int side = 0; side < 2; side++) {
      const tt_trace *x = side ? b : a, *y = side ? a : b;
      if (!(side ? only_b : only_a)) continue;
      printf("\nonly in %s:", side ? "B" : "A");
      for (size_t i = 0; i < tt_trace_count(x); i++) {
        const char *name = tt_trace_get(x, i)->name;
        if (tt_glob_match(glob, name) && !tt_trace_find(y, name)) printf(" %s", name);
      }
      printf("\n");
    }
    if (tol >= 0 && !shared_only) bad += only_a + only_b;
  }
  if (shared + only_a + only_b == 0) printf("no tensor in either trace matches '%s'\n", glob);
  if (print_all) {
    char count[32];
    printf("\n%s, %d identical", tt_cli_count(count, sizeof count, shared, "shared hook", "shared hooks"), identical);
    if (worst) printf("; largest relative difference %.4e in %s", worst_rel, worst);
    printf("\n");
  }
  if (tol >= 0) {
    if (first_beyond) printf("first hook beyond tolerance, in A's order: %s\n", first_beyond);
    printf("%s: %d problem%s at tolerance %g x max(1, max|A|)\n", bad ? "DIFFERENT" : "SAME", bad, bad == 1 ? "" : "s",
           tol);
    rc = bad ? 1 : 0;
  }
done:
  tt_trace_destroy(a);
  tt_trace_destroy(b);
  return rc;
}
