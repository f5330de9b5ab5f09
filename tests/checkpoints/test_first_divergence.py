#!/usr/bin/python3
"""`ttrace diff --tol` names the first hook, in the order the engine computed them, where two
traces part: two models that differ in one weight (changed here, byte for byte, with
stfile.py) part at the first hook that weight feeds, and nowhere before.

    test_first_divergence.py TTRACE
"""
import os
import shutil
import tempfile

import numpy as np

import common
import stfile

# weight changed -> the first hook that uses it
CASES = [
    ("h.1.mlp.c_fc.bias", "blocks.1.mlp.hook_pre"),
    ("h.0.ln_2.weight", "blocks.0.ln2.hook_out"),
    ("h.1.attn.c_attn.bias", "blocks.1.attn.hook_qkv"),
    ("ln_f.bias", "ln_final.hook_out"),
]
LINE = "first hook beyond tolerance, in A's order: "


def changed(src, dst, name):
    os.makedirs(dst)
    shutil.copy(os.path.join(src, "config.json"), dst)
    entries, meta = stfile.read(os.path.join(src, "model.safetensors"))
    out = []
    for n, dtype, shape, blob in entries:
        if n == name:
            a = np.frombuffer(blob, "<f4").copy()
            a[1] += 0.25
            blob = a.astype("<f4").tobytes()
        out.append((n, dtype, shape, blob))
    stfile.write(os.path.join(dst, "model.safetensors"), out, meta)
    return dst


def main():
    c = common.Checks(common.ttrace_arg())
    tmp = tempfile.mkdtemp(prefix="ttrace-part-")
    try:
        base = common.make_model(os.path.join(tmp, "base"), "--layers", "2", "--heads", "2", "--embd", "16")
        a = os.path.join(tmp, "a.safetensors")
        c.check("trace A", c.trace(base, a).returncode == 0)
        r = c.run("diff", "--tol", "0", a, a)
        c.check("a trace against itself names no hook", r.returncode == 0 and LINE not in r.stdout, r.stdout[-300:])
        for i, (weight, hook) in enumerate(CASES):
            b = os.path.join(tmp, f"b{i}.safetensors")
            c.check(f"trace B ({weight} changed)", c.trace(changed(base, os.path.join(tmp, f"m{i}"), weight), b).returncode == 0)
            r = c.run("diff", "--tol", "1e-6", "--quiet", a, b)
            named = [l[len(LINE):] for l in r.stdout.splitlines() if l.startswith(LINE)]
            c.check(f"{weight} changed: the traces part at {hook}", r.returncode == 1 and named == [hook],
                    r.stdout[-600:])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return c.done()


if __name__ == "__main__":
    raise SystemExit(main())
