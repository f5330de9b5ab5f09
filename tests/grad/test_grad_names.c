// The catalogue's grad.<weight> names: parsed with the file's layout as shape, spelled back
// the same, and refused without "grad." or with a non-canonical layer.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "trace/hooks.h"

static void expect_shape(const char *name, const tt_config *cfg, int ndim, int64_t d0, int64_t d1) {
  tt_hook_ref ref;
  assert_true(tt_hook_lookup(name, &ref));
  assert_true(ref.grad && ref.def->weight);
  int64_t shape[TT_MAX_DIMS];
  assert_int_equal(tt_hook_ref_shape(&ref, cfg, 7, shape), ndim);
  assert_int_equal(shape[0], d0);
  if (ndim > 1) assert_int_equal(shape[1], d1);
  char back[96];
  assert_string_equal(tt_hook_name(&ref, back, sizeof back), name);
}

static void test_weight_names(void **state) {
  (void)state;
  tt_config cfg;
  tt_config_default(&cfg);
  cfg.n_embd = 60, cfg.n_head = 5, cfg.n_inner = 100, cfg.vocab_size = 300, cfg.n_positions = 32, cfg.n_layer = 3;
  expect_shape("grad.wte.weight", &cfg, 2, 300, 60);
  expect_shape("grad.wpe.weight", &cfg, 2, 32, 60);
  expect_shape("grad.h.2.attn.c_attn.weight", &cfg, 2, 60, 180);
  expect_shape("grad.h.0.attn.c_attn.bias", &cfg, 1, 180, 0);
  expect_shape("grad.h.1.mlp.c_fc.weight", &cfg, 2, 60, 100);
  expect_shape("grad.h.1.mlp.c_proj.weight", &cfg, 2, 100, 60);
  expect_shape("grad.h.0.ln_2.bias", &cfg, 1, 60, 0);
  expect_shape("grad.ln_f.weight", &cfg, 1, 60, 0);
  expect_shape("grad.lm_head.weight", &cfg, 2, 300, 60);
  tt_hook_ref ref;
  assert_false(tt_hook_lookup("wte.weight", &ref));  // a weight is not a hook
  assert_false(tt_hook_lookup("h.0.ln_1.weight", &ref));
  assert_false(tt_hook_lookup("grad.h.01.ln_1.weight", &ref));  // one spelling per layer
  assert_false(tt_hook_lookup("grad.h.0.wte.weight", &ref));    // not a block weight
  assert_false(tt_hook_lookup("grad.ln_1.weight", &ref));       // a block weight needs h.L.
  assert_false(tt_hook_lookup("grad.blocks.0.ln_1.weight", &ref));
  // the forward walk never lists a weight
  for (int i = 0; i < tt_hook_def_count(); i++) assert_false(tt_hook_def_at(i)->weight);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_weight_names)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
