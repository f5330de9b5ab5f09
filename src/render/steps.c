// steps: the forward pass as a list a class can follow, each step with its hook, the
// view it opens with, its formula, its shapes with the trace's real numbers and a short
// explanation in English and Korean.
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "render_int.h"

typedef struct {
  tt_step s;
  const char *title_en, *title_ko, *formula, *text_en, *text_ko;
} step_def;

static const step_def steps[] = {
    {{"tokenize", "tokens", false, TT_VIEW_TOKENS}, "Tokenizer", "토크나이저",
     "text \xE2\x86\x92 pieces (byte-level BPE)",
     "The prompt is cut into pieces that the model knows. A piece may be a whole word or part of "
     "one; GPT-2 keeps the space in front of a word as part of that word's piece.",
     "프롬프트를 모델이 아는 조각으로 자릅니다. 조각은 단어 하나일 수도, 단어의 일부일 수도 있습니다. "
     "GPT-2는 단어 앞의 공백을 그 단어 조각에 포함합니다."},
    {{"ids", "tokens", false, TT_VIEW_TOKENS}, "Token ids", "토큰 id",
     "piece \xE2\x86\x92 id (its row in the vocabulary)",
     "Every piece is replaced by its number in the vocabulary; from here on the model only sees "
     "these integers. The numbers themselves mean nothing yet: 464 is no closer to 465 than to 6193.",
     "각 조각을 어휘 사전의 번호로 바꿉니다. 이제부터 모델은 이 정수만 봅니다. 번호 자체에는 아직 뜻이 "
     "없습니다. 464가 6193보다 465에 더 가까운 것도 아닙니다."},
    {{"embed", "hook_embed", false, TT_VIEW_EMBED}, "Embedding lookup", "임베딩 조회",
     "x\xE2\x82\x9C = W_E[id\xE2\x82\x9C]",
     "Each id selects one row of the embedding matrix W_E. Nothing is multiplied: it is a table "
     "lookup. Training moved these rows so that words used alike ended up close together.",
     "각 id가 임베딩 행렬 W_E의 한 행을 고릅니다. 곱셈 없이 표에서 찾아올 뿐입니다. 학습하는 동안 "
     "비슷하게 쓰이는 단어의 행끼리 가까워지도록 다듬어졌습니다."},
    {{"positions", "hook_pos_embed", false, TT_VIEW_POSITIONS}, "Position vectors", "위치 벡터",
     NULL,
     "Attention by itself cannot tell \"I love you\" from \"you love I\". So each position gets a vector "
     "of its own: GPT-2 learns one row per position, the original Transformer used sines and cosines.",
     "어텐션만으로는 \"I love you\"와 \"you love I\"를 구별하지 못합니다. 그래서 위치마다 고유한 벡터를 "
     "줍니다. GPT-2는 위치마다 한 행을 학습하고, 원래 Transformer는 사인과 코사인을 썼습니다."},
    {{"sum", "blocks.0.hook_resid_pre", false, TT_VIEW_POSITIONS}, "Embedding + position",
     "임베딩 + 위치", "h\xE2\x82\x80 = x + p",
     "The two vectors are simply added. The sum says which token it is and where it stands, and it "
     "is what the first block reads.",
     "두 벡터를 그냥 더합니다. 합은 어떤 토큰인지와 어디에 있는지를 함께 담고, 첫 번째 블록이 읽는 "
     "입력이 됩니다."},
    {{"ln1", "ln1.hook_out", true, TT_VIEW_LAYERNORM}, "LayerNorm 1", "LayerNorm 1", NULL,
     "Each token's vector is shifted to mean 0 and scaled to spread 1, then stretched by the learned "
     "\xCE\xB3 and moved by \xCE\xB2. However large the stream has grown, the block gets inputs of a steady size.",
     "토큰마다 벡터를 평균 0, 표준편차 1로 맞춘 뒤 학습된 \xCE\xB3로 늘리고 \xCE\xB2만큼 옮깁니다. 흐름이 "
     "아무리 커져도 블록은 일정한 크기의 입력을 받습니다."},
    {{"qkv", "attn.hook_qkv", true, TT_VIEW_HEATMAP}, "Fused Q/K/V matmul", "Q/K/V 한 번의 행렬곱",
     "[Q K V] = y \xC2\xB7 W_qkv + b",
     "One matrix product makes the query, key and value of every token at once: the three weight "
     "matrices sit side by side, and one large product keeps the hardware busier than three small ones.",
     "행렬곱 한 번으로 모든 토큰의 쿼리, 키, 값을 만듭니다. 세 가중치 행렬을 옆으로 붙여 두었고, 큰 곱셈 "
     "한 번이 작은 곱셈 세 번보다 하드웨어를 잘 활용합니다."},
    {{"split", "attn.hook_q", true, TT_VIEW_QKV}, "Split into heads", "헤드로 나누기",
     "Q, K, V: (T, C) \xE2\x86\x92 (H, T, D),  D = C / H",
     "Q, K and V are cut into H heads of D numbers each, and every head compares tokens in its own "
     "small space. Query: what am I looking for? Key: what do I offer? Value: what do I pass on?",
     "Q, K, V를 D개씩 H개의 헤드로 자르고, 헤드마다 자기만의 작은 공간에서 토큰을 비교합니다. 쿼리는 "
     "'무엇을 찾는가', 키는 '나는 무엇을 가졌는가', 값은 '무엇을 건네주는가'입니다."},
    {{"scores", "attn.hook_attn_scores_raw", true, TT_VIEW_HEATMAP}, "Scores Q\xC2\xB7K\xE1\xB5\x80",
     "점수 Q\xC2\xB7K\xE1\xB5\x80", "S[i, j] = q\xE1\xB5\xA2 \xC2\xB7 k\xE2\xB1\xBC",
     "Every query is compared with every key by a dot product; a large value means the two vectors "
     "point the same way. Row i says how strongly token i is drawn to each token j.",
     "모든 쿼리를 모든 키와 내적으로 비교합니다. 값이 크면 두 벡터가 비슷한 방향을 가리킨다는 뜻입니다. "
     "i행은 토큰 i가 각 토큰 j에 얼마나 끌리는지를 나타냅니다."},
    {{"scale", "attn.hook_attn_scores_scaled", true, TT_VIEW_HEATMAP}, "\xC3\xB7 \xE2\x88\x9A" "d_k",
     "\xC3\xB7 \xE2\x88\x9A" "d_k", NULL,
     "A dot product of D terms grows with D. Dividing by \xE2\x88\x9A" "D keeps the scores in a range where "
     "softmax still shares its weight instead of putting almost all of it on one token.",
     "D개 항의 내적은 D가 클수록 커집니다. \xE2\x88\x9A" "D로 나누면 점수가 적당한 범위에 머물러, softmax가 "
     "한 토큰에 거의 모든 가중치를 몰아주지 않고 나눠 줍니다."},
    {{"mask", "attn.hook_attn_scores", true, TT_VIEW_HEATMAP}, "Causal mask", "인과 마스크",
     "S[i, j] = \xE2\x88\x92\xE2\x88\x9E  for j > i",
     "A token may not look at the tokens after it: while generating, they do not exist yet. Their "
     "scores become \xE2\x88\x92\xE2\x88\x9E (hatched), so softmax gives them a weight of exactly 0.",
     "토큰은 자기 뒤의 토큰을 보면 안 됩니다. 글을 생성할 때는 아직 없기 때문입니다. 그 점수는 "
     "\xE2\x88\x92\xE2\x88\x9E(빗금)가 되고, softmax 뒤 가중치는 정확히 0이 됩니다."},
    {{"softmax", "attn.hook_pattern", true, TT_VIEW_HEATMAP}, "Softmax", "Softmax",
     "A[i, j] = exp(S[i, j]) / \xCE\xA3\xE2\x82\x96 exp(S[i, k])",
     "Each row of scores becomes weights that are positive and add up to 1. Higher scores get more "
     "weight, yet every visible token keeps a little. Click a cell to see its arithmetic.",
     "점수의 각 행을 양수이면서 합이 1인 가중치로 바꿉니다. 점수가 높을수록 많이 받지만 보이는 토큰은 "
     "모두 조금씩 받습니다. 칸을 누르면 계산 과정이 보입니다."},
    {{"weighted", "attn.hook_z", true, TT_VIEW_HEATMAP}, "Weights \xC2\xB7 V per head",
     "가중치 \xC2\xB7 V (헤드별)", "z\xE1\xB5\xA2 = \xCE\xA3\xE2\xB1\xBC A[i, j] \xC2\xB7 v\xE2\xB1\xBC",
     "Each token's output is the weighted average of the value vectors it attends to. From here on, "
     "the token carries information from its context.",
     "각 토큰의 출력은 주목한 값 벡터들의 가중 평균입니다. 이제 토큰은 문맥의 정보를 담게 됩니다."},
    {{"proj", "hook_attn_out", true, TT_VIEW_HEATMAP}, "Concat + output projection",
     "이어 붙이기 + 출력 투영", "o = concat(z\xE2\x82\x81 \xE2\x80\xA6 z_H) \xC2\xB7 W_O + b_O",
     "The heads' outputs are put side by side again and mixed by one more matrix, so that what "
     "different heads found can be combined.",
     "헤드들의 출력을 다시 옆으로 이어 붙이고 행렬 하나로 섞어서, 헤드마다 찾아낸 것을 합칩니다."},
    {{"resid1", "hook_resid_mid", true, TT_VIEW_HEATMAP}, "Residual", "잔차 연결", "h' = h + o",
     "The attention result is added to the block's input rather than replacing it. The original "
     "information survives, and training signals have a direct path through a deep stack.",
     "어텐션 결과를 블록 입력과 바꾸지 않고 더합니다. 원래 정보가 살아남고, 층을 깊이 쌓아도 학습 "
     "신호가 곧바로 지나가는 길이 생깁니다."},
    {{"ln2", "ln2.hook_out", true, TT_VIEW_LAYERNORM}, "LayerNorm 2", "LayerNorm 2", NULL,
     "Before the feed-forward network, every token's vector is normalized again, one token at a time.",
     "피드포워드 신경망에 들어가기 전에 토큰마다 벡터를 다시 정규화합니다."},
    {{"ffn_up", "mlp.hook_pre", true, TT_VIEW_HEATMAP}, "FFN expand", "FFN 확장",
     "u = y \xC2\xB7 W\xE2\x82\x81 + b\xE2\x82\x81",
     "Each token is widened from C to F numbers. Each of the F outputs is a neuron: a weighted sum "
     "of the whole input, tuned to a pattern of its own.",
     "각 토큰을 C개에서 F개의 숫자로 넓힙니다. F개의 출력 하나하나가 뉴런이며, 입력 전체의 가중합으로 "
     "저마다의 패턴에 반응합니다."},
    {{"gelu", "mlp.hook_post", true, TT_VIEW_GELU}, "Activation", "활성화 함수", NULL,
     "Two linear layers with nothing between them would be one linear layer. The activation bends: "
     "large positive values pass, negative ones are pushed towards 0. The dots are this layer's real values.",
     "두 선형층 사이에 아무것도 없으면 결국 하나의 선형층과 같습니다. 활성화 함수가 꺾어 줍니다. 큰 "
     "양수는 통과하고 음수는 0 쪽으로 줄어듭니다. 점들은 이 층의 실제 값입니다."},
    {{"ffn_down", "hook_mlp_out", true, TT_VIEW_HEATMAP}, "FFN project", "FFN 축소",
     "m = g \xC2\xB7 W\xE2\x82\x82 + b\xE2\x82\x82",
     "The F features of each token are mixed back down to C numbers.",
     "토큰마다 F개의 특징을 다시 C개의 숫자로 줄입니다."},
    {{"resid2", "hook_resid_post", true, TT_VIEW_HEATMAP}, "Residual", "잔차 연결", "h'' = h' + m",
     "The FFN result is added to the stream too. This sum is the block's output and the next block's input.",
     "FFN 결과도 흐름에 더합니다. 이 합이 블록의 출력이자 다음 블록의 입력입니다."},
    {{"ln_final", "ln_final.hook_out", false, TT_VIEW_LAYERNORM}, "Final LayerNorm", "마지막 LayerNorm",
     NULL,
     "After the last block, one more normalization prepares each token's vector for the comparison "
     "with the whole vocabulary.",
     "마지막 블록 뒤에 한 번 더 정규화해서 각 토큰 벡터를 어휘 전체와 비교할 준비를 합니다."},
    {{"logits", "hook_logits", false, TT_VIEW_HEATMAP}, "Logits", "로짓",
     "z = y \xC2\xB7 W_E\xE1\xB5\x80",
     "Each token's vector is compared with every row of the embedding matrix, giving one score per "
     "vocabulary entry. The last token's row decides what comes next.",
     "각 토큰 벡터를 임베딩 행렬의 모든 행과 비교해 어휘마다 점수 하나를 얻습니다. 마지막 토큰의 행이 "
     "다음에 올 토큰을 정합니다."},
    {{"probs", "hook_probs", false, TT_VIEW_BARS}, "Next-token probabilities", "다음 토큰 확률",
     "p = softmax(z / \xCF\x84)",
     "Softmax turns the logits into probabilities. The temperature \xCF\x84 divides the logits first: "
     "below 1 the favourite takes more, above 1 the candidates even out.",
     "softmax로 로짓을 확률로 바꿉니다. 먼저 온도 \xCF\x84로 로짓을 나누는데, 1보다 작으면 1등이 더 많이 "
     "가져가고 1보다 크면 후보들이 고르게 됩니다."},
};

