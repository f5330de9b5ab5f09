#!/usr/bin/python3
"""`ttrace diff` reads tensors of every dtype as they are: two traces whose U8, I64 and F64
tensors (outside the hook catalogue) differ by one element are different, with the right
max|A-B|, and `--tol 0` exits 1; a trace against itself is equal and exits 0.

    test_diff_dtypes.py TTRACE SOURCE_ROOT
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np

TTRACE, ROOT = sys.argv[1], sys.argv[2]
WORDS = os.path.join(ROOT, "lessons", "traces", "02-words.safetensors")
failed = 0


def check(name, ok, detail=""):
    global failed
    print(("ok    " if ok else "FAIL  ") + name + ("" if ok else f": {detail}"))
    failed += not ok


def with_tensors(path, tensors):
    raw = open(WORDS, "rb").read()
    (n,) = struct.unpack("<Q", raw[:8])
    header, body = json.loads(raw[8:8 + n]), bytearray(raw[8 + n:])
    names = {np.uint8: "U8", np.int64: "I64", np.float64: "F64"}
    for name, a in tensors.items():
        while len(body) % 8:
            body.append(0)
        blob = a.astype(a.dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": names[a.dtype.type], "shape": list(a.shape), "data_offsets": [len(body), len(body) + len(blob)]}
        body += blob
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    open(path, "wb").write(struct.pack("<Q", len(text)) + text + bytes(body))


def row(out, name):
    for line in out.splitlines():
        if line.split() and line.split()[0] == name:
            return line.split()
    return None


with tempfile.TemporaryDirectory() as tmp:
    a_t = {"extra_u8": np.arange(1, 9, dtype=np.uint8), "extra_i64": np.array([-5, 1 << 40], dtype=np.int64),
           "extra_f64": np.array([0.1, 2.5], dtype=np.float64)}
    b_t = {k: v.copy() for k, v in a_t.items()}
    b_t["extra_u8"][3] += 1
    b_t["extra_i64"][0] -= 1
    b_t["extra_f64"][1] += 0.5
    a, b = os.path.join(tmp, "a.safetensors"), os.path.join(tmp, "b.safetensors")
    with_tensors(a, a_t)
    with_tensors(b, b_t)
    r = subprocess.run([TTRACE, "diff", "--tol", "0", a, b], capture_output=True)
    out = r.stdout.decode("utf-8", "replace")
    check("diff --tol 0 of traces whose U8/I64/F64 tensors differ exits 1", r.returncode == 1, f"exit {r.returncode}")
    for name, want_max, want_diff in (("extra_u8", 8, 1), ("extra_i64", 2 ** 40, 1), ("extra_f64", 2.5, 0.5)):
        cols = row(out, name)
        close = lambda text, want: abs(float(text) - want) <= 1e-4 * want  # printed with 5 digits
        ok = cols is not None and len(cols) >= 5 and close(cols[2], want_max) and close(cols[3], want_diff)
        check(f"{name}: max|A| {want_max}, max|A-B| {want_diff}", ok, f"row {cols}")
    r = subprocess.run([TTRACE, "diff", "--tol", "0", a, a], capture_output=True)
    check("a trace against itself: diff --tol 0 exits 0", r.returncode == 0, r.stdout.decode()[-300:])
sys.exit(1 if failed else 0)
