// The step list and its texts, as text: the order follows the block layout, the texts
// follow the config (positions, activation, unembedding, scaling), every language has
// every string, and the Korean terms are the chosen ones.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pipeline/pipeline.h"

// A trace with only metadata: cfg, 4 tokens, and the unembedding key when given.
static tt_trace *trace_with(const tt_config *cfg, const char *unembedding) {
  tt_trace *tr = tt_trace_create();
  char *json = tt_config_to_json(cfg);
  assert_int_equal(tt_trace_set_meta(tr, "config", json), TT_OK);
  free(json);
  if (unembedding) assert_int_equal(tt_trace_set_meta(tr, "unembedding", unembedding), TT_OK);
  const int32_t ids[4] = {464, 6193, 318, 3621};
  const char *strs[4] = {"The", " weather", " is", " nice"};
  tt_error err = {0};
  assert_int_equal(tt_trace_set_tokens(tr, ids, strs, 4, &err), TT_OK);
  return tr;
}

static int index_of(const tt_trace *tr, const char *id) {
  for (int i = 0; i < tt_step_count(); i++)
    if (strcmp(tt_step_get(tr, i)->id, id) == 0) return i;
  fail_msg("no step %s", id);
  return -1;
}

static const char *step_text(const tt_trace *tr, const char *id) {
  return tt_step_text(tr, index_of(tr, id), TT_LANG_EN);
}

static void shapes_of(const tt_trace *tr, const char *id, char *buf, size_t len) {
  tt_step_shapes(tr, index_of(tr, id), TT_LANG_EN, buf, len);
}

static void test_block_order(void **state) {
  (void)state;
  tt_config cfg;
  tt_config_default(&cfg);
  tt_trace *pre = trace_with(&cfg, NULL);
  cfg.post_ln = true;
  tt_trace *post = trace_with(&cfg, NULL);
  // GPT-2: LN1 before Q/K/V, LN2 before the FFN.
  assert_true(index_of(pre, "ln1") < index_of(pre, "qkv"));
  assert_true(index_of(pre, "ln2") < index_of(pre, "ffn_up"));
  // Post-LN: attention, residual, LN1, FFN, residual, LN2.
  const char *want[] = {"qkv",    "split", "scores", "scale", "mask",     "softmax", "weighted", "proj",
                        "resid1", "ln1",   "ffn_up", "gelu",  "ffn_down", "resid2",  "ln2",      "ln_final"};
  int first = index_of(post, "qkv");
  for (size_t k = 0; k < sizeof want / sizeof *want; k++)
    assert_string_equal(tt_step_get(post, first + (int)k)->id, want[k]);
  // Every step is listed once in each order, and a hook finds its own position.
  for (int i = 0; i < tt_step_count(); i++) {
    char hook[96];
    int layer = -1;
    tt_step_hook(post, i, 2, hook, sizeof hook);
    if (strcmp(hook, "tokens") != 0) assert_int_equal(tt_step_find(post, hook, &layer), i);
  }
  assert_int_equal(tt_step_find(post, "blocks.3.ln1.hook_out", NULL), index_of(post, "ln1"));
  // Through the catalogue: block 0's input is the "sum" step, later blocks' are no step;
  // gradients and decode steps are not pipeline steps.
  int layer = 7;
  assert_int_equal(tt_step_find(pre, "blocks.0.hook_resid_pre", &layer), index_of(pre, "sum"));
  assert_int_equal(layer, 0);
  assert_int_equal(tt_step_find(pre, "blocks.1.hook_resid_pre", NULL), -1);
  assert_int_equal(tt_step_find(pre, "grad.blocks.0.attn.hook_pattern", NULL), -1);
  assert_int_equal(tt_step_find(pre, "decode.0.blocks.0.attn.hook_pattern", NULL), -1);
  assert_int_equal(tt_step_find(pre, "blocks.01.attn.hook_pattern", NULL), -1);
  assert_int_equal(tt_step_find(pre, "tokens", NULL), index_of(pre, "tokenize"));
  char hook[96];
  tt_step_hook(pre, index_of(pre, "sum"), 5, hook, sizeof hook);
  assert_string_equal(hook, "blocks.0.hook_resid_pre");
  tt_step_hook(pre, index_of(pre, "softmax"), 5, hook, sizeof hook);
  assert_string_equal(hook, "blocks.5.attn.hook_pattern");
  tt_trace_destroy(pre);
  tt_trace_destroy(post);
}

