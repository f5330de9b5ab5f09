// lesson: the parser (fields, traces, steps, narration, line-numbered errors), placeholders
// filled from a small hand-made trace, step resolution and the player's navigation.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lesson/lesson.h"

static const char good[] =
    "# a comment\n"
    "title: Test lesson\n"
    "lang: en\n"
    "model: default\n"
    "trace main: prompt=\"The weather, \\\"nice\\\"\" set=causal=false,scale_attn=false record=tokens "
    "record=blocks.*.attn.hook_pattern,hook_probs file=t-main.safetensors\n"
    "trace other: prompt=\"x\" file=t-other.safetensors\n"
    "\n"
    "---\n"
    "show: tokens\n"
    "view: tokens\n"
    "title: The tokens\n"
    "\n"
    "First paragraph.\n"
    "\n"
    "Second paragraph.\n"
    "\n"
    "---\n"
    "show: attn.hook_pattern\n"
    "layer: 1\n"
    "head: 2\n"
    "row: -1\n"
    "view: heatmap\n"
    "compare: other\n"
    "\n"
    "Pattern {{max blocks.1.attn.hook_pattern[2] %.2f}}.\n"
    "---\n"
    "show: blocks.0.attn.hook_pattern\n"
    "trace: other\n"
    "view: grid\n"
    "temperature: 0.5\n"
    "\n"
    "Heads.\n"
    "---\n"
    "show: hook_resid_post\n"
    "layer: all\n"
    "view: norms\n"
    "\n"
    "Norms.\n";

static void test_parse_good(void **state) {
  (void)state;
  tt_lesson *l = NULL;
  tt_error err = {0};
  assert_int_equal(tt_lesson_parse(good, strlen(good), "good", &l, &err), TT_OK);
  assert_string_equal(tt_lesson_title(l), "Test lesson");
  assert_string_equal(tt_lesson_lang(l), "en");
  assert_string_equal(tt_lesson_model(l), "default");
  assert_int_equal(tt_lesson_n_traces(l), 2);
  const tt_lesson_trace *t = tt_lesson_trace_at(l, 0);
  assert_string_equal(t->name, "main");
  assert_string_equal(t->prompt, "The weather, \"nice\"");
  assert_int_equal(t->n_set, 2);
  assert_string_equal(t->set[0], "causal=false");
  assert_string_equal(t->set[1], "scale_attn=false");
  assert_int_equal(t->n_record, 3);
  assert_string_equal(t->record[2], "hook_probs");
  assert_string_equal(t->file, "t-main.safetensors");
  assert_int_equal(t->line, 5);
  assert_int_equal(tt_lesson_find_trace(l, "other"), 1);
  assert_int_equal(tt_lesson_find_trace(l, "nope"), -1);

  assert_int_equal(tt_lesson_n_steps(l), 4);
  const tt_lesson_step *s = tt_lesson_step_at(l, 0);
  assert_int_equal(s->line, 8);
  assert_string_equal(s->hook, "tokens");
  assert_int_equal(s->layer, TT_LESSON_NONE);
  assert_int_equal(s->head, TT_LESSON_ALL);
  assert_int_equal(s->row, TT_LESSON_ALL_ROWS);
  assert_string_equal(s->view, "tokens");
  assert_string_equal(s->title, "The tokens");
  assert_int_equal(s->compare, -1);
  assert_string_equal(s->text, "First paragraph.\n\nSecond paragraph.");
  assert_int_equal(s->text_line, 13);

  s = tt_lesson_step_at(l, 1);
  assert_string_equal(s->hook, "blocks.1.attn.hook_pattern");
  assert_int_equal(s->layer, 1);
  assert_int_equal(s->head, 2);
  assert_int_equal(s->row, -1);
  assert_int_equal(s->compare, 1);
  assert_int_equal(s->trace, 0);
  assert_string_equal(s->text, "Pattern {{max blocks.1.attn.hook_pattern[2] %.2f}}.");

  s = tt_lesson_step_at(l, 2);
  assert_int_equal(s->layer, 0);
  assert_int_equal(s->trace, 1);
  assert_true(fabsf(s->temperature - 0.5f) < 1e-6f);

  s = tt_lesson_step_at(l, 3);
  assert_int_equal(s->layer, TT_LESSON_ALL_LAYERS);
  assert_string_equal(s->hook, "hook_resid_post");
  assert_null(tt_lesson_step_at(l, 4));

  char path[256];
  assert_int_equal(tt_lesson_trace_path(l, 1, "/x/traces", path, sizeof path, &err), TT_OK);
  assert_string_equal(path, "/x/traces/t-other.safetensors");
  tt_lesson_destroy(l);
}

