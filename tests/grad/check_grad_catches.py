#!/usr/bin/python3
"""The gradient reference itself: a trace whose gradients are wrong must fail it.

    check_grad_catches.py TTRACE

Makes a random model, traces it with --grad, checks that torch_grad_ref.py passes the
trace as written (rewritten through this script unchanged) and fails each planted bug:
the pattern's gradient zeroed above the diagonal (where A is 0 but dL/dA = dz·v is not),
the tied embedding missing the unembedding's share, a bias gradient off in one entry,
the last row of the logits' gradient not zero, a gradient missing, one that should not exist.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"


def read(path):
    blob = open(path, "rb").read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8 : 8 + n])
    meta = header.pop("__metadata__")
    tensors = {}
    for name, info in header.items():
        b, e = info["data_offsets"]
        dt = {"F32": "<f4", "I32": "<i4"}[info["dtype"]]
        tensors[name] = np.frombuffer(blob[8 + n + b : 8 + n + e], dtype=dt).reshape(info["shape"]).copy()
    return tensors, meta


def write(path, tensors, meta):
    header, blobs, off = {"__metadata__": meta}, [], 0
    for name, a in tensors.items():
        data = a.tobytes()
        header[name] = {"dtype": "F32" if a.dtype == np.float32 else "I32", "shape": list(a.shape),
                        "data_offsets": [off, off + len(data)]}
        blobs.append(data)
        off += len(data)
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def pattern_upper_zero(t):
    a = t["grad.blocks.0.attn.hook_pattern"]
    T = a.shape[-1]
    a[:, np.triu(np.ones((T, T), dtype=bool), k=1)] = 0.0


def wte_lookup_only(t):
    # the embedding rows the prompt used keep their gradient; the unembedding's share elsewhere is lost
    g = t["grad.wte.weight"]
    used = set(int(i) for i in t["tokens"])
    for v in range(g.shape[0]):
        if v not in used:
            g[v] = 0.0


def bias_off(t):
    b = t["grad.h.1.mlp.c_fc.bias"]
    b[3] += 0.01 * float(np.max(np.abs(b)))


def logits_last_row(t):
    g = t["grad.hook_logits"]
    g[-1] = g[0]


def drop_embed(t):
    del t["grad.hook_embed"]


def extra_mean(t):
    t["grad.blocks.0.ln1.hook_mean"] = np.zeros(t["tokens"].shape, dtype=np.float32)


BUGS = [pattern_upper_zero, wte_lookup_only, bias_off, logits_last_row, drop_embed, extra_mean]


def main():
    ttrace = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="ttrace-grad-catches-")
    try:
        model, trace = os.path.join(tmp, "model"), os.path.join(tmp, "trace.safetensors")
        subprocess.check_call([PY, os.path.join(HERE, "..", "reference", "make_model.py"), model, "--layers", "2",
                               "--heads", "2", "--embd", "16"])
        subprocess.check_call([ttrace, "trace", "-q", "--grad", "-m", model, "-o", trace, "ab ab cd"])
        failures = 0
        for bug in [None] + BUGS:
            tensors, meta = read(trace)
            if bug:
                bug(tensors)
            path = os.path.join(tmp, "planted.safetensors")
            write(path, tensors, meta)
            rc = subprocess.call([PY, os.path.join(HERE, "torch_grad_ref.py"), model, path, "--quiet"],
                                 stdout=subprocess.DEVNULL)
            name = bug.__name__ if bug else "unchanged"
            want = 0 if bug is None else 1
            ok = rc == want
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {name}: reference exit {rc} (want {want})")
        return 1 if failures else 0
    finally:
        subprocess.call(["rm", "-rf", tmp])


if __name__ == "__main__":
    sys.exit(main())
