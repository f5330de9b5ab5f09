#!/usr/bin/python3
"""`ttrace train-step --report` against numpy: the loss at each position before and after
(hook_loss of traces of the old and the new model), ||W_after - W_before|| of the weights
that moved most (from the two model files), and the rows of W_E that changed: with an
untied lm_head exactly the rows of the prompt's distinct tokens; tied, those and others.

    check_train_report.py TTRACE
"""
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
from gpt2_ref import read_safetensors  # noqa: E402

PY = "/usr/bin/python3"
PROMPT = "the cat and the dog and the cat"
fails = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        fails.append(what)


def weights(d):
    w, _ = read_safetensors(os.path.join(d, "model.safetensors"))
    return {(n[12:] if n.startswith("transformer.") else n): a.astype(np.float32) for n, a in w}


def hook_loss(ttrace, model, tmp):
    path = os.path.join(tmp, "t.safetensors")
    subprocess.check_call([ttrace, "trace", "-q", "-m", model, "--record", "hook_loss", "-o", path, "--", PROMPT])
    t, meta = read_safetensors(path)
    import json
    return dict(t)["hook_loss"].astype(np.float64), [int(i) for i in json.loads(meta["token_ids"])]


def one(ttrace, tmp, untied):
    model, new = os.path.join(tmp, "m"), os.path.join(tmp, "n")
    subprocess.check_call([PY, os.path.join(HERE, "..", "reference", "make_model.py"), model, "--layers", "2",
                           "--heads", "2", "--embd", "16"] + (["--untied"] if untied else []))
    out = subprocess.run([ttrace, "train-step", "-m", model, "--lr", "0.05", "--report", "-o", new, "--", PROMPT],
                         capture_output=True, text=True, check=True).stdout
    tag = "untied" if untied else "tied"
    before, ids = hook_loss(ttrace, model, tmp)
    after, _ = hook_loss(ttrace, new, tmp)
    rows = re.findall(r"^\s+(\d+)\s+'.*'\s+(\S+) ->\s+(\S+)$", out, re.M)
    check(len(rows) == len(before) and all(int(t) == i and abs(float(a) - before[i]) < 1e-5 and
                                           abs(float(b) - after[i]) < 1e-5 for i, (t, a, b) in enumerate(rows)),
          f"{tag}: the loss at each of the {len(before)} positions before and after")
    m = re.search(r"^\s+mean\s+(\S+) ->\s+(\S+)$", out, re.M)
    check(m and abs(float(m.group(1)) - before.mean()) < 1e-5 and abs(float(m.group(2)) - after.mean()) < 1e-5,
          f"{tag}: the mean loss {before.mean():.6f} -> {after.mean():.6f}")
    wa, wb = weights(model), weights(new)
    moved = sorted(((float(np.linalg.norm((wb[n].astype(np.float64) - wa[n].astype(np.float64)).ravel())), n)
                    for n in wb if n in wa), reverse=True)
    listed = re.findall(r"^  (\S+)\s+(\S+)$", out.split("moved most", 1)[1].split("rows of W_E")[0], re.M)
    check(len(listed) == min(12, len(moved)) and
          all(n == moved[i][1] and abs(float(v) - moved[i][0]) <= 1e-5 * moved[i][0] + 1e-9
              for i, (n, v) in enumerate(listed)), f"{tag}: the {len(listed)} weights that moved most, largest first")
    changed = np.nonzero(np.any(wb["wte.weight"] != wa["wte.weight"], axis=1))[0]
    distinct = sorted(set(ids))
    m = re.search(r"changed: (\d+) of (\d+); the prompt has (\d+) distinct tokens, (\d+) of them changed: ([\d ]+)", out)
    got = m and (int(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(4)), m.group(5).split())
    want = (len(changed), wa["wte.weight"].shape[0], len(distinct), len(set(changed) & set(distinct)),
            [str(i) for i in distinct])
    check(got == want, f"{tag}: W_E rows changed {got} == {want}")
    if untied:
        check(sorted(changed.tolist()) == distinct, f"untied: only the prompt's rows changed: {changed.tolist()}")
    subprocess.call(["rm", "-rf", model, new])


def main():
    ttrace = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        one(ttrace, tmp, True)
        one(ttrace, tmp, False)
    print(f"{len(fails)} failed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
