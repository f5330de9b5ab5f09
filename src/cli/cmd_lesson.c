// ttrace lesson: play a narrated lesson (window or terminal), list the lessons, check them
// against their saved traces, and make those traces from the lesson files.
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build_config.h"
#include "cli.h"
#include "lesson_views_text.h"
#include "dump/dump.h"
#include "lesson/lesson.h"
#include "session/session.h"
#include "pipeline/pipeline.h"
#if TT_HAVE_GUI
#include "ui/ui.h"
#endif

static const char usage[] =
    "usage: ttrace lesson [OPTIONS] LESSON\n"
    "       ttrace lesson --text LESSON [--step N]\n"
    "       ttrace lesson --svg FIG.svg --step N [--size WxH] LESSON\n"
    "       ttrace lesson --list\n"
    "       ttrace lesson --check [LESSON...]\n"
    "       ttrace lesson --make-traces [-o DIR] [-m MODEL_DIR] [LESSON...]\n"
    "\n"
    "LESSON is a lesson file, or a lesson's number or name in the lessons folder\n"
    "(`ttrace lesson --text 3 --lang ko`). Lessons play from their saved traces; the model is\n"
    "needed only to make them. The format is described in lessons/README.md.\n"
    "\n"
    "  --text          play in the terminal: narration, then the step's tensors as tables;\n"
    "                  interactive on a terminal (Enter next, b back, a number jumps, q quits)\n"
    "  --step N        only step N (1-based; with --text or --svg)\n"
    "  --svg FIG.svg   draw step N as the window does, without a display, as SVG; prints\n"
    "                  the trace files it shows (\"A FILE\", \"B FILE\")\n"
    "  --lang en|ko    which language LESSON names and --list use (default en)\n"
    "  --traces DIR    where the saved traces are (default: lessons/traces)\n"
    "  --size WxH      window (or --svg figure) size (default 1280x800)\n"
    "  --theme light|dark  colours of the window or --svg figure (default light)\n"
    "  --font-scale S  type size factor of the window or --svg figure, 0.5 to 3 (Ctrl + /\n"
    "                  Ctrl \xE2\x88\x92 in the window)\n"
    "  --list          the lessons, with their titles and step counts\n"
    "  --check         load every step of the lessons (default: all) from their traces: hooks,\n"
    "                  layers, heads, rows and {{...}} numbers must resolve, check: claims must\n"
    "                  hold, the traces must match their definitions, and each en lesson must\n"
    "                  have a ko twin with the same steps\n"
    "  --make-traces   (re)make the traces the lessons (default: all) define, with the model\n"
    "  -o DIR          with --make-traces: write them there (default: the traces folder)\n"
    "  -m MODEL_DIR    with --make-traces: use this model instead of the lesson's\n";

#define MAX_LESSONS 256

// ---- where lessons live ------------------------------------------------------------
static bool is_dir(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

// $TTRACE_LESSONS, else the source tree's lessons/ (from a build tree), else the installed copy.
static bool lessons_root(char *buf, size_t len) {
  return tt_lessons_path(buf, len);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

// The *.lesson files of root/lang, sorted; returns how many (paths malloc'd).
static int list_lessons(const char *root, const char *lang, char **out, int max) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/%s", root, lang);
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < max) {
    size_t k = strlen(e->d_name);
    if (k > 7 && strcmp(e->d_name + k - 7, ".lesson") == 0) {
      size_t need = strlen(dir) + k + 2;
      out[n] = malloc(need);
      if (!out[n]) break;
      snprintf(out[n++], need, "%s/%s", dir, e->d_name);
    }
  }
  closedir(d);
  qsort(out, (size_t)n, sizeof *out, cmp_str);
  return n;
}

static void free_list(char **l, int n) {
  for (int i = 0; i < n; i++) free(l[i]);
}