// Replaces the first occurrence of `from` in good with `to` and expects an error whose
// message contains `expect` (which includes the line number).
static void expect_error(const char *from, const char *to, const char *expect) {
  char text[4096];
  const char *at = strstr(good, from);
  assert_non_null(at);
  snprintf(text, sizeof text, "%.*s%s%s", (int)(at - good), good, to, at + strlen(from));
  tt_lesson *l = NULL;
  tt_error err = {0};
  tt_status st = tt_lesson_parse(text, strlen(text), "bad.lesson", &l, &err);
  if (st == TT_OK || !strstr(err.msg, expect))
    fail_msg("for '%s' -> '%s': got '%s', expected '%s'", from, to, err.msg, expect);
  assert_null(l);
}

static void test_parse_errors(void **state) {
  (void)state;
  expect_error("title: Test lesson\n", "", "bad.lesson:1: the header has no 'title:'");
  expect_error("lang: en\n", "lang: English\n", "bad.lesson:1: lang 'English'");
  expect_error("model: default\n", "colour: red\n", "bad.lesson:4: unknown header key 'colour'");
  expect_error("file=t-other.safetensors", "file=../t.safetensors", "bad.lesson:6: file '../t.safetensors'");
  expect_error("file=t-other.safetensors", "", "bad.lesson:6: trace 'other' has no file=");
  expect_error("prompt=\"x\"", "prompt=\"x", "bad.lesson:6: quoted value is not closed");
  expect_error("prompt=\"x\"", "prompt=\"x\" speed=3", "bad.lesson:6: unknown trace key 'speed'");
  expect_error("trace other:", "trace main:", "bad.lesson:6: trace 'main' is defined twice");
  expect_error("prompt=\"x\"", "prompt=\"x\" model=../up", "bad.lesson:6: model=../up: expected a folder name");
  expect_error("prompt=\"x\"", "prompt=\"x\" model=a model=b", "bad.lesson:6: model= given twice");
  expect_error("set=causal=false,", "set=causal,", "bad.lesson:5: set item 'causal' is not key=value");
  expect_error("view: tokens\n", "", "bad.lesson:8: step has no 'view:'");
  expect_error("view: tokens\n", "view: pie\n", "bad.lesson:10: unknown view 'pie'");
  expect_error("view: tokens\n", "view: tokens\ncolour: red\n", "bad.lesson:11: unknown step field 'colour'");
  expect_error("head: 2\n", "head: two\n", "bad.lesson:20: head: 'two'");
  expect_error("layer: 1\n", "layer: one\n", "bad.lesson:19: layer: 'one'");
  expect_error("compare: other\n", "compare: third\n", "bad.lesson:23: compare: trace 'third' is not defined");
  expect_error("trace: other\n", "trace: third\n", "bad.lesson:28: trace 'third' is not defined");
  expect_error("show: blocks.0.attn.hook_pattern\n", "show: blocks.0.attn.hook_pattern\nlayer: 1\n",
               "bad.lesson:28: layer: 1 disagrees");
  expect_error("temperature: 0.5\n", "temperature: -1\n", "bad.lesson:30: temperature: '-1'");
  expect_error("title: The tokens\n\nFirst", "title: The tokens\nFirst", "bad.lesson:12: expected a field");
  expect_error("\nHeads.\n", "\n\n", "bad.lesson:26: step has no narration");
  expect_error("[2] %.2f}}", "[2] %.2q}}", "bad.lesson:25: {{max blocks.1.attn.hook_pattern[2] %.2q}}: format");
  expect_error("{{max", "{{nope:max", "bad.lesson:25: {{nope:max");
  expect_error("Second paragraph.", "Second {{token 1 paragraph.", "bad.lesson:15: '{{' is not closed");
  expect_error("Second paragraph.", "Second }} paragraph.", "bad.lesson:15: '}}' without '{{'");
  expect_error("Second paragraph.", "Second {{config width}}.", "bad.lesson:15: {{config width}}: config key");
  expect_error("---\nshow: tokens", "", "bad.lesson:");  // no steps at all
  // Two traces sharing a file must describe the same computation.
  expect_error("file=t-other.safetensors", "file=t-main.safetensors", "bad.lesson:6: traces 'main' and 'other' share");
  const char bad_utf8[] = "title: x\xff\n";
  tt_lesson *l = NULL;
  tt_error err = {0};
  assert_int_not_equal(tt_lesson_parse(bad_utf8, strlen(bad_utf8), "u", &l, &err), TT_OK);
  assert_non_null(strstr(err.msg, "u:1: invalid UTF-8"));
}

