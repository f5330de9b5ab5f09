// compare and lesson-page tests, headless: the difference panel of `view A --compare B`
// holds A − B (checked at a hovered cell against the two traces), max |A − B| and the
// cells masked on one side only are counted as an independent loop counts them, vector
// lengths equal a naive loop's, and two golden images (a comparison and a Korean lesson
// page) match tests/render/golden (TTRACE_UPDATE_GOLDEN=1 rewrites them; look at them), and
// the what-if panel fits a zoomed projector's picture.
//
// B is made here from the committed fixture trace A: the softmax weights squared and the
// causal mask of block 1 removed, so the expected differences are known without the engine.
#include <SDL_image.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/render/derived_int.h"
#include "../render/golden.h"

static const char *golden_dir, *fixture;

static tt_trace *load_fixture(void) {
  tt_trace *tr = NULL;
  tt_error err = {0};
  assert_int_equal(tt_trace_load(fixture, &tr, &err), TT_OK);
  return tr;
}

// A copy of a with the softmax weights of block 0 squared and the masked scores of block 1
// set to 0 (finite where a has −∞).
static tt_trace *make_b(const tt_trace *a) {
  tt_trace *b = tt_trace_create();
  tt_error err = {0};
  for (size_t i = 0; i < tt_trace_meta_count(a); i++) {
    const char *k, *v;
    tt_trace_meta_at(a, i, &k, &v);
    assert_int_equal(tt_trace_set_meta(b, k, v), TT_OK);
  }
  int T = tt_trace_n_tokens(a);
  int32_t ids[64];
  const char *strs[64];
  for (int i = 0; i < T; i++) {
    ids[i] = tt_trace_token_id(a, i);
    strs[i] = tt_trace_token(a, i);
  }
  assert_int_equal(tt_trace_set_tokens(b, ids, strs, T, &err), TT_OK);
  for (size_t i = 0; i < tt_trace_count(a); i++) {
    const tt_tensor *t = tt_trace_get(a, i);
    tt_tensor c = *t;
    float *copy = NULL;
    bool sq = strcmp(t->name, "blocks.0.attn.hook_pattern") == 0;
    bool unmask = strcmp(t->name, "blocks.1.attn.hook_attn_scores") == 0;
    if (sq || unmask) {
      int64_t n = tt_tensor_numel(t);
      copy = malloc(sizeof(float) * (size_t)n);
      const float *src = t->data;
      for (int64_t k = 0; k < n; k++) copy[k] = sq ? src[k] * src[k] : isfinite(src[k]) ? src[k] : 0.0f;
      c.data = copy;
    }
    assert_int_equal(tt_trace_add(b, &c, &err), TT_OK);
    free(copy);
  }
  return b;
}

static const char *vocab_text(void *ctx, int32_t id, char *buf, size_t len) {
  (void)ctx;
  snprintf(buf, len, "tok%d", id);
  return buf;
}

// Draws the comparison into a software renderer of w × h, keeping the layout.
static void draw_compare(tt_render *rc, const tt_trace *a, const tt_compare *cmp, const tt_view_state *st,
                         tt_derived *d, tt_layout *lay) {
  SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, 960, 600, 32, SDL_PIXELFORMAT_ARGB8888);
  assert_non_null(s);
  SDL_Renderer *r = SDL_CreateSoftwareRenderer(s);
  assert_non_null(r);
  tt_render_draw_compare(rc, r, (SDL_Rect){0, 0, 960, 600}, a, cmp, st, d, lay);
  tt_render_forget(rc);
  SDL_DestroyRenderer(r);
  SDL_FreeSurface(s);
}