// The languages under root (folders other than traces), sorted.
static int list_langs(const char *root, char **out, int max) {
  DIR *d = opendir(root);
  if (!d) return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < max) {
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", root, e->d_name);
    if (e->d_name[0] != '.' && strcmp(e->d_name, "traces") != 0 && is_dir(p)) out[n++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(out, (size_t)n, sizeof *out, cmp_str);
  return n;
}

// LESSON as given: a file, or "3" / "03" / "03-embeddings" in root/lang.
bool tt_cli_find_lesson(const char *arg, const char *lang, char *buf, size_t len) {
  if (access(arg, R_OK) == 0 && !is_dir(arg)) {
    snprintf(buf, len, "%s", arg);
    return true;
  }
  char root[4096], *files[MAX_LESSONS];
  if (!lessons_root(root, sizeof root)) return false;
  int n = list_lessons(root, lang, files, MAX_LESSONS);
  char *end;
  long num = strtol(arg, &end, 10);
  bool found = false;
  for (int i = 0; i < n && !found; i++) {
    const char *base = strrchr(files[i], '/') + 1;
    if (*end == 0 && end != arg)
      found = atol(base) == num;
    else
      found = strncmp(base, arg, strlen(arg)) == 0;
    if (found) snprintf(buf, len, "%s", files[i]);
  }
  free_list(files, n);
  return found;
}

// ---- tokens as text ----------------------------------------------------------------
static tt_tokenizer *load_vocab(void) {
  char dir[4096];
  tt_tokenizer *tok = NULL;
  if (tt_asset_path("tokenizer", dir, sizeof dir)) tt_tokenizer_load(dir, &tok, NULL);
  return tok;
}

static const char *decode_token(void *ctx, int32_t id, char *buf, size_t len) {
  return ctx ? tt_tokenizer_token_display(ctx, id, buf, len) : NULL;
}

// ---- --list --------------------------------------------------------------------------
static int cmd_list(const char *only_lang) {
  char root[4096], *langs[16];
  if (!lessons_root(root, sizeof root)) {
    fprintf(stderr, "ttrace lesson: no lessons folder found (set TTRACE_LESSONS)\n");
    return 4;
  }
  int nl = list_langs(root, langs, 16);
  for (int k = 0; k < nl; k++) {
    if (only_lang && strcmp(only_lang, langs[k]) != 0) continue;
    char *files[MAX_LESSONS];
    int n = list_lessons(root, langs[k], files, MAX_LESSONS);
    printf("%s/%s:\n", root, langs[k]);
    for (int i = 0; i < n; i++) {
      tt_lesson *l = NULL;
      tt_error err = {0};
      const char *base = strrchr(files[i], '/') + 1;
      if (tt_lesson_load(files[i], &l, &err)) {
        printf("  %-28s (does not parse: %s)\n", base, err.msg);
        continue;
      }
      char steps[32];
      printf("  %-28.*s %s  (%s)\n", (int)(strlen(base) - 7), base, tt_lesson_title(l),
             tt_cli_count(steps, sizeof steps, tt_lesson_n_steps(l), "step", "steps"));
      tt_lesson_destroy(l);
    }
    free_list(files, n);
  }
  free_list(langs, nl);
  return 0;
}

// ---- the terminal player -----------------------------------------------------------

// Terminal columns of a UTF-8 string: Hangul and other wide East Asian characters take 2.
static void rule(const char *title) {
  printf("\n\xE2\x94\x80\xE2\x94\x80 %s ", title);
  int n = 74 - tt_utf8_columns(title);
  for (int i = 0; i < n; i++) fputs("\xE2\x94\x80", stdout);
  printf("\n\n");
}

// Narration in the terminal: paragraphs reflowed to `width` columns (UTF-8 aware).
static void print_wrapped(const char *text, int width) {
  const char *p = text;
  while (*p) {
    // One paragraph: up to a blank line.
    const char *end = strstr(p, "\n\n");
    size_t n = end ? (size_t)(end - p) : strlen(p);
    int col = 0;
    size_t i = 0;
    while (i < n) {
      while (i < n && (p[i] == ' ' || p[i] == '\n')) i++;
      size_t w0 = i;
      while (i < n && p[i] != ' ' && p[i] != '\n') i++;
      // A lone quote opens a token with a leading space (' weather'): keep them together;
      // so are the numbers of a shape, "(4, 128)".
      if (i == w0 + 1 && p[w0] == '\'' && i < n && p[i] == ' ') {
        i++;
        while (i < n && p[i] != ' ' && p[i] != '\n') i++;
      }
      if (p[w0] == '(' && isdigit((unsigned char)p[w0 + 1]) && !memchr(p + w0, ')', i - w0))
        while (i < n && p[i] == ' ' && i + 1 < n && isdigit((unsigned char)p[i + 1])) {
          i++;
          while (i < n && p[i] != ' ' && p[i] != '\n') i++;
          if (memchr(p + w0, ')', i - w0)) break;
        }
      if (i == w0) break;
      char word[1024];
      size_t wl = i - w0 < sizeof word - 1 ? i - w0 : sizeof word - 1;
      memcpy(word, p + w0, wl);
      word[wl] = 0;
      int cols = tt_utf8_columns(word);
      if (col > 0 && col + 1 + cols > width) {
        putchar('\n');
        col = 0;
      } else if (col > 0) {
        putchar(' ');
        col++;
      }
      fputs(word, stdout);
      col += cols;
    }
    printf("\n");
    if (!end) break;
    printf("\n");
    p = end + 2;
    while (*p == '\n') p++;
  }
}

// A caption in the lesson's language (en or ko).
static const char *say(bool ko, const char *en, const char *ko_text) {
  return ko ? ko_text : en;
}

static int64_t row_index(const tt_lesson_step *st, const tt_trace *tr) {
  int T = tt_trace_n_tokens(tr);
  if (st->row == TT_LESSON_ALL_ROWS) return -1;
  return st->row < 0 ? st->row + T : st->row;
}

// Lengths of each token's vector (T, C) → one line per tensor.
static void print_norms(const tt_lesson_view *v, const tt_trace *tr, bool ko) {
  int T = tt_trace_n_tokens(tr);
  const char *cap = say(ko, "length |x| of each token's vector", "토큰 벡터의 길이 |x|");
  printf("%s%*s", cap, 28 - tt_utf8_columns(cap) > 0 ? 28 - tt_utf8_columns(cap) : 0, "");
  for (int i = 0; i < T; i++) {
    char head[48];
    snprintf(head, sizeof head, "%d:%s", i, tt_trace_token(tr, i));
    printf(" %12.12s", head);
  }
  printf("\n");
  for (int k = 0; k < v->n_tensors; k++) {
    const tt_tensor *t = v->tensors[k];
    printf("%-28s", t->name);
    for (int64_t r = 0; r < t->shape[0]; r++) {
      double s = 0;
      for (int64_t c = 0; c < t->shape[1]; c++) {
        double x = tt_tensor_get(t, r * t->shape[1] + c);
        s += x * x;
      }
      printf(" %12.4f", sqrt(s));
    }
    printf("\n");
  }
}

static void print_tokens(const tt_trace *tr) {
  printf("%4s  %-20s %8s\n", "pos", "piece", "id");
  for (int i = 0; i < tt_trace_n_tokens(tr); i++)
    printf("%4d  '%s'%*s %8d\n", i, tt_trace_token(tr, i), 18 - (int)tt_utf8_length(tt_trace_token(tr, i)), "",
           tt_trace_token_id(tr, i));
}

// (pre, post) pairs of the FFN activation for one token: the first features.
static void print_activation(const tt_trace *tr, const tt_tensor *t, int64_t row, bool ko) {
  const tt_tensor *pre = tt_lesson_sibling(tr, t->name, "hook_pre"),
                  *post = tt_lesson_sibling(tr, t->name, "hook_post");
  if (!pre || !post) return;
  int64_t F = pre->shape[1], r = row < 0 ? pre->shape[0] - 1 : row, n = F < 12 ? F : 12;
  if (ko)
    printf("토큰 %lld '%s', 특징 %lld개 중 앞의 %lld개:\n%-6s", (long long)r, tt_trace_token(tr, (int)r), (long long)F,
           (long long)n, "pre");
  else
    printf("token %lld '%s', the first %lld of %lld features:\n%-6s", (long long)r, tt_trace_token(tr, (int)r),
           (long long)n, (long long)F, "pre");
  for (int64_t f = 0; f < n; f++) printf(" %8.4f", tt_tensor_get(pre, r * F + f));
  printf("\n%-6s", "post");
  for (int64_t f = 0; f < n; f++) printf(" %8.4f", tt_tensor_get(post, r * F + f));
  printf("\n");
}

// The next-token candidates at the step's temperature: p = softmax(logits / temperature).
// From hook_probs alone: softmax(log p / temperature) is the same thing.
static void print_bars(const tt_trace *tr, const tt_tensor *t, float temp, const tt_dump_opts *o, bool ko) {
  int64_t T = t->shape[0], V = t->shape[1];
  bool logits = strcmp(t->name, "hook_logits") == 0;
  float *p = malloc(sizeof *p * (size_t)(T * V));
  double *y = malloc(sizeof *y * (size_t)(V ? V : 1));
  if (!p || !y) {
    free(p);
    free(y);
    return;
  }
  for (int64_t r = 0; r < T; r++) {
    // softmax((x - max x) / temperature): stable for any temperature (1e-38 gives the
    // one-hot argmax, not inf - inf = NaN); -inf entries get 0, a NaN shows as NaN.
    double mx = -INFINITY, sum = 0;
    for (int64_t v = 0; v < V; v++) {
      double x = tt_tensor_get(t, r * V + v);
      y[v] = logits ? x : log(x);
      if (y[v] > mx) mx = y[v];
    }
    for (int64_t v = 0; v < V; v++) sum += (y[v] = y[v] == mx ? 1.0 : exp((y[v] - mx) / (double)temp));
    for (int64_t v = 0; v < V; v++) p[r * V + v] = (float)(y[v] / sum);
  }
  free(y);
  tt_tensor probs = {.name = "hook_probs", .dtype = TT_F32, .ndim = 2, .shape = {T, V}, .data = p};
  printf(say(ko, "next-token probabilities at temperature %g:\n", "온도 %g에서 다음 토큰의 확률:\n"), temp);
  tt_dump_tensor(stdout, tr, &probs, o);
  free(p);
}

// The FFN with the identity activation as one matrix: its recorded output beside
// x·(W_fc·W_proj) + (b_fc·W_proj + b_proj), from the model the trace was made with (or the
// default model), and their largest difference.
static void print_collapse(const tt_trace *tr, const tt_tensor *out, bool ko) {
  int layer = strncmp(out->name, "blocks.", 7) == 0 ? atoi(out->name + 7) : 0;
  char xname[96];
  snprintf(xname, sizeof xname, "blocks.%d.ln2.hook_out", layer);
  const tt_tensor *x = tt_trace_find(tr, xname);
  tt_model *m = NULL;
  tt_error err = {0};
  const char *dir = tt_trace_meta(tr, "model");
  if (!dir || tt_model_load(dir, &m, &err) != TT_OK) {
    char def[4096];
    if (tt_model_default_dir(def, sizeof def)) tt_model_load(def, &m, &err);
  }
  tt_ffn_collapse c;
  if (!x || !m || tt_ffn_collapse_compute(m, layer, x, out, &c, &err) != TT_OK) {
    printf(say(ko, "(the collapse needs %s in the trace and the model's weights: %s)\n",
               "(합친 행렬을 보이려면 트레이스의 %s와 모델 가중치가 필요합니다: %s)\n"),
           xname,
           x && m ? err.msg
           : !x   ? "no x"
                  : err.msg);
    tt_model_destroy(m);
    return;
  }
  printf(say(ko, "W = W_fc\xC2\xB7W_proj: (%d, %d)\xC2\xB7(%d, %d) = (%d, %d); b = b_fc\xC2\xB7W_proj + b_proj\n",
             "W = W_fc\xC2\xB7W_proj: (%d, %d)\xC2\xB7(%d, %d) = (%d, %d), b = b_fc\xC2\xB7W_proj + b_proj\n"),
         c.C, c.F, c.F, c.C, c.C, c.C);
  int n = c.C < 6 ? c.C : 6;
  for (int t = 0; t < c.T; t++) {
    printf(say(ko, "token %d '%s'\n", "토큰 %d '%s'\n"), t, tt_trace_token(tr, t));
    const char *la = say(ko, "A: FFN output", "A: FFN 출력"), *lb = "B: x\xC2\xB7W + b";
    printf("  %s%*s", la, 22 - tt_utf8_columns(la), "");
    for (int j = 0; j < n; j++) printf(" %9.5f", ((const float *)out->data)[(size_t)t * c.C + j]);
    printf("  \xE2\x80\xA6\n  %s%*s", lb, 22 - tt_utf8_columns(lb), "");
    for (int j = 0; j < n; j++) printf(" %9.5f", c.direct[(size_t)t * c.C + j]);
    printf("  \xE2\x80\xA6\n");
  }
  printf(say(ko, "largest difference |A - B| over all %d x %d numbers: %.3g (token %lld, column %lld)\n",
             "숫자 %d x %d개 전체에서 가장 큰 차이 |A - B|: %.3g (토큰 %lld, %lld열)\n"),
         c.T, c.C, c.max_diff, (long long)(c.max_at / c.C), (long long)(c.max_at % c.C));
  tt_ffn_collapse_free(&c);
  tt_model_destroy(m);
}

static void print_tensor(const tt_lesson_step *st, const tt_trace *tr, const tt_tensor *t, tt_dump_opts *o, bool ko) {
  tt_view_kind v = TT_VIEW_HEATMAP;  // "norms", a lesson-only view, prints as a table too
  tt_view_parse(st->view, &v);
  if (v == TT_VIEW_TOKENS) {
    print_tokens(tr);
  } else if (v == TT_VIEW_BARS) {
    print_bars(tr, t, st->temperature, o, ko);
  } else if (v == TT_VIEW_GELU || v == TT_VIEW_GATES) {
    print_activation(tr, t, row_index(st, tr), ko);
  } else if (v == TT_VIEW_NEIGHBOURS) {
    tt_cli_print_neighbours(tr, o->vocab, (int)row_index(st, tr), ko);
  } else if (v == TT_VIEW_COLLAPSE) {
    print_collapse(tr, t, ko);
  } else if (v == TT_VIEW_LENS) {
    tt_cli_print_lens(tr, o->vocab, ko);
  } else if (v == TT_VIEW_COST) {
    tt_cli_print_cost(tr, ko);
  } else if (v == TT_VIEW_LAYERNORM) {
    const char *names[] = {"hook_mean", "hook_scale"};
    for (int i = 0; i < 2; i++) {
      const tt_tensor *s = tt_lesson_sibling(tr, t->name, names[i]);
      if (s && s != t) tt_dump_tensor(stdout, tr, s, o), putchar('\n');
    }
    tt_dump_tensor(stdout, tr, t, o);
  } else if (v == TT_VIEW_QKV) {
    const char *names[] = {"hook_q", "hook_k", "hook_v"};
    for (int i = 0; i < 3; i++) {
      const tt_tensor *s = tt_lesson_sibling(tr, t->name, names[i]);
      if (s) tt_dump_tensor(stdout, tr, s, o);
    }
  } else {
    tt_dump_tensor(stdout, tr, t, o);
  }
}

static void largest_difference(const tt_tensor *a, const tt_tensor *b, bool ko) {
  if (a->ndim != b->ndim || memcmp(a->shape, b->shape, sizeof(int64_t) * (size_t)a->ndim) != 0 || a->dtype != TT_F32 ||
      b->dtype != TT_F32) {
    char sa[64], sb[64];
    printf(say(ko, "(shapes %s and %s: compared side by side, not cell by cell)\n",
               "(크기 %s와 %s: 칸끼리가 아니라 나란히 비교)\n"),
           tt_shape_str(a->shape, a->ndim, sa, 64), tt_shape_str(b->shape, b->ndim, sb, 64));
    return;
  }
  double d = 0;
  for (int64_t i = 0; i < tt_tensor_numel(a); i++) {
    float x = (float)tt_tensor_get(a, i), y = (float)tt_tensor_get(b, i);
    double e = x == y ? 0 : fabs((double)x - y);
    if (!(e <= d)) d = e;
  }
  printf(say(ko, "largest difference |A - B| in %s: %.4g\n", "%s에서 가장 큰 차이 |A - B|: %.4g\n"), a->name, d);
}

static tt_status show_step(const tt_lesson_player *p, tt_tokenizer *tok, tt_error *err) {
  tt_lesson_view v;
  tt_status s = tt_lesson_player_view(p, decode_token, tok, &v, err);
  if (s) return s;
  const tt_lesson *l = p->lesson;
  const tt_lesson_step *st = v.step;
  bool ko = strcmp(tt_lesson_lang(l), "ko") == 0;
  char title[512];
  snprintf(title, sizeof title, "%d/%d%s%s", p->step + 1, tt_lesson_n_steps(l), st->title[0] ? " \xC2\xB7 " : "",
           st->title);
  if (p->step == 0) printf("%s\n", tt_lesson_title(l));
  rule(title);
  print_wrapped(v.narration, 80);
  putchar('\n');
  tt_dump_opts o;
  tt_dump_default_opts(&o);
  o.head = st->head;
  o.vocab = tok;
  o.max_cols = 8;
  o.korean = ko;
  const char *tname = tt_lesson_trace_at(l, st->trace)->name;
  for (int side = 0; side < (v.compare ? 2 : 1); side++) {
    const tt_trace *tr = side ? v.compare : v.trace;
    const char *name = side ? tt_lesson_trace_at(l, st->compare)->name : tname;
    printf("\xE2\x96\xB8 [%s] \"%s\"", name, tt_trace_meta(tr, "prompt") ? tt_trace_meta(tr, "prompt") : "");
    const char *variant = tt_trace_meta(tr, "variant");
    if (variant && strcmp(variant, "{}") != 0) printf(say(ko, "  variant %s", "  변형 %s"), variant);
    printf(say(ko, "  \xC2\xB7 view %s", "  \xC2\xB7 화면 %s"), st->view);
    if (st->head != TT_LESSON_ALL) printf(say(ko, " \xC2\xB7 head %d", " \xC2\xB7 %d번 헤드"), st->head);
    int64_t r = row_index(st, tr);
    if (r >= 0)
      printf(say(ko, " \xC2\xB7 row %lld '%s'", " \xC2\xB7 %lld행 '%s'"), (long long)r, tt_trace_token(tr, (int)r));
    printf("\n\n");
    if (strcmp(st->view, "norms") == 0) {
      tt_lesson_view one = v;
      if (side) memcpy(one.tensors, v.compare_tensors, sizeof one.tensors);
      print_norms(&one, tr, ko);
    } else {
      for (int k = 0; k < v.n_tensors; k++) {
        if (k) putchar('\n');
        print_tensor(st, tr, side ? v.compare_tensors[k] : v.tensors[k], &o, ko);
      }
    }
    printf("\n");
  }
  if (v.compare && strcmp(st->view, "tokens") != 0)
    for (int k = 0; k < v.n_tensors; k++) largest_difference(v.tensors[k], v.compare_tensors[k], ko);
  tt_lesson_view_free(&v);
  return TT_OK;
}

static int play_text(const char *path, const char *traces_dir, int only_step) {
  tt_error err = {0};
  tt_lesson_player *p = NULL;
  if (tt_lesson_player_open(path, traces_dir, &p, &err)) return tt_cli_fail("lesson", &err);
  tt_tokenizer *tok = load_vocab();
  int rc = 0;
  int n = tt_lesson_n_steps(p->lesson);
  if (only_step > 0) {
    if (!tt_lesson_player_jump(p, only_step - 1)) {
      rc = tt_cli_usage_error("lesson", "--step %d: the lesson has steps 1 to %d", only_step, n);
    } else if (show_step(p, tok, &err)) {
      rc = tt_cli_fail("lesson", &err);
    }
  } else if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
    for (int i = 0; i < n && !rc; i++) {
      tt_lesson_player_jump(p, i);
      if (show_step(p, tok, &err)) rc = tt_cli_fail("lesson", &err);
    }
  } else {
    while (!rc) {
      if (show_step(p, tok, &err)) {
        rc = tt_cli_fail("lesson", &err);
        break;
      }
      printf("[Enter] next \xC2\xB7 b back \xC2\xB7 1-%d jump \xC2\xB7 q quit > ", n);
      fflush(stdout);
      char line[64];
      if (!fgets(line, sizeof line, stdin) || line[0] == 'q') break;
      if (line[0] == 'b')
        tt_lesson_player_prev(p);
      else if (atoi(line) > 0)
        tt_lesson_player_jump(p, atoi(line) - 1);
      else if (!tt_lesson_player_next(p))
        break;
    }
  }
  tt_tokenizer_destroy(tok);
  tt_lesson_player_close(p);
  return rc;
}

