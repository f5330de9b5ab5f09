"""ttrace lens against an independent numpy logit lens.

  /usr/bin/python3 tests/lens/check_lens.py TTRACE REPO

For traces of the default model (GPT-2 as it is, RMSNorm, post-LN): every stream (block
0's input, each block's output) through ln_final (from model.safetensors, the trace's norm
variant and epsilon) and the tied unembedding, softmax in float64, top K per position —
against every cell `ttrace lens -k K` prints (ids, and probabilities at its 4 decimals, or
its two digits under 0.0001: 2.0e-05);
the last stream's lens logits against the trace's own hook_logits; --pos; and the bad
inputs: their exit codes and one-line errors (missing or malformed trace, -k, --pos, a
missing model folder, a model that is not the trace's).
"""
import json
import math
import os
import re
import struct
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lesson"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "numbers"))
from safetensors_np import load  # noqa: E402
from svgnum import label_in  # noqa: E402
from check_numbers import load_vocab_bytes  # noqa: E402


def run(argv):
    return subprocess.run(argv, capture_output=True, text=True)


def lens(tr, meta, model):
    """{row: (T, V) float64 logits} for each stream, row 0 = block 0's input."""
    cfg = json.loads(meta["config"])
    eps = float(cfg.get("layer_norm_epsilon", 1e-5))
    rms = cfg.get("ttrace_norm") == "rmsnorm"
    post = cfg.get("ttrace_block") == "post_ln"
    g = model["ln_f.weight"].astype(np.float64)
    b = model["ln_f.bias"].astype(np.float64)
    W = model.get("lm_head.weight", model["wte.weight"]).astype(np.float64)  # (V, C)
    rows = {}
    for r in range(int(cfg["n_layer"]) + 1):
        name = "blocks.0.hook_resid_pre" if r == 0 else "blocks.%d.%s" % (r - 1, "ln2.hook_out" if post
                                                                             else "hook_resid_post")
        x = tr[name].astype(np.float64)
        if rms:
            h = x / np.sqrt((x * x).mean(axis=1, keepdims=True) + eps) * g
        else:
            mu = x.mean(axis=1, keepdims=True)
            h = (x - mu) / np.sqrt(((x - mu) ** 2).mean(axis=1, keepdims=True) + eps) * g + b
        rows[r] = (name, h @ W.T)
    return rows


def softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


CELL = re.compile(r"(\S+) (\d+) (\d\.\d{4}|\d\.\de-\d\d)(?!\d)")


def parse(out):
    """{(pos, hook): [(id, p), ...]} from ttrace lens's table."""
    got, pos = {}, None
    for line in out.splitlines():
        m = re.match(r"position (\d+):", line)
        if m:
            pos = int(m.group(1))
            continue
        m = re.match(r"  (blocks\.\S+)\s+(.*)$", line)
        if m and pos is not None:
            got[(pos, m.group(1))] = [(int(i), float(p)) for _, i, p in CELL.findall(m.group(2))]
    return got


def check_trace(ttrace, path, model, K, fails):
    tr, meta = load(path)
    rows = lens(tr, meta, model)
    logits = tr["hook_logits"].astype(np.float64)
    last = rows[max(rows)][1]
    rel = np.abs(last - logits).max() / np.abs(logits).max()
    if rel > 1e-4:
        fails.append("%s: the last stream through ln_final and W_U is %.3g (relative) from hook_logits" % (path, rel))
    p = run([ttrace, "lens", "-k", str(K), path])
    if p.returncode != 0:
        fails.append("%s: ttrace lens failed: %s" % (path, p.stderr))
        return
    got = parse(p.stdout)
    T = logits.shape[0]
    n = 0
    for r, (name, z) in rows.items():
        prob = softmax(z)
        for t in range(T):
            cells = got.get((t, name))
            order = np.argsort(-z[t], kind="stable")[:K]
            if not cells or len(cells) != K:
                fails.append("%s: no %d cells for position %d, %s" % (path, K, t, name))
                continue
            for k, (i, pr) in enumerate(cells):
                tie = abs(z[t, i] - z[t, order[k]]) <= 1e-5 * max(1.0, abs(z[t, order[k]]))
                if i != order[k] and not tie:
                    fails.append("%s: position %d %s top %d is id %d, numpy says %d" % (path, t, name, k + 1, i,
                                                                                      order[k]))
                sci = pr < 1e-4  # printed as 2.0e-05: half a unit of its second digit, else of the 4th decimal
                tol = 0.05 * 10 ** math.floor(math.log10(pr)) * 1.01 if sci else 0.00006
                if (sci and not 0 < prob[t, i] < 1e-4) or abs(pr - prob[t, i]) > tol:
                    fails.append("%s: position %d %s id %d p %.4g, numpy %.6g" % (path, t, name, i, pr, prob[t, i]))
                n += 1
    print("%s: %d cells agree with numpy; the last stream is hook_logits to %.2g" % (os.path.basename(path), n, rel))
    p = run([ttrace, "lens", "-k", "2", "--pos", "-1", path])
    one = parse(p.stdout)
    if p.returncode != 0 or sorted({t for t, _ in one}) != [T - 1]:
        fails.append("%s: --pos -1 shows positions %s" % (path, sorted({t for t, _ in one})))


def with_model_meta(src, dst, model_dir):
    """A copy of trace src naming another model folder."""
    data = open(src, "rb").read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    header["__metadata__"]["model"] = model_dir
    h = json.dumps(header).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    open(dst, "wb").write(struct.pack("<Q", len(h)) + h + data[8 + n:])


