#!/usr/bin/python3
"""ttrace diff against numpy: traces of a random model (tests/reference/make_model.py) in a
temporary folder; every printed max|A|, max|A-B| and relative difference is recomputed
from the files; shapes that differ, hooks in one trace only, the GLOB, --tol and
--permute.

    check_diff.py TTRACE SOURCE_ROOT
"""
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from safetensors_np import load  # noqa: E402

TTRACE, ROOT = sys.argv[1], sys.argv[2]
failed = 0


def check(name, ok, detail=""):
    global failed
    print(("ok    " if ok else "FAIL  ") + name + ("" if ok else ": " + detail))
    failed += not ok


def run(*args):
    return subprocess.run([TTRACE, *args], capture_output=True, text=True, timeout=120)


def rows(out):
    """hook -> (max|A|, max|A-B|, rel) from diff's table."""
    got = {}
    for line in out.splitlines():
        m = re.match(r"^(\S+)\s+\(.*?\)\s+(\S+)\s+(\S+)\s+(\S+)\s*$", line)
        if m:
            got[m.group(1)] = tuple(float(v) for v in m.group(2, 3, 4))
    return got


def expected(a, b, name):
    """The rule of trace.h: |A-B| over entries finite in both; the same infinity in both is
    equal; entries finite on one side only are counted apart (the third value)."""
    x, y = a[name].astype(np.float64), b[name].astype(np.float64)
    fin = np.isfinite(x)
    both = fin & np.isfinite(y)
    ma = float(np.max(np.abs(x[fin]))) if fin.any() else 0.0
    md = float(np.max(np.abs(x[both] - y[both]))) if both.any() else 0.0
    return ma, md, (md / ma if ma > 0 else md), int(np.sum(fin != np.isfinite(y)))


def near(u, v):
    if np.isinf(u) or np.isinf(v):
        return u == v
    return abs(u - v) <= 1e-3 * max(abs(v), 1e-30)  # the table prints 5 significant digits


with tempfile.TemporaryDirectory() as tmp:
    model = os.path.join(tmp, "m")
    subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "tests", "reference", "make_model.py"), model,
                    "--layers", "2", "--heads", "3", "--embd", "24", "--vocab", "50257", "--positions", "32"],
                   check=True, capture_output=True)
    A, B, C, D, E = (os.path.join(tmp, n + ".safetensors") for n in "abcde")
    for out, extra, prompt in [(A, [], "The weather is nice"), (B, ["--set", "scale_attn=false"], "The weather is nice"),
                               (C, [], "The weather is nice today"), (D, ["--record", "blocks.0.*"], "The weather is nice"),
                               (E, [], "The weather is nice")]:
        r = run("trace", "-q", "-m", model, *extra, "-o", out, prompt)
        assert r.returncode == 0, r.stderr
    a, b = load(A)[0], load(B)[0]

    r = run("diff", A, B)
    got = rows(r.stdout)
    check("exit 0 when the traces differ", r.returncode == 0, r.stderr)
    check("every shared hook has a row", set(got) == set(a) & set(b), str(set(a) ^ set(got)))
    bad = [n for n in got if not all(near(u, v) for u, v in zip(got[n], expected(a, b, n)[:3]))]
    check("max|A|, max|A-B| and rel agree with numpy", not bad, f"{bad[:3]}: {[got[n] for n in bad[:3]]} vs "
          f"{[expected(a, b, n) for n in bad[:3]]}")
    check("scaling off changes the scaled scores", got["blocks.0.attn.hook_attn_scores_scaled"][1] > 0)
    check("scaling off leaves the embeddings alone", got["hook_embed"][1] == 0 and got["blocks.0.attn.hook_q"][1] == 0)

    r = run("diff", A, E, "--tol", "0")
    check("a trace against its own rerun: SAME at --tol 0", r.returncode == 0 and "SAME: 0 problems" in r.stdout,
          r.stdout[-300:])
    check("masked scores (-inf in both) count as equal", rows(r.stdout)["blocks.1.attn.hook_attn_scores"][1] == 0)

    r = run("diff", A, B, "--tol", "1e-4")
    check("--tol: exit 1 and DIFFERENT beyond tolerance", r.returncode == 1 and "DIFFERENT" in r.stdout)
    r = run("diff", A, B, "--tol", "1e-4", "--quiet")
    listed = [l for l in r.stdout.splitlines() if "beyond tolerance" in l]
    check("--quiet lists only the tensors beyond tolerance",
          r.returncode == 1 and listed and all("beyond" in l or l.startswith("DIFFERENT") for l in r.stdout.splitlines()),
          r.stdout[:300])

    r = run("diff", A, C, "blocks.0.attn.*")
    check("different T: each tensor says its shapes differ",
          r.returncode == 0 and "blocks.0.attn.hook_pattern" in r.stdout and "shapes differ: B is (3, 5, 5)" in r.stdout,
          r.stdout[:500])
    check("GLOB keeps only matching hooks", "hook_embed" not in r.stdout and "blocks.1." not in r.stdout)
    check("different T with --tol fails", run("diff", A, C, "--tol", "1").returncode == 1)

    r = run("diff", A, D)
    only = [l for l in r.stdout.splitlines() if l.startswith("only in A:")]
    check("hooks in one trace only are listed", only and "hook_logits" in only[0] and "blocks.0." not in only[0],
          r.stdout[-300:])
    check("... and are not problems without --tol", r.returncode == 0)
    check("... but are with --tol", run("diff", A, D, "--tol", "1").returncode == 1)

    # Reversed tokens: A's masked scores (j > i) meet B's unmasked ones (P[j] < P[i]).
    r = run("diff", "--permute", "3,2,1,0", A, E, "blocks.0.attn.hook_attn_scores")
    e = load(E)[0]
    ea = a["blocks.0.attn.hook_attn_scores"].astype(np.float64)
    eb = e["blocks.0.attn.hook_attn_scores"].astype(np.float64)[:, ::-1, ::-1]
    fin = np.isfinite(ea) & np.isfinite(eb)
    want_one_sided = int(np.sum(np.isfinite(ea) != np.isfinite(eb)))
    want_md = float(np.max(np.abs(ea[fin] - eb[fin])))
    line = [l for l in r.stdout.splitlines() if l.startswith("blocks.0.attn.hook_attn_scores ")]
    m = re.match(r"^\S+\s+\(.*?\)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\d+) masked on one side only$", line[0]) if line else None
    check("masked on one side only: counted apart, max|A-B| over entries finite in both",
          m is not None and int(m.group(4)) == want_one_sided and near(float(m.group(2)), want_md),
          f"{line} want {want_one_sided} one-sided, max {want_md}")
    r = run("diff", "--permute", "3,2,1,0", A, E, "blocks.0.attn.hook_attn_scores", "--tol", "1e9")
    check("... and are a problem with --tol", r.returncode == 1 and "DIFFERENT: 1 problem" in r.stdout, r.stdout[-300:])

    r = run("diff", "--permute", "1,0", A, E)
    check("--permute of the wrong length: usage error", r.returncode == 2 and "4 tokens" in r.stderr, r.stderr)
    r = run("diff", "--permute", "0,0,1,2", A, E)
    check("--permute that is no permutation: usage error", r.returncode == 2, r.stderr)
    r = run("diff", A)
    check("one file: usage error", r.returncode == 2)
    r = run("diff", A, os.path.join(tmp, "missing.safetensors"))
    check("a missing file: i/o error naming it", r.returncode == 4 and "missing.safetensors" in r.stderr, r.stderr)

sys.exit(1 if failed else 0)
