// model: loading HF-layout folders (prefix or not, F32/F16/BF16, tied or not) and clear
// errors for missing files, missing tensors, wrong shapes and unsupported dtypes.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/model.h"
#include "safetensors/safetensors.h"

enum { L = 2, H = 2, C = 4, F = 6, V = 10, P = 8 };
static char root[] = "/tmp/tt_model_XXXXXX";

typedef struct {
  const char *prefix;
  tt_dtype dtype;
  bool untied, drop_fc_bias, wrong_qkv, int_wte;
  const char *extra_config;
} variant;

// Writes config.json and model.safetensors for a tiny model; the value of element i of
// tensor k is k + i/1000, so tests can check where each pointer landed.
static void make_model(const char *dir, const variant *v) {
  mkdir(dir, 0755);
  char path[600];
  snprintf(path, sizeof path, "%s/config.json", dir);
  FILE *fp = fopen(path, "w");
  fprintf(fp,
          "{\"n_layer\": %d, \"n_head\": %d, \"n_embd\": %d, \"n_inner\": %d, \"vocab_size\": %d, "
          "\"n_positions\": %d, \"layer_norm_epsilon\": 1e-5, \"activation_function\": \"gelu_new\"%s}",
          L, H, C, F, V, P, v->extra_config ? v->extra_config : "");
  fclose(fp);
  tt_tensor ts[64];
  char names[64][128];
  int n = 0;
#define ADD(nm, d0, d1)                                                        \
  do {                                                                         \
    snprintf(names[n], 128, "%s%s", v->prefix, nm);                            \
    ts[n] = (tt_tensor){names[n], v->dtype, (d1) ? 2 : 1, {(d0), (d1)}, NULL}; \
    n++;                                                                       \
  } while (0)
  ADD("wte.weight", V, C);
  ADD("wpe.weight", P, C);
  for (int l = 0; l < L; l++) {
    char p[48];
#define LADD(s, d0, d1)                     \
  do {                                      \
    snprintf(p, sizeof p, "h.%d.%s", l, s); \
    ADD(p, d0, d1);                         \
  } while (0)
    LADD("ln_1.weight", C, 0);
    LADD("ln_1.bias", C, 0);
    int qkv_cols = v->wrong_qkv ? 2 * C : 3 * C;
    LADD("attn.c_attn.weight", C, qkv_cols);
    LADD("attn.c_attn.bias", 3 * C, 0);
    LADD("attn.c_proj.weight", C, C);
    LADD("attn.c_proj.bias", C, 0);
    LADD("ln_2.weight", C, 0);
    LADD("ln_2.bias", C, 0);
    LADD("mlp.c_fc.weight", C, F);
    if (!v->drop_fc_bias) LADD("mlp.c_fc.bias", F, 0);
    LADD("mlp.c_proj.weight", F, C);
    LADD("mlp.c_proj.bias", C, 0);
  }
  ADD("ln_f.weight", C, 0);
  ADD("ln_f.bias", C, 0);
  if (v->untied) {
    snprintf(names[n], 128, "lm_head.weight");
    ts[n] = (tt_tensor){names[n], v->dtype, 2, {V, C}, NULL};
    n++;
  }
  if (v->int_wte) ts[0].dtype = TT_I32;
  for (int k = 0; k < n; k++) {
    if (ts[k].ndim == 1) ts[k].shape[1] = 0;
    int64_t numel = tt_tensor_numel(&ts[k]);
    ts[k].data = malloc((size_t)numel * 4);
    for (int64_t i = 0; i < numel; i++) {
      float x = (float)k + (float)i / 1000.0f;
      if (ts[k].dtype == TT_F32 || ts[k].dtype == TT_I32)
        ((float *)ts[k].data)[i] = x;
      else if (ts[k].dtype == TT_F16)
        ((uint16_t *)ts[k].data)[i] = tt_f32_to_f16(x);
      else {
        uint32_t u;
        memcpy(&u, &x, 4);
        ((uint16_t *)ts[k].data)[i] = (uint16_t)(u >> 16);
      }
    }
  }
  snprintf(path, sizeof path, "%s/model.safetensors", dir);
  tt_error err;
  assert_int_equal(tt_st_write(path, ts, (size_t)n, NULL, 0, &err), TT_OK);
  for (int k = 0; k < n; k++) free(ts[k].data);
}

