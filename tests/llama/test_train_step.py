#!/usr/bin/python3
"""`ttrace train-step` on a Llama folder: one SGD step's weights equal W - lr * dL/dW of the
float64 torch reference (torch_llama_grad.forward), the printed loss before the step is the
reference's, and the new folder traces again.

    test_train_step.py TTRACE
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from torch_llama_grad import Config, forward, load_weights  # noqa: E402

PY, LR, PROMPT = "/usr/bin/python3", 0.05, "The weather is nice today"


def main():
    ttrace = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="ttrace-llama-step-")
    src, dst, trace = (os.path.join(tmp, n) for n in ("model", "stepped", "t.safetensors"))
    subprocess.check_call([PY, os.path.join(HERE, "make_llama.py"), src, "--layers", "2", "--heads", "4", "--kv-heads",
                           "2", "--embd", "24", "--inner", "40", "--attention-bias"])
    subprocess.check_call([ttrace, "trace", "-q", "-m", src, "-o", trace, "--", PROMPT])
    out = subprocess.run([ttrace, "train-step", "-m", src, "--lr", str(LR), "-o", dst, PROMPT], capture_output=True,
                         text=True, check=True).stdout
    with open(trace, "rb") as f:
        n = int.from_bytes(f.read(8), "little")
        meta = json.loads(f.read(n))["__metadata__"]
    cfg, ids = Config(json.loads(meta["config"])), [int(i) for i in json.loads(meta["token_ids"])]
    w = {k: torch.tensor(v, requires_grad=True) for k, v in load_weights(src).items()}
    loss = forward(cfg, w, ids, {})
    loss.backward()
    new = load_weights(dst)
    fails = []
    for name, t in w.items():
        want = t.detach().numpy() - LR * t.grad.numpy()
        err = float(np.max(np.abs(new[name] - want)))
        if err > 1e-5 * max(1.0, float(np.max(np.abs(want)))):
            fails.append(f"{name}: max error {err:.3g}")
    printed = float(re.search(r"loss ([0-9.]+) ->", out).group(1))
    if abs(printed - loss.item()) > 1e-4 * max(1.0, loss.item()):
        fails.append(f"printed loss {printed} != reference {loss.item():.6f}")
    r = subprocess.run([ttrace, "trace", "-q", "-m", dst, "-o", os.path.join(tmp, "t2.safetensors"), "--", PROMPT])
    if r.returncode != 0:
        fails.append("the new folder does not trace")
    subprocess.call(["rm", "-rf", tmp])
    for f in fails:
        print("FAIL", f)
    print(f"{len(w)} weights checked, {len(fails)} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
