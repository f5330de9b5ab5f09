#!/usr/bin/python3
"""Hostile inputs through the command line: each reproducer of the reliability issue gets
a clear one-line error (or, where the input is valid, the right answer), nothing hangs,
and nothing is written where it should not be.

    test_reliability.py TTRACE SOURCE_ROOT
"""
import json
import math
import os
import stat
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np

TTRACE, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
MAKE_MODEL = os.path.join(ROOT, "tests", "reference", "make_model.py")
WORDS = os.path.join(ROOT, "lessons", "traces", "02-words.safetensors")
passed, failed = 0, 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok    {name}")
    else:
        failed += 1
        print(f"FAIL  {name}: {detail}")


def run(*args, stdin=None, timeout=60):
    try:
        return subprocess.run([TTRACE, *args], capture_output=True, input=stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


def expect_error(name, args, code, fragment, stdin=None, timeout=60):
    r = run(*args, stdin=stdin, timeout=timeout)
    if r is None:
        check(name, False, f"hung for {timeout} s")
        return
    err = r.stderr.decode("utf-8", "replace")
    lines = [l for l in err.splitlines() if l.strip()]
    check(name, r.returncode == code and len(lines) == 1 and fragment in err, f"exit {r.returncode}, stderr {err!r}")


# ---- safetensors files made by hand ---------------------------------------------------
def write_st(path, header, data=b""):
    text = (header if isinstance(header, str) else json.dumps(header, separators=(",", ":"))).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def read_st(path):
    raw = open(path, "rb").read()
    (n,) = struct.unpack("<Q", raw[:8])
    return json.loads(raw[8:8 + n]), raw[8 + n:]


def words_with(path, tensors=None, meta=None):
    """The saved 02-words trace with extra tensors {name: np.ndarray} and metadata changes."""
    header, data = read_st(WORDS)
    m = dict(header.pop("__metadata__"))
    m.update(meta or {})
    body = bytearray(data)
    dtypes = {np.uint8: "U8", np.int64: "I64", np.float64: "F64", np.int32: "I32", np.float32: "F32"}
    for name, a in (tensors or {}).items():
        while len(body) % 8:
            body.append(0)
        blob = a.astype(a.dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": dtypes[a.dtype.type], "shape": list(a.shape),
                        "data_offsets": [len(body), len(body) + len(blob)]}
        body += blob
    header["__metadata__"] = m
    write_st(path, header, bytes(body))


def make_model(path, *extra):
    subprocess.run([sys.executable, MAKE_MODEL, path, "--layers", "1", "--heads", "2", "--embd", "16",
                    "--positions", "8", *extra], check=True, capture_output=True)


def test_shapes_that_wrap(tmp):  # defect 1
    for i, shape in enumerate([[1 << 32, 1 << 32], [1 << 40, 1 << 24], [16, 1 << 30, 1 << 30]]):
        p = os.path.join(tmp, f"wrap{i}.safetensors")
        write_st(p, {"tokens": {"dtype": "F32", "shape": shape, "data_offsets": [0, 0]}})
        expect_error(f"shape {shape} is refused by dump", ["dump", p], 3, "is larger than its 0 data bytes")
        expect_error(f"shape {shape} is refused by diff", ["diff", p, p], 3, "is larger than")


def test_duplicates(tmp):  # defect 10: the last one must not silently win
    p = os.path.join(tmp, "dup.safetensors")
    write_st(p, '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},'
                '"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}', b"\0" * 8)
    expect_error("a tensor name twice is refused", ["dump", p], 3, "duplicate object key")
    write_st(p, '{"__metadata__":{"format":"ttrace-trace"},"__metadata__":{"format":"x"}}')
    expect_error("__metadata__ twice is refused", ["dump", p], 3, "duplicate object key")


def dump_lines(args):
    r = run("dump", *args)
    return r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")


def summary_row(out, name):
    for line in out.splitlines():
        if line.split() and line.split()[0] == name:
            return line.split()
    return None


def test_dtypes_read_as_they_are(tmp):  # defect 2 (dump; diff is in tests/cli/test_diff_dtypes.py)
    p = os.path.join(tmp, "dtypes.safetensors")
    u8 = np.arange(1, 9, dtype=np.uint8)
    i64 = np.array([-5, 1 << 40], dtype=np.int64)
    f64 = np.array([0.1, 2.5], dtype=np.float64)
    words_with(p, {"extra_u8": u8, "extra_i64": i64, "extra_f64": f64})
    code, out, err = dump_lines([p])
    for name, a in (("extra_u8", u8), ("extra_i64", i64), ("extra_f64", f64)):
        row = summary_row(out, name)
        want = ["%.5g" % a.min(), "%.5g" % a.max(), "%.5g" % a.astype(np.float64).mean()]
        check(f"dump summary of {name} shows its min, max and mean", row is not None and row[-3:] == want,
              f"row {row}, wanted {want}")
    code, out, err = dump_lines([p, "extra_u8"])
    check("dump shows a U8 tensor's values 1..8", code == 0 and "1.0000" in out and "8.0000" in out
          and "e-34" not in out, out[-400:])


def test_nan_shown(tmp):  # defect 10: NaN is NaN wherever printed
    p = os.path.join(tmp, "nan.safetensors")
    words_with(p, {"extra_nan": np.array([1.0, math.nan, 3.0], dtype=np.float32)})
    code, out, err = dump_lines([p])
    row = summary_row(out, "extra_nan")
    check("dump summary of a tensor with a NaN says nan", row is not None and row[-3:] == ["nan"] * 3, f"{row}")
    code, out, err = dump_lines([p, "extra_nan"])
    check("dump shows the NaN cell as nan", code == 0 and " nan" in out and "-nan" not in out, out[-300:])


def test_escapes(tmp):  # defect 10: a trace's strings cannot drive the terminal
    p = os.path.join(tmp, "esc.safetensors")
    header, _ = read_st(WORDS)
    strings = json.loads(header["__metadata__"]["token_strings"])
    strings[0] = "\x1b[31mred\x07"
    words_with(p, meta={"prompt": "\x1b[2J\x1b]0;title\x07 I was", "token_strings": json.dumps(strings)})
    for args in ([p], [p, "tokens"]):
        r = run("dump", *args)
        bad = [b for b in r.stdout if b < 0x20 and b not in (0x0a,)]
        check(f"dump {' '.join(args[1:]) or '(summary)'} prints no control byte", r.returncode == 0 and not bad
              and b"\\x1B[" in r.stdout, f"exit {r.returncode}, control bytes {bad[:5]}")


def test_token_ids_range(tmp):  # defect 10: not truncated to int32
    header, _ = read_st(WORDS)
    ids = json.loads(header["__metadata__"]["token_ids"])
    for i, bad in enumerate([-1, 4294967297, 2147483648]):
        p = os.path.join(tmp, f"ids{i}.safetensors")
        words_with(p, meta={"token_ids": json.dumps([bad] + ids[1:])})
        expect_error(f"token id {bad} is refused", ["dump", p], 3, f"has id {bad}, outside 0..2147483647")


def test_fifo_does_not_hang(tmp):  # defect 9
    fifo = os.path.join(tmp, "fifo.safetensors")
    os.mkfifo(fifo)
    expect_error("a FIFO as trace is refused at once", ["dump", fifo], 4, "it is a FIFO, not a regular file",
                 timeout=20)
    for name in ("config.json", "model.safetensors"):
        d = os.path.join(tmp, "fifo_model_" + name.split(".")[0])
        make_model(d)
        os.remove(os.path.join(d, name))
        os.mkfifo(os.path.join(d, name))
        out = os.path.join(tmp, "never.safetensors")
        expect_error(f"a FIFO as {name} is refused at once", ["trace", "-m", d, "-o", out, "hi"], 4, "a FIFO",
                     timeout=20)
        check(f"nothing written with a FIFO as {name}", not os.path.exists(out))


def test_output_targets(tmp):  # defect 4
    fifo = os.path.join(tmp, "out_fifo")
    os.mkfifo(fifo)
    expect_error("-o FIFO is refused", ["trace", "-o", fifo, "hi"], 4, "it is a FIFO, not a regular file")
    check("the FIFO is still a FIFO", stat.S_ISFIFO(os.lstat(fifo).st_mode))
    sub = os.path.join(tmp, "out_dir")
    os.mkdir(sub)
    expect_error("-o DIR is refused", ["trace", "-o", sub, "hi"], 4, "it is a directory, not a regular file")
    link = os.path.join(tmp, "out_link")
    os.symlink(sub, link)
    expect_error("-o symlink-to-dir is refused", ["trace", "-o", link, "hi"], 4, "it is a directory")
    check("the symlink is still a symlink", stat.S_ISLNK(os.lstat(link).st_mode) and not os.listdir(sub))
    dev = os.path.join(tmp, "out_null")
    try:
        os.mknod(dev, stat.S_IFCHR | 0o600, os.makedev(1, 3))
    except PermissionError:
        dev = None
    if dev:
        expect_error("-o character device is refused", ["trace", "-o", dev, "hi"], 4, "a character device")
        check("the device is still a device", stat.S_ISCHR(os.lstat(dev).st_mode))
    target = os.path.join(tmp, "kept_mode.safetensors")
    r = run("trace", "-q", "-o", target, "hi")
    os.chmod(target, 0o640)
    r = run("trace", "-q", "-o", target, "hi there")
    check("writing over a file keeps its mode", r.returncode == 0 and stat.S_IMODE(os.stat(target).st_mode) == 0o640,
          oct(stat.S_IMODE(os.stat(target).st_mode)))
    real = os.path.join(tmp, "real.safetensors")
    os.rename(target, real)
    os.symlink("real.safetensors", target)
    r = run("trace", "-q", "-o", target, "hello")
    check("-o symlink-to-file writes the file it names", r.returncode == 0 and os.path.islink(target)
          and read_st(real)[0]["__metadata__"]["prompt"] == "hello", r.stderr)
    long_name = os.path.join(tmp, "n" * 245 + ".safetensors")  # 257 bytes would be too long anyway
    long_name = os.path.join(tmp, "n" * (255 - len(".safetensors")) + ".safetensors")
    for attempt in ("new", "over"):
        r = run("trace", "-q", "-o", long_name, "hi")
        check(f"a 255-byte file name works ({attempt})", r.returncode == 0 and os.path.exists(long_name), r.stderr)
    left = [n for n in os.listdir(tmp) if n.startswith(".ttrace-") or ".tmp." in n]
    check("no temporary file left", not left, left)


def test_nul_in_prompt(tmp):  # defect 5
    out = os.path.join(tmp, "nul.safetensors")
    expect_error("a NUL byte in a stdin prompt is refused", ["trace", "-o", out, "-"], 3,
                 "the prompt has a NUL byte at offset 5", stdin=b"hello\0world\n")
    check("nothing written for a NUL prompt", not os.path.exists(out))
    expect_error("tokenize refuses it too", ["tokenize", "-"], 3, "NUL byte at offset 1", stdin=b"a\0b")


def random_word(n):
    letters = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz", dtype=np.uint8)
    return letters[np.random.default_rng(1).integers(0, 26, n)].tobytes()


def test_long_word(tmp):  # defect 7: stops at the context (one random word: merges by the thousand)
    out = os.path.join(tmp, "long.safetensors")
    t0 = time.time()
    expect_error("a 1 MiB word is refused for the context", ["trace", "-o", out, "-"], 3,
                 "more than 128 tokens long; this model's context holds at most 128", stdin=random_word(1 << 20))
    check("refusing a 1 MiB word takes under 10 s", time.time() - t0 < 10, f"{time.time() - t0:.1f} s")


def test_non_finite_weights(tmp):  # defect 10: refused at load, naming the tensor
    for value, word in ((math.nan, "NaN"), (math.inf, "+inf"), (-math.inf, "-inf")):
        d = os.path.join(tmp, "bad_" + word.strip("+-") + ("neg" if word[0] == "-" else ""))
        make_model(d)
        p = os.path.join(d, "model.safetensors")
        header, data = read_st(p)
        begin = header["h.0.mlp.c_fc.weight"]["data_offsets"][0]
        data = bytearray(data)
        data[begin + 4 * 17:begin + 4 * 18] = struct.pack("<f", value)
        write_st(p, {k: v for k, v in header.items()}, bytes(data))
        expect_error(f"a {word} weight is refused", ["trace", "-m", d, "-o", os.path.join(tmp, "x"), "hi"], 3,
                     f"tensor 'h.0.mlp.c_fc.weight' holds {word} at element 17 [0, 17]")


def test_vocab_note(tmp):  # defect 10: said once
    d = os.path.join(tmp, "padded_vocab")
    make_model(d, "--vocab", "50304")
    r = run("trace", "-m", d, "-o", os.path.join(tmp, "padded.safetensors"), "hi")
    err = r.stderr.decode()
    check("a vocab_size above the tokenizer's is noted once", r.returncode == 0 and
          err.count("vocab_size 50304 is larger than its tokenizer's 50257 tokens") == 1, err)


def lesson(tmp, name, body, header_extra=""):
    p = os.path.join(tmp, name + ".lesson")
    with open(p, "w") as f:
        f.write("title: t\nlang: en\nmodel: default\n"
                'trace main: prompt="The weather is nice" file=01-weather.safetensors\n' + header_extra + body)
    return p


def test_lesson_numbers(tmp):  # defect 10: placeholders and the temperature
    traces = os.path.join(ROOT, "lessons", "traces")
    step = "---\nshow: attn.hook_pattern\nlayer: 0\nhead: 0\nview: heatmap\n\n%s\n"
    for i, ph in enumerate(["{{blocks.0.attn.hook_pattern[0,-9223372036854775808,0]}}",
                            "{{blocks.0.attn.hook_pattern[0,99999999999999999999,0]}}"]):
        p = lesson(tmp, f"index{i}", step % ph)
        expect_error(f"placeholder index {ph[27:-3]} is refused", ["lesson", "--text", p, "--traces", traces], 3,
                     "is out of range")
    for i, ph in enumerate(["{{token 4294967296}}", "{{token -99999999999}}"]):
        p = lesson(tmp, f"token{i}", step % ph)
        expect_error(f"{ph} is refused", ["lesson", "--text", p, "--traces", traces], 3, "token takes a token index")
    p = lesson(tmp, "cold", "---\nshow: hook_logits\nview: bars\ntemperature: 1e-38\n\nCold.\n")
    r = run("lesson", "--text", p, "--traces", traces)
    out = r.stdout.decode("utf-8", "replace")
    check("bars at temperature 1e-38 show no nan and a top probability of 1", r.returncode == 0 and "nan" not in out
          and "1.0000" in out, out[-500:])


def test_gelu_hostile_values(tmp):  # found by fuzz_render: 1e38 or inf in the FFN's activations
    if os.environ.get("TT_HAVE_GUI") == "0":
        print("skip  the gelu view of hostile activations: this build has no renderer (-Dgui=disabled)")
        return
    src = os.path.join(ROOT, "lessons", "traces", "09-relu.safetensors")
    header, data = read_st(src)
    if "blocks.0.mlp.hook_post" not in header:
        check("09-relu holds blocks.0.mlp.hook_post", False)
        return
    data = bytearray(data)
    for name, values in (("blocks.0.mlp.hook_post", (-1.03e38, math.inf)), ("blocks.0.mlp.hook_pre", (math.nan, 3e37))):
        begin = header[name]["data_offsets"][0]
        data[begin:begin + 8] = struct.pack("<2f", *values)
    p = os.path.join(tmp, "hostile_gelu.safetensors")
    write_st(p, header, bytes(data))
    out = os.path.join(tmp, "gelu.png")
    r = run("render", p, "--step", "mlp.hook_post", "--view", "gelu", "--size", "640x400", "-o", out, timeout=60)
    check("the gelu view of 1e38, inf and NaN activations draws (no hang, no overflow)",
          r is not None and r.returncode == 0 and os.path.getsize(out) > 0, r and r.stderr)
    # found by fuzz_render: the layers x heads overview of a hook outside the blocks found it
    # at every layer and never stopped
    ov = os.path.join(tmp, "overview.png")
    r = run("render", os.path.join(ROOT, "lessons", "traces", "01-weather.safetensors"), "--step", "hook_logits",
            "--view", "overview", "-o", ov, timeout=30)
    check("the overview of a hook outside the blocks draws (no endless walk over layers)",
          r is not None and r.returncode == 0 and os.path.getsize(ov) > 0, r and r.stderr)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["TTRACE_ASSETS"] = os.path.join(ROOT, "assets")
        for t in (test_shapes_that_wrap, test_duplicates, test_dtypes_read_as_they_are, test_nan_shown, test_escapes,
                  test_token_ids_range, test_fifo_does_not_hang, test_output_targets, test_nul_in_prompt,
                  test_long_word, test_non_finite_weights, test_vocab_note, test_lesson_numbers, test_gelu_hostile_values):
            sub = os.path.join(tmp, t.__name__)
            os.mkdir(sub)
            os.chdir(sub)
            t(sub)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


main()