static tt_status load_variant(const variant *v, tt_model **m, tt_error *err) {
  static int counter;
  char dir[300];
  snprintf(dir, sizeof dir, "%s/m%d", root, counter++);
  make_model(dir, v);
  return tt_model_load(dir, m, err);
}

static void test_loads_each_storage(void **state) {
  (void)state;
  const variant variants[] = {
      {.prefix = "", .dtype = TT_F32},
      {.prefix = "transformer.", .dtype = TT_F32},
      {.prefix = "", .dtype = TT_F16},
      {.prefix = "transformer.", .dtype = TT_BF16},
      {.prefix = "", .dtype = TT_F32, .untied = true, .extra_config = ", \"tie_word_embeddings\": false"}};
  for (size_t i = 0; i < sizeof variants / sizeof *variants; i++) {
    tt_model *m = NULL;
    tt_error err = {0};
    if (load_variant(&variants[i], &m, &err)) fail_msg("variant %zu: %s", i, err.msg);
    float tol = variants[i].dtype == TT_F32 ? 0 : variants[i].dtype == TT_F16 ? 2e-3f : 2e-2f;
    assert_int_equal(m->cfg.n_layer, L);
    assert_int_equal(m->cfg.n_inner, F);
    assert_float_equal(m->wte[0], 0.0f, tol);
    assert_float_equal(m->wte[5], 0.005f, tol);
    assert_float_equal(m->wpe[0], 1.0f, tol);
    assert_float_equal(m->layers[0].ln1_w[0], 2.0f, tol);
    assert_float_equal(m->layers[1].attn_w[7], 16.007f, tol * 16);  // 2 + 12 + 2: second layer's qkv weight
    assert_float_equal(m->lnf_b[1], 27.001f, tol * 27);
    if (variants[i].untied)
      assert_ptr_not_equal(m->lm_head, m->wte);
    else
      assert_ptr_equal(m->lm_head, m->wte);
    tt_model_destroy(m);
  }
}

static void expect_load_error(const variant *v, tt_status want, const char *fragment) {
  tt_model *m = NULL;
  tt_error err = {0};
  tt_status st = load_variant(v, &m, &err);
  if (st != want || !strstr(err.msg, fragment))
    fail_msg("got %d '%s', wanted %d with '%s'", st, err.msg, want, fragment);
  assert_null(m);
}

static void test_load_errors(void **state) {
  (void)state;
  expect_load_error(&(variant){.prefix = "", .dtype = TT_F32, .drop_fc_bias = true}, TT_ERR_FORMAT,
                    "missing tensor 'h.0.mlp.c_fc.bias'");
  expect_load_error(&(variant){.prefix = "", .dtype = TT_F32, .wrong_qkv = true}, TT_ERR_SHAPE,
                    "'h.0.attn.c_attn.weight' should have shape (4, 12) for this config.json, found (4, 8)");
  expect_load_error(&(variant){.prefix = "", .dtype = TT_F32, .int_wte = true}, TT_ERR_UNSUPPORTED, "dtype I32");
  expect_load_error(&(variant){.prefix = "", .dtype = TT_F32, .extra_config = ", \"activation_function\": \"tanhh\""},
                    TT_ERR_UNSUPPORTED, "tanhh");
  expect_load_error(&(variant){.prefix = "", .dtype = TT_F32, .extra_config = ", \"add_cross_attention\": true"},
                    TT_ERR_UNSUPPORTED, "add_cross_attention is true");
  // The unembedding must be what tie_word_embeddings says.
  expect_load_error(&(variant){.prefix = "", .dtype = TT_F32, .untied = true}, TT_ERR_UNSUPPORTED,
                    "lm_head.weight differs from wte.weight but tie_word_embeddings is absent (true)");
  expect_load_error(
      &(variant){.prefix = "", .dtype = TT_F32, .untied = true, .extra_config = ", \"tie_word_embeddings\": true"},
      TT_ERR_UNSUPPORTED, "tie_word_embeddings is true");
  expect_load_error(&(variant){.prefix = "", .dtype = TT_F32, .extra_config = ", \"tie_word_embeddings\": false"},
                    TT_ERR_FORMAT, "tie_word_embeddings is false but there is no lm_head.weight");
  tt_model *m = NULL;
  tt_error err = {0};
  assert_int_equal(tt_model_load("/nonexistent/model", &m, &err), TT_ERR_IO);
  assert_non_null(strstr(err.msg, "/nonexistent/model"));
}

