// hooks: the catalogue's name parsing (every hook of a config, with grad. and decode.S.
// prefixes, and bad names), name -> ref -> name round trips, shapes of decode steps and
// the future rows (Llama family), and fnmatch globs.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "trace/hooks.h"

static void round_trip(const char *name) {
  tt_hook_ref r;
  char buf[160];
  if (!tt_hook_lookup(name, &r)) fail_msg("'%s' is not found", name);
  assert_non_null(tt_hook_name(&r, buf, sizeof buf));
  assert_string_equal(buf, name);
}

typedef struct {
  int n;
  const tt_config *cfg;
} walk_ctx;

// Every hook a config records is found, with its walk's layer, axes and dtype, under
// every prefix.
static void check_walked(void *ctx, const tt_hook *h) {
  walk_ctx *w = ctx;
  tt_hook_ref r;
  assert_true(tt_hook_lookup(h->name, &r));
  assert_ptr_equal(r.def, h->def);
  assert_int_equal(r.layer, h->layer);
  assert_false(r.grad);
  assert_int_equal(r.decode, -1);
  assert_string_equal(r.def->axes, h->axes);
  assert_int_equal(tt_hook_dtype(&r), h->dtype);
  char name[160];
  round_trip(h->name);
  snprintf(name, sizeof name, "decode.7.%s", h->name);
  round_trip(name);
  assert_true(tt_hook_lookup(name, &r));
  assert_int_equal(r.decode, 7);
  assert_int_equal(r.layer, h->layer);
  snprintf(name, sizeof name, "grad.%s", h->name);
  if (h->dtype == TT_I32) {
    assert_false(tt_hook_lookup(name, &r));  // no gradient of token ids
  } else {
    round_trip(name);
    assert_true(tt_hook_lookup(name, &r) && r.grad);
    snprintf(name, sizeof name, "grad.decode.0.%s", h->name);
    round_trip(name);
  }
  w->n++;
}

static void test_every_hook(void **state) {
  (void)state;
  tt_config cfg;
  tt_config_default(&cfg);
  walk_ctx w = {0, &cfg};
  int n = tt_hooks_each(&cfg, check_walked, &w);
  assert_int_equal(w.n, n);
  assert_int_equal(n, 3 + 12 * 24 + 4 + 3);
  round_trip("blocks.11.attn.hook_pattern");
  round_trip("blocks.2147483647.ln2.hook_scale");
}

static void test_bad_names(void **state) {
  (void)state;
  const char *bad[] = {
      "",
      "blocks",
      "blocks.",
      "blocks.0",
      "blocks.0.",
      "blocks.x.attn.hook_q",
      "blocks.-1.attn.hook_q",
      "blocks.+1.attn.hook_q",
      "blocks.01.attn.hook_q",
      "blocks.2147483648.attn.hook_q",
      "blocks.99999999999999999999.attn.hook_q",
      "blocks.0.attn.hook_qq",
      "blocks.0.hook_logits",
      "attn.hook_q",
      "hook_resid_pre",
      "blocks.0.tokens",
      "Tokens",
      "tokens.",
      "grad.tokens",
      "grad.",
      "decode.x.tokens",
      "decode.-1.tokens",
      "decode.2147483648.tokens",
      "decode.0",
      "decode.01.tokens",
      "decode.0.grad.hook_logits",
      "grad.grad.hook_logits",
      "blocks.0.blocks.0.attn.hook_q",
      "my_probe",
      "blocks.0.attn.hook_pattern ",
      "blocks.0.ln3.hook_out",
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    tt_hook_ref r = {0};
    if (tt_hook_lookup(bad[i], &r)) fail_msg("'%s' was accepted", bad[i]);
    assert_null(r.def);  // untouched
  }
}