static void test_difference_cell(void **state) {
  (void)state;
  tt_trace *a = load_fixture(), *b = make_b(a);
  tt_render *rc = NULL;
  tt_derived *d = NULL;
  tt_error err = {0};
  assert_int_equal(tt_render_create(&rc, &err), TT_OK);
  assert_int_equal(tt_derived_create(&d, &err), TT_OK);
  tt_layout *lay = calloc(1, sizeof *lay);
  tt_view_state st;
  tt_view_state_init(&st);
  snprintf(st.hook, sizeof st.hook, "blocks.0.attn.hook_pattern");
  st.head = 1;
  st.step = tt_step_find(NULL, st.hook, &st.layer);
  tt_compare cmp = {b, "A", "B"};
  draw_compare(rc, a, &cmp, &st, d, lay);
  // A, B and A − B of head 1: three panels of the same name; the third holds the difference.
  assert_int_equal(lay->n_panels, 3);
  for (int i = 0; i < 3; i++) assert_string_equal(lay->panels[i].t->name, "blocks.0.attn.hook_pattern");
  const tt_tensor *ta = tt_trace_find(a, st.hook), *tb = tt_trace_find(b, st.hook);
  assert_ptr_equal(lay->panels[0].t, ta);
  assert_ptr_equal(lay->panels[1].t, tb);

  // The pointer on cell (3, 1) of the difference panel.
  const tt_panel *pn = &lay->panels[2];
  st.mouse_x = pn->rect.x + (int)((1 + 0.5f) * pn->cell_w);
  st.mouse_y = pn->rect.y + (int)((3 + 0.5f) * pn->cell_h);
  draw_compare(rc, a, &cmp, &st, d, lay);
  tt_compare_info in;
  tt_derived_info(d, &in);
  assert_true(in.hover);
  assert_int_equal(in.side, 'D');
  assert_int_equal(in.head, 1);
  assert_int_equal(in.row, 3);
  assert_int_equal(in.col, 1);
  int T = (int)ta->shape[1];
  int64_t k = (1 * T + 3) * T + 1;
  float va = ((const float *)ta->data)[k], vb = ((const float *)tb->data)[k];
  assert_true(va != vb);  // the cell really differs
  assert_true(in.a == va && in.b == vb && in.d == va - vb);
  tt_pick pk;
  assert_true(tt_render_pick(lay, a, st.mouse_x, st.mouse_y, &pk));
  assert_int_equal(pk.panel, 2);
  assert_true(pk.value == va - vb);

  // max |A − B| over the whole tensor, as a plain loop finds it.
  float mx = 0;
  for (int64_t i = 0; i < tt_tensor_numel(ta); i++) {
    float x = ((const float *)ta->data)[i], y = ((const float *)tb->data)[i];
    if (isfinite(x) && isfinite(y) && fabsf(x - y) > mx) mx = fabsf(x - y);
  }
  assert_true(in.diff);
  assert_true(in.max_abs == mx);
  assert_int_equal(in.n_one_sided, 0);

  // Block 1's masked scores against unmasked ones: every masked cell is one-sided.
  snprintf(st.hook, sizeof st.hook, "blocks.1.attn.hook_attn_scores");
  st.step = tt_step_find(NULL, st.hook, &st.layer);
  st.mouse_x = st.mouse_y = -1;
  draw_compare(rc, a, &cmp, &st, d, lay);
  tt_derived_info(d, &in);
  const tt_tensor *sa = tt_trace_find(a, st.hook);
  int64_t masked = 0;
  for (int64_t i = 0; i < tt_tensor_numel(sa); i++) masked += !isfinite(((const float *)sa->data)[i]);
  assert_true(masked > 0);
  assert_int_equal(in.n_one_sided, masked);
  assert_true(in.diff);
  assert_true(in.max_abs == 0);  // the visible scores are the same

  // A tensor only A has: no difference, and no crash.
  tt_trace *c = tt_trace_create();
  tt_compare cmp2 = {c, "A", "empty"};
  snprintf(st.hook, sizeof st.hook, "blocks.0.attn.hook_pattern");
  draw_compare(rc, a, &cmp2, &st, d, lay);
  tt_derived_info(d, &in);
  assert_false(in.diff);
  tt_trace_destroy(c);

  free(lay);
  tt_derived_destroy(d);
  tt_render_destroy(rc);
  tt_trace_destroy(b);
  tt_trace_destroy(a);
}

