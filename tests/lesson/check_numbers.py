#!/usr/bin/python3
"""Every number a lesson prints, recomputed independently from its traces with numpy.

For every lesson (en and ko), every {{...}} placeholder is evaluated here from its meaning
(max, mean, std, norm, list, argmax, shape, size, config, token ...) and printed at its
format; `ttrace lesson FILE --text` must show exactly the narration with those numbers.
Every check: claim is evaluated here too (same grammar, numpy arithmetic). The lesson 9
collapse view's numbers (A, B and max |A - B|) are checked against
x·(W_fc·W_proj) + (b_fc·W_proj + b_proj) computed here from the model file.

    check_numbers.py TTRACE SOURCE_ROOT
"""
import glob
import json
import math
import os
import re
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from safetensors_np import load  # noqa: E402

TTRACE, ROOT = sys.argv[1], sys.argv[2]
TRACES = os.path.join(ROOT, "lessons", "traces")
FUNCS = {"value", "max", "min", "absmax", "mean", "std", "sum", "norm", "argmax", "argmin", "word", "list",
         "shape", "size", "token", "config", "lensword", "lensp", "lensid", "cost",
         "nearword", "nearid", "nearcos", "cosine"}
DERIVED = {"lensp", "lensid", "cost", "nearid", "nearcos", "cosine"}
failed = 0


def parse_lesson(path):
    """(traces {name: file}, steps [(trace name, narration)])."""
    text = open(path, encoding="utf-8").read()
    head, *steps = text.split("\n---\n")
    traces = {}
    for line in head.splitlines():
        m = re.match(r"trace (\w+): .*file=(\S+)", line)
        if m:
            traces[m.group(1)] = m.group(2)
    out = []
    for s in steps:
        fields, _, narr = s.partition("\n\n")
        tr, checks = next(iter(traces)), []
        for f in fields.splitlines():
            if f.startswith("trace: "):
                tr = f[7:].strip()
            if f.startswith("check: "):
                checks.append(f[7:].strip())
        out.append((tr, narr, checks))
    return traces, out


def fmt(v, spec, integral):
    if not spec:
        spec = "%.0f" if integral else "%.3g"
    pct = spec.endswith("p")
    s = (spec[:-1] + "f" if pct else spec) % (v * 100 if pct else v)
    if s.startswith("-") and set(s[1:]) <= set("0."):
        s = s[1:]
    return s + ("%" if pct else "")


def _sibling(name):
    d = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", name)
    if d not in sys.path:
        sys.path.insert(0, d)
    return __import__("check_" + name)


_MODEL = []


def derived(func, ref, default, traces, loaded):
    """lensp, lensid (the logit lens of tests/lens with the default model) and cost (the count of
    tests/cost from the trace's config) as numbers."""
    tname = default
    if ":" in ref and ("[" not in ref or ref.index(":") < ref.index("[")):
        tname, ref = ref.split(":", 1)
    tensors, meta = loaded[traces[tname]]
    cfg = json.loads(meta["config"])
    T = len(json.loads(meta["token_ids"]))
    if func == "cost":
        ops = _sibling("cost").count(cfg, T, 0, False)
        dec = _sibling("cost").count(cfg, 1, T, True)
        p = dec if ref.startswith("decode_") else ops
        key = ref[7:] if ref.startswith("decode_") else ref
        flops = sum(o[2] for o in p)
        nbytes = sum(o[3] + o[4] for o in p)
        C = cfg["n_embd"]
        return {"flops": flops, "bytes": nbytes, "intensity": flops / nbytes,
                "matmul_share": sum(o[2] for o in p if o[1] == "matmul") / flops,
                "logits_share": sum(o[2] for o in p if o[0] == "hook_logits") / flops,
                "qkv_flops": 2 * T * C * 3 * C + 3 * T * C,
                "qkv_fused_bytes": 4 * (T * C + 3 * C * C + 3 * C + 3 * T * C),
                "qkv_separate_bytes": 3 * 4 * (T * C + C * C + C + T * C)}[key]
    if not _MODEL:
        w, _ = load(os.path.join(ROOT, "assets", "models", "tiny-classroom", "model.safetensors"))
        _MODEL.append({k[len("transformer."):] if k.startswith("transformer.") else k: v for k, v in w.items()})
    if func in ("nearid", "nearcos", "cosine"):
        return embedding(func, ref, meta, _MODEL[0]["wte.weight"].astype(np.float64))
    name, pos = ref[:-1].split("[")
    rows = dict(_sibling("lens").lens(tensors, meta, _MODEL[0]).values())
    z = rows[name][int(pos)]
    e = np.exp(z - z.max())
    return float(np.argmax(z)) if func == "lensid" else float(e.max() / e.sum())