// A small trace: T = 3 tokens, H = 2 heads, 2 layers; values chosen so the placeholders'
// expected results can be worked out by hand.
static tt_trace *make_trace(float scale) {
  tt_trace *tr = tt_trace_create();
  tt_error err = {0};
  int32_t ids[3] = {464, 6193, 318};
  const char *strs[3] = {"The", " weather", " is"};
  assert_int_equal(tt_trace_set_tokens(tr, ids, strs, 3, &err), TT_OK);
  tt_config cfg;
  tt_config_default(&cfg);
  cfg.n_layer = 2;
  cfg.n_head = 2;
  cfg.n_embd = 4;
  cfg.vocab_size = 5;
  cfg.n_inner = 16;
  char *json = tt_config_to_json(&cfg);
  assert_int_equal(tt_trace_set_meta(tr, "config", json), TT_OK);
  free(json);
  int32_t tok[3] = {464, 6193, 318};
  tt_tensor t = {.name = "tokens", .dtype = TT_I32, .ndim = 1, .shape = {3}, .data = tok};
  assert_int_equal(tt_trace_add(tr, &t, &err), TT_OK);
  float pat[2 * 3 * 3];  // (H,T,T): value = scale * (100h + 10i + j)
  for (int h = 0; h < 2; h++)
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) pat[(h * 3 + i) * 3 + j] = scale * (float)(100 * h + 10 * i + j);
  char name[64];
  for (int L = 0; L < 2; L++) {
    snprintf(name, sizeof name, "blocks.%d.attn.hook_pattern", L);
    t = (tt_tensor){.name = name, .dtype = TT_F32, .ndim = 3, .shape = {2, 3, 3}, .data = pat};
    assert_int_equal(tt_trace_add(tr, &t, &err), TT_OK);
    float resid[3 * 4] = {3, 4, 0, 0, 1, 1, 1, 1, 0, 0, 0, (float)L};
    snprintf(name, sizeof name, "blocks.%d.hook_resid_post", L);
    t = (tt_tensor){.name = name, .dtype = TT_F32, .ndim = 2, .shape = {3, 4}, .data = resid};
    assert_int_equal(tt_trace_add(tr, &t, &err), TT_OK);
  }
  float probs[3 * 5] = {0.1f, 0.2f, 0.4f, 0.2f, 0.1f, 0, 0, 0, 0, 1, 0.5f, 0.1f, 0.1f, 0.1f, 0.2f};
  t = (tt_tensor){.name = "hook_probs", .dtype = TT_F32, .ndim = 2, .shape = {3, 5}, .data = probs};
  assert_int_equal(tt_trace_add(tr, &t, &err), TT_OK);
  return tr;
}

static const char *decode(void *ctx, int32_t id, char *buf, size_t len) {
  (void)ctx;
  snprintf(buf, len, "<%d>", id);
  return buf;
}

static void expect_fill(const tt_lesson *l, const tt_trace *const *traces, const char *text, const char *expect) {
  char *out = NULL;
  tt_error err = {0};
  tt_status st = tt_lesson_fill(l, 0, text, 1, traces, decode, NULL, &out, &err);
  if (st) fail_msg("fill '%s': %s", text, err.msg);
  if (strcmp(out, expect) != 0) fail_msg("fill '%s': got '%s', expected '%s'", text, out, expect);
  free(out);
}

static void expect_fill_error(const tt_lesson *l, const tt_trace *const *traces, const char *text, const char *expect) {
  char *out = NULL;
  tt_error err = {0};
  if (tt_lesson_fill(l, 0, text, 7, traces, decode, NULL, &out, &err) == TT_OK || !strstr(err.msg, expect))
    fail_msg("fill '%s': expected error '%s', got '%s'", text, expect, out ? out : err.msg);
  assert_null(out);
}

