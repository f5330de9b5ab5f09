// render tests: colour maps, hook resolution, picking against the drawn pixels, large
// tensors downsampled, zoom to a single cell, and golden images of the views rendered
// headless from a committed trace (tests/render/fixtures/weather.safetensors, made with
// `ttrace trace` on a seeded random model; see README.md).
//
// Golden images: RGB, compared with a per-channel tolerance and a small allowed share of
// differing pixels. TTRACE_UPDATE_GOLDEN=1 rewrites them (then look at them!).
#include <SDL_image.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/render/render_int.h"
#include "golden.h"

static const char *golden_dir, *fixture, *llama_fixture;

static tt_trace *load_fixture(void) {
  tt_trace *tr = NULL;
  tt_error err = {0};
  assert_int_equal(tt_trace_load(fixture, &tr, &err), TT_OK);
  return tr;
}

static void test_colormaps(void **state) {
  (void)state;
  tt_rgba a = tt_cmap_viridis(0), b = tt_cmap_viridis(1), m = tt_cmap_viridis(0.5f);
  assert_int_equal(a.r, 0x44), assert_int_equal(a.g, 0x01), assert_int_equal(a.b, 0x54);
  assert_int_equal(b.r, 0xfd), assert_int_equal(b.g, 0xe7), assert_int_equal(b.b, 0x25);
  // Entry 128 of matplotlib's 256 (0.127568, 0.566949, 0.550556), not a blend of 11 stops.
  assert_int_equal(m.r, 33), assert_int_equal(m.g, 145), assert_int_equal(m.b, 140);
  tt_rgba q = tt_cmap_viridis(0.25f);  // entry 64: (0.229739, 0.322361, 0.545706)
  assert_int_equal(q.r, 59), assert_int_equal(q.g, 82), assert_int_equal(q.b, 139);
  tt_rgba w = tt_cmap_diverging(0), lo = tt_cmap_diverging(-1), hi = tt_cmap_diverging(1);
  assert_true(w.r > 240 && w.g > 240 && w.b > 240);  // white at zero
  assert_true(lo.b > lo.r);                          // blue for negative
  assert_true(hi.r > hi.b);                          // red for positive
  // On the dark theme, zero (white on the diverging map) and the lowest viridis colour stand
  // apart from the background.
  const tt_palette *dk = tt_palette_for(TT_THEME_DARK);
  tt_rgba zd = tt_cmap_diverging(0);
  assert_true(abs(zd.r - dk->bg.r) + abs(zd.g - dk->bg.g) + abs(zd.b - dk->bg.b) > 300);
  assert_true(abs(a.r - dk->bg.r) + abs(a.g - dk->bg.g) + abs(a.b - dk->bg.b) > 60);
  // Out of range and NaN clamp instead of reading outside the table.
  tt_rgba c = tt_cmap_viridis(NAN), d = tt_cmap_diverging(7);
  assert_int_equal(c.r, a.r);
  assert_int_equal(d.r, hi.r);
}

static void test_resolve_hook(void **state) {
  (void)state;
  tt_trace *tr = load_fixture();
  char buf[96];
  tt_error err = {0};
  assert_int_equal(tt_resolve_hook(tr, "blocks.1.attn.hook_pattern", -1, buf, sizeof buf, &err), TT_OK);
  assert_string_equal(buf, "blocks.1.attn.hook_pattern");
  assert_int_equal(tt_resolve_hook(tr, "attn.hook_pattern", 1, buf, sizeof buf, &err), TT_OK);
  assert_string_equal(buf, "blocks.1.attn.hook_pattern");
  assert_int_equal(tt_resolve_hook(tr, "attn.hook_pattern", -1, buf, sizeof buf, &err), TT_OK);
  assert_string_equal(buf, "blocks.0.attn.hook_pattern");
  assert_int_equal(tt_resolve_hook(tr, "attn.hook_nothing", 0, buf, sizeof buf, &err), TT_ERR_ARG);
  assert_non_null(strstr(err.msg, "attn.hook_nothing"));
  int layer = -1;
  int s = tt_step_find(tr, "blocks.1.attn.hook_pattern", &layer);
  assert_true(s >= 0);
  assert_string_equal(tt_step_get(tr, s)->id, "softmax");
  assert_int_equal(layer, 1);
  tt_step_hook(tr, s, 1, buf, sizeof buf);
  assert_string_equal(buf, "blocks.1.attn.hook_pattern");
  // Every step's hook exists in a full trace (the fixture records all but hook_probs).
  for (int i = 0; i < tt_step_count(); i++) {
    tt_step_hook(tr, i, 1, buf, sizeof buf);
    if (strcmp(buf, "hook_probs") == 0) continue;
    if (!tt_trace_find(tr, buf)) fail_msg("step %s names %s, which the trace lacks", tt_step_get(tr, i)->id, buf);
  }
  tt_trace_destroy(tr);
}