static void test_norms(void **state) {
  (void)state;
  tt_trace *a = load_fixture();
  const tt_tensor *layers[2] = {tt_trace_find(a, "blocks.0.hook_resid_post"),
                                tt_trace_find(a, "blocks.1.hook_resid_post")};
  assert_non_null(layers[0]);
  assert_non_null(layers[1]);
  tt_tensor out;
  assert_true(tt_norms_compute(layers, 2, &out));
  int64_t T = layers[0]->shape[0], C = layers[0]->shape[1];
  assert_int_equal(out.shape[0], T);
  assert_int_equal(out.shape[1], 2);
  for (int l = 0; l < 2; l++)
    for (int64_t t = 0; t < T; t++) {
      double s = 0;
      for (int64_t c = 0; c < C; c++) {
        double v = ((const float *)layers[l]->data)[t * C + c];
        s += v * v;
      }
      float got = ((float *)out.data)[t * 2 + l];
      assert_true(fabs(got - sqrt(s)) <= 1e-6 * sqrt(s));
    }
  free(out.data);
  const tt_tensor *bad[2] = {layers[0], tt_trace_find(a, "blocks.0.attn.hook_pattern")};
  assert_false(tt_norms_compute(bad, 2, &out));
  tt_trace_destroy(a);
}

// ---- golden images ------------------------------------------------------------------------
// Compares the PNG just written at got with the golden NAME.png (or replaces it).
static int golden_check(const char *name, const char *got) {
  SDL_Surface *g0 = IMG_Load(got);
  assert_non_null(g0);
  SDL_Surface *g = SDL_ConvertSurfaceFormat(g0, SDL_PIXELFORMAT_RGB24, 0);
  SDL_FreeSurface(g0);
  int bad = tt_golden_check(golden_dir, name, g);
  SDL_FreeSurface(g);
  return bad;
}

// A and B, a render context with the vocabulary's pieces, and a difference cache.
typedef struct {
  tt_trace *a, *b;
  tt_render *rc;
  tt_derived *d;
  tt_render_extras ex;
} drawing;

static void drawing_open(drawing *w) {
  tt_error err = {0};
  *w = (drawing){.a = load_fixture(), .ex = {.token_text = vocab_text}};
  w->b = make_b(w->a);
  assert_int_equal(tt_render_create(&w->rc, &err), TT_OK);
  assert_int_equal(tt_derived_create(&w->d, &err), TT_OK);
  tt_render_set_extras(w->rc, &w->ex);
}

static void drawing_close(drawing *w) {
  tt_derived_destroy(w->d);
  tt_render_destroy(w->rc);
  tt_trace_destroy(w->b);
  tt_trace_destroy(w->a);
}