// ---- --check ---------------------------------------------------------------------------
static int check_one(const char *path, const char *traces_dir, tt_tokenizer *tok) {
  tt_error err = {0};
  tt_lesson_player *p = NULL;
  if (tt_lesson_player_open(path, traces_dir, &p, &err)) {
    printf("FAIL %s\n", err.msg);
    return 1;
  }
  int bad = 0, n_claims = 0;
  for (int i = 0; i < tt_lesson_n_traces(p->lesson); i++)
    if (tt_lesson_verify_trace(p->lesson, i, p->traces[i], &err)) {
      printf("FAIL %s\n", err.msg);
      bad++;
    }
  for (int i = 0; i < tt_lesson_n_steps(p->lesson); i++) {
    tt_lesson_view v;
    tt_lesson_player_jump(p, i);
    if (tt_lesson_player_view(p, decode_token, tok, &v, &err) ||
        tt_lesson_check_claims(p->lesson, i, (const tt_trace *const *)p->traces, &err)) {
      printf("FAIL %s\n", err.msg);
      bad++;
      continue;
    }
    n_claims += tt_lesson_step_at(p->lesson, i)->n_checks;
    tt_lesson_view_free(&v);
  }
  char steps[32], claims[32];
  if (!bad)
    printf("ok   %s: %s, %s\n", path, tt_cli_count(steps, sizeof steps, tt_lesson_n_steps(p->lesson), "step", "steps"),
           tt_cli_count(claims, sizeof claims, n_claims, "claim", "claims"));
  tt_lesson_player_close(p);
  return bad;
}

