#!/usr/bin/python3
"""The performance table of bench/run_perf.py for the Llama block: the same targets as
GPT-2 on a Llama-shaped model of GPT-2-small's size, on 1 and on 2 threads.

    bench/run_llama_perf.py BUILD_DIR [--model DIR] [--T 1,4,64,256] [--threads 1,2] [--quick]

Makes a random LlamaForCausalLM folder (tests/llama/make_llama.py) into DIR when it is not
there (default /tmp/ttrace-bench-llama): 12 layers, hidden 768, 12 query heads sharing 4
key/value heads (head_dim 64), intermediate 2048, V = 50257, tied embeddings, F32, 1024
positions (~460 MB; GPT-2 small is 124 M parameters, this one 114 M). Every program runs
with the same OPENBLAS_CORETYPE and OPENBLAS_NUM_THREADS / OMP_NUM_THREADS = n (run_perf.py's
helpers). T = 1024 is allowed (--T 1,4,64,256,1024) but slow. --quick: T = 1,4,64, a
check that everything runs.

Measured, per thread count n:
  ttrace     bench_forward times: full trace (a re-trace from the trace pool), the first
             trace on fresh memory, record none, and full into reused recorder pages
  torch      bench/torch_llama_cache.py (a run_with_cache-style Llama forward) on n cores
             (run_perf.measure_times): OpenBLAS on n threads, each torch thread setting
             up to n; its fair figure on n cores is the best of those
  bandwidth  bench_probes bandwidth n (GB/s)
  sgemm      bench_probes sgemm T: the GFLOP/s of cblas_sgemm over GPT-2 small's products
             at T tokens (the same widths, 768 and 64, and T); the Llama limit is this
             model's FLOPs at T (counted below from config.json) divided by that rate
Targets (issue 17's for GPT-2, with issue 15's recording bound): full ≤ 0.67× torch;
T ≤ 16: full ≤ 1.5× weight bytes ÷ bandwidth; T ≥ 64: record none ≤ 1.3× FLOPs ÷ sgemm
rate; full ≤ 1.25× record none (issue 15 names T = 64; the table marks every T).
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from run_perf import PY, coretype, env_for, fields, load_average, mark, measure_times, run, torch_settings  # noqa: E402

SHAPE = ["--layers", "12", "--heads", "12", "--kv-heads", "4", "--embd", "768", "--inner", "2048", "--vocab",
         "50257", "--positions", "1024", "--tied", "--seed", "7"]


def llama_flops(cfg, T):
    """2·M·N·K of every matrix product of one forward pass at T tokens: per layer q, k, v,
    o, gate, up, down and the two attention products (all T×T scores computed), then the
    unembedding."""
    C, H, F, V, L = (cfg[k] for k in ("hidden_size", "num_attention_heads", "intermediate_size", "vocab_size",
                                      "num_hidden_layers"))
    G = cfg.get("num_key_value_heads") or H
    D = cfg.get("head_dim") or C // H
    per_layer = 2 * T * C * (H * D + 2 * G * D) + 2 * T * H * D * C + 3 * 2 * T * C * F + 2 * 2 * H * T * T * D
    return L * per_layer + 2 * T * C * V


def measure(args, core):
    Ts = [int(t) for t in args.T.split(",")]
    threads = [int(n) for n in args.threads.split(",")]
    r = measure_times(args, core, Ts, threads, "torch_llama_cache.py")
    for w in run([os.path.join(args.build, "bench", "bench_forward"), args.model, "peak", "1", "none"],
                 env_for(1, core))[0]:
        if w[0] == "peak":
            r["weights_bytes"] = int(fields(w)["weights_bytes"])
    return r, Ts, threads


def row(r, cfg, n, T, wbytes):
    t = r["times"][(n, T)]
    full, none = float(t["full_median_ms"]), float(t["none_median_ms"])
    torch = r["torch"][(n, T)]
    if T <= 16:  # memory-bound: every weight read once
        limit, which, target, mine = wbytes / (r["bw"][n] * 1e9) * 1e3, "weights / bandwidth", 1.5, full
    else:
        limit = llama_flops(cfg, T) / (float(r["sgemm"][(n, T)]["gflops"]) * 1e9) * 1e3
        which, target, mine = f"{llama_flops(cfg, T) / 1e9:.1f} GFLOP / sgemm", 1.3, none
    return (f"| {T} | {full:.1f} | {float(t['fresh_median_ms']):.1f} | {none:.1f} | {float(t['reused_median_ms']):.1f} | "
            f"{torch:.1f} | "
            f"{full / torch:.2f} {mark(full / torch <= 0.67)} | {limit:.1f} ({which}) | "
            f"{mine / limit:.2f} (≤ {target}) {mark(mine / limit <= target)} | {full / none:.2f} "
            f"{mark(full / none <= 1.25)} |")


def report(r, cfg, Ts, threads, core, load_before):
    wbytes = r["weights_bytes"]
    G = cfg.get("num_key_value_heads") or cfg["num_attention_heads"]
    print(f"Llama block: {cfg['num_hidden_layers']} layers, hidden {cfg['hidden_size']}, "
          f"{cfg['num_attention_heads']} query heads on {G} key/value heads, intermediate "
          f"{cfg['intermediate_size']}, V = {cfg['vocab_size']}, tied, F32 ({wbytes / 1e6:.0f} MB of weights)")
    print(f"OPENBLAS_CORETYPE={core or '(OpenBLAS default)'}; load average before: {load_before}, "
          f"after: {load_average()}\n")
    for n in threads:
        print(f"### {n} thread{'s' if n > 1 else ''} (streaming read {r['bw'][n]:.1f} GB/s)\n")
        print("| T | ttrace full, re-trace (ms) | first trace, fresh pages (ms) | record none (ms) | full, pages "
              "reused (ms) | torch keeping all, on as many cores (ms) | full / torch (≤ 0.67) | limit (ms) | "
              "vs limit | full / none (≤ 1.25) |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for T in Ts:
            print(row(r, cfg, n, T, wbytes))
        print()
    print(torch_settings(r, Ts))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build", help="the meson build folder (bench/bench_forward, bench/bench_probes)")
    ap.add_argument("--model", default="/tmp/ttrace-bench-llama", help="the Llama folder (made when missing)")
    ap.add_argument("--T", help="token counts, comma-separated (default 1,4,64,256; --quick: 1,4,64)")
    ap.add_argument("--threads", default="1,2", help="thread counts, comma-separated")
    ap.add_argument("--quick", action="store_true", help="a short check that everything runs")
    args = ap.parse_args()
    args.T = args.T or ("1,4,64" if args.quick else "1,4,64,256")
    if not os.path.exists(os.path.join(args.model, "config.json")):
        subprocess.run([PY, os.path.join(ROOT, "tests", "llama", "make_llama.py"), args.model] + SHAPE, check=True)
    with open(os.path.join(args.model, "config.json")) as f:
        cfg = json.load(f)
    core = coretype()
    load_before = load_average()
    t0 = time.perf_counter()
    r, Ts, threads = measure(args, core)
    report(r, cfg, Ts, threads, core, load_before)
    print(f"\n(run_llama_perf.py took {time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
