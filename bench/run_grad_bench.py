#!/usr/bin/python3
"""The backward pass at GPT-2-small shape (12 layers, 12 heads, 768 wide, FFN 3072,
vocabulary 50257, 1024 positions; random F32 weights from tests/reference/make_model.py),
T = 64 by default, against the issue's three targets:

  1. forward + backward <= 3x the forward alone (nothing recorded; forward and forward +
     backward interleaved, the median of the per-rep ratios);
  2. the backward's matrix products within 1.5x of plain cblas_sgemm on the same shapes
     (replayed on the same memory right after each run; median of the per-rep ratios);
  3. peak memory <= weights x 2 + trace + 64 MiB, for a run that records everything (as
     `ttrace trace --grad` does; trace = the bytes that trace holds in memory) and for one
     that records nothing (trace = 0), each in its own process.

    run_grad_bench.py BUILD_DIR [--T 64] [--reps 9] [--model DIR] [--shape LAYERS,HEADS,WIDTH]

--shape makes a smaller random model (e.g. 2,2,64) to see that the benchmark runs; the
targets are about GPT-2-small's shape, the default. Every program of one run gets the same
OPENBLAS_CORETYPE (the environment's, else SkylakeX on a CPU with AVX-512, Haswell with
AVX2): bench_grad does not restart itself as ttrace does. Prints the load average before
and after, and the backward's time per step (the largest first). Needs about 0.5 GB of disk
for the model and 2 GB of memory.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
MiB = 2**20


def coretype():
    if os.environ.get("OPENBLAS_CORETYPE"):
        return os.environ["OPENBLAS_CORETYPE"]
    try:
        flags = open("/proc/cpuinfo").read()
    except OSError:
        return None
    if all(f" {f}" in flags for f in ("avx512f", "avx512bw", "avx512vl", "avx512dq")):
        return "SkylakeX"
    if " avx2" in flags and " fma" in flags:
        return "Haswell"
    return None


def keyvals(line):
    return {k: float(v) for k, v in re.findall(r"(\w+) (-?[0-9.]+)(?= |$)", line)}


def verdict(ok):
    return "met" if ok else "NOT met"


def run_bench(exe, model, args, env):
    return subprocess.run([exe, model] + [str(a) for a in args], capture_output=True, text=True, check=True,
                          env=env).stdout


def print_steps(lines, total_ms, prefix="step", title="the backward's time per step"):
    rows = []
    for line in lines:
        m = re.match(prefix + r" (\S+) op (\S+) shape (\S+) calls (\d+) ms ([0-9.]+)", line)
        if m:
            rows.append((float(m.group(5)), m.group(1), m.group(2), m.group(3), int(m.group(4))))
    rows.sort(reverse=True)
    print(f"\n{title} (mean per run, layers summed; {total_ms:.1f} ms in ops):")
    print(f"  {'ms':>8} {'share':>6}  {'calls':>5}  step / op / shape")
    for ms, step, op, shape, calls in rows:
        print(f"  {ms:8.2f} {ms / total_ms * 100 if total_ms else 0:5.1f}%  {calls:5d}  {step}  {op}  {shape}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("--T", type=int, default=64)
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--model", help="a GPT-2-small-shaped model folder (default: made in a temporary folder)")
    ap.add_argument("--shape", default="12,12,768", help="layers,heads,width of the random model (default GPT-2 small)")
    args = ap.parse_args()
    env = dict(os.environ)
    core = coretype()
    if core:
        env["OPENBLAS_CORETYPE"] = core
    exe = os.path.join(args.build, "bench", "bench_grad")
    tmp = None
    model = args.model
    if not model:
        tmp = tempfile.mkdtemp(prefix="ttrace-grad-bench-")
        model = os.path.join(tmp, "model")
        L, H, C = args.shape.split(",")
        subprocess.check_call(["/usr/bin/python3", os.path.join(HERE, "..", "tests", "reference", "make_model.py"),
                               model, "--layers", L, "--heads", H, "--embd", C, "--positions", "1024"],
                              stdout=subprocess.DEVNULL)
    try:
        load_before = os.getloadavg()
        times = run_bench(exe, model, [args.T, args.reps], env)
        peaks = {rec: keyvals(run_bench(exe, model, [args.T, "peak", rec], env)) for rec in ("all", "none")}
        load_after = os.getloadavg()
        lines = times.splitlines()
        grad = keyvals(next(l for l in lines if l.startswith("grad ")))
        mm = keyvals(next(l for l in lines if l.startswith("matmul ")))
        bwd = keyvals(next(l for l in lines if l.startswith("backward ")))
        print(f"OPENBLAS_CORETYPE={core or '(unset)'}  T = {args.T}  reps = {args.reps}  load average "
              f"{load_before[0]:.1f} before, {load_after[0]:.1f} after (1 min)")
        print(f"forward {grad['forward_median_ms']:.1f} ms, forward + backward {grad['grad_median_ms']:.1f} ms "
              f"(medians); backward {bwd['wall_median_ms']:.1f} ms wall, {bwd['ops_ms']:.1f} ms in ops")
        r = grad["ratio_median"]
        print(f"1. forward+backward / forward = {r:.2f} (target <= 3): {verdict(r <= 3)}  (fastest against fastest "
              f"{grad['ratio_min']:.2f}; CPU seconds {grad['cpu_ratio_median']:.2f})")
        q = mm["ratio_median"]
        print(f"2. backward matmuls / plain sgemm = {q:.2f} (target <= 1.5; {int(mm['calls'])} products, "
              f"{mm['engine_ms']:.1f} ms against {mm['sgemm_ms']:.1f} ms): {verdict(q <= 1.5)}")
        for rec, p in peaks.items():
            trace = p["held_bytes"]
            limit = 2 * p["weights_bytes"] + trace + 64 * MiB
            peak = p["peak_rss_bytes"]
            print(f"3. peak memory, record {rec}: {peak / MiB:.0f} MiB / (weights {p['weights_bytes'] / MiB:.0f} x 2 + "
                  f"trace {trace / MiB:.0f} + 64 = {limit / MiB:.0f} MiB) = {peak / limit:.3f} (target <= 1): "
                  f"{verdict(peak <= limit)}; before the run {p['rss_before_run_bytes'] / MiB:.0f} MiB")
        print_steps(lines, bwd["ops_ms"])
        fwd_ms = sum(float(l.split()[-1]) for l in lines if l.startswith("forward_step "))
        print_steps(lines, fwd_ms, "forward_step", "for comparison, the forward pass alone")
        return 0
    finally:
        if tmp:
            subprocess.call(["rm", "-rf", tmp])


if __name__ == "__main__":
    sys.exit(main())