def embedding(func, ref, meta, W):
    """cosine tokens[P,Q]: cos of the rows of W_E of tokens P and Q; nearid / nearcos tokens[P,K]: the
    K-th nearest row to token P's, rows equal bit for bit taken once (their lowest id), P's own left out."""
    ids = json.loads(meta["token_ids"])
    a, b = (int(x) for x in ref[ref.index("[") + 1:-1].split(","))
    norms = np.linalg.norm(W, axis=1)
    q = ids[a]
    cos = W @ W[q] / np.where(norms * norms[q] > 0, norms * norms[q], np.inf)
    if func == "cosine":
        return float(cos[ids[b]])
    _, group, _ = np.unique(W, axis=0, return_inverse=True, return_counts=True)
    group = group.reshape(-1)
    seen, order = {int(group[q])}, []
    for i in np.argsort(-cos, kind="stable"):
        if int(group[i]) not in seen:
            seen.add(int(group[i]))
            order.append(int(np.flatnonzero(group == group[i]).min()))
        if len(order) > b:
            break
    return float(order[b]) if func == "nearid" else float(cos[order[b]])


def raw(body, default, traces, loaded):
    """A placeholder body as a number (a named function) or an array (a plain slice)."""
    words = body.split()
    func = words[0] if words[0] in FUNCS else "value"
    if func in DERIVED:
        return derived(func, words[1], default, traces, loaded)
    if func == "config":
        return float(evaluate(body, default, traces, loaded))
    rest = words[1:] if words[0] in FUNCS else words
    ref, tname = rest[0], default
    if ":" in ref and ("[" not in ref or ref.index(":") < ref.index("[")):
        tname, ref = ref.split(":", 1)
    tensors, _ = loaded[traces[tname]]
    name, idx = ref, []
    if "[" in ref:
        name, inner = ref[:-1].split("[", 1)
        idx = [slice(None) if i.strip() == ":" else int(i) for i in inner.split(",")]
    a = np.asarray(tensors[name][tuple(idx)] if idx else tensors[name], dtype=np.float64).reshape(-1)
    fin = a[np.isfinite(a)]
    return {"value": lambda: a if a.size > 1 else a[0], "max": a.max, "min": a.min, "absmax": lambda: np.abs(a).max(),
            "mean": lambda: fin.sum() / a.size, "sum": fin.sum, "norm": lambda: math.sqrt((fin ** 2).sum()),
            "std": fin.std, "argmax": lambda: float(np.argmax(a)), "argmin": lambda: float(np.argmin(a)),
            "size": lambda: float(a.size)}[func]()


def _reduce(f):
    return lambda *xs: f(np.concatenate([np.atleast_1d(np.asarray(x, dtype=np.float64)) for x in xs]))


SPACE = {"exp": np.exp, "log": np.log, "sqrt": np.sqrt, "abs": np.abs, "sin": np.sin, "cos": np.cos,
         "max": _reduce(np.max), "min": _reduce(np.min), "sum": _reduce(np.sum), "mean": _reduce(np.mean),
         "pi": math.pi, "__builtins__": {}}