static void test_config_knobs(void **state) {
  (void)state;
  tt_config cfg;
  tt_config_default(&cfg);
  tt_error err = {0};
  assert_int_equal(tt_config_set(&cfg, "causal", "false", &err), TT_OK);
  assert_int_equal(tt_config_set(&cfg, "ttrace_positions", "sinusoidal", &err), TT_OK);
  assert_int_equal(tt_config_set(&cfg, "activation", "identity", &err), TT_OK);
  assert_int_equal(tt_config_set(&cfg, "block", "post_ln", &err), TT_OK);
  assert_int_equal(tt_config_set(&cfg, "norm", "rmsnorm", &err), TT_OK);
  assert_int_equal(tt_config_set(&cfg, "causal", "maybe", &err), TT_ERR_ARG);
  assert_non_null(strstr(err.msg, "true, false"));
  assert_int_equal(tt_config_set(&cfg, "colour", "red", &err), TT_ERR_ARG);
  char *json = tt_config_to_json(&cfg);
  tt_config back;
  assert_int_equal(tt_config_from_json(json, &back, &err), TT_OK);
  free(json);
  assert_false(back.causal);
  assert_true(back.post_ln);
  assert_int_equal(back.positions, TT_POS_SINUSOIDAL);
  assert_int_equal(back.activation, TT_ACT_IDENTITY);
  assert_int_equal(back.norm, TT_NORM_RMSNORM);
  assert_int_equal(back.n_inner, cfg.n_inner);
  assert_int_equal(tt_config_from_json("{\"n_layer\": 2}", &back, &err), TT_ERR_FORMAT);
  assert_non_null(strstr(err.msg, "n_head"));
}

// config.json text with the tiny model's sizes plus `extra` (", \"key\": value").
static tt_status parse_with(const char *extra, tt_config *cfg, tt_error *err) {
  char json[1024];
  snprintf(json, sizeof json,
           "{\"n_layer\": 2, \"n_head\": 2, \"n_embd\": 4, \"n_positions\": 8, \"vocab_size\": 10%s}", extra);
  return tt_config_from_json(json, cfg, err);
}

