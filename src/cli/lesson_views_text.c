// lesson_views_text: the lens and cost views as text (see lesson_views_text.h).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson_views_text.h"
#include "cost/cost.h"
#include "lens/lens.h"

static const char *say(bool ko, const char *en, const char *ko_text) {
  return ko ? ko_text : en;
}

static void pad_to(const char *s, int cols) {
  int n = cols - tt_utf8_columns(s);
  printf("%s%*s", s, n > 0 ? n : 0, "");
}

static tt_status load_model(const tt_trace *tr, tt_model **m, tt_error *err) {
  const char *dir = tt_trace_meta(tr, "model");
  if (dir && tt_model_load(dir, m, err) == TT_OK) return TT_OK;
  char def[4096];
  if (!tt_model_default_dir(def, sizeof def)) return tt_fail(err, TT_ERR_IO, "no model folder");
  return tt_model_load(def, m, err);
}

void tt_cli_print_lens(const tt_trace *tr, const tt_tokenizer *tok, bool ko) {
  tt_model *m = NULL;
  tt_lens l;
  tt_error err = {0};
  if (load_model(tr, &m, &err) || tt_lens_compute(m, tr, 1, &l, &err)) {
    printf(say(ko, "(the lens needs the model's ln_final and unembedding: %s)\n",
               "(렌즈에는 모델의 ln_final과 언임베딩이 필요합니다: %s)\n"),
           err.msg);
    tt_model_destroy(m);
    return;
  }
  char piece[256], cell[320];
  pad_to("", 28);
  for (int t = 0; t < l.T; t++) {
    snprintf(cell, sizeof cell, "%d '%s'", t, tt_trace_token(tr, t));
    printf("  ");
    pad_to(cell, 20);
  }
  printf("\n");
  for (int r = 0; r < l.n_rows; r++) {
    pad_to(l.row_hook[r], 28);
    for (int t = 0; t < l.T; t++) {
      size_t i = tt_lens_at(&l, r, t, 0);
      const char *s = tok ? tt_tokenizer_token_display(tok, l.ids[i], piece, sizeof piece) : NULL;
      char *shown = tt_escape_text_dup(s ? s : "?");
      snprintf(cell, sizeof cell, "'%s' %.1f%%", shown ? shown : "?", 100.0 * l.probs[i]);
      free(shown);
      printf("  ");
      pad_to(cell, 20);
    }
    printf("\n");
  }
  tt_lens_free(&l);
  tt_model_destroy(m);
}

void tt_cli_print_cost(const tt_trace *tr, bool ko) {
  tt_config cfg;
  tt_cost_pass p;
  tt_error err = {0};
  if (!tt_trace_config(tr, &cfg) || tt_cost_prefill(&cfg, tt_trace_n_tokens(tr), &p, &err)) {
    printf("(%s)\n", err.msg[0] ? err.msg : "no config");
    return;
  }
  tt_cost_step *steps = calloc((size_t)p.n, sizeof *steps);
  int n = steps ? tt_cost_steps(&p, steps) : 0;
  pad_to(say(ko, "step", "단계"), 38);
  printf("%16s %16s\n", "FLOPs", say(ko, "bytes", "바이트"));
  for (int i = 0; i < n; i++) {
    pad_to(steps[i].suffix, 38);
    printf("%16.0f %16.0f\n", steps[i].flops, steps[i].bytes);
  }
  pad_to(say(ko, "all", "전체"), 38);
  printf("%16.0f %16.0f\n", p.flops, p.bytes);
  printf(say(ko, "matrix products: %.1f%% of the FLOPs\n", "행렬 곱: FLOP의 %.1f%%\n"),
         100.0 * p.matmul_flops / p.flops);
  free(steps);
  tt_cost_pass_free(&p);
}