def side(text, default, traces, loaded):
    text = text.strip()
    try:
        return float(text)
    except ValueError:
        pass
    if "{" not in text and not re.search(r"[()*/^+]", text):
        return raw(text, default, traces, loaded)
    env, names = dict(SPACE), []

    def sub(m):
        names.append(f"_v{len(names)}")
        env[names[-1]] = raw(m.group(1), default, traces, loaded)
        return names[-1]
    expr = re.sub(r"\{\{(.*?)\}\}", sub, text).replace("^", "**")
    return eval(expr, env)  # noqa: S307 (the lesson's own arithmetic, names restricted above)


def claim_holds(claim, default, traces, loaded):
    for op in (" <= ", " >= ", " == ", " != ", " ~= ", " < ", " > "):
        if op in claim:
            a, b = claim.split(op, 1)
            break
    x, y = np.asarray(side(a, default, traces, loaded)), np.asarray(side(b, default, traces, loaded))
    op = op.strip()
    if op == "~=":
        digits = len(b.strip().split(".")[1]) if "." in b else 0
        return bool(np.all(np.abs(x - y) <= 0.5 * 10 ** -digits * (1 + 1e-9)))
    return bool(np.all({"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y, "==": x == y, "!=": x != y}[op]))


def evaluate(body, default, traces, loaded):
    words = body.split()
    func = words[0] if words[0] in FUNCS else "value"
    rest = words[1:] if words[0] in FUNCS else words
    ref, spec = rest[0], (rest[1] if len(rest) > 1 else "")
    if func in ("lensword", "nearword"):
        return None  # vocabulary text, decoded by the tokenizer (its id is lensid's, nearid's)
    if func in ("lensid", "nearid"):
        return "%d" % derived(func, ref, default, traces, loaded)
    if func in DERIVED:
        return fmt(derived(func, ref, default, traces, loaded), spec, False)
    tname = default
    if ":" in ref and ("[" not in ref or ref.index(":") < ref.index("[")):
        tname, ref = ref.split(":", 1)
    tensors, meta = loaded[traces[tname]]
    if func == "token":
        strs = json.loads(meta["token_strings"])
        return strs[int(ref)]
    if func == "config":
        cfg = json.loads(meta["config"])
        if ref == "tokens":
            return str(len(tensors["tokens"]) if "tokens" in tensors else len(json.loads(meta["token_ids"])))
        if ref == "d_head":
            return str(cfg["n_embd"] // cfg["n_head"])
        if ref == "n_inner":
            return str(cfg.get("n_inner") or 4 * cfg["n_embd"])
        return str(cfg[ref])
    name, idx = ref, []
    if "[" in ref:
        name, inner = ref[:-1].split("[", 1)
        idx = [slice(None) if i.strip() == ":" else int(i) for i in inner.split(",")]
    t = tensors[name]
    sl = t[tuple(idx)] if idx else t
    integral = t.dtype.kind == "i"
    a = np.asarray(sl, dtype=np.float64)
    if func == "shape":
        free = a.shape
        return "(" + ", ".join(map(str, free)) + (",)" if len(free) == 1 else ")")
    if func == "size":
        return str(a.size)
    flat = a.reshape(-1)
    fin = flat[np.isfinite(flat)]
    if func == "list":
        return ", ".join(fmt(v, spec, integral) for v in flat)
    if func in ("argmax", "argmin", "word"):
        k = int(np.argmax(flat) if func != "argmin" else np.argmin(flat))
        return str(k) if func != "word" else None
    v = {"value": lambda: flat[0], "max": lambda: flat.max(), "min": lambda: flat.min(),
         "absmax": lambda: np.abs(flat).max(), "mean": lambda: fin.sum() / flat.size, "sum": lambda: fin.sum(),
         "norm": lambda: math.sqrt((fin ** 2).sum()), "std": lambda: fin.std()}[func]()
    return fmt(float(v), spec, integral and func in ("value", "max", "min", "absmax", "sum"))


def check_lesson(path, loaded):
    global failed
    traces, steps = parse_lesson(path)
    for name, f in traces.items():
        if f not in loaded:
            loaded[f] = load(os.path.join(TRACES, f))
    # One run prints every step (not on a terminal); each step starts with a rule "── i/n".
    r = subprocess.run([TTRACE, "lesson", path, "--text"], capture_output=True, text=True)
    shown_steps = re.split(r"\n── \d+/\d+", r.stdout)[1:]
    if r.returncode != 0 or len(shown_steps) != len(steps):
        failed += 1
        print(f"FAIL  {path}: ttrace lesson --text printed {len(shown_steps)} steps (rc {r.returncode}), "
              f"the file has {len(steps)}")
        return
    if "/ko/" in path:
        # A Korean lesson's tables speak Korean too: no English caption outside the narration.
        english = re.compile(r"\b(min|max|mean|top \d+ of|per token|masked|largest difference|next-token|"
                             r"view|head|row|variant|length|token \d+|the first|features|shapes|"
                             r"over all)\b")
        for i, text in enumerate(shown_steps):
            tables = text.split("\n▸ ", 1)[1] if "\n▸ " in text else ""
            tables = re.sub(r"\[[^\]]*\] \"[^\"]*\"", "", tables)   # the trace's name and prompt
            hit = english.search(tables)
            if hit:
                failed += 1
                print(f"FAIL  {path} step {i + 1}: an English caption in the Korean tables: '{hit.group(0)}'")
    n_claims = 0
    for i, (tr, narr, checks) in enumerate(steps):
        for claim in checks:
            n_claims += 1
            if not claim_holds(claim, tr, traces, loaded):
                failed += 1
                print(f"FAIL  {path} step {i + 1}: the claim '{claim}' is false (recomputed with numpy)")
        shown = " ".join(shown_steps[i].split())
        pieces = re.split(r"\{\{(.*?)\}\}", narr)
        expect, words = [], 0
        for k, piece in enumerate(pieces):
            if k % 2:
                v = evaluate(piece, tr, traces, loaded)
                expect.append(v if v is not None else None)
            else:
                expect.append(piece)
        # The terminal reflows the narration: compare with whitespace collapsed. A {{word}}
        # placeholder (vocabulary text, decoded by the tokenizer) may be anything.
        parts = [" ".join(p.split()) for p in "".join(e if e is not None else "\0" for e in expect).split("\0")]
        at, ok = 0, r.returncode == 0
        for part in parts:
            found = shown.find(part.strip(), at)
            ok &= found >= 0
            at = found + len(part.strip()) if found >= 0 else at
        words += 1
        if not ok:
            failed += 1
            print(f"FAIL  {path} step {i + 1}: the narration differs from the numbers recomputed from the trace")
            print("      expected: " + " ".join("".join(e if e is not None else "<word>" for e in expect).split())[:600])
            print("      shown:    " + shown[:600])
    print(f"ok    {path}: {len(steps)} steps, {n_claims} claims" if not failed else f"..    {path}")


def check_collapse():
    global failed
    tr, meta = load(os.path.join(TRACES, "09-identity.safetensors"))
    models = sorted(glob.glob(os.path.join(ROOT, "assets", "models", "*", "model.safetensors")))
    if not models:
        print("skip  collapse: no model")
        return
    want = os.path.basename(meta.get("model", "").rstrip("/"))
    path = next((m for m in models if os.path.basename(os.path.dirname(m)) == want), models[0])
    w, _ = load(path)
    w = {k[len("transformer."):] if k.startswith("transformer.") else k: v.astype(np.float64) for k, v in w.items()}
    x = tr["blocks.0.ln2.hook_out"].astype(np.float64)                         # (T, C)
    W1, W2 = w["h.0.mlp.c_fc.weight"], w["h.0.mlp.c_proj.weight"]              # (C, F), (F, C)
    # W and b are kept as float32 numbers (as the view keeps them); the product with x is
    # summed in float64. Then the printed maximum can be compared digit for digit.
    W = (W1 @ W2).astype(np.float32).astype(np.float64)                         # (C, C)
    b = (w["h.0.mlp.c_fc.bias"] @ W2 + w["h.0.mlp.c_proj.bias"]).astype(np.float32).astype(np.float64)
    direct, out = x @ W + b, tr["blocks.0.hook_mlp_out"].astype(np.float64)
    d = np.abs(direct - out)
    at = int(np.argmax(d))
    want_max = f"{d.max():.3g} (token {at // out.shape[1]}, column {at % out.shape[1]})"
    lesson = os.path.join(ROOT, "lessons", "en", "09-ffn.lesson")
    r = subprocess.run([TTRACE, "lesson", lesson, "--text", "--step", "5"], capture_output=True, text=True)
    rows = re.findall(r"B: x·W \+ b\s+((?:-?\d+\.\d+\s+)+)", r.stdout)
    arows = re.findall(r"A: FFN output\s+((?:-?\d+\.\d+\s+)+)", r.stdout)
    ok = len(rows) == x.shape[0] and len(arows) == x.shape[0]
    for t in range(min(len(rows), x.shape[0])):
        got_b, got_a = [float(v) for v in rows[t].split()], [float(v) for v in arows[t].split()]
        ok &= all(f"{g:.5f}" == f"{e:.5f}" or abs(g - e) <= 1.5e-5 for g, e in zip(got_b, direct[t]))
        ok &= all(f"{g:.5f}" == f"{e:.5f}" for g, e in zip(got_a, out[t]))
    m = re.search(r"largest difference \|A - B\| over all (\d+) x (\d+) numbers: (.*)", r.stdout)
    ok &= m is not None and (int(m.group(1)), int(m.group(2))) == out.shape and m.group(3).strip() == want_max
    # and the collapse is real: the two outputs agree far below the size of the numbers
    ok &= d.max() < 1e-5 * float(np.abs(out).max())
    print(("ok    " if ok else "FAIL  ") + f"collapse view (--text): A, B and max |A - B| = {want_max}"
          + ("" if ok else f"; printed: {m.group(3) if m else '(none)'}"))
    failed += not ok
    svg = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"tt_collapse_{os.getpid()}.svg")
    r = subprocess.run([TTRACE, "render", os.path.join(TRACES, "09-identity.safetensors"), "--step",
                        "blocks.0.hook_mlp_out", "--view", "collapse", "-o", svg], capture_output=True, text=True)
    if r.returncode == 0:
        text = open(svg, encoding="utf-8").read()
        os.unlink(svg)
        m = re.search(r"\(128, 512\)·\(512, 128\) = \(128, 128\)", text)
        n = re.search(r"largest difference \|A − B\| = (\S+) \(token (\d+), column (\d+)\) over all (\d+) × (\d+) numbers",
                      text)
        got = n and f"{n.group(1)} (token {n.group(2)}, column {n.group(3)})"
        want_drawn = want_max.replace("-", "\u2212")  # views print a real minus sign ("7.07e−06")
        ok = m is not None and n is not None and (int(n.group(4)), int(n.group(5))) == out.shape and got == want_drawn
        print(("ok    " if ok else "FAIL  ") + f"collapse view (SVG): W_fc·W_proj shapes, max |A − B| = {want_max}"
              + ("" if ok else f"; drawn: {got}"))
        failed += not ok
    else:
        print("skip  collapse view (SVG): " + r.stderr.strip()[:200])


def check_card():
    """Numbers lesson 12 quotes from the model's training log."""
    global failed
    log = json.load(open(os.path.join(ROOT, "assets", "models", "tiny-classroom", "training_log.json")))
    for lang in ("en", "ko"):
        text = open(glob.glob(os.path.join(ROOT, "lessons", lang, "12-*.lesson"))[0], encoding="utf-8").read()
        for quoted, true in ((f"{log['train_targets']:,}", "train_targets"), (f"{log['args']['steps']:,}", "steps")):
            ok = quoted in text
            print(("ok    " if ok else "FAIL  ") + f"lesson 12 ({lang}) quotes {true} = {quoted} from training_log.json")
            failed += not ok


loaded = {}
check_card()
for lang in ("en", "ko"):
    for path in sorted(glob.glob(os.path.join(ROOT, "lessons", lang, "*.lesson"))):
        check_lesson(path, loaded)
check_collapse()
sys.exit(1 if failed else 0)
