#!/usr/bin/python3
"""The what-if experiments the lessons rest on, checked independently with numpy.

  permutation   (lesson 3) With positions and the mask off, " dog bites man" and
                " man bites dog" (and " I love you" and " you love I") give the same
                output rows, permuted: A[i] = B[P[i]] for
                every (T, C) tensor, where P maps A's tokens onto B's. `ttrace diff
                --permute` says the same. With positions on, the rows differ.
  identity_ffn  (lesson 9) With the identity activation the FFN is one linear map:
                mlp_out = x·(W_fc·W_proj) + (b_fc·W_proj + b_proj), with W and b read from
                the model file (float64 here), x = ln2's output. Skips (77) without the model.

    check_whatif.py permutation|identity_ffn TTRACE SOURCE_ROOT
"""
import glob
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from safetensors_np import load  # noqa: E402

MODE, TTRACE, ROOT = sys.argv[1], sys.argv[2], sys.argv[3]
TRACES = os.path.join(ROOT, "lessons", "traces")
failed = 0


def check(name, ok, detail=""):
    global failed
    print(("ok    " if ok else "FAIL  ") + name + ("" if ok else ": " + detail))
    failed += not ok


def close(a, b):
    """max|a-b| within 1e-4 * max(1, max|a|)."""
    err = float(np.max(np.abs(a - b))) if a.size else 0.0
    return err <= 1e-4 * max(1.0, float(np.max(np.abs(a)))), err


def permutation():
    for pair in (("03-perm-a", "03-perm-b"), ("03-love-a", "03-love-b")):
        permuted_pair(*pair)


def permuted_pair(name_a, name_b):
    a, ma = load(os.path.join(TRACES, name_a + ".safetensors"))
    b, mb = load(os.path.join(TRACES, name_b + ".safetensors"))
    ta, tb = list(a["tokens"]), list(b["tokens"])
    check("same tokens, another order", sorted(ta) == sorted(tb) and ta != tb, f"{ta} vs {tb}")
    P = [tb.index(t) for t in ta]  # A's token i is B's token P[i]
    check("distinct tokens", len(set(ta)) == len(ta), str(ta))
    T = len(ta)
    shown = 0
    for name, x in a.items():
        if x.ndim != 2 or x.shape[0] != T or name not in b:
            continue
        ok, err = close(x, b[name][P])
        check(f"{name}: A[i] = B[P[i]] (max err {err:.2e})", ok)
        shown += 1
    check("the traces hold (T, C) tensors to compare", shown >= 3, str(shown))
    cmd = [TTRACE, "diff", "--permute", ",".join(map(str, P)), "--tol", "1e-4",
           os.path.join(TRACES, name_a + ".safetensors"), os.path.join(TRACES, name_b + ".safetensors")]
    r = subprocess.run(cmd, capture_output=True, text=True)
    check("ttrace diff --permute says SAME", r.returncode == 0 and "SAME: 0 problems" in r.stdout, r.stdout[-400:])
    r = subprocess.run(cmd[:2] + cmd[4:], capture_output=True, text=True)
    check("ttrace diff without --permute says DIFFERENT", r.returncode == 1 and "DIFFERENT" in r.stdout,
          r.stdout[-400:])
    if name_a != "03-perm-a":
        return
    # With positions on, order matters: the row of the same token differs.
    pa, _ = load(os.path.join(TRACES, "03-perm-pos-a.safetensors"))
    pb, _ = load(os.path.join(TRACES, "03-perm-pos-b.safetensors"))
    x, y = pa["ln_final.hook_out"], pb["ln_final.hook_out"][P]
    err = float(np.max(np.abs(x - y)))
    check(f"with positions the permuted rows differ (max {err:.3f})", err > 1e-2)


def identity_ffn():
    tr, meta = load(os.path.join(TRACES, "09-identity.safetensors"))
    models = sorted(glob.glob(os.path.join(ROOT, "assets", "models", "*", "model.safetensors")))
    if not models:
        print("skip: the default model is not installed")
        sys.exit(77)
    want = os.path.basename(meta.get("model", "").rstrip("/"))
    path = next((m for m in models if os.path.basename(os.path.dirname(m)) == want), models[0])
    w, _ = load(path)
    w = {k[len("transformer."):] if k.startswith("transformer.") else k: v.astype(np.float64) for k, v in w.items()}
    layers = sorted({int(k.split(".")[1]) for k in tr if k.startswith("blocks.")})
    check("the trace holds blocks", len(layers) >= 1)
    for L in layers:
        x = tr[f"blocks.{L}.ln2.hook_out"].astype(np.float64)                     # (T, C)
        pre, post = tr[f"blocks.{L}.mlp.hook_pre"], tr[f"blocks.{L}.mlp.hook_post"]
        check(f"layer {L}: identity leaves the pre-activations as they are", np.array_equal(pre, post))
        W1, b1 = w[f"h.{L}.mlp.c_fc.weight"], w[f"h.{L}.mlp.c_fc.bias"]          # (C, F), (F)
        W2, b2 = w[f"h.{L}.mlp.c_proj.weight"], w[f"h.{L}.mlp.c_proj.bias"]      # (F, C), (C)
        W, b = W1 @ W2, b1 @ W2 + b2                                              # (C, C), (C)
        out = tr[f"blocks.{L}.hook_mlp_out"].astype(np.float64)
        ok, err = close(out, x @ W + b)
        check(f"layer {L}: mlp_out = x·(W_fc·W_proj) + b (one (C, C) matrix; max err {err:.2e})", ok)
        # and it is not a coincidence of tiny numbers
        check(f"layer {L}: the FFN output is not negligible", float(np.max(np.abs(out))) > 1e-2)


{"permutation": permutation, "identity_ffn": identity_ffn}[MODE]()
sys.exit(1 if failed else 0)
