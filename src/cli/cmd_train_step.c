// ttrace train-step: plain SGD on one prompt. Each step traces the prompt with its gradients
// (the session with grad on), writes W − lr·∇W for every weight into a temporary model
// folder beside NEWDIR, and the next step starts from there; at the end the folder (F32
// weights, config.json and the tokenizer's files copied) is renamed to NEWDIR.
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "prompt_arg.h"
#include "safetensors/safetensors.h"
#include "session/session.h"
#include "train_report.h"

static const char usage[] =
    "usage: ttrace train-step [-m MODEL_DIR] [-b BACKEND] --lr LR [--steps N] [--report] -o NEWDIR PROMPT\n"
    "\n"
    "Plain SGD on PROMPT: N times (default 1), W <- W - LR * dL/dW for every weight, where L is\n"
    "the mean next-token loss of `ttrace trace --grad`. Prints the loss before and after each\n"
    "step. NEWDIR becomes a complete model folder (F32 weights, config.json and the tokenizer's\n"
    "files copied), written atomically; an existing NEWDIR must be empty.\n"
    "\n"
    "  -m, --model DIR     a GPT-2 or Llama model folder; default: the embedded default model\n"
    "  -b, --backend NAME  openblas (default; gradients need it)\n"
    "      --lr LR         the learning rate, a positive number\n"
    "      --steps N       how many steps (1 or more; default 1)\n"
    "  -o, --output DIR    the new model folder\n"
    "  -q, --quiet         print nothing on success\n"
    "      --report        then the step's effect: the loss at each position before and after,\n"
    "                      the weights that moved most (||W_after - W_before||), and the rows of\n"
    "                      W_E (wte.weight) that changed beside the prompt's distinct tokens\n";

// The files of a model folder train-step carries over besides the weights.
static const char *const carried[] = {"config.json",
                                      "vocab.json",
                                      "merges.txt",
                                      "tokenizer.json",
                                      "tokenizer_config.json",
                                      "special_tokens_map.json",
                                      "generation_config.json"};

static bool parse_positive(const char *s, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end || !isfinite(v) || v <= 0) return false;
  *out = v;
  return true;
}

static bool parse_steps(const char *s, long *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < 1 || v > 1000000) return false;
  *out = v;
  return true;
}

// NEWDIR must not exist or be an empty folder, and its parent must take a new folder.
static tt_status check_output(const char *dir, tt_error *err) {
  struct stat sb;
  if (stat(dir, &sb) == 0) {
    if (!S_ISDIR(sb.st_mode)) return tt_fail(err, TT_ERR_IO, "%s exists and is not a folder", dir);
    DIR *d = opendir(dir);
    struct dirent *ent;
    bool empty = true;
    while (d && (ent = readdir(d)))
      if (strcmp(ent->d_name, ".") && strcmp(ent->d_name, "..")) empty = false;
    if (d) closedir(d);
    if (!empty) return tt_fail(err, TT_ERR_IO, "%s exists and is not empty (left untouched)", dir);
  }
  char *copy = strdup(dir);
  bool ok = copy && access(dirname(copy), W_OK) == 0;
  free(copy);
  return ok ? TT_OK : tt_fail(err, TT_ERR_IO, "cannot write into the folder of %s: %s", dir, strerror(errno));
}

void tt_train_remove(const char *tmp) {
  char path[8400];
  snprintf(path, sizeof path, "%s/model.safetensors", tmp);
  unlink(path);
  for (size_t i = 0; i < sizeof carried / sizeof *carried; i++) {
    snprintf(path, sizeof path, "%s/%s", tmp, carried[i]);
    unlink(path);
  }
  rmdir(tmp);
}

static tt_status copy_file(const char *from, const char *to, tt_error *err) {
  char *data = NULL;
  size_t len = 0;
  tt_status st = tt_read_file(from, &data, &len, err);
  tt_atomic_file af;
  if (!st) st = tt_atomic_open(&af, to, err);
  if (!st && fwrite(data, 1, len, af.fp) != len) {
    tt_atomic_abort(&af);
    st = tt_fail(err, TT_ERR_IO, "cannot write %s", to);
  } else if (!st) {
    st = tt_atomic_commit(&af, err);
  }
  free(data);
  return st;
}

// config.json from the model folder; the tokenizer's files from where the session took them
// (the model folder, else assets/tokenizer).
static tt_status copy_carried(const char *model_dir, const char *tmp, tt_error *err) {
  char tok_dir[4096], from[8400], to[8400];
  snprintf(from, sizeof from, "%s/vocab.json", model_dir);
  if (access(from, F_OK) == 0 || !tt_asset_path("tokenizer", tok_dir, sizeof tok_dir))
    snprintf(tok_dir, sizeof tok_dir, "%s", model_dir);
  tt_status st = TT_OK;
  for (size_t i = 0; i < sizeof carried / sizeof *carried && !st; i++) {
    snprintf(from, sizeof from, "%s/%s", i == 0 ? model_dir : tok_dir, carried[i]);
    snprintf(to, sizeof to, "%s/%s", tmp, carried[i]);
    if (access(from, F_OK) == 0) st = copy_file(from, to, err);
  }
  return st;
}