enum { N_STEPS = sizeof steps / sizeof *steps };

int tt_step_count(void) { return N_STEPS; }
const tt_step *tt_step_get(int i) { return i >= 0 && i < N_STEPS ? &steps[i].s : NULL; }
const char *tt_step_title(int i, tt_lang lang) {
  if (i < 0 || i >= N_STEPS) return "";
  return lang == TT_LANG_KO ? steps[i].title_ko : steps[i].title_en;
}
const char *tt_step_text(int i, tt_lang lang) {
  if (i < 0 || i >= N_STEPS) return "";
  return lang == TT_LANG_KO ? steps[i].text_ko : steps[i].text_en;
}

const char *tt_step_formula(int i, const tt_trace *tr) {
  if (i < 0 || i >= N_STEPS) return "";
  if (steps[i].formula) return steps[i].formula;
  tt_config cfg;
  bool have = tr && tt_trace_config(tr, &cfg);
  const char *id = steps[i].s.id;
  if (strcmp(id, "positions") == 0) {
    if (have && cfg.positions == TT_POS_SINUSOIDAL)
      return "p[t, 2i] = sin(t / 10000^(2i/C)),  p[t, 2i+1] = cos(t / 10000^(2i/C))";
    if (have && cfg.positions == TT_POS_NONE) return "p = 0  (no positions: ttrace_positions = none)";
    return "p\xE2\x82\x9C = W_P[t]";
  }
  if (strncmp(id, "ln", 2) == 0) {
    if (have && cfg.norm == TT_NORM_RMSNORM) return "y = x / \xE2\x88\x9A(mean(x\xC2\xB2) + \xCE\xB5) \xC2\xB7 \xCE\xB3";
    return "y = (x \xE2\x88\x92 \xCE\xBC) / \xE2\x88\x9A(\xCF\x83\xC2\xB2 + \xCE\xB5) \xC2\xB7 \xCE\xB3 + \xCE\xB2";
  }
  if (strcmp(id, "scale") == 0) {
    if (have && !cfg.scale_attn) return "S' = S  (not scaled: ttrace_scale_attn = false)";
    return "S' = S / \xE2\x88\x9A" "D";
  }
  if (strcmp(id, "gelu") == 0) {
    tt_act_kind a = have ? cfg.activation : TT_ACT_GELU_TANH;
    switch (a) {
      case TT_ACT_RELU: return "g = ReLU(u) = max(0, u)";
      case TT_ACT_SILU: return "g = SiLU(u) = u \xC2\xB7 \xCF\x83(u)";
      case TT_ACT_IDENTITY: return "g = u  (no activation)";
      case TT_ACT_GELU_ERF: return "g = GELU(u) = u \xC2\xB7 \xCE\xA6(u)";
      default:
        return "g = GELU(u) \xE2\x89\x88 \xC2\xBD" "u (1 + tanh(\xE2\x88\x9A(2/\xCF\x80) (u + 0.044715 u\xC2\xB3)))";
    }
  }
  return "";
}