static void test_fill(void **state) {
  (void)state;
  tt_lesson *l = NULL;
  tt_error err = {0};
  assert_int_equal(tt_lesson_parse(good, strlen(good), "good", &l, &err), TT_OK);
  tt_trace *a = make_trace(1.0f), *b = make_trace(2.0f);
  const tt_trace *traces[2] = {a, b};
  expect_fill(l, traces, "plain text", "plain text");
  expect_fill(l, traces, "v={{blocks.0.attn.hook_pattern[1,2,0]}}", "v=120");
  expect_fill(l, traces, "v={{value blocks.0.attn.hook_pattern[1,-1,-2] %.1f}}", "v=121.0");
  expect_fill(l, traces, "b={{other:blocks.0.attn.hook_pattern[1,2,0]}}", "b=240");
  expect_fill(l, traces, "{{max blocks.0.attn.hook_pattern[0]}} {{min blocks.0.attn.hook_pattern[1]}}", "22 100");
  expect_fill(l, traces, "{{mean blocks.0.attn.hook_pattern[0,:,0]}}", "10");  // (0+10+20)/3
  expect_fill(l, traces, "{{sum blocks.0.attn.hook_pattern[0,1]}}", "33");     // 10+11+12
  expect_fill(l, traces, "{{norm blocks.1.hook_resid_post[0]}}", "5");         // |(3,4,0,0)|
  expect_fill(l, traces, "{{std blocks.1.hook_resid_post[1]}}", "0");
  expect_fill(l, traces, "{{argmax hook_probs[0]}} {{argmin hook_probs[2]}}", "2 1");
  expect_fill(l, traces, "{{word hook_probs[1]}}", "<4>");
  expect_fill(l, traces, "{{list hook_probs[0] %.1f}}", "0.1, 0.2, 0.4, 0.2, 0.1");
  expect_fill(l, traces, "{{value hook_probs[2,0] %.0p}}", "50%");
  expect_fill(l, traces, "{{shape blocks.0.attn.hook_pattern}} {{shape hook_probs[0]}}", "(2, 3, 3) (5,)");
  expect_fill(l, traces, "{{size blocks.0.attn.hook_pattern}} {{size blocks.0.attn.hook_pattern[1,:,0]}}", "18 3");
  expect_fill(l, traces, "{{list tokens}}; {{max tokens}}; {{tokens[1] %.1e}}", "464, 6193, 318; 6193; 6.2e+03");
  expect_fill(l, traces, "'{{token 1}}' '{{token -1}}'", "' weather' ' is'");
  expect_fill(l, traces, "{{config n_head}} {{config d_head}} {{config tokens}} {{config n_inner}}", "2 2 3 16");
  expect_fill(l, traces, "{{absmax blocks.0.attn.hook_pattern %.3e}}", "1.220e+02");
  expect_fill(l, traces, "{{mean blocks.1.hook_resid_post[:,3] %.3f}}", "0.667");
  tt_trace *tiny = make_trace(-1e-5f);  // pattern values -1e-5 * (100h + 10i + j)
  const tt_trace *tiny_traces[2] = {tiny, tiny};
  expect_fill(l, tiny_traces, "{{blocks.0.attn.hook_pattern[0,0,1] %.3f}} {{blocks.0.attn.hook_pattern[1,0,0] %.3f}}",
              "0.000 -0.001");  // no "-0.000"
  tt_trace_destroy(tiny);
  expect_fill_error(l, traces, "x\n{{blocks.0.attn.hook_pattern[1]}}",
                    "good:8: {{blocks.0.attn.hook_pattern[1]}}: a value needs all 3");
  expect_fill_error(l, traces, "{{hook_logits[0]}}", "trace 'main' has no tensor hook_logits");
  expect_fill_error(l, traces, "{{max hook_probs[3]}}", "index 3 out of range for axis 0 of size 3");
  expect_fill_error(l, traces, "{{token 3}}", "token 3 out of range");
  expect_fill_error(l, traces, "{{word hook_probs}}", "word needs a 1-D slice");
  tt_trace_destroy(a);
  tt_trace_destroy(b);
  tt_lesson_destroy(l);
}