static float raw_at(const tt_tensor *t, int64_t i) {
  return ((const float *)t->data)[i];
}

static tt_rgba pixel(SDL_Surface *s, int x, int y) {
  const uint8_t *p = (const uint8_t *)s->pixels + (size_t)y * (size_t)s->pitch + (size_t)x * 3;
  return (tt_rgba){p[0], p[1], p[2], 255};
}

// Picking a pixel gives the cell whose value the pixel's colour shows.
static void test_pick_matches_pixels(void **state) {
  (void)state;
  tt_trace *tr = load_fixture();
  tt_render *rc = NULL;
  tt_error err = {0};
  assert_int_equal(tt_render_create(&rc, &err), TT_OK);
  tt_view_state vs;
  tt_view_state_init(&vs);
  snprintf(vs.hook, sizeof vs.hook, "blocks.1.attn.hook_attn_scores");
  vs.head = 2;
  tt_layout *lay = calloc(1, sizeof *lay);
  SDL_Surface *s = NULL;
  assert_int_equal(tt_render_surface(rc, tr, &vs, 900, 600, &s, lay, &err), TT_OK);
  assert_true(lay->n_panels >= 1);
  const tt_panel *pn = &lay->panels[0];
  const tt_tensor *t = tt_trace_find(tr, vs.hook);
  int T = (int)t->shape[1];
  assert_int_equal(pn->rows, T);
  assert_int_equal(pn->cols, T);
  // The scale as the figure uses it: symmetric around zero over the whole tensor.
  float lim = 0;
  for (int64_t i = 0; i < tt_tensor_numel(t); i++)
    if (isfinite(raw_at(t, i))) lim = fmaxf(lim, fabsf(raw_at(t, i)));
  for (int r = 0; r < T; r++) {
    for (int c = 0; c < T; c++) {
      // A point inside the cell, away from the grid lines and the number in the middle.
      int x = pn->rect.x + (int)(((float)c + 0.15f) * pn->cell_w);
      int y = pn->rect.y + (int)(((float)r + 0.15f) * pn->cell_h);
      tt_pick pk;
      assert_true(tt_render_pick(lay, tr, x, y, &pk));
      assert_int_equal(pk.row, r);
      assert_int_equal(pk.col, c);
      float v = raw_at(t, ((int64_t)2 * T + r) * T + c);
      if (isfinite(v))
        assert_true(pk.value == v);
      else
        assert_true(isinf(pk.value) && pk.value < 0);
      tt_rgba got = pixel(s, x, y);
      if (c > r) {  // masked: grey hatch, not a colour of the map
        assert_true(abs(got.r - got.g) < 8 && abs(got.g - got.b) < 8);
      } else {
        tt_rgba want = tt_cmap_diverging(v / lim);
        if (abs(got.r - want.r) > 2 || abs(got.g - want.g) > 2 || abs(got.b - want.b) > 2)
          fail_msg("cell (%d, %d) value %g: pixel %d,%d,%d, colour map %d,%d,%d", r, c, v, got.r, got.g, got.b, want.r,
                   want.g, want.b);
      }
    }
  }
  // Outside every panel nothing is picked.
  tt_pick pk;
  assert_false(tt_render_pick(lay, tr, 1, 1, &pk));
  SDL_FreeSurface(s);
  free(lay);
  tt_render_destroy(rc);
  tt_trace_destroy(tr);
}