void tt_step_hook(int i, int layer, char *buf, size_t len) {
  if (i < 0 || i >= N_STEPS) {
    snprintf(buf, len, "tokens");
    return;
  }
  if (steps[i].s.in_block) snprintf(buf, len, "blocks.%d.%s", layer < 0 ? 0 : layer, steps[i].s.suffix);
  else snprintf(buf, len, "%s", steps[i].s.suffix);
}

static const char *sh(char *buf, size_t len, int n, const int64_t *d) {
  return tt_shape_str(d, n, buf, len);
}

void tt_step_shapes(int i, const tt_trace *tr, tt_lang lang, char *out, size_t len) {
  bool ko = lang == TT_LANG_KO;
  out[0] = 0;
  tt_config cfg;
  if (i < 0 || i >= N_STEPS || !tt_trace_config(tr, &cfg)) return;
  int64_t T = tt_trace_n_tokens(tr), C = cfg.n_embd, H = cfg.n_head, D = cfg.n_head ? C / H : 0,
          F = cfg.n_inner > 0 ? cfg.n_inner : 4 * C, V = cfg.vocab_size, P = cfg.n_positions;
  char a[64], b[64], c[64];
  const char *id = steps[i].s.id;
  const char *arrow = "\xE2\x86\x92", *times = "\xC3\x97";
  int64_t TC[2] = {T, C}, CC3[2] = {C, 3 * C}, TC3[2] = {T, 3 * C}, HTD[3] = {H, T, D}, HDT[3] = {H, D, T},
          HTT[3] = {H, T, T}, CC[2] = {C, C}, CF[2] = {C, F}, TF[2] = {T, F}, FC[2] = {F, C}, VC[2] = {V, C},
          PC[2] = {P, C}, CV[2] = {C, V}, TV[2] = {T, V}, Tn[1] = {T};
  if (!strcmp(id, "tokenize")) snprintf(out, len, ko ? "글 %s (T) = %s 조각" : "text %s (T) = %s pieces", arrow, sh(a, 64, 1, Tn));
  else if (!strcmp(id, "ids")) snprintf(out, len, ko ? "(T) = %s 정수, 모두 V = %lld 미만" : "(T) = %s integers, each < V = %lld", sh(a, 64, 1, Tn), (long long)V);
  else if (!strcmp(id, "embed"))
    snprintf(out, len, "W_E %s, ids %s %s %s", sh(a, 64, 2, VC), sh(b, 64, 1, Tn), arrow, sh(c, 64, 2, TC));
  else if (!strcmp(id, "positions"))
    snprintf(out, len, ko ? "W_P %s, 행 0\xE2\x80\xA6%lld %s %s" : "W_P %s, rows 0\xE2\x80\xA6%lld %s %s", sh(a, 64, 2, PC), (long long)T - 1, arrow, sh(b, 64, 2, TC));
  else if (!strcmp(id, "sum") || !strcmp(id, "resid1") || !strcmp(id, "resid2"))
    snprintf(out, len, "%s + %s %s %s", sh(a, 64, 2, TC), a, arrow, a);
  else if (!strncmp(id, "ln", 2))
    snprintf(out, len, ko ? "%s %s %s, 토큰마다 \xCE\xBC와 \xCF\x83 %s" : "%s %s %s, \xCE\xBC and \xCF\x83 per token %s", sh(a, 64, 2, TC), arrow, a, sh(b, 64, 1, Tn));
  else if (!strcmp(id, "qkv"))
    snprintf(out, len, "%s %s %s %s %s", sh(a, 64, 2, TC), times, sh(b, 64, 2, CC3), arrow, sh(c, 64, 2, TC3));
  else if (!strcmp(id, "split"))
    snprintf(out, len, "%s %s 3 %s %s,  D = %lld / %lld = %lld", sh(a, 64, 2, TC3), arrow, times, sh(b, 64, 3, HTD),
             (long long)C, (long long)H, (long long)D);
  else if (!strcmp(id, "scores"))
    snprintf(out, len, "%s %s %s %s %s", sh(a, 64, 3, HTD), times, sh(b, 64, 3, HDT), arrow, sh(c, 64, 3, HTT));
  else if (!strcmp(id, "scale"))
    snprintf(out, len, "%s \xC3\xB7 \xE2\x88\x9A%lld = %.4g %s %s", sh(a, 64, 3, HTT), (long long)D,
             sqrt((double)D), arrow, a);
  else if (!strcmp(id, "mask")) snprintf(out, len, "%s %s %s", sh(a, 64, 3, HTT), arrow, a);
  else if (!strcmp(id, "softmax")) snprintf(out, len, ko ? "%s %s %s, 각 행의 합은 1" : "%s %s %s, each row sums to 1", sh(a, 64, 3, HTT), arrow, a);
  else if (!strcmp(id, "weighted"))
    snprintf(out, len, "%s %s %s %s %s", sh(a, 64, 3, HTT), times, sh(b, 64, 3, HTD), arrow, b);
  else if (!strcmp(id, "proj"))
    snprintf(out, len, "%s %s %s %s %s", sh(a, 64, 2, TC), times, sh(b, 64, 2, CC), arrow, a);
  else if (!strcmp(id, "ffn_up"))
    snprintf(out, len, "%s %s %s %s %s", sh(a, 64, 2, TC), times, sh(b, 64, 2, CF), arrow, sh(c, 64, 2, TF));
  else if (!strcmp(id, "gelu")) snprintf(out, len, ko ? "%s %s %s, 숫자 하나씩" : "%s %s %s, one number at a time", sh(a, 64, 2, TF), arrow, a);
  else if (!strcmp(id, "ffn_down"))
    snprintf(out, len, "%s %s %s %s %s", sh(a, 64, 2, TF), times, sh(b, 64, 2, FC), arrow, sh(c, 64, 2, TC));
  else if (!strcmp(id, "logits"))
    snprintf(out, len, "%s %s %s %s %s", sh(a, 64, 2, TC), times, sh(b, 64, 2, CV), arrow, sh(c, 64, 2, TV));
  else if (!strcmp(id, "probs")) snprintf(out, len, ko ? "%s %s %s, 각 행의 합은 1" : "%s %s %s, each row sums to 1", sh(a, 64, 2, TV), arrow, a);
}