// The twin of an en lesson in another language has the same traces and the same steps
// (what is shown and checked); only the words differ.
static int check_twins(const char *a_path, const char *b_path) {
  tt_error err = {0};
  tt_lesson *a = NULL, *b = NULL;
  tt_status st = tt_lesson_load(a_path, &a, &err);
  if (!st) st = tt_lesson_load(b_path, &b, &err);
  if (!st) st = tt_lesson_verify_twins(a, b, &err);
  if (st) printf("FAIL %s\n", err.msg);
  tt_lesson_destroy(a);
  tt_lesson_destroy(b);
  return st ? 1 : 0;
}

static int cmd_check(char **args, int n_args, const char *traces_dir) {
  tt_tokenizer *tok = load_vocab();
  int bad = 0, checked = 0;
  if (n_args > 0) {
    for (int i = 0; i < n_args; i++, checked++) bad += check_one(args[i], traces_dir, tok);
  } else {
    char root[4096], *langs[16];
    if (!lessons_root(root, sizeof root)) {
      fprintf(stderr, "ttrace lesson: no lessons folder found (set TTRACE_LESSONS)\n");
      tt_tokenizer_destroy(tok);
      return 4;
    }
    int nl = list_langs(root, langs, 16);
    char *en[MAX_LESSONS];
    int n_en = list_lessons(root, "en", en, MAX_LESSONS);
    for (int k = 0; k < nl; k++) {
      char *files[MAX_LESSONS];
      int n = list_lessons(root, langs[k], files, MAX_LESSONS);
      for (int i = 0; i < n; i++, checked++) bad += check_one(files[i], traces_dir, tok);
      if (strcmp(langs[k], "en") != 0) {
        // Same file names as en, and the same steps.
        for (int i = 0; i < n_en; i++) {
          const char *base = strrchr(en[i], '/') + 1;
          int j = 0;
          while (j < n && strcmp(strrchr(files[j], '/') + 1, base) != 0) j++;
          if (j == n) {
            printf("FAIL %s/%s/%s is missing (the twin of %s)\n", root, langs[k], base, en[i]);
            bad++;
          } else {
            bad += check_twins(en[i], files[j]);
          }
        }
        if (n != n_en) {
          printf("FAIL %s/%s has %d lessons, en has %d\n", root, langs[k], n, n_en);
          bad++;
        }
      }
      free_list(files, n);
    }
    free_list(en, n_en);
    free_list(langs, nl);
  }
  tt_tokenizer_destroy(tok);
  if (checked == 0) {
    printf("FAIL no lessons found\n");
    bad++;
  }
  printf("%d lesson%s checked, %d problem%s\n", checked, checked == 1 ? "" : "s", bad, bad == 1 ? "" : "s");
  return bad ? 1 : 0;
}