def bad_inputs(ttrace, root, trace, tmp, fails):
    V = 50257
    bogus = os.path.join(tmp, "bogus.safetensors")
    open(bogus, "wb").write(b"not a trace at all, just text\n")
    moved = os.path.join(tmp, "moved.safetensors")
    with_model_meta(trace, moved, os.path.join(tmp, "no-such-model"))
    other = os.path.join(tmp, "other-model")
    p = run([ttrace, "train-step", "--lr", "0.5", "--steps", "1", "-o", other, "The weather is nice"])
    if p.returncode != 0:
        fails.append("train-step for the mismatch case failed: %s" % p.stderr)
    cases = [([os.path.join(tmp, "missing.safetensors")], 4), ([bogus], 3), (["-k", "0", trace], 2),
             (["-k", "x", trace], 2), (["-k", str(V + 1), trace], 3), (["--pos", "4", trace], 3),
             (["--pos", "-5", trace], 3), ([moved], 4), (["-m", os.path.join(tmp, "nowhere"), trace], 4),
             (["-m", other, trace], 3), ([], 2)]
    for args, code in cases:
        p = run([ttrace, "lens"] + args)
        lines = p.stderr.strip().splitlines()
        if p.returncode != code or len(lines) != 1 or p.stdout:
            fails.append("lens %s: exit %d (want %d), stderr %r" % (args, p.returncode, code, p.stderr))
    p = run([ttrace, "lens", "-m", other, trace])
    if "does not match the trace" not in p.stderr:
        fails.append("a model that is not the trace's: %r" % p.stderr)
    # with -m, a trace that names a missing folder still works
    p = run([ttrace, "lens", "-m", os.path.join(root, "assets", "models", "tiny-classroom"), moved])
    if p.returncode != 0:
        fails.append("lens -m DEFAULT on a trace naming a missing folder: %s" % p.stderr)


def korean_labels(ttrace, root, tmp, fails):
    """A Korean prompt, whose syllables GPT-2 splits across byte tokens: every position's token and
    every candidate is written as the views write it (the bytes of a piece of a character in hex
    between ‹ and ›, with the character the text around completes), never as \\xEB."""
    path = os.path.join(tmp, "korean.safetensors")
    p = run([ttrace, "trace", "-q", "-o", path, "나는 사과를 먹었다"])
    if p.returncode != 0:
        raise SystemExit("check_lens: ttrace trace of the Korean prompt failed: %s" % p.stderr)
    vb = load_vocab_bytes(os.path.join(root, "assets", "tokenizer", "vocab.json"))
    _, meta = load(path)
    ids = json.loads(meta["token_ids"])
    text = b"".join(vb[i] for i in ids)
    offs = [0]
    for i in ids:
        offs.append(offs[-1] + len(vb[i]))
    p = run([ttrace, "lens", "-k", "3", path])
    if p.returncode != 0:
        fails.append("korean: ttrace lens failed: %s" % p.stderr)
        return
    n, pos = 0, None
    for line in p.stdout.splitlines():
        m = re.match(r"position (\d+): (.*) \(id (\d+)\) \u2192 next token$", line)
        if m:
            pos = int(m.group(1))
            want = label_in(text, offs[pos], offs[pos + 1])
            if m.group(2) != want or int(m.group(3)) != ids[pos]:
                fails.append("korean: position %d is shown as %r, expected %r (id %d)" % (pos, m.group(2), want,
                                                                                          ids[pos]))
            n += 1
            continue
        if pos is None or not line.startswith("  blocks."):
            continue
        for cell in re.split(r"\s{2,}", line.strip())[1:]:
            label, i, _ = cell.rsplit(" ", 2)
            before = text[:offs[pos + 1]]
            want = label_in(before + vb[int(i)], len(before), len(before) + len(vb[int(i)]))
            if label != want:
                fails.append("korean: position %d candidate id %s is shown as %r, expected %r" % (pos, i, label, want))
            n += 1
    if "\\x" in p.stdout or "\u2039" not in p.stdout:
        fails.append("korean: byte tokens are not in the \u2039BD:\u2026\u203a notation")
    print("korean: %d labels as the views write them" % n)


def main():
    ttrace, root = sys.argv[1], sys.argv[2]
    model, _ = load(os.path.join(root, "assets", "models", "tiny-classroom", "model.safetensors"))
    model = {k[len("transformer."):] if k.startswith("transformer.") else k: v for k, v in model.items()}
    fails = []
    with tempfile.TemporaryDirectory() as tmp:
        traces = []
        for tag, sets in (("gpt2", []), ("rms", ["--set", "norm=rmsnorm"]), ("postln", ["--set", "block=post_ln"])):
            path = os.path.join(tmp, tag + ".safetensors")
            prompt = "The weather is nice" if tag == "gpt2" else "I love my dog"
            p = run([ttrace, "trace", "-q", "-o", path] + sets + [prompt])
            if p.returncode != 0:
                raise SystemExit("check_lens: ttrace trace failed: %s" % p.stderr)
            traces.append(path)
        for path, K in zip(traces, (5, 3, 40)):
            check_trace(ttrace, path, model, K, fails)
        bad_inputs(ttrace, root, traces[0], tmp, fails)
        korean_labels(ttrace, root, tmp, fails)
    for f in fails:
        print("FAIL", f)
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