// A (4, 50257) tensor zoomed to half its columns is still downsampled, and one spike
// survives that; zoom reaches a single cell. (At zoom 1 a vocabulary axis shows the top
// columns and the binned overview instead, checked by tests/numbers.)
static void test_large_tensor(void **state) {
  (void)state;
  enum { T = 4, V = 50257 };
  tt_trace *tr = tt_trace_create();
  float *d = calloc((size_t)T * V, sizeof(float));
  // Values spread over [-1, 1] (so the colour scale is not clipped) and one spike of 1.5.
  for (int i = 0; i < T * V; i++) d[i] = (float)((int)(((int64_t)i * 7919) % 2001) - 1000) / 1000.0f;
  d[2 * V + 31337] = 1.5f;  // the spike
  tt_tensor t = {.name = "hook_logits", .dtype = TT_F32, .ndim = 2, .shape = {T, V}, .data = d};
  tt_error err = {0};
  assert_int_equal(tt_trace_add(tr, &t, &err), TT_OK);
  tt_render *rc = NULL;
  assert_int_equal(tt_render_create(&rc, &err), TT_OK);
  tt_view_state vs;
  tt_view_state_init(&vs);
  vs.view = TT_VIEW_HEATMAP;
  vs.zoom = 2;  // rows 2–3, columns V/2 … V − 1
  vs.pan_row = 2;
  vs.pan_col = V / 2;
  snprintf(vs.hook, sizeof vs.hook, "hook_logits");
  tt_layout *lay = calloc(1, sizeof *lay);
  SDL_Surface *s = NULL;
  assert_int_equal(tt_render_surface(rc, tr, &vs, 1000, 600, &s, lay, &err), TT_OK);
  const tt_panel *pn = &lay->panels[0];
  assert_int_equal(pn->cols, V);
  assert_true(pn->cell_w < 1);  // half the width in view: 25129 columns on fewer pixels
  // Row 2 holds a pixel with the spike's colour (dark red, the end of the scale).
  tt_rgba want = tt_cmap_diverging(1);
  int y = pn->rect.y + (int)((2.5f - pn->row0) * pn->cell_h), hits = 0;
  for (int x = pn->rect.x; x < pn->rect.x + pn->rect.w; x++) {
    tt_rgba p = pixel(s, x, y);
    if (abs(p.r - want.r) < 4 && abs(p.g - want.g) < 4 && abs(p.b - want.b) < 4) hits++;
  }
  assert_true(hits >= 1 && hits <= 3);
  SDL_FreeSurface(s);
  // Zoomed all the way in: one cell fills the panel and picks exactly that cell.
  vs.zoom = 1e9f;
  vs.pan_row = 2;
  vs.pan_col = 31337;
  assert_int_equal(tt_render_surface(rc, tr, &vs, 1000, 600, &s, lay, &err), TT_OK);
  pn = &lay->panels[0];
  tt_pick pk;
  assert_true(tt_render_pick(lay, tr, pn->rect.x + 2, pn->rect.y + 2, &pk));
  assert_int_equal(pk.row, 2);
  assert_int_equal(pk.col, 31337);
  assert_true(pk.value == 1.5f);
  assert_true(pn->cell_w >= 50);
  SDL_FreeSurface(s);
  free(lay);
  free(d);
  tt_render_destroy(rc);
  tt_trace_destroy(tr);
}

// ---- golden images ------------------------------------------------------------------------
typedef struct {
  const char *name, *hook;
  tt_view_kind view;
  int head, layer;
  bool frame;
  tt_theme theme;
  tt_lang lang;
  int pin_row, pin_col;
} golden;

