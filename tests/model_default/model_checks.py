"""Checks shared by the classroom models' tests (tests/model_default, tests/model_llama):
ttrace's trace of a committed model folder against the expected.json and heads.json that
tools/probe.py wrote with its own forward pass, and against an independent reference."""
import json
import os
import struct
import subprocess

import numpy as np

PY = "/usr/bin/python3"


class Checks:
    def __init__(self):
        self.passed, self.failed = 0, 0

    def __call__(self, name, ok, detail=""):
        if ok:
            self.passed += 1
            print(f"ok    {name}")
        else:
            self.failed += 1
            print(f"FAIL  {name}: {detail}")

    def summary(self):
        print(f"{self.passed} passed, {self.failed} failed")
        return 1 if self.failed else 0


def read_safetensors(path):
    """As in docs/trace-format.md: 8-byte header length, JSON header, raw little-endian data."""
    dtypes = {"F32": np.float32, "F16": np.float16, "I32": np.int32, "BF16": None}
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    meta = header.pop("__metadata__", {})
    out = {}
    for name, info in header.items():
        begin, end = info["data_offsets"]
        out[name] = np.frombuffer(raw[8 + n + begin:8 + n + end], dtype=dtypes[info["dtype"]]).reshape(info["shape"])
    return out, meta, header


def trace(ttrace, tmp, prompt, model, tag="t"):
    """`ttrace trace -m MODEL` (model None: no -m) into tmp; the tensors, metadata and path."""
    out = os.path.join(tmp, tag + ".safetensors")
    args = [ttrace, "trace", "-q"] + (["-m", model] if model else []) + ["-o", out, "--", prompt]
    r = subprocess.run(args, capture_output=True, timeout=120)
    if r.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr.decode(errors="replace")))
    t, meta, _ = read_safetensors(out)
    return t, meta, out


def same_top5(probs, exp_ids, exp_probs, tol):
    """The recorded top-5, allowing neighbours whose probabilities differ by less than tol to swap."""
    order = np.argsort(-probs, kind="stable")[:5].tolist()
    return all(a == b or abs(probs[a] - probs[b]) < tol for a, b in zip(order, exp_ids))


def run_checks(prefix, body):
    """body(tmp) in a fresh temporary folder, removed afterwards."""
    import shutil
    import tempfile
    tmp = tempfile.mkdtemp(prefix=prefix)
    try:
        body(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def probe_files(model):
    """expected.json and heads.json of a model folder (written by tools/probe.py)."""
    with open(os.path.join(model, "expected.json"), encoding="utf-8") as f:
        expected = json.load(f)
    with open(os.path.join(model, "heads.json")) as f:
        return expected, json.load(f)


def check_expected(check, ttrace, tmp, model, expected):
    """Every prompt of expected.json: ids, top-5 and their probabilities; returns the traces."""
    traces = {}
    for i, e in enumerate(expected["prompts"]):
        t, _, _ = trace(ttrace, tmp, e["prompt"], model, tag="p%d" % i)
        traces[e["prompt"]] = t
        ids = t["tokens"].tolist()
        check(f"ids of {e['prompt']!r}", ids == e["ids"], f"{ids} != {e['ids']}")
        last = t["hook_probs"][-1].astype(np.float64)
        check(f"probabilities of {e['prompt']!r} sum to 1", abs(last.sum() - 1) < 1e-4, str(last.sum()))
        top = np.argsort(-last, kind="stable")[:5].tolist()
        check(f"top-5 after {e['prompt']!r}", same_top5(last, e["top5_ids"], e["top5_probs"], 1e-4),
              f"{top} != {e['top5_ids']}")
        diff = max(abs(last[i] - p) for i, p in zip(e["top5_ids"], e["top5_probs"]))
        check(f"top-5 probabilities after {e['prompt']!r}", diff < 1e-4, f"max diff {diff:.2e}")
    return traces


def check_heads(check, traces, heads, at_least_one=True):
    """The heads the model card names (heads.json, from probe.py), on ttrace's own hook_pattern;
    at_least_one: the card must name one (the first model has induction and first-token heads)."""
    drill = next(p for p in traces if p.startswith("Say the words:"))
    ids = traces[drill]["tokens"].tolist()
    second = len(ids) - 1 - ids[::-1].index(25)          # the last ':' starts the second list
    for l, h, v in heads["induction_heads"]:
        P = traces[drill]["blocks.%d.attn.hook_pattern" % l][h]
        vals = [P[q, ids.index(ids[q]) + 1] for q in range(second + 1, len(ids))]
        check(f"induction head {l}.{h} looks at what followed the earlier copy (mean {np.mean(vals):.2f})",
              np.mean(vals) > 0.5, f"{vals} (heads.json {v})")
    for l, h, v in heads["first_token_heads"]:
        vals = [traces[p]["blocks.%d.attn.hook_pattern" % l][h][q, 0]
                for p in ("The weather is nice", "The dog bit the") for q in range(2, len(traces[p]["tokens"]))]
        check(f"first-token head {l}.{h} looks at 'The' (mean {np.mean(vals):.2f})", np.mean(vals) > 0.5,
              f"{vals} (heads.json {v})")
    if at_least_one:
        check("the card names at least one interpretable head",
              len(heads["induction_heads"]) + len(heads["first_token_heads"]) > 0)


def check_reference(check, ttrace, tmp, model, root, ref):
    """The whole trace of an English and a Korean prompt against tests/reference/REF."""
    for tag, prompt in (("ref_en", "The weather is nice"), ("ref_ko", "철수는 영희에게 책을 주었다. 그는 기뻐했다.")):
        _, _, path = trace(ttrace, tmp, prompt, model, tag=tag)
        r = subprocess.run([PY, os.path.join(root, "tests", "reference", ref), "--quiet", model, path],
                           capture_output=True, timeout=300)
        check(f"{ref} agrees with the trace of {prompt!r}", r.returncode == 0,
              (r.stdout + r.stderr).decode(errors="replace")[-800:])