static void test_golden(void **state) {
  (void)state;
  drawing w;
  drawing_open(&w);
  tt_trace *a = w.a, *b = w.b;
  tt_render *rc = w.rc;
  tt_derived *d = w.d;
  tt_error err = {0};
  int bad = 0;

  // A comparison: the weights of head 2 against their squares.
  tt_view_state st;
  tt_view_state_init(&st);
  snprintf(st.hook, sizeof st.hook, "blocks.0.attn.hook_pattern");
  st.head = 2;
  st.step = tt_step_find(NULL, st.hook, &st.layer);
  tt_compare cmp = {b, "weather", "squared"};
  assert_int_equal(tt_render_compare_png(rc, a, &cmp, &st, 960, 600, d, "compare_pattern.got.png", &err), TT_OK);
  bad += golden_check("compare_pattern", "compare_pattern.got.png");

  // A lesson page in Korean: narration, the step counter, a jump being typed, the last row
  // outlined, dark theme.
  tt_view_state ls;
  tt_view_state_init(&ls);
  snprintf(ls.hook, sizeof ls.hook, "blocks.1.attn.hook_pattern");
  ls.head = 3;
  ls.view = TT_VIEW_HEATMAP;
  ls.step = tt_step_find(NULL, ls.hook, &ls.layer);
  ls.lang = TT_LANG_KO;
  ls.theme = TT_THEME_DARK;
  tt_lesson_page pg = {
      .lesson_title = "소프트맥스: 점수가 가중치가 되기까지",
      .step_title = "마지막 토큰이 보는 곳",
      .narration =
          "1번 블록의 3번 헤드입니다. 마지막 줄은 마지막 토큰이\n어디를 보는지 보여 줍니다.\n\n"
          "한 줄의 값을 모두 더하면 1입니다. 가려진 칸은 미래의 토큰이라서\n0이 됩니다.",
      .step = 2,
      .n_steps = 7,
      .row = 3,
      .jump = "5",
      .other_lang = "English",
  };
  assert_int_equal(tt_render_lesson_png(rc, a, &ls, &pg, 960, 600, d, "lesson_page_ko.got.png", &err), TT_OK);
  bad += golden_check("lesson_page_ko", "lesson_page_ko.got.png");

  drawing_close(&w);
  assert_int_equal(bad, 0);
}

// ---- the what-if panel on a projector ------------------------------------------------------
// Reads the file at path into a new string.
static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  assert_non_null(s);
  assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
  s[n] = 0;
  fclose(f);
  return s;
}

// Over the comparison in the window's frame at 1280 × 800 with the type × 1.6 (a zoomed
// projector), the what-if panel draws every knob, and none of its text (the hint cut with
// "…" where it has no room) falls below the picture.
static void test_knobs_fit(void **state) {
  (void)state;
  drawing w;
  drawing_open(&w);
  tt_error err = {0};
  static const char *const rows[8][2] = {{"1",
                                          "scale_attn (\xC3\xB7\xE2\x88\x9A"
                                          "d_k): off"},
                                         {"2", "causal: on"},
                                         {"3", "positions: learned"},
                                         {"4", "activation: gelu_new"},
                                         {"5", "residual: on"},
                                         {"6", "block: pre_ln"},
                                         {"7", "norm: layernorm"},
                                         {"8", "head 0.2: on"}};
  tt_view_state st;
  tt_view_state_init(&st);
  snprintf(st.hook, sizeof st.hook, "blocks.0.attn.hook_pattern");
  st.head = 2;
  st.step = tt_step_find(NULL, st.hook, &st.layer);
  st.frame = true;
  st.font_scale = 1.6f;
  st.knob_rows = rows;
  st.n_knob_rows = 8;
  tt_compare cmp = {w.b, "weather", "squared"};
  const int h = 800;
  assert_int_equal(tt_render_compare_svg(w.rc, w.a, &cmp, &st, 1280, h, w.d, "knobs_fit.svg", &err), TT_OK);
  char *svg = slurp("knobs_fit.svg");
  int keys = 0, texts = 0;
  for (const char *t = strstr(svg, "<text "); t; t = strstr(t + 1, "<text ")) {
    const char *end = strchr(t, '>'), *panel = strstr(t, "panel=knobs"), *y = strstr(t, " y=\"");
    if (!end || !panel || panel > end) continue;
    assert_true(y && y < end);
    double baseline = atof(y + 4);
    if (baseline > h) fail_msg("a line of the what-if panel at y = %.0f, below the %d px picture", baseline, h);
    texts++;
    const char *key = strstr(t, "data-tt=\"knob_key\"");
    keys += key && key < end;
  }
  assert_int_equal(keys, 8);
  assert_true(texts > 9);  // the title, the knobs, and the hint
  free(svg);
  drawing_close(&w);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: test_compare GOLDEN_DIR FIXTURE\n");
    return 2;
  }
  golden_dir = argv[1];
  fixture = argv[2];
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_difference_cell),
      cmocka_unit_test(test_norms),
      cmocka_unit_test(test_golden),
      cmocka_unit_test(test_knobs_fit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
