#!/usr/bin/python3
"""`ttrace import` and `ttrace diff` across implementations: an independent PyTorch GPT-2
(torch_gpt2.py) saves a Hugging Face output_hidden_states dump and a TransformerLens-style
cache for the prompt ttrace traced; imported, each agrees with ttrace's trace on every
hook they share (diff --tol 1e-5 --shared), also saved as .npz (np.savez), and a PyTorch pass with the erf GELU instead of
GPT-2's tanh form parts from ttrace first at blocks.0.mlp.hook_post. Files that do not map
are refused in one line with nothing written.

    test_import.py TTRACE
"""
import os
import shutil
import subprocess
import tempfile

import numpy as np

import common
import stfile

TORCH_GPT2 = os.path.join(common.HERE, "torch_gpt2.py")
LINE = "first hook beyond tolerance, in A's order: "


def main():
    c = common.Checks(common.ttrace_arg())
    try:
        import torch  # noqa: F401
    except ImportError:
        print("no python3-torch (apt-get install python3-torch): skipped")
        return 77
    tmp = tempfile.mkdtemp(prefix="ttrace-import-")
    try:
        j = lambda n: os.path.join(tmp, n)  # noqa: E731
        model = common.make_model(j("m"), "--layers", "2", "--heads", "3", "--embd", "24")
        r = c.trace(model, j("a.safetensors"))
        c.check("trace", r.returncode == 0, r.stderr)
        for gelu in ("tanh", "erf"):
            subprocess.run([common.PY, TORCH_GPT2, model, j("a.safetensors"), j(f"hf-{gelu}.safetensors"),
                            j(f"tl-{gelu}.safetensors"), "--gelu", gelu], check=True)
        for kind, n, skipped in (("hf", 4, 0), ("tl", 38, 2)):
            r = c.run("import", j(f"{kind}-tanh.safetensors"), "--like", j("a.safetensors"), "-o", j(f"{kind}.trace"))
            c.check(f"import the {kind} dump", r.returncode == 0 and f": {n} hooks from a" in r.stdout
                    and f"({skipped} tensors skipped)" in r.stdout, r.stdout + r.stderr)
            r = c.run("diff", "--tol", "1e-5", "--shared", j("a.safetensors"), j(f"{kind}.trace"))
            c.check(f"the {kind} dump agrees with ttrace on every shared hook",
                    r.returncode == 0 and "SAME: 0 problems" in r.stdout and LINE not in r.stdout, r.stdout[-600:])
            r = c.run("diff", "--tol", "1e-5", j("a.safetensors"), j(f"{kind}.trace"))
            c.check(f"without --shared, hooks the {kind} dump lacks count", r.returncode == 1, r.stdout[-300:])
        for kind in ("hf", "tl"):  # the same dumps as NumPy .npz archives (np.savez)
            entries, _ = stfile.read(j(f"{kind}-tanh.safetensors"))
            arrays = {n: np.frombuffer(b, "<f4").reshape(s) for n, d, s, b in entries}
            np.savez(j(f"{kind}.npz"), **arrays)
            r = c.run("import", j(f"{kind}.npz"), "--like", j("a.safetensors"), "-o", j(f"{kind}-npz.trace"))
            d = c.run("diff", "--tol", "0", "--shared", j(f"{kind}.trace"), j(f"{kind}-npz.trace"))
            c.check(f"the {kind} dump as .npz imports as the safetensors one did",
                    r.returncode == 0 and d.returncode == 0 and "SAME: 0 problems" in d.stdout, r.stderr + d.stdout[-400:])
            if kind == "tl":
                np.savez_compressed(j("tl-z.npz"), **arrays)
                c.refused("a compressed .npz is refused", ["import", j("tl-z.npz"), "--like", j("a.safetensors"),
                                                           "-o", j("z.trace")], 3, "np.savez_compressed",
                          j("z.trace"))
        r = c.run("import", j("tl-erf.safetensors"), "--like", j("a.safetensors"), "-o", j("erf.trace"))
        c.check("import the erf-GELU cache", r.returncode == 0, r.stderr)
        r = c.run("diff", "--tol", "1e-5", "--shared", "--quiet", j("a.safetensors"), j("erf.trace"))
        named = [l[len(LINE):] for l in r.stdout.splitlines() if l.startswith(LINE)]
        c.check("the erf GELU parts from ttrace first at blocks.0.mlp.hook_post",
                r.returncode == 1 and named == ["blocks.0.mlp.hook_post"], r.stdout[-600:])
        r = c.run("import", j("hf-erf.safetensors"), "--like", j("a.safetensors"), "-o", j("hf-erf.trace"))
        r = c.run("diff", "--tol", "1e-5", "--shared", "--quiet", j("a.safetensors"), j("hf-erf.trace"))
        named = [l[len(LINE):] for l in r.stdout.splitlines() if l.startswith(LINE)]
        c.check("in hidden states alone it shows at blocks.1.hook_resid_pre",
                r.returncode == 1 and named == ["blocks.1.hook_resid_pre"], r.stdout[-600:])

        entries, meta = stfile.read(j("tl-tanh.safetensors"))
        bad = [(n, d, [1, 3, 5, 8] if n == "blocks.0.attn.hook_q" else s, b) for n, d, s, b in entries]
        stfile.write(j("heads-first.safetensors"), bad, meta)
        o = j("out.trace")
        c.refused("q stored head-major is refused", ["import", j("heads-first.safetensors"), "--like",
                                                     j("a.safetensors"), "-o", o], 3,
                  "'blocks.0.attn.hook_q' has shape (1, 3, 5, 8), which does not fit blocks.0.attn.hook_q (3, 5, 8) "
                  "(from [batch, pos, head, d_head])", o)
        stfile.write(j("nothing.safetensors"), [("foo", "F32", [2], b"\0" * 8)], None)
        c.refused("a file with no hook in it", ["import", j("nothing.safetensors"), "--like", j("a.safetensors"),
                                                "-o", o], 3, "no tensor maps to a ttrace hook", o)
        c.refused("--like is needed", ["import", j("hf-tanh.safetensors"), "-o", o], 2, "--like", o)
        c.refused("a hidden state the trace lacks",
                  ["import", j("hf-tanh.safetensors"), "--like", j("erf.trace"), "-o", o], 3,
                  "'hidden_states.2' (as ln_final.hook_out) is not in the trace given with --like", o)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return c.done()


if __name__ == "__main__":
    raise SystemExit(main())