static void test_resolve(void **state) {
  (void)state;
  tt_lesson *l = NULL;
  tt_error err = {0};
  assert_int_equal(tt_lesson_parse(good, strlen(good), "good", &l, &err), TT_OK);
  tt_trace *a = make_trace(1.0f), *b = make_trace(0.5f);
  const tt_trace *traces[2] = {a, b};
  tt_lesson_view v;
  // step 2: layer 1, head 2 — but the trace has 2 heads.
  assert_int_not_equal(tt_lesson_resolve(l, 1, traces, NULL, NULL, &v, &err), TT_OK);
  assert_non_null(strstr(err.msg, "good:17: head 2 out of range"));
  // step 1: tokens; its narration has no placeholders.
  assert_int_equal(tt_lesson_resolve(l, 0, traces, NULL, NULL, &v, &err), TT_OK);
  assert_int_equal(v.n_tensors, 1);
  assert_string_equal(v.tensors[0]->name, "tokens");
  assert_null(v.compare);
  assert_string_equal(v.narration, "First paragraph.\n\nSecond paragraph.");
  tt_lesson_view_free(&v);
  // step 3: blocks.0 of trace "other"
  assert_int_equal(tt_lesson_resolve(l, 2, traces, NULL, NULL, &v, &err), TT_OK);
  assert_ptr_equal(v.trace, b);
  assert_ptr_equal(v.tensors[0], tt_trace_find(b, "blocks.0.attn.hook_pattern"));
  tt_lesson_view_free(&v);
  // step 4: one tensor per layer (the config says 2 layers)
  assert_int_equal(tt_lesson_resolve(l, 3, traces, NULL, NULL, &v, &err), TT_OK);
  assert_int_equal(v.n_tensors, 2);
  assert_string_equal(v.tensors[1]->name, "blocks.1.hook_resid_post");
  tt_lesson_view_free(&v);
  assert_int_not_equal(tt_lesson_resolve(l, 4, traces, NULL, NULL, &v, &err), TT_OK);
  tt_trace_destroy(a);
  tt_trace_destroy(b);
  tt_lesson_destroy(l);

  // A fixed head and a compared trace resolve; a hook the trace lacks and a bad row do not.
  static const char text[] =
      "title: t\nlang: en\ntrace a: prompt=\"x\" file=a.safetensors\ntrace b: prompt=\"y\" file=b.safetensors\n"
      "---\nshow: attn.hook_pattern\nlayer: 1\nhead: 1\nrow: -1\nview: heatmap\ncompare: b\n\n"
      "Row {{list blocks.1.attn.hook_pattern[1,-1] %.0f}} against {{list b:blocks.1.attn.hook_pattern[1,-1] %.0f}}.\n"
      "---\nshow: hook_logits\nview: bars\n\nNo logits recorded.\n"
      "---\nshow: hook_probs\nrow: 3\nview: bars\n\nRow 3 of 3.\n"
      "---\nshow: blocks.0.hook_resid_post\nview: grid\n\nNo heads.\n";
  assert_int_equal(tt_lesson_parse(text, strlen(text), "two", &l, &err), TT_OK);
  a = make_trace(1.0f);
  b = make_trace(2.0f);
  const tt_trace *both[2] = {a, b};
  assert_int_equal(tt_lesson_resolve(l, 0, both, NULL, NULL, &v, &err), TT_OK);
  assert_ptr_equal(v.compare, b);
  assert_ptr_equal(v.compare_tensors[0], tt_trace_find(b, "blocks.1.attn.hook_pattern"));
  assert_string_equal(v.narration, "Row 120, 121, 122 against 240, 242, 244.");
  tt_lesson_view_free(&v);
  assert_int_not_equal(tt_lesson_resolve(l, 1, both, NULL, NULL, &v, &err), TT_OK);
  assert_non_null(strstr(err.msg, "two:14: trace 'a' has no tensor hook_logits"));
  assert_int_not_equal(tt_lesson_resolve(l, 2, both, NULL, NULL, &v, &err), TT_OK);
  assert_non_null(strstr(err.msg, "row 3 out of range"));
  assert_int_not_equal(tt_lesson_resolve(l, 3, both, NULL, NULL, &v, &err), TT_OK);
  assert_non_null(strstr(err.msg, "view grid shows a tensor with a head axis, not blocks.0.hook_resid_post"));
  tt_trace_destroy(a);
  tt_trace_destroy(b);
  tt_lesson_destroy(l);
}