static void test_positions(void **state) {
  (void)state;
  tt_config cfg;
  tt_config_default(&cfg);
  char buf[256];
  tt_trace *tr = trace_with(&cfg, NULL);
  shapes_of(tr, "positions", buf, sizeof buf);
  assert_string_equal(buf,
                      "W_P (1024, 768), rows 0\xE2\x80\xA6"
                      "3 \xE2\x86\x92 (4, 768)");
  tt_trace_destroy(tr);

  cfg.positions = TT_POS_SINUSOIDAL;
  tr = trace_with(&cfg, NULL);
  shapes_of(tr, "positions", buf, sizeof buf);
  assert_non_null(strstr(buf, "sinusoidal"));
  assert_null(strstr(buf, "W_P"));
  assert_non_null(strstr(buf, "(4, 768)"));
  assert_non_null(strstr(step_text(tr, "positions"), "sines and cosines"));
  assert_non_null(strstr(step_text(tr, "positions"), "no W_P"));
  assert_non_null(strstr(tt_step_formula(tr, index_of(tr, "positions")), "sin(t"));
  tt_trace_destroy(tr);

  cfg.positions = TT_POS_NONE;
  tr = trace_with(&cfg, NULL);
  shapes_of(tr, "positions", buf, sizeof buf);
  assert_non_null(strstr(buf, "none"));
  assert_null(strstr(buf, "W_P"));
  assert_non_null(strstr(step_text(tr, "positions"), "no position vectors"));
  tt_trace_destroy(tr);

  // Positions inside attention: RoPE (the GPT-2 what-if and every Llama model), ALiBi.
  const struct {
    tt_pos_kind pos;
    const char *formula, *words, *ko;
  } inside[] = {{TT_POS_ROPE, "(RoPE)", "rotates each pair", "RoPE"}, {TT_POS_ALIBI, "(ALiBi)", "slope", "ALiBi"}};
  for (size_t k = 0; k < sizeof inside / sizeof *inside; k++) {
    cfg.positions = inside[k].pos;
    tr = trace_with(&cfg, NULL);
    shapes_of(tr, "positions", buf, sizeof buf);
    assert_null(strstr(buf, "W_P"));
    assert_non_null(strstr(tt_step_formula(tr, index_of(tr, "positions")), inside[k].formula));
    assert_non_null(strstr(step_text(tr, "positions"), inside[k].words));
    assert_non_null(strstr(tt_step_text(tr, index_of(tr, "positions"), TT_LANG_KO), inside[k].ko));
    tt_trace_destroy(tr);
  }
}

static void test_activation(void **state) {
  (void)state;
  tt_config cfg;
  tt_config_default(&cfg);
  const struct {
    tt_act_kind a;
    const char *text, *formula;
  } cases[] = {{TT_ACT_GELU_TANH, "pushed towards 0", "GELU(u) \xE2\x89\x88"},
               {TT_ACT_GELU_ERF, "pushed towards 0", "GELU(u) = u \xC2\xB7 \xCE\xA6(u)"},
               {TT_ACT_RELU, "become exactly 0", "max(0, u)"},
               {TT_ACT_SILU, "SiLU", "SiLU(u)"},
               {TT_ACT_IDENTITY, "no activation (identity", "g = u  (no activation)"}};
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    cfg.activation = cases[k].a;
    tt_trace *tr = trace_with(&cfg, NULL);
    const char *text = step_text(tr, "gelu");
    if (!strstr(text, cases[k].text))
      fail_msg("%s: text '%s' lacks '%s'", tt_act_name(cases[k].a), text, cases[k].text);
    assert_non_null(strstr(tt_step_formula(tr, index_of(tr, "gelu")), cases[k].formula));
    // Only the identity says nothing bends.
    assert_int_equal(strstr(text, "nothing bends") != NULL, cases[k].a == TT_ACT_IDENTITY);
    assert_int_equal(strstr(tt_step_text(tr, index_of(tr, "gelu"), TT_LANG_KO), "identity") != NULL,
                     cases[k].a == TT_ACT_IDENTITY);
    tt_trace_destroy(tr);
  }
}