// ---- --make-traces ---------------------------------------------------------------------
// The lesson files to trace: those named, else every lesson of every language. Returns 0,
// or the exit code when there is no lessons folder.
static int lesson_files(char **args, int n_args, char **files, int *n) {
  if (n_args > 0) {
    for (int i = 0; i < n_args && *n < MAX_LESSONS; i++) files[(*n)++] = strdup(args[i]);
    return 0;
  }
  char root[4096], *langs[16];
  if (!lessons_root(root, sizeof root)) {
    fprintf(stderr, "ttrace lesson: no lessons folder found (set TTRACE_LESSONS)\n");
    return 4;
  }
  int nl = list_langs(root, langs, 16);
  for (int k = 0; k < nl; k++) *n += list_lessons(root, langs[k], files + *n, MAX_LESSONS - *n);
  free_list(langs, nl);
  return 0;
}

// Whether a trace before trace t of lessons[i] names def's file (each file is made once);
// *rc is set to the exit code when that one defines the file differently.
static bool made_before(tt_lesson **lessons, int i, int t, const tt_lesson_trace *def, tt_error *err, int *rc) {
  for (int j = 0; j <= i; j++)
    for (int u = 0; u < (j == i ? t : tt_lesson_n_traces(lessons[j])); u++) {
      const tt_lesson_trace *other = tt_lesson_trace_at(lessons[j], u);
      if (strcmp(other->file, def->file) != 0) continue;
      if (!tt_lesson_trace_same(other, def)) {
        tt_fail(err, TT_ERR_FORMAT, "%s:%d and %s:%d define %s differently", tt_lesson_name(lessons[j]), other->line,
                tt_lesson_name(lessons[i]), def->line, def->file);
        *rc = tt_cli_fail("lesson", err);
      }
      return true;
    }
  return false;
}

