#!/usr/bin/python3
"""Writes the fuzzers' seed corpora and regression inputs from the repository's own files.

    make_seeds.py SOURCE_ROOT OUT_DIR

OUT_DIR/seeds/<fuzzer>/ holds small valid inputs (saved lesson traces, tiny random models
from tests/reference/make_model.py, lesson files, tokenizer texts); OUT_DIR/regressions/
<fuzzer>/ holds the hand-made inputs of the reliability issue (wrapping shapes, duplicate
names, non-finite weights, odd dtypes, escape bytes, overflowing indexes), which every
fuzzer run replays first. Nothing here is committed: it is made afresh each run.
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT, OUT = sys.argv[1], sys.argv[2]
MAX_SEED = 64 << 10


def put(kind, fuzzer, name, data):
    d = os.path.join(OUT, kind, fuzzer)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def safetensors(header, data=b""):
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + data


def raw_safetensors(header_text, data=b""):
    text = header_text.encode()
    return struct.pack("<Q", len(text)) + text + data


def split_file(path):
    b = open(path, "rb").read()
    n = struct.unpack("<Q", b[:8])[0]
    return json.loads(b[8:8 + n]), b[8 + n:]


def trace_like(extra_meta=None, tensors=None):
    """A small trace (the saved 02-words one) with changed metadata or extra tensors."""
    header, data = split_file(os.path.join(ROOT, "lessons/traces/02-words.safetensors"))
    meta = dict(header.pop("__metadata__"))
    meta.update(extra_meta or {})
    body = bytearray(data)
    for name, (dtype, shape, blob) in (tensors or {}).items():
        while len(body) % 8:
            body.append(0)
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(body), len(body) + len(blob)]}
        body += blob
    header["__metadata__"] = meta
    return safetensors(header, bytes(body))


def trace_seeds():
    traces = os.path.join(ROOT, "lessons/traces")
    for name in sorted(os.listdir(traces)):
        path = os.path.join(traces, name)
        if os.path.getsize(path) <= MAX_SEED:
            data = open(path, "rb").read()
            for fz in ("fuzz_safetensors", "fuzz_trace", "fuzz_render"):
                put("seeds", fz, name, data)


def trace_regressions():
    wraps = [[1 << 32, 1 << 32], [1 << 40, 1 << 24], [16, 1 << 30, 1 << 30]]
    for i, shape in enumerate(wraps):  # defect 1: the element count wraps to 0 bytes
        data = trace_like(tensors={"blocks.0.attn.hook_pattern_x": ("F32", shape, b"")})
        plain = safetensors({"a": {"dtype": "F32", "shape": shape, "data_offsets": [0, 0]}})
        for fz in ("fuzz_safetensors", "fuzz_trace", "fuzz_render"):
            put("regressions", fz, "wrap%d" % i, data)
            put("regressions", fz, "wrap_plain%d" % i, plain)
    odd = {"extra_u8": ("U8", [8], bytes(range(1, 9))), "extra_i64": ("I64", [2], struct.pack("<2q", -5, 1 << 40)),
           "extra_f64": ("F64", [2], struct.pack("<2d", 0.1, float("nan"))), "extra_bool": ("BOOL", [3], b"\x00\x01\x02"),
           "extra_f8": ("F8_E4M3", [2], b"\x7f\x38")}
    dup = ('{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},'
           '"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}')
    dup_meta = '{"__metadata__":{"format":"ttrace-trace"},"__metadata__":{"format":"x"}}'
    regress = {
        "odd_dtypes": trace_like(tensors=odd),  # defect 2: read by dtype, not as 4-byte floats
        "beyond_layers": trace_like(tensors={"blocks.7.ln1.hook_mean": ("F32", [3], b"\0" * 12)}),  # defect 3
        "escapes": trace_like({"prompt": "\x1b[2J\x1b]0;owned\x07", "token_strings": json.dumps(["\x1b[31m"] * 10)}),
        "bad_ids": trace_like({"token_ids": "[-1,2147483648,4294967297,1,2,3,4,5,6,7]"}),  # defect 10
        "huge_ids": trace_like({"token_ids": "[1e300,0,0,0,0,0,0,0,0,0]"}),
        "dup_name": raw_safetensors(dup, b"\0" * 8),
        "dup_meta": raw_safetensors(dup_meta),
        "nan_inf": trace_like(tensors={"hook_probs": ("F32", [10, 2], struct.pack("<20f", *([float("nan"), float("inf")] * 10)))}),
    }
    for name, data in regress.items():
        for fz in ("fuzz_safetensors", "fuzz_trace", "fuzz_render"):
            put("regressions", fz, name, data)
    for name, values in (("rope_far", (3e9, -2e9)), ("rope_inf", (float("inf"), float("nan")))):
        put("regressions", "fuzz_render", name, with_values("18-rope-later", "blocks.0.attn.hook_rot_q", values))


def with_values(trace, tensor, values):
    """A saved trace with one F32 tensor's values replaced by `values` repeated (found by
    fuzzing: a rotated q far longer than q drew its arrow past int's range)."""
    header, data = split_file(os.path.join(ROOT, "lessons/traces/%s.safetensors" % trace))
    begin, end = header[tensor]["data_offsets"]
    n = (end - begin) // 4
    body = bytearray(data)
    body[begin:end] = struct.pack("<%df" % n, *[values[i % len(values)] for i in range(n)])
    return safetensors(header, bytes(body))


def tiny_model(args):
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([sys.executable, os.path.join(ROOT, "tests/reference/make_model.py"), d] + args,
                       check=True, stdout=subprocess.DEVNULL)
        return open(os.path.join(d, "config.json"), "rb").read(), open(os.path.join(d, "model.safetensors"), "rb").read()