static const golden goldens[] = {
    {"pattern", "blocks.0.attn.hook_pattern", TT_VIEW_AUTO, 1, 0, false, TT_THEME_LIGHT, TT_LANG_EN, -1, -1},
    {"scores_masked", "blocks.1.attn.hook_attn_scores", TT_VIEW_AUTO, 0, 1, false, TT_THEME_LIGHT, TT_LANG_EN, -1, -1},
    {"grid", "blocks.0.attn.hook_pattern", TT_VIEW_GRID, 0, 0, false, TT_THEME_LIGHT, TT_LANG_EN, -1, -1},
    {"overview", "blocks.0.attn.hook_pattern", TT_VIEW_OVERVIEW, 0, 0, false, TT_THEME_LIGHT, TT_LANG_EN, -1, -1},
    {"table_q", "blocks.0.attn.hook_q", TT_VIEW_TABLE, 1, 0, false, TT_THEME_LIGHT, TT_LANG_EN, -1, -1},
    {"qkv_fused", "blocks.0.attn.hook_qkv", TT_VIEW_AUTO, 0, 0, false, TT_THEME_DARK, TT_LANG_EN, -1, -1},
    {"tokens", "tokens", TT_VIEW_AUTO, 0, 0, false, TT_THEME_LIGHT, TT_LANG_EN, -1, -1},
    {"bars", "hook_probs", TT_VIEW_BARS, 0, 0, false, TT_THEME_LIGHT, TT_LANG_EN, -1, -1},
    {"layernorm", "blocks.0.ln1.hook_out", TT_VIEW_AUTO, 0, 0, false, TT_THEME_LIGHT, TT_LANG_EN, -1, -1},
    {"gelu", "blocks.1.mlp.hook_post", TT_VIEW_AUTO, 0, 1, false, TT_THEME_LIGHT, TT_LANG_EN, -1, -1},
    {"positions", "hook_pos_embed", TT_VIEW_AUTO, 0, 0, false, TT_THEME_LIGHT, TT_LANG_EN, -1, -1},
    {"logits", "hook_logits", TT_VIEW_HEATMAP, 0, 0, false, TT_THEME_LIGHT, TT_LANG_EN, -1, -1},
    {"frame_pin_ko_dark", "blocks.1.attn.hook_pattern", TT_VIEW_AUTO, 2, 1, true, TT_THEME_DARK, TT_LANG_KO, 3, 1},
};

static const char *vocab_text(void *ctx, int32_t id, char *buf, size_t len) {
  (void)ctx;
  snprintf(buf, len, "tok%d", id);  // fixed strings: the goldens do not depend on a vocabulary file
  return buf;
}

// The merges GPT-2's tokenizer makes for the fixture's prompt (ttrace tokenize --merges
// "The weather is nice"), grouped by pre-token as the window passes them.
static const char *const golden_merges[] = {"h + e \xE2\x86\x92 he  (#2)",
                                            "T + he \xE2\x86\x92 The  (#208)",
                                            "h + e \xE2\x86\x92 he  (#2)",
                                            "a + t \xE2\x86\x92 at  (#9)",
                                            "\xE2\x90\xA3 + w \xE2\x86\x92 \xE2\x90\xA3w  (#10)",
                                            "\xE2\x90\xA3w + e \xE2\x86\x92 \xE2\x90\xA3we  (#100)",
                                            "he + r \xE2\x86\x92 her  (#116)",
                                            "at + her \xE2\x86\x92 ather  (#776)",
                                            "\xE2\x90\xA3we + ather \xE2\x86\x92 \xE2\x90\xA3weather  (#5937)",
                                            "i + s \xE2\x86\x92 is  (#15)",
                                            "\xE2\x90\xA3 + is \xE2\x86\x92 \xE2\x90\xA3is  (#62)",
                                            "i + c \xE2\x86\x92 ic  (#35)",
                                            "\xE2\x90\xA3 + n \xE2\x86\x92 \xE2\x90\xA3n  (#43)",
                                            "ic + e \xE2\x86\x92 ice  (#245)",
                                            "\xE2\x90\xA3n + ice \xE2\x86\x92 \xE2\x90\xA3nice  (#3365)"};
