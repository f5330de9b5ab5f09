// strings_ko: the interface in Korean. Terms: 블록 for a transformer block (선형층 only for
// a linear layer), 잔차 스트림 for the residual stream, 표준편차 (σ) for the spread of
// values, 밸류(V) for the value vectors.
#include "strings_int.h"

static const char *const str[TT_S_COUNT] = {
    [TT_S_LAYER] = "블록",
    [TT_S_HEAD] = "헤드",
    [TT_S_MASKED] = "가림 (\xE2\x88\x92\xE2\x88\x9E)",
    [TT_S_GATED_MLP] =
        "이 블록의 MLP는 게이트가 있는 구조(SwiGLU)입니다: hook_post = act(hook_pre) \xC2\xB7 "
        "hook_pre_linear 이므로 hook_pre 하나만의 함수가 아니고, 곡선으로 그릴 수 없습니다. "
        "mlp.hook_pre, mlp.hook_pre_linear, mlp.hook_post의 히트맵을 보세요.",
    [TT_S_NOT_RECORDED] = "이 텐서는 트레이스에 없습니다 (`ttrace trace --record`로 기록하세요).",
    [TT_S_PROMPT] = "프롬프트",
    [TT_S_STEPS] = "단계",
    [TT_S_BLOCK] = "블록",
    [TT_S_KEYS] = "키 안내",
    [TT_S_PINNED] = "고정한 칸",
    [TT_S_HOVER] = "포인터 아래",
    [TT_S_QUERY] = "쿼리",
    [TT_S_KEY] = "키",
    [TT_S_DIM] = "차원",
    [TT_S_TOKEN] = "토큰",
    [TT_S_POSITION] = "위치",
    [TT_S_NEXT_AFTER] = "다음 토큰 예측:",
    [TT_S_TEMPERATURE] = "온도",
    [TT_S_DOWNSAMPLED] = "축소 표시: 한 픽셀은 묶음 안에서 |값|이 가장 큰 칸입니다 (확대하면 한 칸씩 보입니다)",
    [TT_S_CLICK_TO_PIN] = "칸을 누르면 그 값이 어떻게 계산됐는지 보여 줍니다",
    [TT_S_PLAYING] = "재생 중",
    [TT_S_TYPE_PROMPT] = "프롬프트를 입력하고 Enter로 다시 계산, Esc로 취소",
    [TT_S_MEAN] = "평균 \xCE\xBC",
    [TT_S_SCALE] = "배율 1/\xE2\x88\x9A(\xCF\x83\xC2\xB2+\xCE\xB5)",
    [TT_S_INPUT] = "입력",
    [TT_S_OUTPUT] = "출력",
    [TT_S_ROW] = "행",
    [TT_S_COLUMN] = "열",
    [TT_S_SHAPE_TOKENIZE_FMT] = "글 %s (T) = %s 조각",
    [TT_S_SHAPE_IDS_FMT] = "(T) = %s 정수, 모두 V = %lld 미만",
    [TT_S_SHAPE_POS_LEARNED_FMT] = "W_P %s, 행 0\xE2\x80\xA6%lld %s %s",
    [TT_S_SHAPE_POS_SINUSOIDAL_FMT] = "사인파: t와 i로 계산, 가중치 없음 %s %s",
    [TT_S_SHAPE_POS_NONE] = "없음: 이 모델은 위치 벡터를 더하지 않습니다",
    [TT_S_SHAPE_NORM_FMT] = "%s %s %s, 토큰마다 \xCE\xBC와 \xCF\x83 %s",
    [TT_S_SHAPE_ROWS_SUM_TO_1_FMT] = "%s %s %s, 각 행의 합은 1",
    [TT_S_SHAPE_ELEMENTWISE_FMT] = "%s %s %s, 숫자 하나씩",
    [TT_S_SHAPE_RMSNORM_FMT] = "%s %s %s, 토큰마다 배율 \xE2\x88\x9A(mean(x\xC2\xB2) + \xCE\xB5) 하나 %s, 평균 없음",
    [TT_S_SHAPE_ROPE_FMT] = "q %s, k %s: 헤드마다 %lld쌍을 각각 돌림 %s 모양 그대로",
    [TT_S_SHAPE_GQA_SCORES_FMT] = "%s \xC3\x97 %s %s %s;  K/V \xE2\x86\x90 쿼리 헤드: %s",
    [TT_S_SHAPE_KV_PROJ_FMT] = "K, V 2 \xC3\x97 %s;  KV 캐시 %lld B (G = %lld), GQA 없이 %lld B (H = %lld)",
    // views (painters)
    [TT_S_GRID_HINT] = "칸에 포인터를 올리면 토큰과 값이 보입니다",
    [TT_S_OVERVIEW_NONE] = "개요는 모든 블록의 어텐션 텐서 (H, T, T)를 보여 줍니다.",
    [TT_S_QKV_Q] = "Q  쿼리: 찾는 것",
    [TT_S_QKV_K] = "K  키: 가진 것",
    [TT_S_QKV_V] = "V  밸류: 건네줄 것",
    [TT_S_GELU_DOTS_FMT] = "곡선: %s.  점: (입력 u, 출력 g) 쌍 %lld개 (blocks.%d.mlp)",
    [TT_S_COLLAPSE_NEEDS_FMT] = "이 화면에는 트레이스의 %s와 %s가 필요합니다",
    [TT_S_COLLAPSE_NO_MODEL] = "이 화면은 모델 가중치(W_fc, W_proj)로 계산합니다. 모델을 찾지 못했습니다",
    [TT_S_COLLAPSE_A] = "A: 기록된 FFN 출력",
    [TT_S_COLLAPSE_B] = "B: x\xC2\xB7W + b (입력 x만으로)",
    [TT_S_COLLAPSE_MAX_FMT] =
        "가장 큰 차이 |A \xE2\x88\x92 B| = %s (토큰 %lld, %lld열), 숫자 %d \xC3\x97 %d개 전체에서",
    [TT_S_LENS_TITLE] = "로짓 렌즈: 블록마다 바뀌는 예측",
    [TT_S_COST_TITLE] = "계산은 어디에 쓰이나: 순전파 한 번",
    [TT_S_LENS_NO_MODEL_FMT] = "렌즈는 모델의 ln_final과 언임베딩으로 계산합니다: %s",
    [TT_S_LENS_CAPTION] = "각 스트림을 ln_final과 언임베딩에 통과시킨 결과: 가장 확률이 높은 다음 토큰과 그 확률",
    [TT_S_LENS_EMBED] = "임베딩",
    [TT_S_LENS_BLOCK_FMT] = "블록 %d 뒤",
    [TT_S_LENS_FINAL] = "= 모델의 예측",
    [TT_S_COST_CAPTION_FMT] = "토큰 %d개: 모두 %s GFLOP, 그중 행렬 곱이 %s%%",
    [TT_S_COST_STEP] = "단계",
    [TT_S_COST_FLOPS] = "FLOP",
    [TT_S_COST_BYTES] = "읽고 쓴 바이트",
    [TT_S_COST_TIME] = "잰 시간",
    [TT_S_COST_INTENSITY] = "바이트당 FLOP",
    [TT_S_COST_NO_TIMES] = "이 트레이스에는 잰 시간이 없습니다 (ttrace cost -o가 기록합니다)",
    [TT_S_COST_RULE] =
        "행렬 곱 (M,K)\xC2\xB7(K,N)은 2\xC2\xB7M\xC2\xB7N\xC2\xB7K FLOP으로 셉니다. 원소별 단계는 "
        "docs/cost.md의 원소당 연산 수로, 바이트는 float32 입력을 한 번 읽고 출력을 한 번 쓴 양으로 셉니다",
    [TT_S_NB_TITLE] = "임베딩 이웃: 한 토큰의 행과 가장 가까운 W_E의 행",
    [TT_S_NB_CAPTION_FMT] = "%s (id %d): W_E의 이 행을 다른 모든 행과 비교, 가장 비슷한 것부터",
    [TT_S_NB_RULE] =
        "cos = a\xC2\xB7"
        "b / (|a| |b|): 1은 같은 방향, 0은 무관, \xE2\x88\x92"
        "1은 반대 방향",
    [TT_S_NB_SELF_SHARED_FMT] =
        "%s 토큰은 다른 토큰 %d개와 한 행을 함께 씁니다: 모두 학습 중에 한 번도 나오지 않아 "
        "벡터 하나를 나눠 가졌고, 아래는 그 벡터의 이웃입니다",
    [TT_S_NB_SHARED_FMT] = "토큰 %d개가 한 행을 함께 씀 (학습에 나오지 않음)",
    [TT_S_NB_NO_MODEL_FMT] = "이 뷰는 모델에서 W_E를 읽습니다: %s",
    [TT_S_NB_COL_TOKEN] = "토큰",
    [TT_S_NB_COL_COSINE] = "코사인",
    [TT_S_GATES_TITLE_FMT] = "게이트로서의 FFN 뉴런: 블록 %d",
    [TT_S_GATES_CAPTION_FMT] = "blocks.%d.mlp, %s (토큰 %d): u = hook_pre, a(u) = %s(u) = hook_post",
    [TT_S_GATES_GATED_FMT] =
        "blocks.%d.mlp, %s (토큰 %d): 게이트는 u = hook_pre의 silu(u), up = hook_pre_linear, "
        "hook_post = silu(u)\xC2\xB7up",
    [TT_S_GATES_ON] = "가장 강하게 켜짐: a(u)가 가장 큰 뉴런",
    [TT_S_GATES_OFF] = "꺼짐: u가 가장 음수인 뉴런, a(u)는 0 근처",
    [TT_S_GATES_OFF_IDENTITY] = "u가 가장 음수인 뉴런: 항등 함수는 그대로 통과시킴, a(u) = u",
    [TT_S_GATES_COUNT_FMT] =
        "u > 0인 뉴런 %d개 (전체 %d개): %s는 큰 양수 u는 거의 그대로 두고 음수 u는 0 쪽으로 "
        "누릅니다",
    [TT_S_GATES_IDENTITY_FMT] = "u > 0인 뉴런 %d개 (전체 %d개); 항등 함수는 게이트가 아닙니다: 모든 뉴런에서 a(u) = u",
    [TT_S_GATES_COL_NEURON] = "뉴런",
    [TT_S_AXIS_TOKEN] = "토큰",
    [TT_S_AXIS_QUERY] = "토큰 (쿼리: 이 토큰이 본다)",
    [TT_S_AXIS_KEY] = "토큰 (키: 보이는 쪽)",
    [TT_S_AXIS_C] = "차원 (C)",
    [TT_S_AXIS_3C] = "Q, K, V를 옆으로 붙인 차원 (3C)",
    [TT_S_AXIS_D] = "헤드 안의 차원 (D)",
    [TT_S_AXIS_F] = "FFN 뉴런 (F)",
    [TT_S_AXIS_V] = "어휘 id (V)",
    [TT_S_AXIS_PREDICTION] = "예측 위치",
    [TT_S_WINDOW_FMT] = "행 %d–%d / %d, 열 %d–%d / %d   ",
    [TT_S_EMBED_MATRIX_FMT] = "임베딩 행렬 W_E (%d \xC3\x97 %d)",
    [TT_S_EMBED_ROWS_HINT] = "분홍 선: 프롬프트 토큰의 행",
    [TT_S_EMBED_LOOKED_UP] = "찾아온 행 x = W_E[id] (토큰 \xC3\x97 차원)",
    [TT_S_POS_TOKEN] = "토큰 x",
    [TT_S_POS_POSITION] = "위치 p",
    [TT_S_POS_NONE] = "이 모델에는 위치 벡터가 없습니다.",
    [TT_S_POS_COLUMNS] =
        "열: 차원 0 \xE2\x80\xA6 C\xE2\x88\x92"
        "1, 세 그림 모두 같은 색 척도",
    // views (LayerNorm, tokens, inspector)
    [TT_S_LN_INPUT] = "입력 x (잔차 스트림)",
    [TT_S_LN_INPUT_NOT_RECORDED] = "입력 행은 이 순서에서 따로 기록되지 않습니다.",
    [TT_S_LN_OUTPUT] = "출력 y = 정규화 \xC2\xB7 \xCE\xB3 + \xCE\xB2",
    [TT_S_LN_COL_MEAN] = "\xCE\xBC (평균)",
    [TT_S_LN_COL_SIGMA] = "\xCF\x83 (표준편차)",
    [TT_S_LN_COL_NORMALIZED] = "정규화 후 \xCE\xBC / \xCF\x83",
    [TT_S_LN_OUTPUT_RMS] = "출력 y = 정규화 \xC2\xB7 \xCE\xB3",
    [TT_S_LN_COL_RMS] = "제곱평균제곱근 \xE2\x88\x9Amean(x\xC2\xB2)",
    [TT_S_TOKENS_NOTE_FMT] = "위: 위치 · 가운데: 조각 (␣ = 공백) · 아래: 어휘 id.  토큰 %d개",
    [TT_S_MERGES_TITLE] = "사전 토큰별 BPE 병합 (순위가 낮은 쌍부터)",
    [TT_S_IDS_ROWS_TITLE] = "id 열, 그리고 각 id가 고르는 W_E의 행",
    [TT_S_PIN_NO_QK] = "Q와 K가 기록되지 않아 계산을 보일 수 없습니다.",
    [TT_S_PIN_PRODUCTS] = "차원별 곱, 큰 것부터",
    [TT_S_PIN_MORE_SUM] = "개 더, 합",
    [TT_S_PIN_RECORDED] = "기록된 값",
    [TT_S_PIN_NOT_SCALED] = "나누지 않음 (scale_attn = false)",
    [TT_S_PIN_MASKED] = "j > i: 가림 \xE2\x86\x92 \xE2\x88\x92\xE2\x88\x9E, 가중치 0",
    [TT_S_PIN_VISIBLE] = "j \xE2\x89\xA4 i: 보이는 칸, 그대로",
    [TT_S_PIN_MASKED_EXP] =
        "     (가린 칸의 점수는 \xE2\x88\x92\xE2\x88\x9E이고 exp(\xE2\x88\x92\xE2\x88\x9E) = 0이라, 이 칸은 가중치를 "
        "받지 않습니다)",
    [TT_S_PIN_ROW_MAX_FMT] = "     (행의 최댓값 %s를 빼도 결과는 같고 넘침을 막습니다)",
    [TT_S_PIN_ROW_SUM] = "행의 합 \xCE\xA3 exp",
    [TT_S_PIN_RECORDED_WEIGHT] = "기록된 가중치",
    // views (merges, bars)
    [TT_S_PIN_NO_WEIGHTS] = "모델의 가중치를 읽지 못해 이 곱을 다시 계산할 수 없습니다.",
    [TT_S_PIN_TERMS_FMT] = "항 %d개",
    [TT_S_PIN_POS_FMT] = " 양수 %d개, 합 %s",
    [TT_S_PIN_NEG_FMT] = " 음수 %d개, 합 %s",
    [TT_S_PIN_LARGEST_POS] = "가장 큰 양의 기여",
    [TT_S_PIN_LARGEST_NEG] = "가장 큰 음의 기여",
    [TT_S_PIN_OTHERS_FMT] = "… 나머지 항 %d개, 합 %s",
    [TT_S_PIN_SHARES] = "토큰마다의 몫 A[i, j] · vⱼ, 큰 것부터",
    [TT_S_PIN_ROW_MEAN] = "행의 평균",
    [TT_S_PIN_ROW_SD] = "행의 표준편차 √(분산 + ε)",
    [TT_S_PIN_NEXT_TOKEN] = "다음 토큰",
    [TT_S_PIN_ON_CURVE] = "활성화 곡선 위의 점",
    [TT_S_MERGES_NONE] = "  (병합 없음)",
    [TT_S_MERGES_MORE_FMT] = "\xE2\x80\xA6 병합 %d개 더",
    [TT_S_BARS_KEYS] = "(− / = 키로 조절)",
    [TT_S_BARS_FOOT_FMT] = "%d행 (%s), 상위 %d개 (어휘 %d개 중)",
    // key lines
    [TT_S_JUMP_FMT] = "%s단계로 \xE2\x86\xB5",
    [TT_S_KEYS_LESSON_NAV] = "\xE2\x86\x92 Space 다음   \xE2\x86\x90 이전   Home End   숫자+Enter 단계 이동   ",
    [TT_S_KEYS_LESSON_END] = "S 화면 저장   F1 도움말   Esc 끝",
    [TT_S_KEYS_WINDOW] =
        "\xE2\x86\x90\xE2\x86\x92 단계   \xE2\x86\x91\xE2\x86\x93 블록   [ ] 헤드   Tab 표   G 헤드 격자   Space 재생  "
        " K 만약에?   S 화면 저장   P 프롬프트   F1 도움말",
    // comparisons
    [TT_S_CMP_NORMS_INDEX_FMT] = "%s %d %s, 블록 %d",
    [TT_S_CMP_MAX_HEAD_FMT] = "max |A \xE2\x88\x92 B| = %.4g (헤드 %d)",
    [TT_S_CMP_AT_ALL_HEADS_FMT] = "%s   \xC2\xB7   모든 헤드: %.4g",
    [TT_S_CMP_ALL_HEADS_FMT] = "모든 헤드: %.4g",
    [TT_S_CMP_EQUAL] = "max |A \xE2\x88\x92 B| = 0: 두 트레이스가 여기서 같습니다",
    [TT_S_CMP_AT_FMT] = "위치: %s",
    [TT_S_CMP_ONE_SIDED_FMT] = "   (한쪽만 가려진 칸 %lld개)",
    [TT_S_CMP_NO_B] = "비교할 트레이스가 없습니다",
    [TT_S_CMP_SHAPES_DIFFER_FMT] = "모양이 다릅니다: %s 와 %s, 차이는 그리지 않습니다",
    [TT_S_CMP_NO_DIFF_VIEW] = "이 보기에서는 차이를 계산하지 않습니다",
    [TT_S_CMP_LACKS_FMT] = "%s 쪽에 이 텐서가 없습니다",
    [TT_S_CMP_INFO_SUBTRACT] = "A \xE2\x88\x92 B는 같은 칸끼리 뺀 값입니다.",
    [TT_S_CMP_INFO_COLOURS] = "흰색은 0(같음), 빨강은 A가 큼, 파랑은 B가 큼. A와 B는 같은 색 눈금을 씁니다.",
    [TT_S_CMP_INFO_POINT] = "칸에 포인터를 올리면 세 값이 함께 보입니다.",
    [TT_S_CMP_INFO_SHAPES] = "두 텐서의 모양이 달라 뺄 수 없습니다.",
    [TT_S_CMP_NORMS_TITLE_FMT] = "%s \xC2\xB7 벡터 길이 \xE2\x80\x96x\xE2\x80\x96 (모든 블록)",
    [TT_S_CMP_EVERY_LAYER_HEAD] = "모든 블록 \xC3\x97 헤드",
    [TT_S_CMP_COLOURS] = "빨강: A가 더 큼 \xC2\xB7 파랑: B가 더 큼",
    // the lesson window
    [TT_S_LESSON_NO_TWIN] = "이 수업은 다른 언어판이 없습니다",
    [TT_S_LESSON_NO_STEP_FMT] = "%d단계는 없습니다 (1\xE2\x80\x93%d)",
    // comparisons (continued)
    [TT_S_CMP_TOKENS_DIFFER] =
        " \xC2\xB7 토큰이 다른 위치: A\xE2\x89\xA0"
        "B",
    // logits
    [TT_S_LOGITS_BINS] = "어휘 전체 (구간마다 위: 최댓값, 아래: 최솟값)",
    // the window's status line
    [TT_S_STATUS_TRACE_FAILED_FMT] = "프롬프트를 계산하지 못했습니다: %.500s",
    [TT_S_STATUS_TRACED_FMT] = "토큰 %d개를 %s ms에 계산했습니다",
    [TT_S_STATUS_SHOT_SAVED_FMT] = "화면 저장: %.500s",
    [TT_S_STATUS_SHOT_FAILED_FMT] = "화면 저장 실패: %.500s",
    [TT_S_KNOBS_TITLE] = "만약에?",
    [TT_S_KNOBS_HINT] =
        "숫자를 누르면 그 스위치를 바꿔 프롬프트를 다시 계산합니다. 이 단계에서 원래 것, 바꾼 것, 둘의 차이를 나란히 "
        "보여 줍니다. 0: 원래대로. K: 닫기.",
    [TT_S_KNOB_ABLATE_FMT] = "헤드 %d.%d: %s",
    [TT_S_KNOB_BASELINE] = "원래 모델",
    [TT_S_KNOB_ON] = "켜짐",
    [TT_S_KNOB_OFF] = "꺼짐",
    [TT_S_QTY_ATTENTION] = "어텐션 가중치 (확률)",
    [TT_S_QTY_PROBABILITY] = "확률",
    [TT_S_QTY_SCORE] = "점수 (로짓 단위)",
    [TT_S_QTY_LOGIT] = "로짓 (정규화 전 로그 확률)",
    [TT_S_QTY_DIFFERENCE] = "차이 a \xE2\x88\x92 b (텐서의 단위)",
    [TT_S_QTY_ACTIVATION] = "값 (모델 단위)",
    [TT_S_ALL_HEADS] = "모든 헤드",
    [TT_S_ALL_LAYERS_HEADS] = "모든 블록 \xC3\x97 헤드",
    [TT_S_TOKENS_MORE_FMT] = "\xE2\x80\xA6 토큰 %d개 더 (%d번부터) 생략",
    [TT_S_BARS_MORE_FMT] = "\xE2\x80\xA6 후보 %d개 더 생략",
    [TT_S_ROWS_MORE_FMT] = "\xE2\x80\xA6 행 %d개 더 생략",
    [TT_S_ROWS_SMALLER_FMT] = "\xE2\x80\xA6 더 작은 행 %d개 생략",
    [TT_S_BYTES_NOTE] =
        "\xE2\x80\xB9"
        "EB 82:\xEB\x82\x98\xE2\x80\xBA = \xEB\x82\x98의 바이트 EB 82 (여러 토큰에 나뉜 글자)",
    // gradients
    [TT_S_LEGEND_GRADIENT] = "기울기",
    [TT_S_STATUS_NO_GRAD] = "이 트레이스에는 기울기가 없습니다: --grad로 트레이스하세요 (ttrace trace --grad)",
    [TT_S_STATUS_NO_GRAD_HOOK] = "이 단계의 텐서는 트레이스에 기울기가 없습니다",
    [TT_S_PING_LOSS] =
        "L = t = 0 \xE2\x80\xA6 T\xE2\x88\x92"
        "2의 \xE2\x88\x92log p\xE2\x82\x9C[다음 토큰] 평균",
    [TT_S_PING_P_FMT] = "1.  p = softmax(z\xE2\x82\x9C)의 이 칸 = %s",
    [TT_S_PING_NEXT_FMT] = "2.  실제 다음 토큰 %s (id %d)인 칸: p \xE2\x88\x92 1",
    [TT_S_PING_OTHER_FMT] = "2.  실제 다음 토큰은 %s (id %d), 이 칸이 아님: p \xE2\x88\x92 0",
    [TT_S_PING_LAST] = "마지막 위치에는 다음 토큰이 없어 손실도 없고, 기울기는 0",
    [TT_S_PING_DIV_FMT] = "3.  \xC3\xB7 (T \xE2\x88\x92 1) = \xC3\xB7 %d (위치에 대한 평균)",
    [TT_S_PING_JVP] =
        "소프트맥스 역전파: dS\xE1\xB5\xA2\xE2\xB1\xBC = A\xE1\xB5\xA2\xE2\xB1\xBC (dA\xE1\xB5\xA2\xE2\xB1\xBC "
        "\xE2\x88\x92 \xCE\xA3\xE2\x82\x96 A\xE1\xB5\xA2\xE2\x82\x96 dA\xE1\xB5\xA2\xE2\x82\x96)",
    [TT_S_PING_ROWDOT_FMT] = "2.  행 전체의 \xCE\xA3\xE2\x82\x96 A[%d, k] dA[%d, k] = %s",
    [TT_S_PING_DZV_FMT] = "dA[%d, %d] = dz\xE1\xB5\xA2 \xC2\xB7 v\xE2\xB1\xBC  (D = %d)",
    [TT_S_GN_TITLE] = "기울기 크기 \xE2\x80\x96\xE2\x88\x82L/\xE2\x88\x82x\xE2\x80\x96",
    [TT_S_GN_RESID] = "잔차 스트림: 기울기 고속도로",
    [TT_S_GN_WEIGHTS] = "가중치 행렬",
    [TT_S_GN_NONE] = "이 트레이스에는 기울기가 없습니다: --grad로 트레이스하세요",
    [TT_S_GN_SCALE] = "막대 = 크기 \xC3\xB7 그 열에서 가장 큰 크기",
    [TT_S_GN_SMALL] = "이 줄들을 읽을 수 있는 크기로 놓을 자리가 없습니다: 창을 키우거나 글자를 줄이세요.",
    // generation
    [TT_S_TL_NONE] = "이 트레이스에는 생성 기록이 없습니다 (`ttrace generate -o FILE`로 만드세요).",
    [TT_S_TL_TITLE_FMT] = "생성한 토큰 %d개   온도 %s   top-k %s   top-p %s   시드 %s",
    [TT_S_TL_DRAWN_FMT] = "%d번 토큰 \xE2\x80\x9C%s\xE2\x80\x9D: 이 후보들에서 뽑혔습니다 (모델의 확률)",
    [TT_S_TL_CUT_FMT] = "잘라내기: 가장 그럴듯한 %d개만 뽑을 수 있었습니다 (토큰 %d개 중)",
    [TT_S_TL_NO_CUT] = "잘라내기 없음: 모든 토큰을 뽑을 수 있었습니다",
    [TT_S_TL_CUT_MARK] = "top-k / top-p 잘라내기: 이 선 위만 뽑을 수 있음",
    [TT_S_TL_FOOT_FMT] = "막대: %s; 뽑힌 토큰에 테두리",
    [TT_S_KV_TITLE_FMT] = "KV 캐시   블록 %d   헤드 %d   디코드 단계 %d",
    [TT_S_KV_PREFILL_FMT] = "KV 캐시   블록 %d   헤드 %d   프롬프트 처리 뒤",
    [TT_S_KV_ROWS_FMT] = "%d행: 프롬프트에서 %d행, 디코드 단계에서 %d행; 새 행은 %d",
    [TT_S_KV_PREFILL_ROWS_FMT] = "%d행, 모두 프롬프트 처리에서",
    [TT_S_KV_K] = "K (캐시된 키)",
    [TT_S_KV_V] = "V (캐시된 밸류)",
    [TT_S_KV_WEIGHTS] = "새 쿼리의 가중치",
    [TT_S_KV_NEW] = "새 행",
    [TT_S_ROPE_NONE] =
        "이 트레이스에는 회전 위치가 없습니다: RoPE는 Llama 모델에서, 또는 --set positions=rope로 q와 k를 돌립니다.",
    [TT_S_ROPE_TITLE_FMT] = "RoPE   블록 %d   헤드 %d (K/V 헤드 %d)   \xCE\xB8 = %s   D = %d   위치 %d\xE2\x80\xA6%d",
    [TT_S_ROPE_RULE] =
        "쌍 i는 (x[i], x[i + D/2])입니다. 위치 t에서 각도 t \xC2\xB7 \xCE\xB8\xE1\xB5\xA2만큼 돕니다, "
        "\xCE\xB8\xE1\xB5\xA2 = \xCE\xB8^(\xE2\x88\x92"
        "2i/D) (rotate-half). 회색: 돌리기 전 q (hook_q), 색: 돌린 뒤 q (hook_rot_q).",
    [TT_S_ROPE_PAIR_FMT] = "쌍 %d: 차원 %d, %d",
    [TT_S_ROPE_FREQ_FMT] = "\xCE\xB8_%d = 위치마다 %s rad",
    [TT_S_ROPE_TURN_FMT] = "한 바퀴에 위치 %s개",
    [TT_S_ROPE_AT_FMT] = "위치 %d \xE2\x80\x9C%s\xE2\x80\x9D에서",
    [TT_S_ROPE_H_PAIR] = "쌍",
    [TT_S_ROPE_H_ANGLE] = "각도 t\xC2\xB7\xCE\xB8\xE1\xB5\xA2 (rad)",
    [TT_S_ROPE_H_Q] = "q (hook_q)",
    [TT_S_ROPE_H_RQ] = "q\xE2\x80\xB2 (hook_rot_q)",
    [TT_S_ROPE_H_K] = "k (hook_k)",
    [TT_S_ROPE_H_RK] = "k\xE2\x80\xB2 (hook_rot_k)",
    [TT_S_ROPE_SHIFT_FMT] = "프롬프트를 옮기면: 같은 q와 k를 위치 %d\xE2\x80\xA6%d에 (이동 %s)",
    [TT_S_ROPE_MEASURE_FMT] =
        "max |S\xE2\x80\xB2 \xE2\x88\x92 S| = %s (원점수 %d \xC3\x97 %d \xC3\x97 %d개), 가장 큰 |S|는 %s",
    [TT_S_ROPE_SHIFT_WHY] =
        "q\xE2\x80\xB2\xE2\x82\x9C \xC2\xB7 k\xE2\x80\xB2\xE2\x82\x9B는 t \xE2\x88\x92 s에만 달려 있습니다: 프롬프트를 "
        "옮기면 두 벡터가 같은 각도만큼 더 돌고, 함께 돌린 두 벡터의 내적은 그대로입니다.",
    [TT_S_ROPE_MORE_SHIFT] = "\xE2\x80\xA6 이 크기에서는 생략: 프롬프트를 옮기는 시험",
    [TT_S_ROPE_MORE_NUMS_FMT] = "\xE2\x80\xA6 이 크기에서는 생략: 위치 %d의 숫자와 프롬프트를 옮기는 시험",
    [TT_S_ROPE_MORE_POS_FMT] = "\xE2\x80\xA6 위치 %d\xE2\x80\xA6%d의 원만 그림 (전체 %d\xE2\x80\xA6%d)",
    [TT_S_GQA_TITLE_FMT] = "그룹 쿼리 어텐션: 쿼리 헤드 %d개가 K/V 헤드 %d개를 나눠 씁니다 (%d개씩)",
    [TT_S_GQA_GROUP_FMT] = "K/V 헤드 %d \xE2\x86\x90 쿼리 헤드 %s",
    [TT_S_GQA_CACHE] =
        "KV 캐시: 모든 토큰의 모든 블록의 K와 V, ttrace가 계산하는 float32로: 토큰마다 2 \xC2\xB7 블록 수 \xC2\xB7 "
        "H_kv \xC2\xB7 D \xC2\xB7 4바이트",
    [TT_S_GQA_TOKEN_FMT] = "토큰마다: 2 \xC2\xB7 %d \xC2\xB7 %d \xC2\xB7 %d \xC2\xB7 4 = %lld바이트",
    [TT_S_GQA_MHA_FMT] =
        "쿼리 헤드마다 K/V 헤드가 있다면 (H = %d): 2 \xC2\xB7 %d \xC2\xB7 %d \xC2\xB7 %d \xC2\xB7 4 = %lld바이트",
    [TT_S_GQA_PROMPT_FMT] = "이 프롬프트 (토큰 %d개): %lld바이트, 나누지 않으면 %lld",
    [TT_S_GQA_CTX_FMT] = "모델의 최대 문맥 (토큰 %d개): %s MiB, 나누지 않으면 %s MiB",
    [TT_S_GQA_SAVES_FMT] = "나눠 쓰면 캐시가 %s %% 줄어듭니다 (K/V 헤드 하나를 쿼리 헤드 %d개가 읽음)",
    [TT_S_SWIGLU_NONE] =
        "이 트레이스의 MLP에는 게이트가 없습니다: SwiGLU의 게이트와 업 투영 (mlp.hook_pre_linear)은 Llama 블록의 "
        "것입니다.",
    [TT_S_SWIGLU_TITLE_FMT] = "SwiGLU   블록 %d   위치 %d \xE2\x80\x9C%s\xE2\x80\x9D   뉴런 %d개",
    [TT_S_SWIGLU_RULE_FMT] = "뉴런마다 a = %s(g) \xC2\xB7 u. 게이트 g가 활성화 함수를 지나 업 투영 u를 켜거나 끕니다.",
    [TT_S_SWIGLU_KEYS] = "쉼표(,)와 마침표(.) 키로 위치를 고릅니다.",
    [TT_S_SWIGLU_GATE] = "게이트 g (hook_pre)",
    [TT_S_SWIGLU_ACT_FMT] = "%s(g)",
    [TT_S_SWIGLU_UP] = "업 u (hook_pre_linear)",
    [TT_S_SWIGLU_PROD_FMT] = "a = %s(g) \xC2\xB7 u (hook_post)",
    [TT_S_SWIGLU_NEURON] = "뉴런",
    [TT_S_SWIGLU_TOP_FMT] = "|a|가 가장 큰 뉴런 %d개",
    [TT_S_SWIGLU_OFF_FMT] = "꺼진 뉴런: %d개 (전체 %d개 중) |%s(g)| < %s",
    [TT_S_SWIGLU_OFF_ORDER] = "|u|가 큰 순서",
    [TT_S_BLOCKS_TITLE] = "GPT-2와 Llama 나란히: 같은 순방향 계산, 블록의 부품만 바뀜",
    [TT_S_BLOCKS_THIS] = "이 트레이스",
    [TT_S_BLOCKS_CLASSROOM] = "수업용 모델",
    [TT_S_BLOCKS_MISSING] = "Llama 수업용 모델이 설치되어 있지 않습니다 (assets/models/tiny-llama): 모양 없이 단계만",
    [TT_S_BLOCKS_CFG_FMT] = "L = %d  C = %d  H = %d  H_kv = %d  D = %d  F = %d  V = %d  P = %d",
    [TT_S_BLOCKS_SHAPES_FMT] = "토큰 T = %d개인 프롬프트의 모양; 바뀐 단계는 색으로",
    [TT_S_BLOCKS_EACH_FMT] = "테두리 안의 단계: 블록 하나, %d번 반복",
    [TT_S_KV_GQA_SHARE_FMT] =
        "쿼리 헤드 %d는 K/V 헤드 %d를 읽고, 쿼리 헤드 %d\xE2\x80\x93%d가 이 헤드를 함께 씁니다 "
        "(그룹 쿼리 어텐션)",
    [TT_S_KV_GQA_SAVES_FMT] =
        "캐시: K/V 헤드 %d개 (%d개가 아니라); 위치 %d개 \xC3\x97 블록 %d개: %lld B, GQA "
        "없이는 %lld B (%d배 적음)",
};