static void test_fields(void **state) {
  (void)state;
  tt_hook_ref r;
  assert_true(tt_hook_lookup("blocks.3.attn.hook_pattern", &r));
  assert_int_equal(r.layer, 3);
  assert_string_equal(r.def->suffix, "attn.hook_pattern");
  assert_string_equal(r.def->axes, "H,T,T");
  assert_string_equal(r.step, "softmax");
  assert_string_equal(r.view, "heatmap");
  assert_true(tt_hook_lookup("tokens", &r));
  assert_int_equal(r.layer, -1);
  assert_int_equal(r.def->dtype, TT_I32);
  assert_string_equal(r.view, "tokens");
  assert_true(tt_hook_lookup("hook_probs", &r));
  assert_string_equal(r.view, "bars");
  assert_true(tt_hook_lookup("hook_loss", &r));
  assert_string_equal(r.def->axes, "T-1");
  assert_null(r.step);
  // Block 0's input is the embedding sum; later blocks' inputs are plain tensors.
  assert_true(tt_hook_lookup("blocks.0.hook_resid_pre", &r));
  assert_string_equal(r.step, "sum");
  assert_string_equal(r.view, "positions");
  assert_true(tt_hook_lookup("blocks.1.hook_resid_pre", &r));
  assert_null(r.step);
  assert_string_equal(r.view, "heatmap");
  assert_true(tt_hook_lookup("ln_final.hook_out", &r));
  assert_string_equal(r.view, "layernorm");
  // Small buffers: NULL, never a cut name.
  char small[8];
  assert_null(tt_hook_name(&r, small, sizeof small));
  assert_true(tt_hook_at("attn.hook_z", 5, &r));
  char buf[64];
  assert_string_equal(tt_hook_name(&r, buf, sizeof buf), "blocks.5.attn.hook_z");
  assert_false(tt_hook_at("attn.hook_z", -1, &r));
  assert_true(tt_hook_at("hook_logits", 5, &r));
  assert_int_equal(r.layer, -1);
  assert_false(tt_hook_at("no_such_hook", 0, &r));
}

// Rows that no config records yet (Llama family) are still names and shapes.
static void test_future_rows(void **state) {
  (void)state;
  tt_config cfg;
  tt_config_default(&cfg);
  tt_hook_ref r;
  int64_t shape[4];
  assert_true(tt_hook_lookup("blocks.0.attn.hook_rot_k", &r));
  assert_int_equal(tt_hook_ref_shape(&r, &cfg, 5, shape), 3);
  assert_int_equal(shape[0], 12);  // G = H without grouped-query attention
  assert_true(tt_hook_lookup("blocks.0.mlp.hook_pre_linear", &r));
  assert_int_equal(tt_hook_ref_shape(&r, &cfg, 5, shape), 2);
  assert_int_equal(shape[1], 3072);
  // The default config walks none of them.
  assert_int_equal(tt_hooks_each(&cfg, NULL, NULL), 3 + 12 * 24 + 4 + 3);
}

static void test_decode_shapes(void **state) {
  (void)state;
  tt_config cfg;
  tt_config_default(&cfg);
  tt_hook_ref r;
  int64_t shape[4];
  // Step 2 after a 5-token prompt: one query, 8 keys.
  assert_true(tt_hook_lookup("decode.2.blocks.1.attn.hook_pattern", &r));
  assert_int_equal(tt_hook_ref_shape(&r, &cfg, 5, shape), 3);
  assert_int_equal(shape[0], 12);
  assert_int_equal(shape[1], 1);
  assert_int_equal(shape[2], 8);
  assert_true(tt_hook_lookup("decode.2.hook_logits", &r));
  assert_int_equal(tt_hook_ref_shape(&r, &cfg, 5, shape), 2);
  assert_int_equal(shape[0], 1);
  assert_int_equal(shape[1], 50257);
  assert_true(tt_hook_lookup("grad.blocks.1.attn.hook_pattern", &r));
  assert_int_equal(tt_hook_ref_shape(&r, &cfg, 5, shape), 3);
  assert_int_equal(shape[1], 5);
  assert_int_equal(shape[2], 5);
  assert_int_equal(tt_hook_dtype(&r), TT_F32);
}

static void test_table(void **state) {
  (void)state;
  // Suffixes are unique, so a suffix names one row.
  for (int i = 0; i < tt_hook_def_count(); i++) {
    const tt_hook_def *d = tt_hook_def_at(i);
    assert_ptr_equal(tt_hook_def_find(d->suffix), d);
    assert_non_null(d->view);
    assert_non_null(d->axes);
  }
  assert_null(tt_hook_def_at(-1));
  assert_null(tt_hook_def_at(tt_hook_def_count()));
}

static void test_fnmatch_globs(void **state) {
  (void)state;
  assert_true(tt_glob_match("blocks.[!0].attn.hook_q", "blocks.1.attn.hook_q"));
  assert_false(tt_glob_match("blocks.[!0].attn.hook_q", "blocks.0.attn.hook_q"));
  assert_true(tt_glob_match("blocks.\\*", "blocks.*"));
  assert_false(tt_glob_match("blocks.\\*", "blocks.0"));
  assert_true(tt_glob_match("grad.*", "grad.blocks.0.attn.hook_q"));
  assert_true(tt_glob_match("*.hook_[qkv]", "blocks.3.attn.hook_k"));
  assert_false(tt_glob_match("*.hook_[qkv]", "blocks.3.attn.hook_z"));
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_every_hook),    cmocka_unit_test(test_bad_names),
                                     cmocka_unit_test(test_fields),        cmocka_unit_test(test_future_rows),
                                     cmocka_unit_test(test_decode_shapes), cmocka_unit_test(test_table),
                                     cmocka_unit_test(test_fnmatch_globs)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