// A train= trace's model: `train-step` on def's prompt into a fresh folder *trained (under
// the system's temporary folder; removed by the caller), from model.
static tt_status train_for(const tt_lesson_trace *def, const char *model, char *trained, size_t len, tt_error *err) {
  const char *tmpdir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  char base[4096];
  snprintf(base, sizeof base, "%s/ttrace-lesson-XXXXXX", tmpdir);
  if (!mkdtemp(base)) return tt_fail(err, TT_ERR_IO, "cannot create a folder in %s: %s", tmpdir, strerror(errno));
  snprintf(trained, len, "%s/model", base);
  tt_train_args a = {
      .model_dir = model, .output = trained, .lr = strtod(def->train, NULL), .steps = def->steps, .quiet = true};
  tt_status st = tt_train_model(&a, def->prompt, err);
  if (st) rmdir(base);
  return st;
}

// Traces def with the session (and the metadata saying how its model was trained).
static tt_status trace_def(const tt_lesson_trace *def, const char *model, const char *path, tt_trace **tr,
                           tt_error *err) {
  char trained[4200] = "", training[96];
  tt_status st = def->train ? train_for(def, model, trained, sizeof trained, err) : TT_OK;
  tt_session_opts opts = {
      .model_dir = trained[0] ? trained : model, .set = def->set, .n_set = def->n_set, .grad = def->grad};
  tt_session *s = NULL;
  if (!st) st = tt_session_open(&opts, &s, err);
  if (!st) st = tt_session_trace(s, def->prompt, def->record, def->n_record, tr, err);
  // The trained folder goes away: the trace names the model it was trained from.
  char from[4096];
  snprintf(from, sizeof from, "%s", model ? model : tt_model_default_dir(from, sizeof from) ? from : "default");
  if (!st && def->train &&
      (tt_trace_set_meta(*tr, "trained", tt_lesson_training(def, training, sizeof training)) ||
       tt_trace_set_meta(*tr, "model", from)))
    st = tt_fail(err, TT_ERR_NOMEM, "out of memory");
  if (!st) st = tt_trace_save(*tr, path, err);
  tt_session_close(s);
  if (trained[0]) {
    tt_train_remove(trained);
    trained[strlen(trained) - strlen("/model")] = 0;
    rmdir(trained);
  }
  return st;
}