static double mean_loss(const tt_trace *tr) {
  const tt_tensor *loss = tt_trace_find(tr, "hook_loss");
  double s = 0.0;
  for (int64_t i = 0; i < loss->shape[0]; i++) s += ((const float *)loss->data)[i];
  return s / (double)loss->shape[0];
}

// One weight of the file, moved: out (n) = W − lr·g, or W itself when g is NULL.
static tt_status moved(const tt_tensor *w, const tt_tensor *g, double lr, tt_tensor *out, tt_error *err) {
  int64_t n = tt_tensor_numel(w);
  if (g && tt_tensor_numel(g) != n)
    return tt_fail(err, TT_ERR_SHAPE, "the gradient of %s has %lld entries, the weight %lld", w->name,
                   (long long)tt_tensor_numel(g), (long long)n);
  float *data = malloc((size_t)(n ? n : 1) * sizeof *data);
  if (!data) return tt_fail(err, TT_ERR_NOMEM, "out of memory for %s", w->name);
  const float *gd = g ? g->data : NULL;
  for (int64_t i = 0; i < n; i++) data[i] = (float)(tt_tensor_get(w, i) - (gd ? lr * (double)gd[i] : 0.0));
  *out = (tt_tensor){w->name, TT_F32, w->ndim, {0}, data};
  memcpy(out->shape, w->shape, sizeof out->shape);
  return TT_OK;
}

// tmp/model.safetensors = the weights of model_dir's file, each moved by its gradient in tr.
// A tied lm_head.weight stored beside wte.weight is left out (the loader ties them again).
static tt_status write_moved(const char *model_dir, const tt_trace *tr, double lr, const char *tmp, tt_error *err) {
  char path[8400], gname[256];
  snprintf(path, sizeof path, "%s/model.safetensors", model_dir);
  tt_st_file *f = NULL;
  tt_status st = tt_st_open(path, &f, err);
  if (st) return st;
  size_t count = tt_st_count(f), n = 0;
  tt_tensor *out = calloc(count ? count : 1, sizeof *out);
  if (!out) st = tt_fail(err, TT_ERR_NOMEM, "out of memory");
  bool tied = !tt_trace_find(tr, "grad.lm_head.weight");
  for (size_t i = 0; i < count && !st; i++) {
    const tt_tensor *w = tt_st_get(f, i);
    const char *name = strncmp(w->name, "transformer.", 12) == 0 ? w->name + 12 : w->name;
    if ((tied && strcmp(name, "lm_head.weight") == 0) || tt_dtype_is_integer(w->dtype)) continue;
    snprintf(gname, sizeof gname, "grad.%s", name);
    st = moved(w, tt_trace_find(tr, gname), lr, &out[n], err);
    if (!st) out[n++].name = name;
  }
  snprintf(path, sizeof path, "%s/model.safetensors", tmp);
  const tt_st_meta meta[] = {{"format", "pt"}};
  if (!st) st = tt_st_write(path, out, n, meta, 1, err);
  for (size_t i = 0; i < n; i++) free(out[i].data);
  free(out);
  tt_st_close(f);
  return st;
}

// Traces prompt on model_dir (with its weight gradients when grad); *loss is the mean loss.
static tt_status trace_loss(const tt_train_args *a, const char *model_dir, const char *prompt, bool grad, tt_trace **tr,
                            double *loss, tt_error *err) {
  static const char *const with_grads[] = {"hook_loss",   "grad.wte.weight",     "grad.wpe.weight", "grad.h.*",
                                           "grad.ln_f.*", "grad.lm_head.weight", "grad.model.*"};  // Llama: model.*
  tt_session_opts opts = {.model_dir = model_dir, .backend = a->backend, .grad = grad};
  tt_session *s = NULL;
  tt_status st = tt_session_open(&opts, &s, err);
  if (!st) st = tt_session_trace(s, prompt, with_grads, grad ? 7 : 1, tr, err);
  if (!st && !tt_trace_find(*tr, "hook_loss"))
    st = tt_fail(err, TT_ERR_ARG, "the prompt needs at least 2 tokens (the loss predicts each next token)");
  if (!st) *loss = mean_loss(*tr);
  tt_session_close(s);
  return st;
}

