#!/usr/bin/python3
"""Writes a Hugging Face tokenizer.json from GPT-2's vocab.json and merges.txt, laid out as
the `tokenizers` library serializes a byte-level BPE (models/bpe/serialization.rs,
pre_tokenizers/byte_level.rs, split.rs), written here without ttrace's code.

    make_tokenizer_json.py ASSETS_TOKENIZER_DIR OUT_FILE [--merges pairs|strings]
                           [--pre bytelevel|split] [--added TEXT]... [--special TEXT]...
                           [--bos-template TEXT]

--pre split writes the Llama-3 / Qwen2 shape: a Sequence of a Split (GPT-2's own pattern
as a Regex, "Isolated") and a ByteLevel with use_regex false.
--added TEXT adds a non-special added token (content TEXT) with the next free id,
--special TEXT a special one; --bos-template TEXT writes a TemplateProcessing post-processor
that puts the special token TEXT before each sequence.
"""
import argparse
import json
import os

# GPT-2's pattern as encoder.py and byte_level.rs write it.
GPT2_PATTERN = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"


def byte_level(use_regex):
    return {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": use_regex}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("out")
    ap.add_argument("--merges", choices=["pairs", "strings"], default="pairs")
    ap.add_argument("--pre", choices=["bytelevel", "split"], default="bytelevel")
    ap.add_argument("--added", action="append", default=[])
    ap.add_argument("--special", action="append", default=[])
    ap.add_argument("--bos-template")
    a = ap.parse_args()

    vocab = json.load(open(os.path.join(a.src, "vocab.json"), encoding="utf-8"))
    lines = open(os.path.join(a.src, "merges.txt"), encoding="utf-8").read().split("\n")
    merges = [l for l in lines[1:] if l]  # line 1 is "#version: 0.2"
    if a.merges == "pairs":
        merges = [l.split(" ") for l in merges]

    # GPT-2's tokenizer.json lists <|endoftext|> (already in vocab.json) as a special added token.
    added = [{"id": vocab["<|endoftext|>"], "content": "<|endoftext|>", "single_word": False, "lstrip": False,
              "rstrip": False, "normalized": True, "special": True}]
    next_id = len(vocab)
    for text, special in [(t, False) for t in a.added] + [(t, True) for t in a.special]:
        added.append({"id": next_id, "content": text, "single_word": False, "lstrip": False, "rstrip": False,
                      "normalized": not special, "special": special})
        next_id += 1

    if a.pre == "split":
        pre = {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": GPT2_PATTERN}, "behavior": "Isolated", "invert": False},
            byte_level(False)]}
    else:
        pre = byte_level(True)
    post = byte_level(True)
    if a.bos_template:
        bos = next(t for t in added if t["content"] == a.bos_template)
        post = {"type": "TemplateProcessing",
                "single": [{"SpecialToken": {"id": a.bos_template, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
                "pair": [{"SpecialToken": {"id": a.bos_template, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                         {"SpecialToken": {"id": a.bos_template, "type_id": 1}}, {"Sequence": {"id": "B", "type_id": 1}}],
                "special_tokens": {a.bos_template: {"id": a.bos_template, "ids": [bos["id"]], "tokens": [a.bos_template]}}}
    doc = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": None,
        "pre_tokenizer": pre,
        "post_processor": post,
        "decoder": byte_level(True),
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                  "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": vocab, "merges": merges},
    }
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False)


if __name__ == "__main__":
    main()
