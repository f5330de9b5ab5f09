// knobs: the window's what-if panel. K opens it; a number flips one variant knob (÷√d_k,
// causal mask, positions, activation, residual, pre/post-LN, LayerNorm/RMSNorm, knocking
// out the current head), the prompt is traced again with the variant at once, and the view
// shows the baseline and the variant side by side with their difference at the current
// step (the comparison page). 0 goes back to the baseline alone.
#include <stdlib.h>
#include <string.h>

#include "ui_int.h"

enum { KNOB_SCALE, KNOB_CAUSAL, KNOB_POS, KNOB_ACT, KNOB_RESID, KNOB_BLOCK, KNOB_NORM, KNOB_ABLATE, N_KNOBS };

static const char *on_off(const tt_ui *ui, bool v) {
  return tt_str(ui->vs.lang, v ? TT_S_KNOB_ON : TT_S_KNOB_OFF);
}

static const char *pos_name(tt_pos_kind k) {
  return k == TT_POS_LEARNED ? "learned" : k == TT_POS_SINUSOIDAL ? "sinusoidal" : "none";
}

// The rows the panel shows for the variant config (what each key sets now).
static void knob_rows(tt_ui *ui) {
  const tt_config *c = &ui->knob_cfg;
  char(*t)[96] = ui->knob_text;
  snprintf(t[KNOB_SCALE], 96,
           "scale_attn (\xC3\xB7\xE2\x88\x9A"
           "d_k): %s",
           on_off(ui, c->scale_attn));
  snprintf(t[KNOB_CAUSAL], 96, "causal: %s", on_off(ui, c->causal));
  snprintf(t[KNOB_POS], 96, "positions: %s", pos_name(c->positions));
  snprintf(t[KNOB_ACT], 96, "activation: %s", tt_act_name(c->activation));
  snprintf(t[KNOB_RESID], 96, "residual: %s", on_off(ui, c->residual));
  snprintf(t[KNOB_BLOCK], 96, "block: %s", c->post_ln ? "post_ln" : "pre_ln");
  snprintf(t[KNOB_NORM], 96, "norm: %s", c->norm == TT_NORM_RMSNORM ? "rmsnorm" : "layernorm");
  snprintf(t[KNOB_ABLATE], 96, tt_str(ui->vs.lang, TT_S_KNOB_ABLATE_FMT), ui->vs.layer, ui->vs.head,
           on_off(ui, !tt_config_ablated(c, ui->vs.layer, ui->vs.head)));
  static const char *const keys[N_KNOBS] = {"1", "2", "3", "4", "5", "6", "7", "8"};
  for (int i = 0; i < N_KNOBS; i++) {
    ui->knob_row[i][0] = keys[i];
    ui->knob_row[i][1] = t[i];
  }
}

// The variant as --set items: every knob, so the variant does not depend on the model's defaults.
static int settings(const tt_config *c, char (*set)[32], const char **ptrs) {
  int n = 0;
  snprintf(set[n++], 32, "scale_attn=%s", c->scale_attn ? "true" : "false");
  snprintf(set[n++], 32, "causal=%s", c->causal ? "true" : "false");
  snprintf(set[n++], 32, "positions=%s", pos_name(c->positions));
  snprintf(set[n++], 32, "activation=%s", tt_act_name(c->activation));
  snprintf(set[n++], 32, "residual=%s", c->residual ? "true" : "false");
  snprintf(set[n++], 32, "block=%s", c->post_ln ? "post_ln" : "pre_ln");
  snprintf(set[n++], 32, "norm=%s", c->norm == TT_NORM_RMSNORM ? "rmsnorm" : "layernorm");
  snprintf(set[n++], 32, "ablate=none");
  for (int i = 0; i < c->n_ablate && n < 8 + TT_MAX_ABLATE; i++)
    snprintf(set[n++], 32, "ablate=%d.%d", c->ablate[i].layer, c->ablate[i].head);
  for (int i = 0; i < n; i++) ptrs[i] = set[i];
  return n;
}

static bool same_knobs(const tt_config *a, const tt_config *b) {
  if (a->scale_attn != b->scale_attn || a->causal != b->causal || a->positions != b->positions ||
      a->activation != b->activation || a->residual != b->residual || a->post_ln != b->post_ln || a->norm != b->norm ||
      a->n_ablate != b->n_ablate)
    return false;
  for (int i = 0; i < a->n_ablate; i++)
    if (!tt_config_ablated(b, a->ablate[i].layer, a->ablate[i].head)) return false;
  return true;
}

// Back to the baseline alone (or the comparison the window was opened with).
static void drop_variant(tt_ui *ui) {
  ui->cmp.b = ui->opts.compare;
  ui->cmp.label_a = ui->opts.label_a ? ui->opts.label_a : "A";
  ui->cmp.label_b = ui->opts.label_b ? ui->opts.label_b : "B";
  tt_derived_reset(ui->derived);
  tt_trace_destroy(ui->variant);
  ui->variant = NULL;
  ui->variant_label[0] = 0;
}

// The label of the variant: the knobs that differ from the baseline ("causal=false").
static void variant_label(tt_ui *ui, const tt_config *base) {
  char set[8 + TT_MAX_ABLATE][32], bset[8 + TT_MAX_ABLATE][32];
  const char *p[8 + TT_MAX_ABLATE], *bp[8 + TT_MAX_ABLATE];
  int n = settings(&ui->knob_cfg, set, p), bn = settings(base, bset, bp);
  ui->variant_label[0] = 0;
  for (int i = 0; i < n; i++) {
    bool in_base = false;
    for (int j = 0; j < bn && !in_base; j++) in_base = strcmp(set[i], bset[j]) == 0;
    if (in_base) continue;
    size_t used = strlen(ui->variant_label);
    snprintf(ui->variant_label + used, sizeof ui->variant_label - used, "%s%s", used ? ", " : "", set[i]);
  }
}