void tt_view_goto_step(tt_view_state *st, const tt_trace *tr, int i) {
  (void)tr;
  if (i < 0) i = 0;
  if (i >= N_STEPS) i = N_STEPS - 1;
  st->step = i;
  tt_step_hook(i, st->layer, st->hook, sizeof st->hook);
  st->view = steps[i].s.view;
  st->zoom = 1;
  st->pan_row = st->pan_col = 0;
  st->pin_row = st->pin_col = -1;
}

int tt_step_find(const char *hook, int *layer) {
  int L = -1;
  const char *suffix = hook;
  if (strncmp(hook, "blocks.", 7) == 0) {
    char *end = NULL;
    L = (int)strtol(hook + 7, &end, 10);
    if (end && *end == '.') suffix = end + 1;
  }
  for (int i = 0; i < N_STEPS; i++) {
    if (steps[i].s.in_block ? (L >= 0 && strcmp(suffix, steps[i].s.suffix) == 0)
                            : strcmp(hook, steps[i].s.suffix) == 0) {
      if (layer) *layer = L;
      return i;
    }
  }
  return -1;
}

tt_status tt_resolve_hook(const tt_trace *tr, const char *step, int layer, char *buf, size_t len,
                          tt_error *err) {
  if (tt_trace_find(tr, step)) {
    snprintf(buf, len, "%s", step);
    return TT_OK;
  }
  char full[160];
  snprintf(full, sizeof full, "blocks.%d.%s", layer < 0 ? 0 : layer, step);
  if (tt_trace_find(tr, full)) {
    snprintf(buf, len, "%s", full);
    return TT_OK;
  }
  return tt_fail(err, TT_ERR_ARG, "the trace has no tensor '%s'%s%s (list them with `ttrace dump TRACE`)", step,
                 strchr(step, '.') && strncmp(step, "blocks.", 7) != 0 ? " nor " : "",
                 strchr(step, '.') && strncmp(step, "blocks.", 7) != 0 ? full : "");
}