// Traces trace t of lesson l (def) and saves it under out_dir, with its line; adds its size
// to *total and one to *made. Returns 0, or the exit code.
static int make_trace(const tt_lesson *l, int t, const tt_lesson_trace *def, const char *out_dir, const char *model_dir,
                      size_t *total, int *made, tt_error *err) {
  char path[4096];
  if (tt_lesson_trace_path(l, t, out_dir, path, sizeof path, err)) return tt_cli_fail("lesson", err);
  const char *model = tt_lesson_model(l);
  tt_trace *tr = NULL;
  int rc = 0;
  char named[4000], rel[300];
  snprintf(rel, sizeof rel, "models/%s", def->model ? def->model : "");
  if (def->model && !tt_asset_path(rel, named, sizeof named)) {
    tt_fail(err, TT_ERR_IO, "%s:%d: trace '%s': model=%s: no folder assets/%s", tt_lesson_name(l), def->line, def->name,
            def->model, rel);
    return tt_cli_fail("lesson", err);
  }
  // model= names the trace's own model; -m replaces the lesson's model: for the others.
  if (def->model) model_dir = named;
  tt_status st = trace_def(def, model_dir ? model_dir : strcmp(model, "default") == 0 ? NULL : model, path, &tr, err);
  if (st) {
    tt_fail_prefix(err, "%s:%d: trace '%s'", tt_lesson_name(l), def->line, def->name);
    rc = tt_cli_fail("lesson", err);
  } else {
    struct stat sb;
    size_t bytes = stat(path, &sb) == 0 ? (size_t)sb.st_size : 0;
    *total += bytes;
    (*made)++;
    printf("%-44s %3d tokens %4zu tensors %8.1f KiB  \"%s\"\n", path, tt_trace_n_tokens(tr), tt_trace_count(tr),
           (double)bytes / 1024, def->prompt);
  }
  tt_trace_destroy(tr);
  return rc;
}

static int cmd_make(char **args, int n_args, const char *out_dir, const char *model_dir) {
  char *files[MAX_LESSONS];
  int n = 0;
  int rc = lesson_files(args, n_args, files, &n);
  if (rc) return rc;
  tt_lesson *lessons[MAX_LESSONS];
  tt_error err = {0};
  int loaded = 0;
  for (; loaded < n; loaded++)
    if (tt_lesson_load(files[loaded], &lessons[loaded], &err)) {
      rc = tt_cli_fail("lesson", &err);
      break;
    }
  // Each file once; two lessons naming the same file must define the same trace.
  size_t total = 0;
  int made = 0;
  for (int i = 0; i < loaded && !rc; i++) {
    for (int t = 0; t < tt_lesson_n_traces(lessons[i]) && !rc; t++) {
      const tt_lesson_trace *def = tt_lesson_trace_at(lessons[i], t);
      if (made_before(lessons, i, t, def, &err, &rc)) continue;
      rc = make_trace(lessons[i], t, def, out_dir, model_dir, &total, &made, &err);
    }
  }
  if (!rc) printf("%d traces, %.2f MiB\n", made, (double)total / (1 << 20));
  for (int i = 0; i < loaded; i++) tt_lesson_destroy(lessons[i]);
  free_list(files, n);
  return rc;
}

// ---- the window --------------------------------------------------------------------------
// width/height 0 and theme NULL keep the defaults (or the TTRACE_UI_* variables).
static int play_window(const char *path, const char *traces_dir, const char *lang, int width, int height,
                       const char *theme, float font_scale) {
#if TT_HAVE_GUI
  tt_error err = {0};
  tt_ui_opts o;
  tt_ui_lesson_env_opts(&o);
  if (width) o.width = width, o.height = height;
  if (theme) o.theme = strcmp(theme, "dark") == 0 ? TT_THEME_DARK : TT_THEME_LIGHT;
  if (font_scale > 0) o.font_scale = font_scale;
  tt_status st = tt_ui_run_lesson_opts(&o, path, traces_dir, lang, &err);
  if (st != TT_ERR_UNSUPPORTED) return st ? tt_cli_fail("lesson", &err) : 0;
  fprintf(stderr, "ttrace lesson: %s; playing it as text instead\n", err.msg);
#else
  (void)lang, (void)width, (void)height, (void)theme, (void)font_scale;
  fprintf(stderr, "ttrace lesson: this build has no lesson window; playing it as text instead\n");
#endif
  return play_text(path, traces_dir, 0);
}

typedef struct {
  enum { PLAY, TEXT, LIST, CHECK, MAKE, SVG } mode;
  const char *lang, *traces_dir, *out_dir, *model_dir, *theme, *svg;
  int step, width, height;
  float font_scale;  // --font-scale (0: the default)
} lesson_options;

// ---- --svg: one step drawn headless ------------------------------------------------------------
static int export_svg(const char *path, const lesson_options *o) {
#if TT_HAVE_GUI
  tt_error err = {0};
  char traces[8400];
  tt_ui_lesson_svg_opts so = {o->step - 1,
                              o->width ? o->width : 1280,
                              o->height ? o->height : 800,
                              o->theme && strcmp(o->theme, "dark") == 0 ? TT_THEME_DARK : TT_THEME_LIGHT,
                              o->font_scale,
                              o->svg};
  tt_status st = tt_ui_lesson_svg(path, o->traces_dir, &so, traces, sizeof traces, &err);
  if (st) return tt_cli_fail("lesson", &err);
  fputs(traces, stdout);
  return 0;
#else
  (void)path, (void)o;
  tt_error err;
  tt_fail(&err, TT_ERR_UNSUPPORTED, "this build has no renderer for --svg");
  return tt_cli_fail("lesson", &err);
#endif
}

