#!/usr/bin/python3
"""`ttrace trace --grad` at the command line: a prompt of one token and a backend without a
backward pass (OpenCL, for trace and train-step) are refused in one line with nothing
written; -b auto picks OpenBLAS for gradients; --record filters gradients.

    test_grad_cli.py TTRACE
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"


def names(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        return sorted(k for k in json.loads(f.read(n)) if k != "__metadata__")


def tensors(path):
    """name -> raw bytes of each tensor."""
    blob = open(path, "rb").read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8 : 8 + n])
    header.pop("__metadata__", None)
    return {k: blob[8 + n + v["data_offsets"][0] : 8 + n + v["data_offsets"][1]] for k, v in header.items()}


def refused(ttrace, args, message, out):
    r = subprocess.run([ttrace, "trace", "-o", out] + args, capture_output=True, text=True)
    lines = r.stderr.strip().split("\n")
    ok = r.returncode != 0 and len(lines) == 1 and message in lines[0] and not os.path.exists(out)
    print(f"{'ok  ' if ok else 'FAIL'} {' '.join(args)}: exit {r.returncode}, {r.stderr.strip()!r}")
    return ok


def main():
    ttrace = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="ttrace-grad-cli-")
    try:
        model, out = os.path.join(tmp, "model"), os.path.join(tmp, "t.safetensors")
        subprocess.check_call([PY, os.path.join(HERE, "..", "reference", "make_model.py"), model, "--layers", "2",
                               "--heads", "2", "--embd", "16"])
        ok = refused(ttrace, ["--grad", "-m", model, "--", "Hello"], "at least 2 tokens", out)
        r = subprocess.run([ttrace, "trace", "-q", "-b", "opencl", "-m", model, "-o", out, "Hi there"],
                           capture_output=True, text=True)
        if r.returncode == 0:  # an OpenCL device is there: gradients on it are refused, not wrong
            os.remove(out)
            ok &= refused(ttrace, ["--grad", "-b", "opencl", "-m", model, "--", "Hi there"],
                          "not supported on the opencl backend yet", out)
            new = os.path.join(tmp, "new")
            r = subprocess.run([ttrace, "train-step", "-b", "opencl", "--lr", "0.1", "-m", model, "-o", new, "Hi there"],
                               capture_output=True, text=True)
            good = r.returncode == 3 and "not supported on the opencl backend yet" in r.stderr and \
                len(r.stderr.strip().split("\n")) == 1 and not os.path.exists(new) and \
                not [n for n in os.listdir(tmp) if ".tmp-" in n]
            print(f"{'ok  ' if good else 'FAIL'} train-step -b opencl: exit {r.returncode}, {r.stderr.strip()!r}, nothing written")
            ok &= good
        # -b auto with --grad picks OpenBLAS (the backward pass runs there), device or not.
        subprocess.check_call([ttrace, "trace", "-q", "--grad", "-b", "auto", "-m", model, "-o", out, "Hi there"])
        with open(out, "rb") as f:
            (n,) = struct.unpack("<Q", f.read(8))
            backend = json.loads(f.read(n))["__metadata__"].get("backend")
        good = backend == "openblas" and "grad.wte.weight" in names(out)
        print(f"{'ok  ' if good else 'FAIL'} -b auto --grad runs on {backend}")
        ok &= good
        os.remove(out)
        subprocess.check_call([ttrace, "trace", "-q", "--grad", "-m", model, "--record", "grad.blocks.0.*", "-o", out,
                               "Hi there"])
        got = names(out)
        good = got and all(n.startswith("grad.blocks.0.") for n in got) and "grad.blocks.0.attn.hook_pattern" in got
        print(f"{'ok  ' if good else 'FAIL'} --record grad.blocks.0.*: {len(got)} tensors")
        ok &= bool(good)
        # The forward pass is the same with --grad (the tape only keeps copies): bit for bit.
        plain, graded = os.path.join(tmp, "plain.safetensors"), os.path.join(tmp, "graded.safetensors")
        for path, extra in ((plain, []), (graded, ["--grad"])):
            subprocess.check_call([ttrace, "trace", "-q", "-m", model, "-o", path] + extra + ["The weather is nice"])
        a, b = tensors(plain), tensors(graded)
        same = all(b.get(n) == v for n, v in a.items()) and set(b) - set(a) and all(n.startswith("grad.")
                                                                                   for n in set(b) - set(a))
        print(f"{'ok  ' if same else 'FAIL'} the forward tensors of --grad equal those without, byte for byte")
        ok &= bool(same)
        return 0 if ok else 1
    finally:
        subprocess.call(["rm", "-rf", tmp])


if __name__ == "__main__":
    sys.exit(main())