static void test_logits(void **state) {
  (void)state;
  tt_config cfg;
  tt_config_default(&cfg);
  const char *tied_meta[] = {NULL, "tied"};
  for (int k = 0; k < 2; k++) {
    tt_trace *tr = trace_with(&cfg, tied_meta[k]);
    assert_true(tt_pipeline_tied(tr));
    assert_string_equal(tt_step_formula(tr, index_of(tr, "logits")), "z = y \xC2\xB7 W_E\xE1\xB5\x80");
    assert_non_null(strstr(step_text(tr, "logits"), "embedding matrix"));
    tt_trace_destroy(tr);
  }
  tt_trace *tr = trace_with(&cfg, "lm_head");
  assert_false(tt_pipeline_tied(tr));
  const char *f = tt_step_formula(tr, index_of(tr, "logits"));
  assert_non_null(strstr(f, "W_U\xE1\xB5\x80"));
  assert_non_null(strstr(f, "lm_head"));
  assert_null(strstr(f, "W_E"));
  assert_non_null(strstr(step_text(tr, "logits"), "lm_head"));
  assert_non_null(strstr(tt_step_text(tr, index_of(tr, "logits"), TT_LANG_KO), "lm_head"));
  tt_trace_destroy(tr);
}

static void test_scale(void **state) {
  (void)state;
  tt_config cfg;
  tt_config_default(&cfg);
  tt_trace *tr = trace_with(&cfg, NULL);
  const char *text = step_text(tr, "scale");
  assert_non_null(strstr(text,
                         "standard deviation grows with \xE2\x88\x9A"
                         "D"));
  assert_null(strstr(text, "grows with D"));
  assert_non_null(strstr(tt_step_text(tr, index_of(tr, "scale"), TT_LANG_KO), "표준편차(\xCF\x83)"));
  char buf[256];
  shapes_of(tr, "scale", buf, sizeof buf);
  assert_string_equal(buf,
                      "(12, 4, 4) \xC3\xB7 \xE2\x88\x9A"
                      "64 = 8 \xE2\x86\x92 (12, 4, 4)");
  shapes_of(tr, "qkv", buf, sizeof buf);
  assert_string_equal(buf, "(4, 768) \xC3\x97 (768, 2304) \xE2\x86\x92 (4, 2304)");
  tt_trace_destroy(tr);
  cfg.scale_attn = false;
  tr = trace_with(&cfg, NULL);
  assert_non_null(strstr(step_text(tr, "scale"), "does not divide"));
  tt_trace_destroy(tr);
}