static const tt_merge_group golden_groups[] = {{"The", "The", 0, 2},
                                               {" weather", "\xE2\x90\xA3weather", 2, 7},
                                               {" is", "\xE2\x90\xA3is", 9, 2},
                                               {" nice", "\xE2\x90\xA3nice", 11, 4}};

static void test_golden(void **state) {
  (void)state;
  tt_trace *tr = load_fixture();
  tt_render *rc = NULL;
  tt_error err = {0};
  assert_int_equal(tt_render_create(&rc, &err), TT_OK);
  tt_render_extras ex = {.token_text = vocab_text,
                         .merges = golden_merges,
                         .n_merges = (int)(sizeof golden_merges / sizeof *golden_merges),
                         .merge_groups = golden_groups,
                         .n_merge_groups = (int)(sizeof golden_groups / sizeof *golden_groups)};
  tt_render_set_extras(rc, &ex);
  int failures = 0;
  for (size_t i = 0; i < sizeof goldens / sizeof *goldens; i++) {
    const golden *g = &goldens[i];
    tt_view_state vs;
    tt_view_state_init(&vs);
    snprintf(vs.hook, sizeof vs.hook, "%s", g->hook);
    vs.view = g->view;
    vs.head = g->head;
    vs.layer = g->layer;
    vs.frame = g->frame;
    vs.theme = g->theme;
    vs.lang = g->lang;
    vs.pin_row = g->pin_row;
    vs.pin_col = g->pin_col;
    vs.step = tt_step_find(tr, g->hook, NULL);
    SDL_Surface *s = NULL;
    assert_int_equal(tt_render_surface(rc, tr, &vs, 960, 600, &s, NULL, &err), TT_OK);
    failures += tt_golden_check(golden_dir, g->name, s);
    SDL_FreeSurface(s);
  }
  tt_render_destroy(rc);
  tt_trace_destroy(tr);
  assert_int_equal(failures, 0);
}