// Applies one option. Returns 0, or the exit code of its error.
static int parse_option(int c, char **argv, lesson_options *o) {
  switch (c) {
  case 't':
    o->mode = TEXT;
    return 0;
  case 's':
    o->step = atoi(optarg);
    if (o->step < 1) return tt_cli_usage_error("lesson", "--step '%s' should be a step number from 1", optarg);
    return 0;
  case 'l':
    o->lang = optarg;
    return 0;
  case 'T':
    o->traces_dir = optarg;
    return 0;
  case 'L':
    o->mode = LIST;
    return 0;
  case 'c':
    o->mode = CHECK;
    return 0;
  case 'M':
    o->mode = MAKE;
    return 0;
  case 'V':
    o->mode = SVG, o->svg = optarg;
    return 0;
  case 'o':
    o->out_dir = optarg;
    return 0;
  case 'm':
    o->model_dir = optarg;
    return 0;
  case 'S':
    if (sscanf(optarg, "%dx%d", &o->width, &o->height) != 2 || o->width < 320 || o->height < 240)
      return tt_cli_usage_error("lesson", "--size wants WxH of at least 320x240");
    return 0;
  case 'H':
    if (strcmp(optarg, "light") && strcmp(optarg, "dark"))
      return tt_cli_usage_error("lesson", "--theme is light or dark");
    o->theme = optarg;
    return 0;
  case 'F':
    o->font_scale = (float)atof(optarg);
    if (!(o->font_scale >= 0.5f && o->font_scale <= 3))
      return tt_cli_usage_error("lesson", "--font-scale between 0.5 and 3");
    return 0;
  default:
    return tt_cli_option_error("lesson", c, argv);
  }
}

// Fills o from argv. Returns true to go on; false with *code the exit status (0 after --help).
static bool parse_options(int argc, char **argv, lesson_options *o, int *code) {
  static const struct option longs[] = {{"text", no_argument, 0, 't'},
                                        {"step", required_argument, 0, 's'},
                                        {"lang", required_argument, 0, 'l'},
                                        {"traces", required_argument, 0, 'T'},
                                        {"list", no_argument, 0, 'L'},
                                        {"check", no_argument, 0, 'c'},
                                        {"make-traces", no_argument, 0, 'M'},
                                        {"help", no_argument, 0, 'h'},
                                        {"size", required_argument, 0, 'S'},
                                        {"theme", required_argument, 0, 'H'},
                                        {"svg", required_argument, 0, 'V'},
                                        {"font-scale", required_argument, 0, 'F'},
                                        {0, 0, 0, 0}};
  *o = (lesson_options){.mode = PLAY};
  int c;
  optind = 1;
  *code = 0;
  while ((c = getopt_long(argc, argv, ":o:m:h", longs, NULL)) != -1) {
    if (c == 'h') {
      fputs(usage, stdout);
      return false;
    }
    if ((*code = parse_option(c, argv, o))) return false;
  }
  return true;
}

// --make-traces: into -o (which must exist), else into --traces.
static int make_traces(char **rest, int n_rest, const lesson_options *o) {
  if (o->out_dir && !is_dir(o->out_dir)) {
    tt_error err;
    tt_fail(&err, TT_ERR_IO, "-o %s: no such folder", o->out_dir);
    return tt_cli_fail("lesson", &err);
  }
  return cmd_make(rest, n_rest, o->out_dir ? o->out_dir : o->traces_dir, o->model_dir);
}

// One LESSON: as SVG, as text, or in the window.
static int play_lesson(char **rest, int n_rest, const lesson_options *o) {
  if (n_rest != 1) return tt_cli_usage_error("lesson", n_rest ? "one LESSON at a time" : "missing LESSON");
  char path[4096];
  if (!tt_cli_find_lesson(rest[0], o->lang ? o->lang : "en", path, sizeof path)) {
    tt_error err;
    tt_fail(&err, TT_ERR_IO, "no lesson '%s' (a file, or a number or name from `ttrace lesson --list`)", rest[0]);
    return tt_cli_fail("lesson", &err);
  }
  if (o->mode == SVG) return export_svg(path, o);
  if (o->mode == TEXT || o->step) return play_text(path, o->traces_dir, o->step);
  return play_window(path, o->traces_dir, o->lang, o->width, o->height, o->theme, o->font_scale);
}

int tt_cmd_lesson(int argc, char **argv) {
  lesson_options o;
  int code;
  if (!parse_options(argc, argv, &o, &code)) return code;
  char **rest = argv + optind;
  int n_rest = argc - optind;
  if ((o.out_dir || o.model_dir) && o.mode != MAKE)
    return tt_cli_usage_error("lesson", "-o and -m go with --make-traces");
  if (o.step && o.mode != TEXT && o.mode != PLAY && o.mode != SVG)
    return tt_cli_usage_error("lesson", "--step goes with --text");
  if (o.mode == SVG && !o.step) return tt_cli_usage_error("lesson", "--svg wants --step N");
  if (o.mode == LIST) return n_rest ? tt_cli_usage_error("lesson", "--list takes no LESSON") : cmd_list(o.lang);
  if (o.mode == CHECK) return cmd_check(rest, n_rest, o.traces_dir);
  if (o.mode == MAKE) return make_traces(rest, n_rest, &o);
  return play_lesson(rest, n_rest, &o);
}