static const tt_step_words steps[] = {
    {"tokenize", "토크나이저",
     "프롬프트를 모델이 아는 조각으로 자릅니다. 조각은 단어 하나일 수도, 단어의 일부일 수도 있습니다. "
     "GPT-2는 단어 앞의 공백을 그 단어 조각에 포함합니다."},
    {"ids", "토큰 id",
     "각 조각을 어휘 사전의 번호로 바꿉니다. 이제부터 모델은 이 정수만 봅니다. 번호 자체에는 아직 뜻이 "
     "없습니다. 464가 6193보다 465에 더 가까운 것도 아닙니다."},
    {"embed", "임베딩 조회",
     "각 id가 임베딩 행렬 W_E의 한 행을 고릅니다. 곱셈 없이 표에서 찾아올 뿐입니다. 학습하는 동안 "
     "비슷하게 쓰이는 단어의 행끼리 가까워지도록 다듬어졌습니다."},
    {"positions", "위치 벡터",
     "어텐션만으로는 \"I love you\"와 \"you love I\"를 구별하지 못합니다. 그래서 위치마다 고유한 벡터를 "
     "줍니다. GPT-2는 위치마다 한 행을 학습하고, 원래 Transformer는 사인과 코사인을 썼습니다."},
    {"positions.sinusoidal", NULL,
     "어텐션만으로는 \"I love you\"와 \"you love I\"를 구별하지 못합니다. 그래서 위치마다 고유한 벡터를 "
     "줍니다. 이 모델은 원래 Transformer처럼 사인과 코사인을 씁니다. 벡터는 학습하지 않고 위치로 "
     "계산하므로 W_P가 없습니다."},
    {"positions.none", NULL,
     "어텐션만으로는 \"I love you\"와 \"you love I\"를 구별하지 못합니다. 이 모델은 위치 벡터를 더하지 "
     "않으므로(positions: none) 순서에 대해서는 인과 마스크만 알려 줍니다."},
    {"positions.rope", NULL,
     "어텐션만으로는 \"I love you\"와 \"you love I\"를 구별하지 못합니다. 이 모델은 위치 벡터를 더하지 "
     "않습니다. 대신 어텐션 안에서 q와 k의 차원을 두 개씩 짝지어 위치에 비례하는 각도만큼 돌립니다"
     "(RoPE, attn.hook_rot_q와 hook_rot_k). 그래서 점수 q\xC2\xB7k는 두 토큰이 얼마나 떨어져 있는지에 "
     "따라 달라집니다."},
    {"positions.alibi", NULL,
     "어텐션만으로는 \"I love you\"와 \"you love I\"를 구별하지 못합니다. 이 모델은 위치 벡터를 더하지 "
     "않습니다. 대신 어텐션 안에서 헤드마다 기울기에 거리 |i \xE2\x88\x92 j|를 곱한 값을 점수에서 "
     "뺍니다(ALiBi, attn.hook_alibi). 그래서 멀리 있는 토큰일수록 덜 주목합니다."},
    {"sum", "임베딩 + 위치",
     "두 벡터를 그냥 더합니다. 합은 어떤 토큰인지와 어디에 있는지를 함께 담고, 첫 번째 블록이 읽는 "
     "입력이 됩니다."},
    {"ln1", "LayerNorm 1",
     "토큰마다 벡터를 평균 0, 표준편차 1로 맞춘 뒤 학습된 \xCE\xB3로 늘리고 \xCE\xB2만큼 옮깁니다. 스트림이 "
     "아무리 커져도 블록은 일정한 크기의 입력을 받습니다."},
    {"qkv", "Q/K/V 한 번의 행렬곱",
     "행렬곱 한 번으로 모든 토큰의 쿼리, 키, 밸류(V)를 만듭니다. 세 가중치 행렬을 옆으로 붙여 두었고, 큰 "
     "곱셈 한 번이 작은 곱셈 세 번보다 하드웨어를 잘 활용합니다."},
    {"split", "헤드로 나누기",
     "Q, K, V를 D개씩 H개의 헤드로 자르고, 헤드마다 자기만의 작은 공간에서 토큰을 비교합니다. 쿼리는 "
     "'무엇을 찾는가', 키는 '나는 무엇을 가졌는가', 밸류(V)는 '무엇을 건네주는가'입니다."},
    {"scores", "점수 Q\xC2\xB7K\xE1\xB5\x80",
     "모든 쿼리를 모든 키와 내적으로 비교합니다. 값이 크면 두 벡터가 비슷한 방향을 가리킨다는 뜻입니다. "
     "i행은 토큰 i가 각 토큰 j에 얼마나 끌리는지를 나타냅니다."},
    {"scale",
     "\xC3\xB7 \xE2\x88\x9A"
     "d_k",
     "D개 항의 내적은 D가 클수록 넓게 퍼집니다. 표준편차(\xCF\x83)가 \xE2\x88\x9A"
     "D에 비례해 커집니다. "
     "\xE2\x88\x9A"
     "D로 나누면 점수가 적당한 범위에 머물러, softmax가 한 토큰에 거의 모든 가중치를 "
     "몰아주지 않고 나눠 줍니다."},
    {"scale.off", NULL,
     "D개 항의 내적은 D가 클수록 넓게 퍼집니다. 표준편차(\xCF\x83)가 \xE2\x88\x9A"
     "D에 비례해 커집니다. "
     "이 모델은 나누지 않으므로(scale_attn: false) 점수가 그대로 softmax에 들어갑니다."},
    {"mask", "인과 마스크",
     "토큰은 자기 뒤의 토큰을 보면 안 됩니다. 글을 생성할 때는 아직 없기 때문입니다. 그 점수는 "
     "\xE2\x88\x92\xE2\x88\x9E(빗금)가 되고, softmax 뒤 가중치는 정확히 0이 됩니다."},
    {"softmax", "Softmax",
     "점수의 각 행을 양수이면서 합이 1인 가중치로 바꿉니다. 점수가 높을수록 많이 받지만 보이는 토큰은 "
     "모두 조금씩 받습니다. 칸을 누르면 계산 과정이 보입니다."},
    {"weighted", "가중치 \xC2\xB7 V (헤드별)",
     "각 토큰의 출력은 주목한 밸류(V) 벡터들의 가중 평균입니다. 이제 토큰은 문맥의 정보를 담게 됩니다."},
    {"proj", "이어 붙이기 + 출력 투영",
     "헤드들의 출력을 다시 옆으로 이어 붙이고 행렬 하나로 섞어서, 헤드마다 찾아낸 것을 합칩니다."},
    {"resid1", "잔차 연결",
     "어텐션 결과를 블록 입력과 바꾸지 않고 더합니다. 원래 정보가 살아남고, 블록을 깊이 쌓아도 학습 "
     "신호가 곧바로 지나가는 길이 생깁니다."},
    {"ln2", "LayerNorm 2", "피드포워드 신경망에 들어가기 전에 토큰마다 벡터를 다시 정규화합니다."},
    {"ffn_up", "FFN 확장",
     "각 토큰을 C개에서 F개의 숫자로 넓힙니다. F개의 출력 하나하나가 뉴런이며, 입력 전체의 가중합으로 "
     "저마다의 패턴에 반응합니다."},
    {"gelu", "활성화 함수",
     "두 선형층 사이에 아무것도 없으면 결국 하나의 선형층과 같습니다. 활성화 함수가 꺾어 줍니다. 큰 "
     "양수는 통과하고 음수는 0 쪽으로 줄어듭니다. 점들은 이 블록의 실제 값입니다."},
    {"gelu.relu", NULL,
     "두 선형층 사이에 아무것도 없으면 결국 하나의 선형층과 같습니다. ReLU는 0에서 꺾입니다. 양수는 "
     "그대로 통과하고 음수는 정확히 0이 됩니다. 점들은 이 블록의 실제 값입니다."},
    {"gelu.silu", NULL,
     "두 선형층 사이에 아무것도 없으면 결국 하나의 선형층과 같습니다. SiLU가 꺾어 줍니다. 큰 양수는 "
     "통과하고 음수는 0 쪽으로 줄어듭니다(0보다 조금 아래로 내려갔다 올라옵니다). 점들은 이 블록의 실제 "
     "값입니다."},
    {"gelu.identity", NULL,
     "이 모델에는 활성화 함수가 없습니다(identity: g = u). 아무것도 꺾이지 않아 점들이 한 직선 위에 "
     "놓입니다. 사이에 아무것도 없는 두 선형층은 하나의 선형층 W\xE2\x82\x81 \xC2\xB7 W\xE2\x82\x82와 "
     "같습니다."},
    {"ffn_down", "FFN 축소", "토큰마다 F개의 특징을 다시 C개의 숫자로 줄입니다."},
    {"resid2", "잔차 연결", "FFN 결과도 스트림에 더합니다. 이 합이 블록의 출력이자 다음 블록의 입력입니다."},
    {"ln_final", "마지막 LayerNorm",
     "마지막 블록 뒤에 한 번 더 정규화해서 각 토큰 벡터를 어휘 전체와 비교할 준비를 합니다."},
    {"logits", "로짓",
     "각 토큰 벡터를 임베딩 행렬의 모든 행과 비교해(언임베딩이 W_E와 묶여 있습니다) 어휘마다 점수 하나를 "
     "얻습니다. 마지막 토큰의 행이 다음에 올 토큰을 정합니다."},
    {"logits.lm_head", NULL,
     "각 토큰 벡터를 W_E와 따로 학습된 언임베딩 행렬 W_U(lm_head)의 모든 행과 비교해 어휘마다 점수 하나를 "
     "얻습니다. 마지막 토큰의 행이 다음에 올 토큰을 정합니다."},
    {"ln1.rms", "RMSNorm 1",
     "토큰마다 벡터를 제곱평균제곱근 \xE2\x88\x9A(mean(x\xC2\xB2) + \xCE\xB5)로 나눈 뒤(ln1.hook_scale, 토큰마다 "
     "숫자 하나) 학습된 \xCE\xB3로 늘립니다. LayerNorm과 달리 평균을 빼지 않고 \xCE\xB2도 없습니다. 계산이 "
     "더 싸면서도 잘 작동합니다."},
    {"ln2.rms", "RMSNorm 2",
     "피드포워드 신경망에 들어가기 전에 토큰마다 벡터를 다시 제곱평균제곱근으로 나누고 따로 학습된 "
     "\xCE\xB3로 늘립니다. 평균은 빼지 않습니다."},
    {"ln_final.rms", "마지막 RMSNorm",
     "마지막 블록 뒤에 RMSNorm을 한 번 더 해서 각 토큰 벡터를 어휘 전체와 비교할 준비를 합니다."},
    {"q_proj", "쿼리 투영",
     "각 토큰의 쿼리는 자기 행렬 W_q로 만들고, D개씩 H개의 헤드로 자릅니다. 각 토큰은 무엇을 찾는가? "
     "Llama는 q, k, v를 하나로 붙이지 않고 세 개의 행렬로 따로 둡니다."},
    {"kv_proj", "키와 밸류(V) 투영",
     "키와 밸류(V)도 각자의 행렬로 만들지만 헤드 수가 더 적습니다. H개 대신 G개의 키/밸류 헤드를 씁니다"
     "(그룹 쿼리 어텐션, GQA). 쿼리 헤드 여러 개가 같은 키와 밸류(V)를 읽으므로 생성할 때 저장하는 KV "
     "캐시가 H/G배 작아집니다."},
    {"rope", "회전 위치 인코딩 (RoPE)",
     "위치 벡터를 더하는 대신 q와 k의 차원을 (i, i + D/2) 두 개씩 짝지어 위치 t에 비례하는 각도 "
     "t\xC2\xB7\xCE\xB8\xE1\xB5\xA2만큼 돌립니다. 앞쪽 짝은 빨리, 뒤쪽 짝은 천천히 돕니다. 그러면 점수 "
     "q\xC2\xB7k는 두 토큰이 얼마나 떨어져 있는지에만 달려 있습니다."},
    {"o_proj", "이어 붙이기 + 출력 투영",
     "H개 헤드의 출력을 다시 옆으로 이어 붙이고(토큰마다 H\xC2\xB7"
     "D개의 숫자) W_o로 섞어 C개의 숫자로 "
     "되돌립니다. 헤드마다 찾아낸 것을 합칩니다."},
    {"gate", "게이트 투영",
     "MLP는 F개로 넓히는 투영을 하나가 아니라 두 개 가집니다. 첫 번째인 게이트는 뉴런마다 얼마나 "
     "통과시킬지 정합니다. SiLU를 거치면 크게 음수인 게이트는 거의 아무것도 통과시키지 않습니다."},
    {"up", "업 투영",
     "F개로 넓히는 두 번째 투영은 통과할 내용을 나릅니다. 활성화 함수로 꺾지 않고, 얼마나 지나갈지는 "
     "게이트가 정합니다."},
    {"swiglu", "SwiGLU: 게이트 \xC3\x97 업",
     "각 뉴런의 출력은 SiLU(게이트) 곱하기 업입니다. 게이트가 음수이면 SiLU가 0에 가까우므로 업이 "
     "무엇이든 게이트가 뉴런을 끕니다. 게이트가 양수이면 업이 크기만 바뀌어 통과합니다."},
    {"swiglu.other", NULL,
     "각 뉴런의 출력은 게이트의 활성화(이 모델의 hidden_act) 곱하기 업입니다. 활성화가 0에 가까운 곳에서는 "
     "업이 무엇이든 게이트가 뉴런을 끕니다."},
    {"down", "다운 투영", "토큰마다 게이트를 거친 F개의 특징을 W_down으로 다시 C개의 숫자로 줄입니다."},
    {"probs", "다음 토큰 확률",
     "softmax로 로짓을 확률로 바꿉니다. 먼저 온도 \xCF\x84로 로짓을 나누는데, 1보다 작으면 1등이 더 많이 "
     "가져가고 1보다 크면 후보들이 고르게 됩니다."},
    {"timeline", "생성",
     "모델은 토큰을 하나씩 덧붙입니다. 새 토큰은 마지막 토큰 뒤의 확률에서 뽑습니다. 먼저 온도로 점수를 "
     "나누고, top-k는 가장 그럴듯한 k개만, top-p는 그중 확률 합이 p에 이르는 가장 작은 묶음만 남깁니다. "
     "선이 잘라낸 자리입니다. 시드를 정한 난수 생성기 덕분에 같은 시드는 같은 토큰을 뽑습니다. 쉼표(,)와 "
     "마침표(.) 키로 토큰을 고릅니다."},
    {"kvcache", "KV 캐시",
     "새 토큰의 쿼리는 앞선 모든 토큰의 키와 밸류를 만나야 합니다. 마스크 덕분에 앞 토큰은 뒤 토큰을 "
     "보지 않으므로 토큰이 늘어도 그 행들은 바뀌지 않습니다. 그래서 저장해 둡니다: 디코드 단계마다 K와 "
     "V의 새 행 하나만 계산하고 나머지는 읽습니다. Page Up과 Page Down으로 디코드 단계를 오갑니다."},
};

