#!/usr/bin/python3
"""The command line as a user meets it: help and version, the numpy snippet from
docs/trace-format.md, and every kind of bad input giving one clear line on stderr, a
non-zero exit code and no output file.

    test_cli.py TTRACE SOURCE_ROOT
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

TTRACE, ROOT = sys.argv[1], sys.argv[2]
MAKE_MODEL = os.path.join(ROOT, "tests", "reference", "make_model.py")
passed, failed = 0, 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok    {name}")
    else:
        failed += 1
        print(f"FAIL  {name}: {detail}")


def run(*args, stdin=None):
    return subprocess.run([TTRACE, *args], capture_output=True, text=False, input=stdin, timeout=120)


def expect_failure(name, args, code, fragment, out_path=None, stdin=None):
    r = run(*args, stdin=stdin)
    err = r.stderr.decode("utf-8", "replace")
    lines = [l for l in err.splitlines() if l.strip()]
    ok = r.returncode == code and len(lines) == 1 and fragment in err
    if out_path:
        leftovers = [f for f in os.listdir(os.path.dirname(out_path)) if f.startswith(os.path.basename(out_path))]
        ok = ok and not leftovers
    check(name, ok, f"exit {r.returncode}, stderr {err!r}")


def make_model(path, *extra):
    subprocess.run([sys.executable, MAKE_MODEL, path, "--layers", "1", "--heads", "2", "--embd", "16",
                    "--positions", "8", *extra], check=True, capture_output=True)


def with_tensor_changed(src, dst, name, new_dtype=None, new_shape=None, drop=False):
    """Copies a model folder, rewriting one tensor's header entry (data kept consistent)."""
    shutil.copytree(src, dst)
    raw = open(os.path.join(src, "model.safetensors"), "rb").read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    data = raw[8 + n:]
    items = [(k, v) for k, v in header.items() if k != "__metadata__"]
    out, blobs, off = {}, [], 0
    for k, v in sorted(items, key=lambda kv: kv[1]["data_offsets"][0]):
        blob = data[v["data_offsets"][0]:v["data_offsets"][1]]
        if k == name and drop:
            continue
        if k == name and new_dtype:
            v = dict(v, dtype=new_dtype)
        if k == name and new_shape:
            v = dict(v, shape=new_shape)
            count = 1
            for d in new_shape:
                count *= d
            blob = (blob * (4 * count // max(len(blob), 1) + 1))[:4 * count]
        out[k] = dict(v, data_offsets=[off, off + len(blob)])
        blobs.append(blob)
        off += len(blob)
    text = json.dumps(out).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(os.path.join(dst, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def main():
    tmp = tempfile.mkdtemp(prefix="tt_cli_")
    try:
        r = run("--help")
        check("--help lists trace and dump", r.returncode == 0 and b"trace" in r.stdout and b"dump" in r.stdout)
        r = run("--version")
        check("--version", r.returncode == 0 and re.match(rb"ttrace \d+\.\d+", r.stdout) is not None)
        for cmd in ("trace", "dump", "tokenize"):
            r = run(cmd, "--help")
            check(f"{cmd} --help", r.returncode == 0 and b"usage: ttrace " + cmd.encode() in r.stdout)
        expect_failure("unknown command", ["frobnicate"], 2, "unknown command")

        good = os.path.join(tmp, "good")
        make_model(good)
        out = os.path.join(tmp, "out.safetensors")
        r = run("trace", "-m", good, "-o", out, "The weather is nice")
        check("trace a random model", r.returncode == 0 and os.path.exists(out), r.stderr)

        # The numpy snippet from the format documentation, run as a reader would.
        doc = open(os.path.join(ROOT, "docs", "trace-format.md"), encoding="utf-8").read()
        snippet = re.search(r"```python\n(.*?)```", doc, re.S).group(1).replace('"weather.safetensors"', repr(out))
        r = subprocess.run([sys.executable, "-c", snippet], capture_output=True, text=True, cwd=tmp)
        check("docs/trace-format.md snippet loads the trace",
              r.returncode == 0 and "The weather is nice" in r.stdout, r.stderr[-500:])

        r = run("dump", out, "blocks.0.attn.hook_pattern")
        check("dump a hook as a table", r.returncode == 0 and b"[h1]" in r.stdout and b"3: nice" in r.stdout)

        o = os.path.join(tmp, "x.safetensors")
        expect_failure("missing model folder", ["trace", "-m", os.path.join(tmp, "nope"), "-o", o, "hi"], 4, "nope", o)
        empty = os.path.join(tmp, "empty")
        os.mkdir(empty)
        expect_failure("folder without config.json", ["trace", "-m", empty, "-o", o, "hi"], 4, "config.json", o)
        trunc = os.path.join(tmp, "trunc")
        shutil.copytree(good, trunc)
        st = os.path.join(trunc, "model.safetensors")
        size = os.path.getsize(st)
        with open(st, "r+b") as f:
            f.truncate(size // 2)
        expect_failure("truncated safetensors", ["trace", "-m", trunc, "-o", o, "hi"], 3, "truncated", o)
        badjson = os.path.join(tmp, "badjson")
        shutil.copytree(good, badjson)
        with open(os.path.join(badjson, "model.safetensors"), "r+b") as f:
            f.seek(8)
            f.write(b"{{{{")
        expect_failure("corrupt header JSON", ["trace", "-m", badjson, "-o", o, "hi"], 3, "not valid JSON", o)
        missing = os.path.join(tmp, "missing")
        with_tensor_changed(good, missing, "h.0.ln_2.bias", drop=True)
        expect_failure("missing tensor", ["trace", "-m", missing, "-o", o, "hi"], 3, "h.0.ln_2.bias", o)
        shape = os.path.join(tmp, "shape")
        with_tensor_changed(good, shape, "h.0.mlp.c_fc.weight", new_shape=[16, 60])
        expect_failure("wrong shape", ["trace", "-m", shape, "-o", o, "hi"], 3, "(16, 64)", o)
        dtype = os.path.join(tmp, "dtype")
        with_tensor_changed(good, dtype, "ln_f.bias", new_dtype="I32")
        expect_failure("unsupported dtype", ["trace", "-m", dtype, "-o", o, "hi"], 3, "I32", o)
        expect_failure("prompt longer than n_positions",
                       ["trace", "-m", good, "-o", o, "one two three four five six seven eight nine"], 3, "at most 8", o)
        expect_failure("empty prompt", ["trace", "-m", good, "-o", o, ""], 3, "empty", o)
        expect_failure("invalid UTF-8 from stdin", ["trace", "-m", good, "-o", o, "-"], 3, "UTF-8", o,
                       stdin=b"caf\xe9 au lait")
        expect_failure("unwritable output", ["trace", "-m", good, "-o", "/nonexistent-dir/x.safetensors", "hi"], 4,
                       "/nonexistent-dir")
        expect_failure("unknown --set key", ["trace", "-m", good, "--set", "colour=red", "-o", o, "hi"], 3, "colour", o)
        expect_failure("missing -o", ["trace", "-m", good, "hi"], 2, "-o")
        garbage = os.path.join(tmp, "garbage.safetensors")
        with open(garbage, "wb") as f:
            f.write(b"\x00" * 3)
        expect_failure("dump of a malformed trace", ["dump", garbage], 3, "too short")
        expect_failure("dump of a model file (not a trace)", ["dump", os.path.join(good, "model.safetensors")], 3,
                       "not a ttrace trace")
        expect_failure("dump of a missing hook", ["dump", out, "blocks.9.*"], 3, "no tensor matching")
        r = run("trace", "-m", good, "--record", "none", "-o", o, "hi")
        check("--record none writes a trace with no tensors", r.returncode == 0 and b"0 tensors" in r.stdout, r.stdout)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