// Twins: the same steps in other words pass; another view, claim or trace does not. A saved
// trace must match its definition's prompt, record globs and knobs.
static void test_verify(void **state) {
  (void)state;
  tt_lesson *a = NULL, *b = NULL;
  tt_error err = {0};
  assert_int_equal(tt_lesson_parse(good, strlen(good), "a", &a, &err), TT_OK);
  struct {
    const char *from, *to;
    bool ok;
  } cases[] = {
      {"First paragraph.", "Erster Absatz, ganz anders.", true},
      {"title: The tokens", "title: Die Tokens", true},
      {"view: heatmap", "view: table", false},
      {"head: 2", "head: 1", false},
      {"row: -1", "row: 0", false},
      {"temperature: 0.5", "temperature: 2", false},
      {"trace: other\n", "", false},
      {"set=causal=false,scale_attn=false", "set=causal=false", false},
      {"prompt=\"x\" file", "prompt=\"x\" model=tiny-llama file", false},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char text[4096];
    const char *at = strstr(good, cases[i].from);
    assert_non_null(at);
    snprintf(text, sizeof text, "%.*s%s%s", (int)(at - good), good, cases[i].to, at + strlen(cases[i].from));
    assert_int_equal(tt_lesson_parse(text, strlen(text), "b", &b, &err), TT_OK);
    tt_status st = tt_lesson_verify_twins(a, b, &err);
    if ((st == TT_OK) != cases[i].ok) fail_msg("case %zu (%s): %s", i, cases[i].to, st ? err.msg : "passed");
    tt_lesson_destroy(b);
  }
  tt_trace *t = make_trace(1.0f);
  assert_int_not_equal(tt_lesson_verify_trace(a, 0, t, &err), TT_OK);
  assert_non_null(strstr(err.msg, "a:5: trace 'main' (t-main.safetensors) does not match its definition: its prompt"));
  tt_trace_set_meta(t, "prompt", "The weather, \"nice\"");
  tt_trace_set_meta(t, "record", "[\"tokens\",\"blocks.*.attn.hook_pattern\",\"hook_probs\"]");
  assert_int_not_equal(tt_lesson_verify_trace(a, 0, t, &err), TT_OK);
  assert_non_null(strstr(err.msg, "made without set=causal=false"));
  tt_config cfg;
  assert_true(tt_trace_config(t, &cfg));
  cfg.causal = false;
  cfg.scale_attn = false;
  char *json = tt_config_to_json(&cfg);
  tt_trace_set_meta(t, "config", json);
  free(json);
  if (tt_lesson_verify_trace(a, 0, t, &err)) fail_msg("%s", err.msg);
  tt_trace_set_meta(t, "record", "[\"tokens\"]");
  assert_int_not_equal(tt_lesson_verify_trace(a, 0, t, &err), TT_OK);
  assert_non_null(strstr(err.msg, "its record globs are"));
  tt_trace_destroy(t);
  tt_lesson_destroy(a);
}

// model=NAME: parsed, and a trace made with another model folder does not match it.
static void test_trace_model(void **state) {
  (void)state;
  static const char text[] =
      "title: t\nlang: en\ntrace main: prompt=\"x\" model=tiny-llama file=a.safetensors\n"
      "---\nshow: tokens\nview: tokens\n\nTokens.\n";
  tt_lesson *l = NULL;
  tt_error err = {0};
  assert_int_equal(tt_lesson_parse(text, strlen(text), "m", &l, &err), TT_OK);
  assert_string_equal(tt_lesson_trace_at(l, 0)->model, "tiny-llama");
  tt_trace *t = make_trace(1.0f);
  tt_trace_set_meta(t, "prompt", "x");
  tt_trace_set_meta(t, "record", "[]");
  const char *wrong[] = {"/src/assets/models/tiny-classroom", "/src/assets/models/my-tiny-llama", "tiny-llama-2"};
  for (size_t i = 0; i < sizeof wrong / sizeof *wrong; i++) {
    tt_trace_set_meta(t, "model", wrong[i]);
    assert_int_not_equal(tt_lesson_verify_trace(l, 0, t, &err), TT_OK);
    assert_non_null(strstr(err.msg, "it was made with the model"));
  }
  const char *right[] = {"/src/assets/models/tiny-llama", "assets/models/tiny-llama/", "tiny-llama"};
  for (size_t i = 0; i < sizeof right / sizeof *right; i++) {
    tt_trace_set_meta(t, "model", right[i]);
    if (tt_lesson_verify_trace(l, 0, t, &err)) fail_msg("%s: %s", right[i], err.msg);
  }
  tt_trace_destroy(t);
  tt_lesson_destroy(l);
}

static int mkdir_p(const char *path) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", path);
  return system(cmd);
}