// The window's help (F1), then the lesson window's; rows as in strings_en.c, in its order.
static const tt_key_row window_keys[] = {
    {"\xE2\x86\x90 / \xE2\x86\x92", "이전 / 다음 단계"},
    {"\xE2\x86\x91 / \xE2\x86\x93", "이전 / 다음 블록"},
    {"[ / ]", "이전 / 다음 헤드"},
    {"Tab", "히트맵 \xE2\x86\x94 숫자 표"},
    {"G / O", "블록의 모든 헤드 / 블록 \xC3\x97 헤드 개요"},
    {"E / C", "로짓 렌즈 (블록 \xC3\x97 위치) / 계산은 어디에 쓰이나"},
    {"R / H / U / M", "RoPE (< > 차원 쌍) / K/V를 나눠 쓰는 헤드 / SwiGLU / GPT-2와 Llama 나란히"},
    {"W / F", "토큰의 임베딩 이웃 / 그 토큰의 FFN 뉴런 게이트 (, 와 . 로 토큰 선택)"},
    {"Space", "재생 / 멈춤 (3초마다 한 단계)"},
    {"S", "화면 저장 (저장 위치는 아래 줄에 표시)"},
    {"P", "새 프롬프트 입력, Enter로 다시 계산"},
    {"Home / End, 7 Enter", "첫 / 마지막 단계, 7단계로 (숫자를 치고 Enter)"},
    {"/ 이름 Enter", "이름에 그 글자가 든 단계로 (/resid, /로짓)"},
    {"Ctrl + / Ctrl \xE2\x88\x92 / Ctrl 0", "모든 글자 크게 / 작게, 원래 크기"},
    {"F11", "전체 화면 켜기 / 끄기"},
    {"K",
     "만약에? 1\xE2\x80\x93"
     "8로 스위치 바꾸기, 지금 헤드 끄기: 원래 것, 바꾼 것, 차이"},
    {"휠, + / \xE2\x88\x92", "확대 / 축소 (한 칸까지), 0은 원래대로"},
    {"끌기", "확대한 그림 옮기기"},
    {"클릭", "칸 고정: 옆에 계산 과정 표시"},
    {", / .", "막대: 앞 / 뒤 토큰, \xE2\x88\x92 / = 온도"},
    {"B", "값 \xE2\x86\x94 이 단계의 기울기 \xE2\x88\x82L/\xE2\x88\x82x (--grad로 만든 트레이스)"},
    {"Shift+B", "기울기 크기: 블록마다의 잔차 스트림, 가중치 행렬마다"},
    {"PgUp / PgDn", "생성: 앞 / 뒤 디코드 단계 (KV 캐시) 또는 토큰 (생성 타임라인)"},
    {"D", "밝은 / 어두운 테마"},
    {"L", "English / 한국어"},
    {"F1 또는 ?", "이 도움말, Esc로 닫기, Q로 끝내기"},
};

