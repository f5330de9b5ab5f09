// strings: the words of the interface in English and Korean.
#include "render_int.h"

static const char *const en[TT_S_COUNT] = {
    [TT_S_LAYER] = "layer",
    [TT_S_HEAD] = "head",
    [TT_S_MASKED] = "masked (\xE2\x88\x92\xE2\x88\x9E)",
    [TT_S_NOT_RECORDED] = "This tensor is not in the trace (record it with `ttrace trace --record`).",
    [TT_S_PROMPT] = "prompt",
    [TT_S_STEPS] = "Steps",
    [TT_S_BLOCK] = "block",
    [TT_S_KEYS] = "Keys",
    [TT_S_PINNED] = "pinned cell",
    [TT_S_HOVER] = "under the pointer",
    [TT_S_QUERY] = "query",
    [TT_S_KEY] = "key",
    [TT_S_DIM] = "dim",
    [TT_S_TOKEN] = "token",
    [TT_S_POSITION] = "position",
    [TT_S_NEXT_AFTER] = "next token after",
    [TT_S_TEMPERATURE] = "temperature",
    [TT_S_DOWNSAMPLED] = "downsampled: each pixel shows the largest |value| of its block (zoom in for single cells)",
    [TT_S_CLICK_TO_PIN] = "click a cell to see how it was computed",
    [TT_S_PLAYING] = "playing",
    [TT_S_TYPE_PROMPT] = "type a prompt, Enter traces it, Esc cancels",
    [TT_S_MEAN] = "mean \xCE\xBC",
    [TT_S_SCALE] = "scale 1/\xE2\x88\x9A(\xCF\x83\xC2\xB2+\xCE\xB5)",
    [TT_S_INPUT] = "input",
    [TT_S_OUTPUT] = "output",
    [TT_S_ROW] = "row",
    [TT_S_COLUMN] = "column",
};

static const char *const ko[TT_S_COUNT] = {
    [TT_S_LAYER] = "층",
    [TT_S_HEAD] = "헤드",
    [TT_S_MASKED] = "가림 (\xE2\x88\x92\xE2\x88\x9E)",
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
};

const char *tt_str(tt_lang lang, tt_str_id id) {
  const char *s = (lang == TT_LANG_KO ? ko : en)[id];
  return s ? s : en[id] ? en[id] : "";
}