// check: lines — parsed with their line numbers, evaluated against the traces.
static void test_claims(void **state) {
  (void)state;
  static const char text[] =
      "title: t\nlang: en\ntrace a: prompt=\"x\" file=a.safetensors\ntrace b: prompt=\"y\" file=b.safetensors\n"
      "---\nshow: blocks.1.attn.hook_pattern\nview: heatmap\n"
      "check: max blocks.1.attn.hook_pattern[1,2] > 121.5\n"                              // line 8: 122 > 121.5
      "check: b:blocks.1.attn.hook_pattern[1,2,0] == 240\n"                               // line 9
      "check: argmax hook_probs[0] == 2\n"                                                // line 10
      "check: blocks.0.attn.hook_pattern[0,1,1] < b:blocks.0.attn.hook_pattern[0,1,1]\n"  // 11 < 22
      "\nText.\n"
      "---\nshow: hook_probs\nview: bars\ncheck: max hook_probs[0] >= 0.5\n\nFalse claim.\n";
  tt_lesson *l = NULL;
  tt_error err = {0};
  if (tt_lesson_parse(text, strlen(text), "c", &l, &err)) fail_msg("%s", err.msg);
  const tt_lesson_step *s = tt_lesson_step_at(l, 0);
  assert_int_equal(s->n_checks, 4);
  assert_int_equal(s->check_lines[0], 8);
  assert_int_equal(s->check_lines[3], 11);
  assert_string_equal(s->checks[2], "argmax hook_probs[0] == 2");
  tt_trace *a = make_trace(1.0f), *b = make_trace(2.0f);
  const tt_trace *traces[2] = {a, b};
  if (tt_lesson_check_claims(l, 0, traces, &err)) fail_msg("%s", err.msg);
  assert_int_not_equal(tt_lesson_check_claims(l, 1, traces, &err), TT_OK);
  assert_non_null(strstr(err.msg, "c:17: check failed: max hook_probs[0] >= 0.5 (0.4 >= 0.5 is false)"));
  tt_trace_destroy(a);
  tt_trace_destroy(b);
  tt_lesson_destroy(l);
  // Syntax errors at parse time, with the line.
  const char *bad[][2] = {
      {"check: max hook_probs[0] 0.5\n", "c:8: check: 'max hook_probs[0] 0.5' should read A OP B"},
      {"check: max hook_probs[0] %.2f > 0.5\n", "drop the format"},
      {"check: token 1 == 3\n", "is not a number"},
      {"check: zz:hook_probs[0,0] > 0\n", "trace 'zz' is not defined"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char t[512];
    snprintf(t, sizeof t,
             "title: t\nlang: en\ntrace a: prompt=\"x\" file=a.safetensors\n\n\n---\nshow: tokens\n%s"
             "view: tokens\n\nText.\n",
             bad[i][0]);
    assert_int_not_equal(tt_lesson_parse(t, strlen(t), "c", &l, &err), TT_OK);
    if (!strstr(err.msg, bad[i][1])) fail_msg("'%s': got '%s'", bad[i][0], err.msg);
  }
}

// Expression claims: arithmetic over numbers and placeholders, whole slices compared
// element by element, and ~= (rounds to the number as printed).
static void test_claim_expressions(void **state) {
  (void)state;
  static const char *const holding[] = {
      "-log(0.9) ~= 0.11",  // 0.105
      "exp(2) / (exp(2) + exp(1) + 1) ~= 0.665",
      "2 * pi ~= 6.3",
      "{{blocks.0.attn.hook_pattern[0,1]}} == {{b:blocks.0.attn.hook_pattern[0,1]}} / 2",  // a row, element-wise
      "{{blocks.0.hook_resid_post[0]}} >= 0",
      "max(abs({{blocks.1.hook_resid_post[2]}} - {{blocks.0.hook_resid_post[2]}})) == 1",
      "sum({{hook_probs[0]}}) ~= 1.0",
      "mean({{hook_probs[2]}}, 0.2) ~= 0.2",
      "{{max hook_probs[0]}} ~= 0.4",
      "blocks.0.attn.hook_pattern[1,2] == {{b:blocks.0.attn.hook_pattern[1,2]}} / 2",
      "2^3 == 8",
      "-2^2 == -4",
  };
  static const char *const failing[][2] = {
      {"-log(0.9) ~= 0.10", "(0.105361 ~= 0.1 is false)"},
      {"{{blocks.0.attn.hook_pattern[0,1]}} == {{b:blocks.0.attn.hook_pattern[0,1]}}", "element 0: 10 == 20"},
      {"{{blocks.0.hook_resid_post[2]}} == {{blocks.1.hook_resid_post[2]}}", "element 3: 0 == 1 is false"},
      {"{{hook_probs[0]}} == {{hook_probs[:,0]}}", "do not match"},
  };
  tt_trace *a = make_trace(1.0f), *b = make_trace(2.0f);
  const tt_trace *traces[2] = {a, b};
  tt_error err = {0};
  for (size_t i = 0; i < sizeof holding / sizeof *holding + sizeof failing / sizeof *failing; i++) {
    bool ok = i < sizeof holding / sizeof *holding;
    const char *claim = ok ? holding[i] : failing[i - sizeof holding / sizeof *holding][0];
    char text[700];
    snprintf(text, sizeof text,
             "title: t\nlang: en\ntrace a: prompt=\"x\" file=a.safetensors\n"
             "trace b: prompt=\"y\" file=b.safetensors\n---\nshow: hook_probs\nview: bars\ncheck: %s\n\nT.\n",
             claim);
    tt_lesson *l = NULL;
    if (tt_lesson_parse(text, strlen(text), "e", &l, &err)) fail_msg("'%s': %s", claim, err.msg);
    tt_status st = tt_lesson_check_claims(l, 0, traces, &err);
    if (ok && st) fail_msg("'%s': %s", claim, err.msg);
    if (!ok && (!st || !strstr(err.msg, failing[i - sizeof holding / sizeof *holding][1])))
      fail_msg("'%s' should fail with '%s', got '%s'", claim, failing[i - sizeof holding / sizeof *holding][1],
               st ? err.msg : "ok");
    tt_lesson_destroy(l);
  }
  // Syntax: an unknown function, ~= against something that is not a printed number, and an
  // element function given a second argument, whole or broken (its first was once leaked).
  const char *bad[][2] = {{"foo(1) == 1", "unknown function"},
                          {"1 ~= {{max hook_probs[0]}}", "right side of ~="},
                          {"exp(1, 2) == 1", "one argument expected"},
                          {"sqrt(4, (1) == 2", "one argument expected"},
                          {"abs(sin(1, )) == 1", "one argument expected"},
                          {"log(2 3) == 1", "expected ')'"}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char text[400];
    snprintf(text, sizeof text,
             "title: t\nlang: en\ntrace a: prompt=\"x\" file=a.safetensors\n---\n"
             "show: tokens\nview: tokens\ncheck: %s\n\nT.\n",
             bad[i][0]);
    tt_lesson *l = NULL;
    assert_int_not_equal(tt_lesson_parse(text, strlen(text), "e", &l, &err), TT_OK);
    if (!strstr(err.msg, bad[i][1])) fail_msg("'%s': got '%s'", bad[i][0], err.msg);
  }
  tt_trace_destroy(a);
  tt_trace_destroy(b);
}

static void test_player(void **state) {
  (void)state;
  char dir[] = "/tmp/tt_lesson_XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[1024], lesson_dir[256], traces_dir[256];
  snprintf(lesson_dir, sizeof lesson_dir, "%s/en", dir);
  snprintf(traces_dir, sizeof traces_dir, "%s/traces", dir);
  assert_int_equal(mkdir_p(lesson_dir), 0);
  (void)traces_dir;
  snprintf(path, sizeof path, "%s/x.lesson", lesson_dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(good, f);
  fclose(f);
  tt_lesson_player *p = NULL;
  tt_error err = {0};
  // Traces missing: a clear error naming the trace and how to make it.
  assert_int_not_equal(tt_lesson_player_open(path, NULL, &p, &err), TT_OK);
  assert_non_null(strstr(err.msg, "trace 'main'"));
  assert_non_null(strstr(err.msg, "--make-traces"));
  // Saved traces in <dir>/traces (the default folder beside en/).
  assert_int_equal(mkdir_p(traces_dir), 0);
  tt_trace *a = make_trace(1.0f), *b = make_trace(2.0f);
  char file[600];
  snprintf(file, sizeof file, "%s/t-main.safetensors", traces_dir);
  assert_int_equal(tt_trace_save(a, file, &err), TT_OK);
  snprintf(file, sizeof file, "%s/t-other.safetensors", traces_dir);
  assert_int_equal(tt_trace_save(b, file, &err), TT_OK);
  tt_trace_destroy(a);
  tt_trace_destroy(b);
  if (tt_lesson_player_open(path, NULL, &p, &err)) fail_msg("%s", err.msg);
  assert_int_equal(p->step, 0);
  assert_false(tt_lesson_player_prev(p));
  assert_true(tt_lesson_player_next(p));
  assert_int_equal(p->step, 1);
  assert_true(tt_lesson_player_jump(p, 3));
  assert_false(tt_lesson_player_next(p));
  assert_int_equal(p->step, 3);
  assert_false(tt_lesson_player_jump(p, 4));
  assert_false(tt_lesson_player_jump(p, -1));
  tt_lesson_view v;
  assert_int_equal(tt_lesson_player_view(p, NULL, NULL, &v, &err), TT_OK);
  assert_int_equal(v.n_tensors, 2);
  tt_lesson_view_free(&v);
  tt_lesson_player_close(p);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse_good), cmocka_unit_test(test_parse_errors), cmocka_unit_test(test_fill),
      cmocka_unit_test(test_resolve),    cmocka_unit_test(test_claims),       cmocka_unit_test(test_claim_expressions),
      cmocka_unit_test(test_verify),     cmocka_unit_test(test_player),       cmocka_unit_test(test_trace_model),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
