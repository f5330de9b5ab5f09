#!/usr/bin/python3
"""Tensors outside the hook catalogue may have any dtype: `ttrace diff` compares F64, I64
and U8 ones by value (two different tensors are never called identical; --tol 0 fails)
and `ttrace dump` prints their values, both against numpy. The traces are a random
model's (tests/reference/make_model.py) with probe tensors added by hand.

    check_dtypes.py TTRACE SOURCE_ROOT
"""
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

import numpy as np

TTRACE, ROOT = sys.argv[1], sys.argv[2]
failed = 0


def check(name, ok, detail=""):
    global failed
    print(("ok    " if ok else "FAIL  ") + name + ("" if ok else ": " + detail))
    failed += not ok


def add_tensors(src, dst, extra):
    """Copies trace src to dst with extra {name: ndarray} appended (8-byte aligned)."""
    with open(src, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header, data = json.loads(raw[8:8 + n]), bytearray(raw[8 + n:])
    names = {np.dtype("<f8"): "F64", np.dtype("<i8"): "I64", np.dtype("u1"): "U8"}
    for name, a in extra.items():
        data += b"\0" * (-len(data) % 8)
        header[name] = {"dtype": names[a.dtype], "shape": list(a.shape),
                        "data_offsets": [len(data), len(data) + a.nbytes]}
        data += a.tobytes()
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(dst, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + bytes(data))


def run(*args):
    return subprocess.run([TTRACE, *args], capture_output=True, text=True, timeout=120)


with tempfile.TemporaryDirectory() as tmp:
    model = os.path.join(tmp, "m")
    subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "tests", "reference", "make_model.py"), model, "--layers",
                    "1", "--heads", "2", "--embd", "8", "--vocab", "50257", "--positions", "16"],
                   check=True, capture_output=True)
    base = os.path.join(tmp, "base.safetensors")
    r = run("trace", "-q", "-m", model, "-o", base, "The weather is nice")
    assert r.returncode == 0, r.stderr
    a_extra = {"probe_f64": np.array([1e-300, 2.5, -3.0]), "probe_i64": np.array([5000000000, 1, 2], "<i8"),
               "probe_u8": np.arange(1, 9, dtype="u1")}
    b_extra = {"probe_f64": np.array([0.0, 2.5, -3.0]), "probe_i64": np.array([5000000001, 1, 2], "<i8"),
               "probe_u8": np.array([1, 2, 3, 4, 5, 6, 7, 200], "u1")}
    A, B = os.path.join(tmp, "a.safetensors"), os.path.join(tmp, "b.safetensors")
    add_tensors(base, A, a_extra)
    add_tensors(base, B, b_extra)

    r = run("diff", A, B, "probe_*", "--tol", "0")
    check("--tol 0: different probes are DIFFERENT (exit 1)", r.returncode == 1 and "DIFFERENT: 3 problems" in r.stdout,
          r.stdout[-400:])
    for name in a_extra:
        x, y = a_extra[name].astype(np.float64), b_extra[name].astype(np.float64)
        want = (np.max(np.abs(x)), np.max(np.abs(x - y)))
        m = re.search(r"^%s\s+\(.*?\)\s+(\S+)\s+(\S+)" % name, r.stdout, re.M)
        got = tuple(float(v) for v in m.groups()) if m else None
        ok = got is not None and all(abs(g - w) <= 1e-4 * abs(w) for g, w in zip(got, want))
        check(f"{name}: max|A| and max|A-B| by value", ok, f"{got} vs {want}")
    r = run("diff", A, A, "probe_*", "--tol", "0")
    check("a trace against itself: SAME", r.returncode == 0 and "SAME: 0 problems" in r.stdout, r.stdout[-300:])

    r = run("dump", A, "probe_u8")
    values = r.stdout.strip().splitlines()[-1].split()[1:]
    check("dump prints U8 values", r.returncode == 0 and values == [f"{v:.4f}" for v in range(1, 9)], r.stdout)
    r = run("dump", A)
    line = [l for l in r.stdout.splitlines() if l.startswith("probe_i64 ")]
    check("dump summary of I64: min 1, max 5e9", line and line[0].split()[3:5] == ["1", "5e+09"], str(line))
sys.exit(1 if failed else 0)
