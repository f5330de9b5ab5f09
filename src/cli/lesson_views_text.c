// lesson_views_text: the lens, neighbours and cost views as text (see lesson_views_text.h).
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

void tt_cli_print_neighbours(const tt_trace *tr, const tt_tokenizer *tok, int pos, bool ko) {
  tt_model *m = NULL;
  tt_error err = {0};
  int T = tt_trace_n_tokens(tr);
  if (pos < 0 || pos >= T) pos = T - 1;
  int32_t id = tt_trace_token_id(tr, pos);
  tt_neighbours nb;
  if (load_model(tr, &m, &err) ||
      tt_embedding_neighbours(m->wte, m->cfg.vocab_size, m->cfg.n_embd, id, 10, &nb, &err)) {
    printf(say(ko, "(the neighbours are read from the model's W_E: %s)\n", "(이웃은 모델의 W_E에서 읽습니다: %s)\n"),
           err.msg);
    tt_model_destroy(m);
    return;
  }
  char piece[256];
  printf(say(ko, "the rows of W_E nearest to '%s' (id %d), by cosine similarity:\n",
             "'%s'(id %d)의 행과 코사인 유사도가 가장 큰 W_E의 행:\n"),
         tt_trace_token(tr, pos), (int)id);
  if (nb.shared > 1)
    printf(say(ko, "  (its row is shared with %d other tokens never seen in training)\n",
               "  (학습에 나오지 않은 다른 토큰 %d개와 한 행을 함께 씀)\n"),
           nb.shared - 1);
  for (int i = 0; i < nb.n; i++) {
    if (nb.near[i].shared > 1) {
      snprintf(piece, sizeof piece,
               say(ko, "%d tokens share one row (never seen in training)",
                   "토큰 %d개가 한 행을 함께 씀 (학습에 나오지 않음)"),
               nb.near[i].shared);
      printf("  %2d  ", i + 1);
      pad_to(piece, 44);
    } else {
      if (!tok || !tt_tokenizer_token_visible(tok, nb.near[i].id, piece, sizeof piece))
        snprintf(piece, sizeof piece, "id %d", (int)nb.near[i].id);
      printf("  %2d  ", i + 1);
      pad_to(piece, 24);
      printf("%8d            ", (int)nb.near[i].id);
    }
    printf("  %.3f\n", nb.near[i].cosine);
  }
  tt_model_destroy(m);
}