// The SVG of a masked heatmap: well formed enough, hatched cells, one rect per cell.
static void test_svg(void **state) {
  (void)state;
  tt_trace *tr = load_fixture();
  tt_render *rc = NULL;
  tt_error err = {0};
  assert_int_equal(tt_render_create(&rc, &err), TT_OK);
  tt_view_state vs;
  tt_view_state_init(&vs);
  snprintf(vs.hook, sizeof vs.hook, "blocks.0.attn.hook_attn_scores");
  const char *path = "render_test.svg";
  assert_int_equal(tt_render_svg(rc, tr, &vs, 900, 600, path, &err), TT_OK);
  char *text = NULL;
  size_t len = 0;
  assert_int_equal(tt_read_file(path, &text, &len, &err), TT_OK);
  assert_non_null(strstr(text, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
  assert_non_null(strstr(text, "</svg>\n"));
  assert_non_null(strstr(text, "fill=\"url(#hatch0)\""));
  assert_non_null(strstr(text, "blocks.0.attn.hook_attn_scores"));
  int hatched = 0;
  for (const char *p = text; (p = strstr(p, "url(#hatch0)")); p++) hatched++;
  assert_int_equal(hatched, 6 + 1);  // the 6 cells above the diagonal of 4 tokens, and the legend swatch
  free(text);
  remove(path);
  tt_render_destroy(rc);
  tt_trace_destroy(tr);
}

// Axis letters come from the hook catalogue: the fused Q/K/V tensor is (T, 3C) and its
// x-axis says 3C; the loss is one prediction per token pair (T-1).
static void test_catalogue_axes(void **state) {
  (void)state;
  tt_trace *tr = load_fixture();
  char axes[8];
  const struct {
    const char *hook, *axes;
  } cases[] = {{"blocks.0.attn.hook_qkv", "TQ"},      {"hook_loss", "L"},
               {"blocks.1.attn.hook_pattern", "HTT"}, {"blocks.0.attn.hook_v", "HTD"},
               {"blocks.0.ln1.hook_scale", "T"},      {"hook_logits", "TV"},
               {"blocks.0.mlp.hook_pre", "TF"},       {"hook_embed", "TC"}};
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    const tt_tensor *t = tt_trace_find(tr, cases[k].hook);
    if (!t) continue;  // not recorded in the fixture
    tt_hook_axes(tr, t, axes, sizeof axes);
    if (strcmp(axes, cases[k].axes) != 0) fail_msg("%s: axes %s, want %s", cases[k].hook, axes, cases[k].axes);
  }
  tt_render *rc = NULL;
  tt_error err = {0};
  assert_int_equal(tt_render_create(&rc, &err), TT_OK);
  tt_view_state vs;
  tt_view_state_init(&vs);
  snprintf(vs.hook, sizeof vs.hook, "blocks.0.attn.hook_qkv");
  const char *path = "render_qkv_axes.svg";
  assert_int_equal(tt_render_svg(rc, tr, &vs, 900, 600, path, &err), TT_OK);
  char *text = NULL;
  size_t len = 0;
  assert_int_equal(tt_read_file(path, &text, &len, &err), TT_OK);
  assert_non_null(strstr(text, "(3C)"));
  assert_null(strstr(text, "dimension (C)"));
  free(text);
  remove(path);
  tt_render_destroy(rc);
  tt_trace_destroy(tr);
}

// "먹었다 weather": GPT-2 splits each syllable into byte tokens. Labels write a piece of a
// character as its bytes and the character (‹EB:먹›); the tokens view brackets the pieces
// under the syllable (golden tokens_ko).
static tt_trace *korean_trace(void) {
  static const int32_t ids[] = {167, 101, 117, 168, 245, 230, 46695, 97, 6193};
  static const char *const strs[] = {"\\xEB", "\\xA8",      "\\xB9", "\\xEC",   "\\x97",
                                     "\\x88", "\\xEB\\x8B", "\\xA4", " weather"};
  tt_trace *tr = tt_trace_create();
  tt_error err = {0};
  assert_non_null(tr);
  assert_int_equal(tt_trace_set_meta(tr, "prompt", "\xEB\xA8\xB9\xEC\x97\x88\xEB\x8B\xA4 weather"), TT_OK);
  assert_int_equal(tt_trace_set_tokens(tr, ids, strs, 9, &err), TT_OK);
  return tr;
}

static void test_korean(void **state) {
  (void)state;
  tt_trace *tr = korean_trace();
  char buf[128];
  assert_string_equal(tt_token_label(tr, 0, buf, sizeof buf),
                      "\xE2\x80\xB9"
                      "EB:\xEB\xA8\xB9\xE2\x80\xBA");  // ‹EB:먹›
  assert_string_equal(tt_token_label(tr, 2, buf, sizeof buf),
                      "\xE2\x80\xB9"
                      "B9:\xEB\xA8\xB9\xE2\x80\xBA");
  assert_string_equal(tt_token_label(tr, 6, buf, sizeof buf),
                      "\xE2\x80\xB9"
                      "EB 8B:\xEB\x8B\xA4\xE2\x80\xBA");  // 다
  assert_string_equal(tt_token_label(tr, 8, buf, sizeof buf), "\xE2\x90\xA3weather");
  assert_true(tt_token_splits_before(tr, 1) && !tt_token_splits_before(tr, 3) && !tt_token_splits_before(tr, 8));
  // A candidate after "먹었" + EB: "\x8B\xA4" completes 다; alone, EB may begin 뀀…뿿.
  assert_string_equal(tt_candidate_label(tr, 6, "\\xA4", buf, sizeof buf),
                      "\xE2\x80\xB9"
                      "A4:\xEB\x8B\xA4\xE2\x80\xBA");
  assert_string_equal(tt_candidate_label(tr, -1, " \\xEB", buf, sizeof buf),
                      "\xE2\x90\xA3\xE2\x80\xB9"
                      "EB:\xEB\x80\x80\xE2\x80\xA6\xEB\xBF\xBF\xE2\x80\xBA");
  tt_render *rc = NULL;
  tt_error err = {0};
  assert_int_equal(tt_render_create(&rc, &err), TT_OK);
  tt_view_state vs;
  tt_view_state_init(&vs);
  SDL_Surface *s = NULL;
  assert_int_equal(tt_render_surface(rc, tr, &vs, 960, 600, &s, NULL, &err), TT_OK);
  int failures = tt_golden_check(golden_dir, "tokens_ko", s);
  SDL_FreeSurface(s);
  tt_render_destroy(rc);
  tt_trace_destroy(tr);
  assert_int_equal(failures, 0);
}

// The Llama block's views of a random Llama model's trace (fixtures/llama.safetensors: GQA,
// 4 query heads on 2 K/V heads of D = 12 ≠ C/H), at the window's 1280 × 800.
static void test_golden_llama(void **state) {
  (void)state;
  static const golden views[] = {
      {"llama_rope", "blocks.1.attn.hook_rot_q", TT_VIEW_ROPE, 1, 1, false, TT_THEME_LIGHT, TT_LANG_EN, -1, -1},
      {"llama_gqa", "blocks.0.attn.hook_k", TT_VIEW_GQA, 2, 0, false, TT_THEME_LIGHT, TT_LANG_EN, -1, -1},
      {"llama_swiglu", "blocks.1.mlp.hook_post", TT_VIEW_SWIGLU, 0, 1, false, TT_THEME_LIGHT, TT_LANG_EN, -1, -1},
      {"llama_blocks", "blocks.0.ln1.hook_out", TT_VIEW_BLOCKS, 0, 0, false, TT_THEME_LIGHT, TT_LANG_EN, -1, -1},
      {"llama_rope_ko_dark", "blocks.0.attn.hook_q", TT_VIEW_ROPE, 3, 0, false, TT_THEME_DARK, TT_LANG_KO, -1, -1},
  };
  tt_trace *tr = NULL;
  tt_render *rc = NULL;
  tt_error err = {0};
  assert_int_equal(tt_trace_load(llama_fixture, &tr, &err), TT_OK);
  assert_int_equal(tt_render_create(&rc, &err), TT_OK);
  int failures = 0;
  for (size_t i = 0; i < sizeof views / sizeof *views; i++) {
    const golden *g = &views[i];
    tt_view_state vs;
    tt_view_state_init(&vs);
    snprintf(vs.hook, sizeof vs.hook, "%s", g->hook);
    vs.view = g->view;
    vs.head = g->head;
    vs.layer = g->layer;
    vs.theme = g->theme;
    vs.lang = g->lang;
    vs.position = g->view == TT_VIEW_SWIGLU ? 2 : -1;
    SDL_Surface *s = NULL;
    assert_int_equal(tt_render_surface(rc, tr, &vs, 1280, 800, &s, NULL, &err), TT_OK);
    failures += tt_golden_check(golden_dir, g->name, s);
    SDL_FreeSurface(s);
  }
  tt_render_destroy(rc);
  tt_trace_destroy(tr);
  assert_int_equal(failures, 0);
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: test_render GOLDEN_DIR FIXTURE LLAMA_FIXTURE\n");
    return 2;
  }
  golden_dir = argv[1];
  fixture = argv[2];
  llama_fixture = argv[3];
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_colormaps),
      cmocka_unit_test(test_resolve_hook),
      cmocka_unit_test(test_pick_matches_pixels),
      cmocka_unit_test(test_large_tensor),
      cmocka_unit_test(test_svg),
      cmocka_unit_test(test_catalogue_axes),
      cmocka_unit_test(test_golden),
      cmocka_unit_test(test_golden_llama),
      cmocka_unit_test(test_korean),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