// Every step's shapes for GPT-2 small and 4 tokens, as printed.
static void test_all_shapes(void **state) {
  (void)state;
  tt_config cfg;
  tt_config_default(&cfg);
  tt_trace *tr = trace_with(&cfg, NULL);
#define A "\xE2\x86\x92"
#define X "\xC3\x97"
  const char *want[][2] = {
      {"tokenize", "text " A " (T) = (4) pieces"},
      {"ids", "(T) = (4) integers, each < V = 50257"},
      {"embed", "W_E (50257, 768), ids (4) " A " (4, 768)"},
      {"positions",
       "W_P (1024, 768), rows 0\xE2\x80\xA6"
       "3 " A " (4, 768)"},
      {"sum", "(4, 768) + (4, 768) " A " (4, 768)"},
      {"ln1", "(4, 768) " A " (4, 768), \xCE\xBC and \xCF\x83 per token (4)"},
      {"qkv", "(4, 768) " X " (768, 2304) " A " (4, 2304)"},
      {"split", "(4, 2304) " A " 3 " X " (12, 4, 64),  D = 768 / 12 = 64"},
      {"scores", "(12, 4, 64) " X " (12, 64, 4) " A " (12, 4, 4)"},
      {"mask", "(12, 4, 4) " A " (12, 4, 4)"},
      {"softmax", "(12, 4, 4) " A " (12, 4, 4), each row sums to 1"},
      {"weighted", "(12, 4, 4) " X " (12, 4, 64) " A " (12, 4, 64)"},
      {"proj", "(4, 768) " X " (768, 768) " A " (4, 768)"},
      {"resid1", "(4, 768) + (4, 768) " A " (4, 768)"},
      {"ln2", "(4, 768) " A " (4, 768), \xCE\xBC and \xCF\x83 per token (4)"},
      {"ffn_up", "(4, 768) " X " (768, 3072) " A " (4, 3072)"},
      {"gelu", "(4, 3072) " A " (4, 3072), one number at a time"},
      {"ffn_down", "(4, 3072) " X " (3072, 768) " A " (4, 768)"},
      {"resid2", "(4, 768) + (4, 768) " A " (4, 768)"},
      {"ln_final", "(4, 768) " A " (4, 768), \xCE\xBC and \xCF\x83 per token (4)"},
      {"logits", "(4, 768) " X " (768, 50257) " A " (4, 50257)"},
      {"probs", "(4, 50257) " A " (4, 50257), each row sums to 1"},
  };
#undef A
#undef X
  char buf[256];
  for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
    shapes_of(tr, want[k][0], buf, sizeof buf);
    if (strcmp(buf, want[k][1]) != 0) fail_msg("%s: '%s', want '%s'", want[k][0], buf, want[k][1]);
  }
  tt_trace_destroy(tr);
}

// Every language has every string and every step's title and text.
static void test_languages_complete(void **state) {
  (void)state;
  for (int l = 0; l < TT_LANG_COUNT; l++) {
    tt_lang lang;
    assert_true(tt_lang_parse(tt_lang_code((tt_lang)l), &lang));
    assert_int_equal(lang, l);
    for (int s = 0; s < TT_S_COUNT; s++)
      if (!tt_str((tt_lang)l, (tt_str_id)s)[0]) fail_msg("%s lacks string %d", tt_lang_code((tt_lang)l), s);
    for (int i = 0; i < tt_step_count(); i++) {
      assert_true(tt_step_title(NULL, i, (tt_lang)l)[0]);
      assert_true(tt_step_text(NULL, i, (tt_lang)l)[0]);
    }
  }
  assert_int_equal(tt_lang_next(TT_LANG_EN), TT_LANG_KO);
  assert_int_equal(tt_lang_next(TT_LANG_KO), TT_LANG_EN);
  tt_lang out = TT_LANG_EN;
  assert_false(tt_lang_parse("xx", &out));
}

// The Korean terms: 표준편차 not 퍼짐, 스트림 not 흐름, 블록 not 층 (except a linear
// layer, 선형층), 밸류(V) for the value vectors.
static void check_ko(const char *s, const char *where) {
  if (strstr(s, "퍼짐") || strstr(s, "흐름")) fail_msg("%s: '%s'", where, s);
  for (const char *p = strstr(s, "층"); p; p = strstr(p + 1, "층"))
    if (p - s < 6 || memcmp(p - 6, "선형", 6) != 0) fail_msg("%s: 층 outside 선형층: '%s'", where, s);
  if (strstr(s, "값 벡터") || strstr(s, "키, 값")) fail_msg("%s: 값 for V: '%s'", where, s);
}

static void test_korean_terms(void **state) {
  (void)state;
  tt_config cfg;
  tt_config_default(&cfg);
  for (int s = 0; s < TT_S_COUNT; s++) check_ko(tt_str(TT_LANG_KO, (tt_str_id)s), "string");
  tt_act_kind acts[] = {TT_ACT_GELU_TANH, TT_ACT_RELU, TT_ACT_SILU, TT_ACT_IDENTITY};
  for (size_t a = 0; a < sizeof acts / sizeof *acts; a++) {
    cfg.activation = acts[a];
    tt_trace *tr = trace_with(&cfg, a % 2 ? "lm_head" : NULL);
    for (int i = 0; i < tt_step_count(); i++) {
      check_ko(tt_step_title(tr, i, TT_LANG_KO), tt_step_get(tr, i)->id);
      check_ko(tt_step_text(tr, i, TT_LANG_KO), tt_step_get(tr, i)->id);
    }
    tt_trace_destroy(tr);
  }
  assert_non_null(strstr(tt_step_text(NULL, index_of(NULL, "weighted"), TT_LANG_KO), "밸류(V) 벡터"));
}

