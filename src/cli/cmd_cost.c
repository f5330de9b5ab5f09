// ttrace cost: where the computation goes, for a prompt on a backend (see cost/cost.h).
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "prompt_arg.h"
#include "cost/cost.h"
#include "session/session.h"

static const char usage[] =
    "usage: ttrace cost [-m MODEL_DIR] [-b BACKEND] [--repeats N] [--context N] [--qkv] [-o FILE] PROMPT\n"
    "\n"
    "For each step of the forward pass over PROMPT (the prefill): its FLOPs, the bytes it reads\n"
    "and writes, and its measured time on the backend (the mean of N runs after a warm-up);\n"
    "the totals and the matrix products' share. Then one decode step (one new token with the\n"
    "prompt's K and V rows cached), counted from the shapes. Both against the roofline of this\n"
    "machine: its sgemm rate and memory bandwidth, measured first by two short probes.\n"
    "The counting rules are in docs/cost.md.\n"
    "\n"
    "  -m, --model DIR     a model folder (default: the embedded default model)\n"
    "  -b, --backend NAME  openblas (default), opencl, or auto\n"
    "      --repeats N     timed runs (default 20)\n"
    "      --context N     the decode step's cached rows (default: the prompt's tokens)\n"
    "      --qkv           also time the fused Q/K/V product (T,C)\xC2\xB7(C,3C) against three (T,C)\xC2\xB7(C,C)\n"
    "      --tsv           the same numbers, exact, as tab-separated lines (for scripts): pass, step,\n"
    "                      kind, FLOPs, bytes read, bytes written, seconds (-1: not timed); then\n"
    "                      machine, total and qkv lines\n"
    "  -o, --output FILE   also save the prompt's trace with the measured times (for `render --view cost`)\n"
    "\n"
    "Exit codes: 2 a bad option; 3 a bad model, prompt or number; 4 a file that cannot be read\n"
    "or written; 5 a device failure.\n";

typedef struct {
  tt_session_opts session;
  const char *output;
  long repeats, context;
  bool qkv, tsv;
} cost_opts;

static bool parse_count(const char *s, long lo, long hi, long *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < lo || v > hi) return false;
  *out = v;
  return true;
}

enum { O_REPEATS = 256, O_CONTEXT, O_QKV, O_TSV };

// Fills o; returns -1 to go on, else the exit code (0 after --help).
static int parse_args(int argc, char **argv, cost_opts *o) {
  static const struct option longs[] = {{"model", required_argument, 0, 'm'},
                                        {"backend", required_argument, 0, 'b'},
                                        {"output", required_argument, 0, 'o'},
                                        {"repeats", required_argument, 0, O_REPEATS},
                                        {"context", required_argument, 0, O_CONTEXT},
                                        {"qkv", no_argument, 0, O_QKV},
                                        {"tsv", no_argument, 0, O_TSV},
                                        {"help", no_argument, 0, 'h'},
                                        {0, 0, 0, 0}};
  *o = (cost_opts){.repeats = 20, .context = -1};
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, ":hm:b:o:", longs, NULL)) != -1) {
    switch (c) {
    case 'm':
      o->session.model_dir = optarg;
      break;
    case 'b':
      o->session.backend = optarg;
      break;
    case 'o':
      o->output = optarg;
      break;
    case O_QKV:
      o->qkv = true;
      break;
    case O_TSV:
      o->tsv = true;
      break;
    case O_REPEATS:
      if (!parse_count(optarg, 1, 100000, &o->repeats))
        return tt_cli_usage_error("cost", "--repeats takes a whole number from 1 to 100000, not '%s'", optarg);
      break;
    case O_CONTEXT:
      if (!parse_count(optarg, 0, 1 << 24, &o->context))
        return tt_cli_usage_error("cost", "--context takes a whole number of at least 0, not '%s'", optarg);
      break;
    case 'h':
      fputs(usage, stdout);
      return 0;
    default:
      return tt_cli_option_error("cost", c, argv);
    }
  }
  return optind < argc ? -1 : tt_cli_usage_error("cost", "missing PROMPT");
}

// 1234567 → "1.23 M"; units of 1000.
static const char *si(double v, char *buf, size_t len) {
  const char *units[] = {"", " k", " M", " G", " T"};
  int u = 0;
  while (v >= 1000 && u < 4) v /= 1000, u++;
  snprintf(buf, len, u ? "%.3g%s" : "%.0f%s", v, units[u]);
  return buf;
}