def model_seeds():
    small = ["--layers", "1", "--heads", "2", "--embd", "8", "--inner", "16", "--vocab", "64", "--positions", "8"]
    variants = {"f32": [], "f16_prefix": ["--dtype", "F16", "--prefix"], "bf16_untied": ["--dtype", "BF16", "--untied"],
                "sinusoidal": ["--pos", "sinusoidal"], "rmsnorm": ["--set", "ttrace_norm=rmsnorm"]}
    for name, extra in variants.items():
        cfg, w = tiny_model(small + extra)
        put("seeds", "fuzz_model", name, cfg + b"\0" + w)
        for fz in ("fuzz_safetensors",):
            put("seeds", fz, "model_" + name, w)
    cfg, w = tiny_model(small)
    classroom = open(os.path.join(ROOT, "assets/models/tiny-classroom/config.json"), "rb").read()
    put("seeds", "fuzz_model", "classroom_config", classroom + b"\0" + w)
    # defect 10: a NaN and an infinity in the weights are refused, naming the tensor
    header, data = json.loads(w[8:8 + struct.unpack("<Q", w[:8])[0]]), w[8 + struct.unpack("<Q", w[:8])[0]:]
    begin = header["wte.weight"]["data_offsets"][0]
    for name, value in (("nan_weight", float("nan")), ("inf_weight", float("inf"))):
        bad = bytearray(data)
        bad[begin:begin + 4] = struct.pack("<f", value)
        put("regressions", "fuzz_model", name, cfg + b"\0" + safetensors(header, bytes(bad)))
    big_vocab = json.loads(cfg)
    big_vocab["n_layer"] = 1 << 40
    put("regressions", "fuzz_model", "huge_layers", json.dumps(big_vocab).encode() + b"\0" + w)


def tokenizer_seeds():
    fixture = json.load(open(os.path.join(ROOT, "tests/tokenizer/fixture.json")))
    cases = fixture if isinstance(fixture, list) else fixture.get("cases", [])
    for i, case in enumerate(cases[:300]):
        text = case.get("text") if isinstance(case, dict) else None
        if isinstance(text, str):
            put("seeds", "fuzz_tokenizer", "fixture%03d" % i, text)
    for lang in ("en", "ko"):
        d = os.path.join(ROOT, "lessons", lang)
        for name in sorted(os.listdir(d)):
            text = open(os.path.join(d, name), encoding="utf-8").read()
            put("seeds", "fuzz_tokenizer", lang + "_" + name, text[:2000])
    put("regressions", "fuzz_tokenizer", "long_word", "x" * 8000)  # defect 7: quadratic merges
    put("regressions", "fuzz_tokenizer", "nul_inside", b"ab\0cd")
    put("regressions", "fuzz_tokenizer", "overlong", b"\xc0\xaf \xed\xa0\x80 \xf4\x90\x80\x80")


def tokenizer_load_seeds():
    """A byte-level vocabulary (the 256 byte tokens) with the first merges of GPT-2's."""
    byte_cps = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))
    cps, n = byte_cps[:], 0
    table = {}
    for b in range(256):
        if b in byte_cps:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + n)
            n += 1
    vocab = {table[b]: b for b in range(256)}
    merges = []
    for line in open(os.path.join(ROOT, "assets/tokenizer/merges.txt"), encoding="utf-8").read().split("\n")[1:]:
        if len(merges) == 300 or not line:
            break
        left, right = line.split(" ")
        if left in vocab and right in vocab and left + right not in vocab:
            vocab[left + right] = len(vocab)
            merges.append(line)
    text = json.dumps(vocab, ensure_ascii=False).encode()
    put("seeds", "fuzz_tokenizer_load", "gpt2_300", text + b"\0#version: 0.2\n" + "\n".join(merges).encode() + b"\n")
    put("seeds", "fuzz_tokenizer_load", "bytes_only", text.split(b"}")[0] + b"}\0")
    dup = text[:-1] + b', "\xc4\xa0": 3}'
    put("regressions", "fuzz_tokenizer_load", "dup_key", dup + b"\0")


def lesson_seeds():
    for lang in ("en", "ko"):
        d = os.path.join(ROOT, "lessons", lang)
        for name in sorted(os.listdir(d)):
            put("seeds", "fuzz_lesson", lang + "_" + name, open(os.path.join(d, name), "rb").read())
    head = "title: t\nlang: en\nmodel: default\ntrace main: prompt=\"The weather is nice\" file=01-weather.safetensors\n"
    step = "---\nshow: attn.hook_pattern\nlayer: 0\nhead: 0\nview: heatmap\n\n%s\n"
    bodies = {
        "index_to_all": "{{blocks.0.attn.hook_pattern[0,4294967295,0]}}",  # defect 10: wraps to the 'all' sentinel
        "index_huge": "{{blocks.0.attn.hook_pattern[0,99999999999999999999,0]}}",
        "token_past_atoi": "{{token 99999999999}} {{token -99999999999}} {{word 4294967296}}",
        "temperature_tiny": "x",
    }
    for name, body in bodies.items():
        text = head + step % body
        if name == "temperature_tiny":
            text = head + "---\nshow: hook_logits\nview: bars\ntemperature: 1e-38\n\n{{max hook_logits}}\n"
        put("regressions", "fuzz_lesson", name, text)


def main():
    for kind in ("seeds", "regressions"):
        shutil.rmtree(os.path.join(OUT, kind), ignore_errors=True)
    trace_seeds()
    trace_regressions()
    model_seeds()
    tokenizer_seeds()
    tokenizer_load_seeds()
    lesson_seeds()


main()
