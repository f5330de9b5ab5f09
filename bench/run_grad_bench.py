#!/usr/bin/python3
"""Forward + backward against the forward alone at GPT-2-small shape (12 layers, 12 heads,
768 wide, FFN 3072, vocabulary 50257, 1024 positions; random F32 weights from
tests/reference/make_model.py), T = 64 by default.

    run_grad_bench.py BUILD_DIR [--T 64] [--reps 5] [--model DIR] [--shape LAYERS,HEADS,WIDTH]

--shape makes a smaller random model (e.g. 2,2,64) to see that the benchmark runs; the
targets are about GPT-2-small's shape, the default.

Prints bench_grad's lines and the issue's three targets: forward + backward <= 3x the
forward alone; the backward's aᵀ·b matmuls within 1.5x of plain sgemm on the same shapes;
peak memory <= weights x 2 + 64 MiB (nothing is recorded, so the trace is 0 bytes).
Needs about 0.5 GB of disk for the model and 1.5 GB of memory. Not a test: run it on an
otherwise idle machine.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("--T", type=int, default=64)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--model", help="a GPT-2-small-shaped model folder (default: made in a temporary folder)")
    ap.add_argument("--shape", default="12,12,768", help="layers,heads,width of the random model (default GPT-2 small)")
    args = ap.parse_args()
    tmp = None
    model = args.model
    if not model:
        tmp = tempfile.mkdtemp(prefix="ttrace-grad-bench-")
        model = os.path.join(tmp, "model")
        L, H, C = args.shape.split(",")
        subprocess.check_call(["/usr/bin/python3", os.path.join(HERE, "..", "tests", "reference", "make_model.py"),
                               model, "--layers", L, "--heads", H, "--embd", C, "--positions", "1024"])
    try:
        out = subprocess.run([os.path.join(args.build, "bench", "bench_grad"), model, str(args.T), str(args.reps)],
                             capture_output=True, text=True, check=True).stdout
        print(out, end="")
        val = {k: float(v) for k, v in re.findall(r"(\w+) ([0-9.]+)", out)}
        ratio = float(re.search(r"grad T .* ratio ([0-9.]+)", out).group(1))
        mm = float(re.search(r"matmul_tn .* ratio ([0-9.]+)", out).group(1))
        peak, weights = val["peak_rss_bytes"], val["weights_bytes"]
        limit = 2 * weights + 64 * 2**20
        print(f"forward+backward / forward = {ratio:.2f} (target <= 3): {'met' if ratio <= 3 else 'NOT met'}")
        print(f"backward matmuls / plain sgemm = {mm:.2f} (target <= 1.5): {'met' if mm <= 1.5 else 'NOT met'}")
        print(f"peak memory / (weights x 2 + trace 0 + 64 MiB) = {peak / limit:.2f} (target <= 1; peak "
              f"{peak / 2**20:.0f} MiB of {limit / 2**20:.0f} MiB): {'met' if peak <= limit else 'NOT met'}")
        return 0
    finally:
        if tmp:
            subprocess.call(["rm", "-rf", tmp])


if __name__ == "__main__":
    sys.exit(main())