// Every GPT-2 key that changes the computation and that ttrace does not implement is
// refused with a one-line message naming it; the ones it implements are read.
static void test_config_refusals(void **state) {
  (void)state;
  const struct {
    const char *extra;
    tt_status want;
    const char *fragment;
  } cases[] = {
      {", \"add_cross_attention\": true", TT_ERR_UNSUPPORTED, "add_cross_attention is true"},
      {", \"pruned_heads\": {\"0\": [1]}", TT_ERR_UNSUPPORTED, "pruned_heads"},
      {", \"model_type\": \"bert\"", TT_ERR_UNSUPPORTED, "model_type 'bert'"},
      {", \"activation_function\": \"tanh\"", TT_ERR_UNSUPPORTED, "activation_function=tanh"},
      {", \"activation_function\": \"quick_gelu\"", TT_ERR_UNSUPPORTED, "activation_function=quick_gelu"},
      {", \"ttrace_scale\": false", TT_ERR_UNSUPPORTED, "unknown ttrace setting 'ttrace_scale'"},
      {", \"scale_attn_weights\": 1.5", TT_ERR_FORMAT, "'scale_attn_weights' has the wrong type"},
      {", \"scale_attn_by_inverse_layer_idx\": \"sometimes\"", TT_ERR_FORMAT,
       "scale_attn_by_inverse_layer_idx=sometimes"},
      {", \"scale_attn_weights\": false, \"ttrace_scale_attn\": true", TT_ERR_FORMAT, "disagree"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    tt_config cfg;
    tt_error err = {0};
    tt_status st = parse_with(cases[i].extra, &cfg, &err);
    if (st != cases[i].want || !strstr(err.msg, cases[i].fragment) || strchr(err.msg, '\n'))
      fail_msg("%s: got %d '%s', wanted %d with '%s'", cases[i].extra, st, err.msg, cases[i].want, cases[i].fragment);
  }
  const char *accepted[] = {", \"add_cross_attention\": false", ", \"pruned_heads\": {}", ", \"model_type\": \"gpt2\"",
                            ", \"resid_pdrop\": 0.1, \"use_cache\": true, \"summary_type\": \"cls_index\""};
  for (size_t i = 0; i < sizeof accepted / sizeof *accepted; i++) {
    tt_config cfg;
    tt_error err = {0};
    if (parse_with(accepted[i], &cfg, &err) != TT_OK) fail_msg("%s: refused: %s", accepted[i], err.msg);
  }
}

static void test_config_attention_scale_keys(void **state) {
  (void)state;
  tt_config cfg, back;
  tt_error err = {0};
  assert_int_equal(parse_with("", &cfg, &err), TT_OK);
  assert_true(cfg.scale_attn);
  assert_false(cfg.scale_attn_by_layer);
  assert_false(cfg.reorder_upcast);
  assert_int_equal(parse_with(", \"scale_attn_weights\": false, \"scale_attn_by_inverse_layer_idx\": true, "
                              "\"reorder_and_upcast_attn\": true",
                              &cfg, &err),
                   TT_OK);
  assert_false(cfg.scale_attn);
  assert_true(cfg.scale_attn_by_layer);
  assert_true(cfg.reorder_upcast);
  // The trace's config records them, and reads back the same.
  char *json = tt_config_to_json(&cfg);
  assert_non_null(strstr(json, "\"scale_attn_by_inverse_layer_idx\":true"));
  assert_non_null(strstr(json, "\"reorder_and_upcast_attn\":true"));
  assert_non_null(strstr(json, "\"ttrace_scale_attn\":false"));
  assert_int_equal(tt_config_from_json(json, &back, &err), TT_OK);
  char *again = tt_config_to_json(&back);
  assert_string_equal(again, json);
  free(again);
  free(json);
  assert_true(!back.scale_attn && back.scale_attn_by_layer && back.reorder_upcast);
  // The command line's names: short, config.json's and HF's.
  tt_config_default(&cfg);
  assert_int_equal(tt_config_set(&cfg, "scale_attn_by_inverse_layer_idx", "true", &err), TT_OK);
  assert_int_equal(tt_config_set(&cfg, "scale_attn_weights", "false", &err), TT_OK);
  assert_int_equal(tt_config_set(&cfg, "reorder_and_upcast_attn", "on", &err), TT_OK);
  assert_true(cfg.scale_attn_by_layer && !cfg.scale_attn && cfg.reorder_upcast);
  // n_ctx stands in for a missing n_positions; n_positions wins when both are there.
  assert_int_equal(tt_config_from_json(
                       "{\"n_layer\": 1, \"n_head\": 1, \"n_embd\": 4, \"n_ctx\": 40, \"vocab_size\": 10}", &cfg, &err),
                   TT_OK);
  assert_int_equal(cfg.n_positions, 40);
  assert_int_equal(parse_with(", \"n_ctx\": 40", &cfg, &err), TT_OK);
  assert_int_equal(cfg.n_positions, 8);
  assert_int_equal(
      tt_config_from_json("{\"n_layer\": 1, \"n_head\": 1, \"n_embd\": 4, \"vocab_size\": 10}", &cfg, &err),
      TT_ERR_FORMAT);
  assert_non_null(strstr(err.msg, "n_positions"));
}

// A Llama config.json: LlamaConfig's defaults for what save_pretrained may leave out, the
// trace's JSON (Hugging Face's keys) read back to the same config, no GPT-2 knob.
static void test_config_llama(void **state) {
  (void)state;
  const char *json =
      "{\"model_type\": \"llama\", \"hidden_size\": 24, \"intermediate_size\": 40, "
      "\"num_attention_heads\": 4, \"num_hidden_layers\": 2, \"vocab_size\": 300}";
  tt_config cfg, back;
  tt_error err = {0};
  assert_int_equal(tt_config_from_json(json, &cfg, &err), TT_OK);
  assert_int_equal(cfg.arch, TT_ARCH_LLAMA);
  assert_int_equal(tt_config_kv_heads(&cfg), 4);  // num_key_value_heads absent: every head its own
  assert_int_equal(tt_config_head_dim(&cfg), 6);  // head_dim absent: hidden_size / heads
  assert_int_equal(cfg.n_positions, 2048);
  assert_int_equal(cfg.tie_word_embeddings, 0);  // LlamaConfig: tie_word_embeddings=False
  assert_true(cfg.ln_eps == 1e-6 && cfg.rope_theta == 10000.0);
  assert_int_equal(cfg.positions, TT_POS_ROPE);
  assert_int_equal(cfg.norm, TT_NORM_RMSNORM);
  assert_int_equal(cfg.activation, TT_ACT_SILU);
  const char *full =
      "{\"model_type\": \"llama\", \"hidden_size\": 24, \"intermediate_size\": 40, "
      "\"num_attention_heads\": 4, \"num_key_value_heads\": 2, \"head_dim\": 10, "
      "\"num_hidden_layers\": 2, \"vocab_size\": 300, \"rope_theta\": 500000.0, "
      "\"rms_norm_eps\": 1e-5, \"attention_bias\": true, \"mlp_bias\": true, "
      "\"hidden_act\": \"gelu\", \"rope_scaling\": null, \"tie_word_embeddings\": true}";
  assert_int_equal(tt_config_from_json(full, &cfg, &err), TT_OK);
  char *text = tt_config_to_json(&cfg);
  assert_int_equal(tt_config_from_json(text, &back, &err), TT_OK);
  free(text);
  assert_int_equal(back.arch, TT_ARCH_LLAMA);
  assert_int_equal(tt_config_kv_heads(&back), 2);
  assert_int_equal(tt_config_head_dim(&back), 10);
  assert_true(back.rope_theta == 500000.0 && back.ln_eps == 1e-5 && back.attn_bias && back.mlp_bias);
  assert_int_equal(back.activation, TT_ACT_GELU_ERF);
  assert_int_equal(tt_config_set(&cfg, "causal", "false", &err), TT_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.msg, "Llama block"));
  tt_config gpt2;
  tt_config_default(&gpt2);
  assert_int_equal(tt_config_set(&gpt2, "positions", "alibi", &err), TT_OK);
  assert_int_equal(gpt2.positions, TT_POS_ALIBI);
  assert_int_equal(tt_config_head_dim(&gpt2), 64);
  assert_int_equal(tt_config_kv_heads(&gpt2), 12);
}

int main(void) {
  if (!mkdtemp(root)) return 1;
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_loads_each_storage),
                                     cmocka_unit_test(test_load_errors),
                                     cmocka_unit_test(test_config_knobs),
                                     cmocka_unit_test(test_config_refusals),
                                     cmocka_unit_test(test_config_attention_scale_keys),
                                     cmocka_unit_test(test_config_llama)};
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf %s", root);
  if (system(cmd)) return 1;
  return rc;
}
