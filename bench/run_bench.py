#!/usr/bin/python3
"""Runs the whole benchmark and prints a Markdown summary (paste it into bench/RESULTS.md).

    bench/run_bench.py BUILD_DIR [--model DIR] [--T 4,64,256,1024]

Generates the GPT-2-small-shaped random model (12 layers, 12 heads, C=768, V=50257,
1024 positions; ~500 MB, F32) into DIR (default /tmp/ttrace-bench-gpt2s) when it is not
there, then runs BUILD_DIR/bench/bench_forward (times, matmul throughput, peak memory in
separate processes) and bench/py_forward.py (numpy / torch forward of the same model).
"""
import argparse
import os
import platform
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PY = "/usr/bin/python3"


def run(cmd):
    print("$ " + " ".join(cmd), file=sys.stderr, flush=True)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    sys.stderr.write(out)
    return [line.split() for line in out.splitlines()]


def fields(words):
    """'times T 4 reps 20 x 1.5' -> {'T': '4', 'reps': '20', 'x': '1.5'}"""
    return dict(zip(words[1::2], words[2::2]))


def machine():
    model, cores = "?", os.cpu_count()
    try:
        for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
            if line.startswith("Model name:"):
                model = line.split(":", 1)[1].strip()
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{model}, {cores} cores, {mem:.0f} GiB RAM, {platform.system()} {platform.release()}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("--model", default="/tmp/ttrace-bench-gpt2s")
    ap.add_argument("--T", default="4,64,256,1024")
    args = ap.parse_args()
    bench = os.path.join(args.build, "bench", "bench_forward")
    Ts = [int(t) for t in args.T.split(",")]
    if not os.path.exists(os.path.join(args.model, "model.safetensors")):
        subprocess.run([PY, os.path.join(ROOT, "tests", "reference", "make_model.py"), args.model, "--layers", "12",
                        "--heads", "12", "--embd", "768", "--positions", "1024", "--vocab", "50257", "--seed", "7"],
                       check=True)

    times = {int(fields(w)["T"]): fields(w) for w in run([bench, args.model, "times", args.T]) if w[0] == "times"}
    device = " ".join(run([bench, args.model, "peak", "4", "none"])[0][1:])
    peaks = {}
    for T in Ts:
        for rec in ("all", "none"):
            for w in run([bench, args.model, "peak", str(T), rec]):
                if w[0] == "peak":
                    peaks[(T, rec)] = fields(w)
    Tm = max(Ts)
    mm = {}
    for rec in ("none", "all"):
        mm[rec] = run([bench, args.model, "matmul", str(Tm), rec])
    py = {}
    for w in run([PY, os.path.join(HERE, "py_forward.py"), args.model, args.T, "--reps", "3", "--f64", "64"]):
        if w[0] == "python":
            py[(w[1], int(w[3]))] = float(w[5])

    print(f"Machine: {machine()}  \nBackend: {device}  \n")
    print("| T | record none (ms) | full trace (ms) | full / none | full, pages reused (ms) | trace MiB | numpy f32 (ms) | torch f32 (ms) "
          "| ttrace full / numpy | peak RSS MiB | weights + trace + 64 MiB | peak (none) MiB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for T in Ts:
        t = times[T]
        none, full = float(t["none_median_ms"]), float(t["full_median_ms"])
        tb = int(t["trace_bytes"])
        p, pn = peaks[(T, "all")], peaks[(T, "none")]
        rss, wb = int(p["peak_rss_bytes"]), int(p["weights_bytes"])
        budget = wb + int(p["trace_bytes"]) + (64 << 20)
        npy, tor = py.get(("numpy", T)), py.get(("torch", T))
        print(f"| {T} | {none:.1f} | {full:.1f} | {full / none:.2f} | {float(t['reused_median_ms']):.1f} | {tb / 2**20:.1f} | "
              f"{npy:.1f} | {tor:.1f} | {full / npy:.2f} | {rss / 2**20:.0f} | {budget / 2**20:.0f} "
              f"({'ok' if rss <= budget else 'over'}) | {int(pn['peak_rss_bytes']) / 2**20:.0f} |")
    if ("numpy64", 64) in py:
        print(f"\nnumpy float64 forward at T=64 (the reference's precision): {py[('numpy64', 64)]:.1f} ms; "
              f"ttrace full trace / that = {float(times[64]['full_median_ms']) / py[('numpy64', 64)]:.2f}")
    for rec in ("none", "all"):
        print(f"\nMatmuls at T={Tm}, record {rec} (GFLOP/s inside the engine vs plain cblas_sgemm, same shapes):\n")
        print("| batch x (M, K, N) | trans_b | calls | engine | sgemm | engine / sgemm |")
        print("|---|---|---|---|---|---|")
        for w in mm[rec]:
            if w[0] == "matmul":
                f = fields(w)
                e, s = float(f["engine_gflops"]), float(f["sgemm_gflops"])
                print(f"| {f['batch']} x ({f['M']}, {f['K']}, {f['N']}) | {f['trans_b']} | {f['calls']} | {e:.1f} "
                      f"| {s:.1f} | {e / s:.2f} |")
            elif w[0] == "matmul_total":
                f = fields(w)
                print(f"| all matmuls | | | {f['engine_gflops']} | {f['sgemm_gflops']} | {f['ratio']} |")


if __name__ == "__main__":
    main()