// The N steps into tmp; prints the loss before and after each.
static tt_status train(const tt_train_args *a, const char *model_dir, const char *prompt, const char *tmp,
                       tt_error *err) {
  double before = 0.0, after = 0.0;
  const char *from = model_dir;
  tt_status st = TT_OK;
  tt_trace *first = NULL;  // the trace of the first step, before any change
  for (long i = 0; i < a->steps && !st; i++) {
    tt_trace *tr = NULL;
    st = trace_loss(a, from, prompt, true, &tr, &before, err);
    if (!st && i > 0 && !a->quiet) printf("step %ld/%ld: loss %.6f -> %.6f\n", i, a->steps, after, before);
    if (!st) st = write_moved(from, tr, a->lr, tmp, err);
    if (i == 0)
      first = tr;
    else
      tt_trace_destroy(tr);
    after = before;
    from = tmp;
  }
  tt_trace *tr = NULL;
  double last = 0.0;
  if (!st) st = trace_loss(a, tmp, prompt, false, &tr, &last, err);
  if (!st && !a->quiet) printf("step %ld/%ld: loss %.6f -> %.6f\n", a->steps, a->steps, after, last);
  if (!st && a->report) st = tt_train_report(model_dir, tmp, first, tr, err);
  tt_trace_destroy(first);
  tt_trace_destroy(tr);
  return st;
}

static int parse(int argc, char **argv, tt_train_args *a) {
  static const struct option longs[] = {{"model", required_argument, 0, 'm'},
                                        {"backend", required_argument, 0, 'b'},
                                        {"output", required_argument, 0, 'o'},
                                        {"lr", required_argument, 0, 'l'},
                                        {"steps", required_argument, 0, 'n'},
                                        {"quiet", no_argument, 0, 'q'},
                                        {"report", no_argument, 0, 'r'},
                                        {"help", no_argument, 0, 'h'},
                                        {0, 0, 0, 0}};
  bool have_lr = false;
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "m:b:o:qh", longs, NULL)) != -1) {
    switch (c) {
    case 'm':
      a->model_dir = optarg;
      break;
    case 'b':
      a->backend = optarg;
      break;
    case 'o':
      a->output = optarg;
      break;
    case 'l':
      if (!parse_positive(optarg, &a->lr))
        return tt_cli_usage_error("train-step", "--lr %s: expected a positive number", optarg);
      have_lr = true;
      break;
    case 'n':
      if (!parse_steps(optarg, &a->steps))
        return tt_cli_usage_error("train-step", "--steps %s: expected a whole number from 1 to 1000000", optarg);
      break;
    case 'q':
      a->quiet = true;
      break;
    case 'r':
      a->report = true;
      break;
    case 'h':
      fputs(usage, stdout);
      return -1;
    default:
      return tt_cli_usage_error("train-step", "unknown option");
    }
  }
  if (!have_lr) return tt_cli_usage_error("train-step", "missing --lr LR");
  if (!a->output) return tt_cli_usage_error("train-step", "missing -o NEWDIR");
  return 0;
}

tt_status tt_train_model(const tt_train_args *a, const char *prompt, tt_error *err) {
  char model_dir[4096], tmp[4096];
  tt_status st = TT_OK;
  if (a->model_dir)
    snprintf(model_dir, sizeof model_dir, "%s", a->model_dir);
  else if (!tt_model_default_dir(model_dir, sizeof model_dir))
    st = tt_fail(err, TT_ERR_IO, "the default model is not installed (assets/models/); pass -m MODEL_DIR");
  if (!st) st = check_output(a->output, err);
  size_t len = strlen(a->output);
  while (len > 1 && a->output[len - 1] == '/') len--;  // "out/" → "out.tmp-…", beside it
  snprintf(tmp, sizeof tmp, "%.*s.tmp-XXXXXX", (int)len, a->output);
  if (!st && !mkdtemp(tmp))
    st = tt_fail(err, TT_ERR_IO, "cannot create a folder beside %s: %s", a->output, strerror(errno));
  bool made = !st;
  if (!st) st = copy_carried(model_dir, tmp, err);
  if (!st) st = train(a, model_dir, prompt, tmp, err);
  if (!st && rename(tmp, a->output) != 0)
    st = tt_fail(err, TT_ERR_IO, "cannot rename %s to %s: %s", tmp, a->output, strerror(errno));
  if (st && made) tt_train_remove(tmp);
  return st;
}

int tt_cmd_train_step(int argc, char **argv) {
  tt_train_args a = {.steps = 1};
  int rc = parse(argc, argv, &a);
  if (rc) return rc < 0 ? 0 : rc;
  tt_error err = {0};
  char *prompt = NULL;
  if (tt_prompt_from_args(argc - optind, argv + optind, &prompt, &err)) return tt_cli_fail("train-step", &err);
  tt_status st = tt_train_model(&a, prompt, &err);
  if (!st && !a.quiet) printf("wrote %s\n", a.output);
  free(prompt);
  return st ? tt_cli_fail("train-step", &err) : 0;
}