// Traces the baseline's prompt with the variant knobs; the comparison shows both.
static void retrace_variant(tt_ui *ui) {
  tt_config base;
  if (!tt_trace_config(ui->tr, &base)) return;
  tt_session_close(ui->variant_sess);
  ui->variant_sess = NULL;
  if (same_knobs(&ui->knob_cfg, &base)) {
    drop_variant(ui);
    return;
  }
  char set[8 + TT_MAX_ABLATE][32];
  const char *ptrs[8 + TT_MAX_ABLATE];
  tt_session_opts so = {.backend = ui->opts.backend};
  so.model_dir = ui->opts.model_dir ? ui->opts.model_dir : tt_trace_meta(ui->tr, "model");
  so.set = ptrs;
  so.n_set = settings(&ui->knob_cfg, set, ptrs);
  tt_error err = {0};
  tt_trace *tr = NULL;
  tt_status st = tt_session_open(&so, &ui->variant_sess, &err);
  const char *prompt = tt_trace_meta(ui->tr, "prompt");
  if (!st) st = tt_session_trace(ui->variant_sess, prompt ? prompt : "", NULL, 0, &tr, &err);
  if (st) {
    snprintf(ui->status, sizeof ui->status, tt_str(ui->vs.lang, TT_S_STATUS_TRACE_FAILED_FMT), err.msg);
    return;
  }
  drop_variant(ui);
  ui->variant = tr;
  variant_label(ui, &base);
  ui->cmp = (tt_compare){tr, tt_str(ui->vs.lang, TT_S_KNOB_BASELINE), ui->variant_label};
  snprintf(ui->status, sizeof ui->status, "%s", ui->variant_label);
}

static void flip(tt_config *c, int knob, int layer, int head) {
  switch (knob) {
  case KNOB_SCALE:
    c->scale_attn = !c->scale_attn;
    break;
  case KNOB_CAUSAL:
    c->causal = !c->causal;
    break;
  case KNOB_POS:
    c->positions = (tt_pos_kind)((c->positions + 1) % 3);  // learned → sinusoidal → none
    break;
  case KNOB_ACT:  // gelu_new → relu → identity → gelu_new
    c->activation = c->activation == TT_ACT_RELU       ? TT_ACT_IDENTITY
                    : c->activation == TT_ACT_IDENTITY ? TT_ACT_GELU_TANH
                                                       : TT_ACT_RELU;
    break;
  case KNOB_RESID:
    c->residual = !c->residual;
    break;
  case KNOB_BLOCK:
    c->post_ln = !c->post_ln;
    break;
  case KNOB_NORM:
    c->norm = c->norm == TT_NORM_RMSNORM ? TT_NORM_LAYERNORM : TT_NORM_RMSNORM;
    break;
  default:
    if (tt_config_ablated(c, layer, head)) {
      int k = 0;
      for (int i = 0; i < c->n_ablate; i++)
        if (c->ablate[i].layer != layer || c->ablate[i].head != head) c->ablate[k++] = c->ablate[i];
      c->n_ablate = k;
    } else if (c->n_ablate < TT_MAX_ABLATE) {
      c->ablate[c->n_ablate].layer = layer;
      c->ablate[c->n_ablate++].head = head;
    }
    break;
  }
}

bool tt_ui_knob_key(tt_ui *ui, SDL_Keycode c) {
  if (c == SDLK_k) {
    ui->knobs_open = !ui->knobs_open;
    if (ui->knobs_open && !ui->variant && !tt_trace_config(ui->tr, &ui->knob_cfg)) ui->knobs_open = false;
    return true;
  }
  if (!ui->knobs_open) return false;
  if (c == SDLK_ESCAPE) {
    ui->knobs_open = false;
    return true;
  }
  if (c == SDLK_0 || c == SDLK_KP_0) {
    tt_trace_config(ui->tr, &ui->knob_cfg);
    tt_session_close(ui->variant_sess);
    ui->variant_sess = NULL;
    drop_variant(ui);
    return true;
  }
  int k = c >= SDLK_1 && c <= SDLK_8 ? (int)(c - SDLK_1) : c >= SDLK_KP_1 && c <= SDLK_KP_8 ? (int)(c - SDLK_KP_1) : -1;
  if (k < 0) return false;
  flip(&ui->knob_cfg, k, ui->vs.layer, ui->vs.head);
  retrace_variant(ui);
  return true;
}

void tt_ui_knobs_prepare(tt_ui *ui) {
  if (!ui->knobs_open) {
    ui->vs.knob_rows = NULL;
    ui->vs.n_knob_rows = 0;
    return;
  }
  knob_rows(ui);
  ui->vs.knob_rows = (const char *const(*)[2])ui->knob_row;
  ui->vs.n_knob_rows = N_KNOBS;
}

void tt_ui_knobs_retrace(tt_ui *ui) {
  if (ui->variant) retrace_variant(ui);
}

void tt_ui_knobs_close(tt_ui *ui) {
  tt_session_close(ui->variant_sess);
  tt_trace_destroy(ui->variant);
}
