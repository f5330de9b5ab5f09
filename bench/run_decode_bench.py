#!/usr/bin/python3
"""Decode-speed benchmark (issue 14): on the GPT-2-small shape, one decode step with the KV
cache at T = 256 against recomputing the whole sequence (target >= 10x), and tokens per
second against the memory-bandwidth bound (the bytes a step reads / the measured
bandwidth; target: a step within 1.5x of the bound), on 1 and 2 threads.

    run_decode_bench.py BUILD [--model DIR] [--T 256] [--steps 16] [--tiny] [--packed]

The model (random weights, 12 layers, 12 heads, C = 768, V = 50257, 1024 positions) is made
once by tests/reference/make_model.py into DIR (default /tmp/ttrace-bench-gpt2s, the same
one bench/run_bench.py uses). --tiny runs a 2-layer C = 64 model with T = 32 instead (a
check that the benchmark works, in seconds; its numbers mean nothing). --packed: the engine
packs its weights first, as it does by itself for a prompt of 512 tokens or more
(bench_decode --packed; the full passes are timed after the warm-up that packs them).
"""
import argparse
import os
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
PY = sys.executable


def fields(line):
    w = line.split()
    return {w[i]: w[i + 1] for i in range(1, len(w) - 1, 2)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("--model", default="/tmp/ttrace-bench-gpt2s")
    ap.add_argument("--T", type=int, default=256)
    ap.add_argument("--steps", type=int, default=16)
    ap.add_argument("--tiny", action="store_true")
    ap.add_argument("--packed", action="store_true")
    a = ap.parse_args()
    shape = ["--layers", "12", "--heads", "12", "--embd", "768", "--positions", "1024", "--vocab", "50257", "--seed", "7"]
    if a.tiny:
        a.model, a.T, a.steps = "/tmp/ttrace-bench-decode-tiny", 32, 8
        shape = ["--layers", "2", "--heads", "4", "--embd", "64", "--positions", "64", "--vocab", "50257"]
    if not os.path.exists(os.path.join(a.model, "model.safetensors")):
        subprocess.run([PY, os.path.join(ROOT, "tests", "reference", "make_model.py"), a.model] + shape, check=True)
    bench = os.path.join(a.build, "bench", "bench_decode")
    print("| threads | T | decode step (ms) | full recompute of T+1 (ms) | speedup (target >= 10) | tokens/s | "
          "bytes/step (MiB) | bandwidth (GB/s) | bound (ms) | step / bound (target <= 1.5) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    ok = True
    for threads in (1, 2):
        env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads))
        out = subprocess.run([bench] + (["--packed"] if a.packed else []) + [a.model, str(a.T), str(threads),
                                                                              str(a.steps)], env=env, check=True,
                             capture_output=True, text=True).stdout
        f = fields([l for l in out.splitlines() if l.startswith("decode ")][0])
        sp, ob = float(f["speedup"]), float(f["step_over_bound"])
        ok = ok and sp >= 10 and ob <= 1.5
        print("| %d | %s | %s | %s | %.1f | %s | %.1f | %s | %s | %.2f |" % (
            threads, f["T"], f["step_median_ms"], f["full_median_ms"], sp, f["tokens_per_s"],
            float(f["bytes_per_step"]) / 2**20, f["bandwidth_gbs"], f["bound_ms"], ob))
    print("targets met" if ok else "targets NOT met")


if __name__ == "__main__":
    main()