static const tt_key_row lesson_keys[] = {
    {"\xE2\x86\x92  Space  PgDn", "다음 단계"},
    {"\xE2\x86\x90  PgUp", "이전 단계"},
    {"Home / End", "처음 / 마지막 단계"},
    {"7  Enter", "7단계로 이동 (숫자를 치고 Enter)"},
    {"L", "같은 수업을 다른 언어로"},
    {"N", "설명 숨기기 / 보이기 (그림을 크게)"},
    {"\xE2\x86\x91 / \xE2\x86\x93", "패널보다 긴 설명 스크롤"},
    {"[ / ]", "이전 / 다음 헤드"},
    {"Tab", "히트맵 \xE2\x86\x94 숫자"},
    {"휠, + / \xE2\x88\x92, 끌기", "확대와 이동"},
    {"클릭", "칸 고정: 계산 과정 표시"},
    {"S", "화면 저장 (저장 위치는 아래 줄에 표시)"},
    {"D", "밝은 / 어두운 테마"},
    {"F1 또는 ?", "이 도움말"},
    {"Esc / Q", "도움말 닫기, 그다음 끝내기"},
};

const tt_lang_words *tt_words_ko(void) {
  static const tt_lang_words w = {str,
                                  steps,
                                  sizeof steps / sizeof *steps,
                                  {window_keys, lesson_keys},
                                  {sizeof window_keys / sizeof *window_keys, sizeof lesson_keys / sizeof *lesson_keys}};
  return &w;
}