static void print_ops(const tt_cost_pass *p) {
  static const char *kinds[] = {"matmul", "elementwise", "move"};
  printf("  %-36s %-26s %-11s %12s %12s %12s %10s\n", "step (hook)", "what", "kind", "FLOPs", "bytes read", "written",
         "time (us)");
  char f[32], r[32], w[32];
  for (int i = 0; i < p->n; i++) {
    const tt_cost_op *o = &p->ops[i];
    char t[32] = "-";
    if (o->seconds >= 0) snprintf(t, sizeof t, "%.1f", o->seconds * 1e6);
    int pad = 26 - tt_utf8_columns(o->what);  // columns, not bytes (·, ᵀ)
    printf("  %-36s %s%*s %-11s %12s %12s %12s %10s\n", o->name, o->what, pad > 0 ? pad : 0, "", kinds[o->kind],
           si(o->flops, f, sizeof f), si(o->bytes_read, r, sizeof r), si(o->bytes_written, w, sizeof w), t);
  }
}

static void print_totals(const tt_cost_pass *p, const tt_cost_machine *m) {
  char f[32], b[32];
  printf("  total: %sFLOP, %sB read and written; matrix products %.1f%% of the FLOPs\n", si(p->flops, f, sizeof f),
         si(p->bytes, b, sizeof b), 100.0 * p->matmul_flops / p->flops);
  if (p->seconds >= 0) {
    double mm = 0;
    for (int i = 0; i < p->n; i++)
      if (p->ops[i].kind == TT_COST_MATMUL) mm += p->ops[i].seconds;
    printf("  measured: %.1f us summed over the steps (%.1f us per whole run); matrix products %.1f%% of the time\n",
           p->seconds * 1e6, p->wall_seconds * 1e6, 100.0 * mm / p->seconds);
  }
  tt_cost_roof roof;
  tt_cost_roofline(p, m, &roof);
  printf(
      "  roofline: %.2f FLOPs per byte against the machine's %.2f: %s-bound; at least %.1f us "
      "(compute %.1f us, memory %.1f us)\n",
      roof.intensity, roof.ridge, roof.memory_bound ? "memory" : "compute",
      1e6 * (roof.memory_bound ? roof.memory_seconds : roof.compute_seconds), 1e6 * roof.compute_seconds,
      1e6 * roof.memory_seconds);
}

static void tsv_pass(const char *name, const tt_cost_pass *p) {
  static const char *kinds[] = {"matmul", "elementwise", "move"};
  for (int i = 0; i < p->n; i++)
    printf("%s\t%s\t%s\t%.17g\t%.17g\t%.17g\t%.9g\n", name, p->ops[i].name, kinds[p->ops[i].kind], p->ops[i].flops,
           p->ops[i].bytes_read, p->ops[i].bytes_written, p->ops[i].seconds);
  printf("total\t%s\t%d\t%.17g\t%.17g\t%.17g\t%.9g\t%.9g\n", name, p->T_ctx, p->flops, p->matmul_flops, p->bytes,
         p->seconds, p->wall_seconds);
}

static void print_tsv(const tt_cost_pass *pre, const tt_cost_pass *dec, const tt_cost_machine *m) {
  printf("machine\t%.9g\t%.9g\t%.9g\n", m->sgemm_flops, m->bandwidth, m->seconds);
  tsv_pass("prefill", pre);
  tsv_pass("decode", dec);
}

static tt_status print_qkv(tt_session *s, int T, const cost_opts *o, tt_error *err) {
  tt_cost_qkv q;
  tt_status st = tt_cost_qkv_bench(s->be, s->model, T, (int)o->repeats, &q, err);
  if (st) return st;
  if (o->tsv) {
    printf("qkv\t%d\t%d\t%.9g\t%.9g\t%.17g\t%.17g\t%.17g\t%.17g\n", q.T, q.C, q.fused_seconds, q.separate_seconds,
           q.fused_flops, q.separate_flops, q.fused_bytes, q.separate_bytes);
    return TT_OK;
  }
  char f1[32], f2[32], b1[32], b2[32];
  printf("\nfused Q/K/V (T=%d, C=%d; mean of %d runs, layer 0's weights):\n", q.T, q.C, q.repeats);
  printf("  one (T,C)\xC2\xB7(C,3C):    %9.1f us   %sFLOP   %sB\n", q.fused_seconds * 1e6,
         si(q.fused_flops, f1, sizeof f1), si(q.fused_bytes, b1, sizeof b1));
  printf("  three (T,C)\xC2\xB7(C,C):   %9.1f us   %sFLOP   %sB\n", q.separate_seconds * 1e6,
         si(q.separate_flops, f2, sizeof f2), si(q.separate_bytes, b2, sizeof b2));
  printf("  the three take %.2f times as long as the fused one\n", q.separate_seconds / q.fused_seconds);
  return TT_OK;
}

