#!/usr/bin/python3
"""tiny-llama's tokenizer.json gives GPT-2's ids.

    test_tokenizer_ids.py TTRACE SOURCE_ROOT

assets/models/tiny-llama/tokenizer.json was written from GPT-2's vocab.json and merges.txt
in the Llama-3 / SmolLM layout (a Split with GPT-2's pattern inside a Sequence, then a
ByteLevel without its own regex; <|endoftext|> a special added token). On every string of
tests/tokenizer/fixture.json (ids from gpt-3-encoder, gpt-tokenizer and js-tiktoken) and on
more Korean, whitespace and punctuation strings, ttrace's ids through that file must equal
(a) the fixture's ids, (b) tools/gpt2_bpe.py's ids from vocab.json + merges.txt (Python,
written from encoder.py) and (c) ttrace's own ids from vocab.json + merges.txt.
"""
import json
import os
import subprocess
import sys

TTRACE, ROOT = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(ROOT, "tools"))
from gpt2_bpe import GPT2Tokenizer  # noqa: E402

LLAMA = os.path.join(ROOT, "assets", "models", "tiny-llama")
GPT2 = os.path.join(ROOT, "assets", "tokenizer")
MORE = [
    "철수는 영희에게 책을 주었다. 그는 기뻐했다.", "나는 오늘 밥을 먹었다.", "영희는 저녁에 우유를 마셨다.",
    "사랑해요!  정말?", "한국어와 English가 섞인 문장 123개.", "ㄱㄴㄷ ㅏㅑ 가갸거겨", "  앞에 공백", "뒤에 공백   ",
    "The weather is nice", "The weather is nice today.", "Q: How is the weather today?\nA: The weather is nice today.",
    "Teacher: What is your name?\nStudent: My name is Tom.", "Say the words: red dog milk book. Say them again: red dog milk",
    "\t\tThe\tweather", "a  b   c    d", "line\n\n\nbreaks\n", " \n \n ", "\r\nWindows\r\n", "trailing space ",
    "nbsp\u00a0here", "zero\u200bwidth", "ideographic\u3000space", "em\u2003space", "tabs\t \t mixed",
    "I'm you're he'll she'd we've it's THEY'RE", "don't DON'T Don'T", "'s 's' ''s", "1234567890 3.14159 1,000,000",
    "e-mail: a.b@c.de, https://example.com/x?y=1&z=2", "emoji 😀👍🏽 and ✨", "<|endoftext|>", "a<|endoftext|>b",
    "Ünïcödé àccents ñ ß Æ", "Ελληνικά Русский עברית العربية", "中文字符和日本語のテキスト", "x" * 300,
    "!!!???...,,,;;;", "$100 + €50 = ¥?", "    ", "\n", "A", " ",
]


def ttrace_ids(folder, text):
    r = subprocess.run([TTRACE, "tokenize", "--dir", folder, "--ids", "-"], input=(text + "\n").encode(),
                       capture_output=True, timeout=60)
    if r.returncode != 0:
        return "exit %d: %s" % (r.returncode, r.stderr.decode(errors="replace").strip())
    return [int(x) for x in r.stdout.split()]


def main():
    with open(os.path.join(ROOT, "tests", "tokenizer", "fixture.json"), encoding="utf-8") as f:
        fixture = json.load(f)
    ref = GPT2Tokenizer(os.path.join(GPT2, "vocab.json"), os.path.join(GPT2, "merges.txt"))
    cases = [(c["text"], c["ids"]) for c in fixture["cases"]] + [(t, None) for t in MORE]
    failed = 0
    for text, fixed in cases:
        ours = ttrace_ids(LLAMA, text)
        wants = {"gpt2_bpe.py": ref.encode(text), "ttrace vocab.json+merges.txt": ttrace_ids(GPT2, text)}
        if fixed is not None:
            wants["fixture"] = fixed
        bad = {k: v for k, v in wants.items() if v != ours}
        if bad:
            failed += 1
            print(f"FAIL  {text[:60]!r}: tokenizer.json {ours} != {bad}")
    korean = sum(any("\uac00" <= ch <= "\ud7a3" for ch in t) for t, _ in cases)
    print(f"{len(cases) - failed} of {len(cases)} strings agree ({korean} with Hangul, "
          f"{sum(f is not None for _, f in cases)} from the fixture)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