// A Llama config: 4 query heads sharing 2 key/value heads of D = 10, C = 32, F = 48.
static tt_trace *llama_trace(tt_act_kind act) {
  tt_config cfg;
  tt_config_default(&cfg);
  cfg.arch = TT_ARCH_LLAMA;
  cfg.positions = TT_POS_ROPE;
  cfg.norm = TT_NORM_RMSNORM;
  cfg.activation = act;
  cfg.n_layer = 2;
  cfg.n_head = 4;
  cfg.n_kv_head = 2;
  cfg.head_dim = 10;
  cfg.n_embd = 32;
  cfg.n_inner = 48;
  cfg.rope_theta = 10000.0;
  return trace_with(&cfg, "lm_head");
}

// The Llama block's list: its own hooks (no fused Q/K/V, no position vectors), the
// grouped-query shapes with the trace's numbers, RMSNorm's and SwiGLU's words.
static void test_llama_steps(void **state) {
  (void)state;
  tt_trace *tr = llama_trace(TT_ACT_SILU);
  const char *want[] = {"tokenize", "ids",    "embed",   "ln1",      "q_proj",   "kv_proj", "rope", "scores",
                        "scale",    "mask",   "softmax", "weighted", "o_proj",   "resid1",  "ln2",  "gate",
                        "up",       "swiglu", "down",    "resid2",   "ln_final", "logits",  "probs"};
  assert_int_equal(sizeof want / sizeof *want, tt_step_count());
  for (int i = 0; i < tt_step_count(); i++) {
    const tt_step *s = tt_step_get(tr, i);
    assert_string_equal(s->id, want[i]);
    assert_true(strcmp(s->suffix, "attn.hook_qkv") && strcmp(s->suffix, "hook_pos_embed"));
    char hook[96];
    tt_step_hook(tr, i, 1, hook, sizeof hook);
    int layer = -1;
    // Every hook finds its own step (the ids show the tokens of the step before).
    assert_int_equal(tt_step_find(tr, hook, &layer), strcmp(s->id, "ids") ? i : i - 1);
    if (s->in_block) assert_int_equal(layer, 1);
    for (int l = 0; l < TT_LANG_COUNT; l++) {
      assert_true(tt_step_title(tr, i, (tt_lang)l)[0]);
      assert_true(tt_step_text(tr, i, (tt_lang)l)[0]);
      check_ko(tt_step_title(tr, i, TT_LANG_KO), s->id);
      check_ko(tt_step_text(tr, i, TT_LANG_KO), s->id);
      char buf[256];
      tt_step_shapes(tr, i, (tt_lang)l, buf, sizeof buf);
      if (strcmp(s->id, "mask") && strcmp(s->id, "tokenize")) assert_true(buf[0]);
    }
  }
  assert_int_equal(tt_step_find(tr, "blocks.0.mlp.hook_pre_linear", NULL), index_of(tr, "up"));
  assert_int_equal(tt_step_find(tr, "blocks.1.attn.hook_rot_q", NULL), index_of(tr, "rope"));
  char buf[256];
  shapes_of(tr, "q_proj", buf, sizeof buf);
  assert_string_equal(buf, "(4, 32) \xC3\x97 (32, 40) \xE2\x86\x92 (4, 40) \xE2\x86\x92 (4, 4, 10),  H = 4, D = 10");
  // The KV cache of T = 4 positions, float32: 2 · L · G · D · T · 4 = 2 · 2 · 2 · 10 · 4 · 4.
  shapes_of(tr, "kv_proj", buf, sizeof buf);
  assert_string_equal(buf, "K, V 2 \xC3\x97 (2, 4, 10);  KV cache 1280 B (G = 2) vs 2560 B (H = 4)");
  tt_step_shapes(tr, index_of(tr, "kv_proj"), TT_LANG_KO, buf, sizeof buf);
  assert_non_null(strstr(buf, "1280 B (G = 2)"));
  assert_non_null(strstr(buf, "2560 B (H = 4)"));
  shapes_of(tr, "scores", buf, sizeof buf);
  assert_string_equal(buf,
                      "(4, 4, 10) \xC3\x97 (2, 10, 4) \xE2\x86\x92 (4, 4, 4);  K/V \xE2\x86\x90 q "
                      "heads: 0 \xE2\x86\x90 0\xE2\x80\x93"
                      "1, 1 \xE2\x86\x90 2\xE2\x80\x93"
                      "3");
  shapes_of(tr, "weighted", buf, sizeof buf);
  assert_string_equal(buf, "(4, 4, 4) \xC3\x97 (2, 4, 10) \xE2\x86\x92 (4, 4, 10)");
  shapes_of(tr, "o_proj", buf, sizeof buf);
  assert_string_equal(buf, "(4, 40) \xC3\x97 (40, 32) \xE2\x86\x92 (4, 32)");
  shapes_of(tr, "rope", buf, sizeof buf);
  assert_non_null(strstr(buf, "q (4, 4, 10), k (2, 4, 10): 5 pairs"));
  shapes_of(tr, "gate", buf, sizeof buf);
  assert_string_equal(buf, "(4, 32) \xC3\x97 (32, 48) \xE2\x86\x92 (4, 48)");
  shapes_of(tr, "swiglu", buf, sizeof buf);
  assert_string_equal(buf, "(4, 48) \xE2\x8A\x99 (4, 48) \xE2\x86\x92 (4, 48)");
  assert_string_equal(tt_step_formula(tr, index_of(tr, "swiglu")),
                      "a = SiLU(g) \xE2\x8A\x99 u = g \xC2\xB7 \xCF\x83(g) \xE2\x8A\x99 u");
  shapes_of(tr, "down", buf, sizeof buf);
  assert_string_equal(buf, "(4, 48) \xC3\x97 (48, 32) \xE2\x86\x92 (4, 32)");
  // RMSNorm: no mean; its own title in both languages.
  assert_string_equal(tt_step_title(tr, index_of(tr, "ln1"), TT_LANG_EN), "RMSNorm 1");
  assert_non_null(strstr(tt_step_title(tr, index_of(tr, "ln_final"), TT_LANG_KO), "RMSNorm"));
  assert_null(strstr(tt_step_formula(tr, index_of(tr, "ln1")), "\xCE\xBC"));
  assert_non_null(strstr(step_text(tr, "ln1"), "no mean"));
  shapes_of(tr, "ln1", buf, sizeof buf);
  assert_non_null(strstr(buf, "no mean"));
  assert_null(strstr(buf, "\xCE\xBC"));
  assert_non_null(strstr(tt_step_formula(tr, index_of(tr, "swiglu")), "SiLU(g)"));
  assert_non_null(strstr(step_text(tr, "swiglu"), "switches the neuron off"));
  tt_trace_destroy(tr);
  tr = llama_trace(TT_ACT_GELU_ERF);
  assert_non_null(strstr(step_text(tr, "swiglu"), "hidden_act"));
  assert_null(strstr(tt_step_formula(tr, index_of(tr, "swiglu")), "SiLU"));
  tt_trace_destroy(tr);
}

static void test_view_names(void **state) {
  (void)state;
  for (int v = 0; v < TT_VIEW_COUNT; v++) {
    tt_view_kind k;
    assert_true(tt_view_parse(tt_view_name((tt_view_kind)v), &k));
    assert_int_equal(k, v);
  }
  tt_view_kind k = TT_VIEW_AUTO;
  assert_false(tt_view_parse("norms", &k));
  assert_string_equal(tt_view_name(TT_VIEW_COUNT), "?");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_block_order),
      cmocka_unit_test(test_positions),
      cmocka_unit_test(test_activation),
      cmocka_unit_test(test_logits),
      cmocka_unit_test(test_scale),
      cmocka_unit_test(test_all_shapes),
      cmocka_unit_test(test_languages_complete),
      cmocka_unit_test(test_korean_terms),
      cmocka_unit_test(test_llama_steps),
      cmocka_unit_test(test_view_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