// The prompt's trace with the measured times in its metadata, written to o->output.
static tt_status save_trace(tt_session *s, const tt_trace_input *in, const tt_cost_pass *p, const tt_cost_machine *m,
                            const char *path, tt_error *err) {
  tt_trace *tr = NULL;
  tt_status st = tt_session_trace_input(s, in, &tr, err);
  char *machine = NULL, *secs = st ? NULL : tt_cost_times_format(p, m, &machine);
  if (!st && (!secs || tt_trace_set_meta(tr, "cost_seconds", secs) || tt_trace_set_meta(tr, "cost_machine", machine)))
    st = tt_fail(err, TT_ERR_NOMEM, "out of memory");
  if (!st) st = tt_trace_save(tr, path, err);
  free(secs);
  free(machine);
  tt_trace_destroy(tr);
  return st;
}

static tt_status run_cost(tt_session *s, const cost_opts *o, const tt_trace_input *in, tt_error *err) {
  const tt_config *cfg = &s->model->cfg;
  int32_t *ids = NULL;
  int T = 0;
  tt_cost_pass pre = {0}, dec = {0};
  tt_cost_machine m;
  tt_status st = tt_input_ids(s->tok, in, cfg->vocab_size, cfg->n_positions, &ids, &T, err);
  long ctx = o->context < 0 ? T : o->context;
  if (!st && ctx + 1 > cfg->n_positions)
    st = tt_fail(err, TT_ERR_ARG, "--context %ld leaves no room for a new token in the model's %d positions", ctx,
                 cfg->n_positions);
  if (!st) st = tt_cost_probe(s->be, &m, err);
  if (!st) st = tt_cost_prefill(cfg, T, &pre, err);
  if (!st) st = tt_cost_time(s->eng, ids, T, (int)o->repeats, &pre, err);
  if (!st) st = tt_cost_decode(cfg, (int)ctx, &dec, err);
  if (!st && o->tsv) print_tsv(&pre, &dec, &m);
  if (!st && !o->tsv) {
    char g[32], b[32];
    printf("cost on %s (%s); model %s: %d layers, C=%d, V=%d\n", s->be->name, s->be->device, s->model->dir,
           cfg->n_layer, cfg->n_embd, cfg->vocab_size);
    printf("machine: sgemm %dx%dx%d at %sFLOP/s; %s at %sB/s (the probes took %.0f ms)\n", m.sgemm_n, m.sgemm_n,
           m.sgemm_n, si(m.sgemm_flops, g, sizeof g), m.bandwidth_how, si(m.bandwidth, b, sizeof b), m.seconds * 1e3);
    printf("\nprefill: the whole prompt, %d tokens (times: mean of %ld runs)\n", T, o->repeats);
    print_ops(&pre);
    print_totals(&pre, &m);
    printf("\none decode step: 1 new token, %ld rows of K and V cached (counted from the shapes, not timed)\n", ctx);
    print_ops(&dec);
    print_totals(&dec, &m);
  }
  if (!st && o->qkv) st = print_qkv(s, T, o, err);
  if (!st && o->output) st = save_trace(s, in, &pre, &m, o->output, err);
  tt_cost_pass_free(&pre);
  tt_cost_pass_free(&dec);
  free(ids);
  return st;
}

int tt_cmd_cost(int argc, char **argv) {
  cost_opts o;
  int rc = parse_args(argc, argv, &o);
  if (rc >= 0) return rc;
  tt_error err = {0};
  char *prompt = NULL;
  if (tt_prompt_from_args(argc - optind, argv + optind, &prompt, &err)) return tt_cli_fail("cost", &err);
  tt_session *s = NULL;
  tt_status st = tt_session_open(&o.session, &s, &err);
  if (!st) {
    tt_cli_note("cost", s->backend_note);
    tt_trace_input in = {.prompt = prompt};
    st = run_cost(s, &o, &in, &err);
  }
  tt_session_close(s);
  free(prompt);
  return st ? tt_cli_fail("cost", &err) : 0;
}
