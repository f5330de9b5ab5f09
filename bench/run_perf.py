#!/usr/bin/python3
"""The performance table of the issue "ahead of torch at every length, close to the
machine's limits", with the limits and the ratios, on 1 and on 2 threads.

    bench/run_perf.py BUILD_DIR [--model DIR] [--T 1,4,16,64,256,1024] [--threads 1,2]
                      [--scratch DIR] [--rounds 2] [--quick]

About 12 minutes on the 2-core development machine when it is quiet (two rounds of
every timing, interleaved, each figure the better of its two: see best_of). Makes the
random GPT-2-small model (12 layers, C = 768, V = 50257, F32; ~500 MB) into DIR when it is
not there (default /tmp/ttrace-bench-gpt2s). Every program runs with the same
OPENBLAS_CORETYPE (the kernels ttrace picks for this CPU, see tt_openblas_better_coretype;
torch and numpy load the same OpenBLAS) and OPENBLAS_NUM_THREADS / OMP_NUM_THREADS = n.
--quick: fewer lengths (1,4,64), one round and no 3.5 GiB files: a check that everything runs.

Measured, per thread count n:
  ttrace       bench_forward times: record none; full trace as a re-trace (from a trace
               pool, as the session makes them) and as a process's first trace (new
               pages); every hook's bytes into one reused buffer (a recorder without
               rules: 3.5 GiB at T = 1024, the attention op by op); page faults per run
  torch        bench/torch_cache.py (the run_with_cache-style baseline) on n cores
               (OpenBLAS on n threads, as ttrace), torch.set_num_threads(m) for each
               m <= n; its fair figure on n cores is the best of those
  bandwidth    bench_probes bandwidth n (streaming read, GB/s)
  peak FMA     bench_probes peak n (the cores' FMA rate on registers, GFLOP/s): the compute
               floor FLOPs / peak, which at T = 16 can exceed weight bytes / bandwidth (a
               core that streams 30 GB/s reads the weights faster than it can do 4 GFLOP)
  sgemm        bench_probes sgemm T (the forward's matrix products at plain sgemm speed,
               and their FLOPs)
once:
  peak RSS     bench_forward peak T all (its own process per T), against weights + the
               bytes the trace holds + 64 MiB
  trace write  bench_forward save at the largest T (tt_trace_save) against a plain write +
               fsync of as many bytes in the same folder just before and just after it
               (the disk is shared: its speed moves within minutes)
  open         bench_forward open (load + layer 0's pattern read) and `ttrace render` of
               that trace (whole command, painting included)
  new memory   bench_probes fresh, as many MiB as the largest T's trace holds, rounds 0 s
               and 3 s apart: what a first trace's new pages cost on this host (a VM whose
               kernel hands freed memory to its host pays again for it once taken back),
               and the kernel's free page reporting where it has one (the blocks it hands back)
"""
import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PY = "/usr/bin/python3"


def coretype():
    if os.environ.get("OPENBLAS_CORETYPE"):
        return os.environ["OPENBLAS_CORETYPE"]
    flags = ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                flags = line.split()
                break
    if all(x in flags for x in ("avx512f", "avx512bw", "avx512vl", "avx512dq")):
        return "SkylakeX"
    return "Haswell" if "avx2" in flags and "fma" in flags else ""


def env_for(threads, core):
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    if core:
        env["OPENBLAS_CORETYPE"] = core
    return env


def run(cmd, env):
    print("$ " + " ".join(cmd), file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
    sys.stderr.write(p.stdout)
    return [line.split() for line in p.stdout.splitlines()], time.perf_counter() - t0


def fields(words):
    """'times T 4 reps 20 x 1.5' -> {'T': '4', 'reps': '20', 'x': '1.5'} (the first word is the kind)"""
    return dict(zip(words[1::2], words[2::2]))


def disk_write(path, nbytes):
    """Seconds to write nbytes (8 MiB blocks) and fsync, as tt_trace_save's atomic writer does."""
    block = b"\0" * (8 << 20)
    t0 = time.perf_counter()
    with open(path, "wb") as f:
        left = nbytes
        while left > 0:
            left -= f.write(block[: min(left, len(block))])
        f.flush()
        os.fsync(f.fileno())
    dt = time.perf_counter() - t0
    os.unlink(path)
    return dt


def load_average():
    return " ".join(open("/proc/loadavg").read().split()[:3])


def probes_path(args):
    return os.path.join(args.build, "bench", "bench_probes")


def measure_times(args, core, Ts, threads, torch_script):
    """Per thread count n: the bandwidth probe (r["bw"][n], GB/s), the sgemm probe at every
    T >= 64 (r["sgemm"][(n, T)], its fields: flops, seconds, gflops) and bench_forward's
    times (r["times"][(n, T)]); then torch_script (in bench/) on n cores: OpenBLAS limited
    to n threads, as ttrace is, and torch.set_num_threads(m) for every m <= n
    (r["torch_each"][(n, m, T)], median ms), the best of them r["torch"][(n, T)]. (With
    OpenBLAS on 2 threads, torch.set_num_threads(1) still runs its products on both cores:
    T = 64 took 180 ms so and 268 ms on one core.)"""
    bench = os.path.join(args.build, "bench", "bench_forward")
    probes = probes_path(args)
    r = {"times": {}, "bw": {}, "fma": {}, "sgemm": {}, "torch": {}, "peak": {}}
    for n in threads:
        env = env_for(n, core)
        for w in run([probes, "bandwidth", str(n)], env)[0]:
            r["bw"][n] = float(fields(w)["gbps"])
        for w in run([probes, "peak", str(n)], env)[0]:
            r["fma"][n] = float(fields(w)["gflops"])
        for T in Ts:
            for w in run([probes, "sgemm", str(T)], env)[0]:
                if w[0] == "sgemm":
                    r["sgemm"][(n, T)] = fields(w)
        for w in run([bench, args.model, "times", args.T], env)[0]:
            if w[0] == "times":
                r["times"][(n, int(fields(w)["T"]))] = fields(w)
    r["torch_each"] = {}
    for n in threads:
        settings = ",".join(str(m) for m in threads if m <= n)
        out, _ = run([PY, os.path.join(HERE, torch_script), args.model, args.T, "--threads", settings],
                     env_for(n, core))
        for w in out:
            if w[0] == "torch":
                f = fields(w)
                r["torch_each"][(n, int(f["threads"]), int(f["T"]))] = float(f["median_ms"])
    for (n, m, T), ms in r["torch_each"].items():
        r["torch"][(n, T)] = min(ms, r["torch"].get((n, T), ms))
    return r


def best_of(a, b):
    """Two rounds of measure_times as one: each figure the better of the two (times and
    medians the lower, bandwidth the higher, the sgemm probe the faster run). The host's
    speed drifts by up to 30 % within minutes; with rounds interleaved (ttrace, probes,
    torch, then again), a slow minute costs one round of one side, not the ratio."""
    r = {"times": {}, "bw": {}, "fma": {}, "sgemm": {}, "torch": {}, "peak": {}}
    for key, t in a["times"].items():
        u = b["times"].get(key, t)
        r["times"][key] = {f: (min(v, u[f], key=float) if f.endswith("_ms") else v) for f, v in t.items()}
    r["bw"] = {n: max(v, b["bw"].get(n, v)) for n, v in a["bw"].items()}
    r["fma"] = {n: max(v, b["fma"].get(n, v)) for n, v in a["fma"].items()}
    r["sgemm"] = {k: min(v, b["sgemm"].get(k, v), key=lambda f: float(f["seconds"])) for k, v in a["sgemm"].items()}
    r["torch"] = {k: min(v, b["torch"].get(k, v)) for k, v in a["torch"].items()}
    r["torch_each"] = {k: min(v, b["torch_each"].get(k, v)) for k, v in a["torch_each"].items()}
    return r


def measure(args, core):
    bench = os.path.join(args.build, "bench", "bench_forward")
    Ts = [int(t) for t in args.T.split(",")]
    threads = [int(n) for n in args.threads.split(",")]
    r = measure_times(args, core, Ts, threads, "torch_cache.py")
    for _ in range(args.rounds - 1):
        r = best_of(r, measure_times(args, core, Ts, threads, "torch_cache.py"))
    env = env_for(1, core)
    for T in Ts:
        for w in run([bench, args.model, "peak", str(T), "all"], env)[0]:
            if w[0] == "peak":
                r["peak"][T] = fields(w)
    if not args.quick:
        path = os.path.join(args.scratch, "ttrace-perf-trace.safetensors")
        dd = os.path.join(args.scratch, "ttrace-perf-dd.bin")
        # The plain write as large as the trace: past a GiB or two the page cache's dirty limit
        # throttles any writer (here 1 GiB plain 0.8-1.8 GB/s, 3.5 GiB 0.45-1.2 GB/s).
        same = int(r["peak"][max(Ts)]["trace_bytes"])
        r["disk_bps"] = [same / disk_write(dd, same)]
        for w in run([bench, args.model, "save", str(max(Ts)), path], env_for(max(threads), core))[0]:
            if w[0] == "save":
                r["save"] = fields(w)
        r["disk_bps"].append(same / disk_write(dd, same))
        for w in run([bench, args.model, "open", path], env)[0]:
            if w[0] == "open":
                r["open"] = fields(w)
        mib = str(max(1, int(r["peak"][max(Ts)]["held_bytes"]) >> 20))
        r["fresh"] = {}
        for pause in ("0", "3"):
            rounds = [fields(w) for w in run([probes_path(args), "fresh", mib, pause], env)[0] if w[0] == "fresh"]
            r["fresh"][pause] = sorted(float(f["first_ms"]) for f in rounds[1:])  # round 0: whatever came before
        png = os.path.join(args.scratch, "ttrace-perf-grid.png")
        ttrace = os.path.join(args.build, "src", "cli", "ttrace")
        _, r["render_s"] = run([ttrace, "render", path, "--step", "blocks.0.attn.hook_pattern", "--view", "grid",
                                "-m", args.model, "-o", png], env)
        os.unlink(png)
        os.unlink(path)
    return r, Ts, threads


def torch_settings(r, Ts):
    """The line with torch's time in each setting: cores (OpenBLAS threads) / intra-op threads."""
    keys = sorted({(n, m) for n, m, _ in r["torch_each"]})
    return (f"torch keeping all activations, each setting (cores / torch threads: "
            f"{', '.join(f'{n}/{m}' for n, m in keys)}), ms: " +
            ", ".join(f"T={T}: " + " / ".join(f"{r['torch_each'][(n, m, T)]:.1f}" for n, m in keys) for T in Ts))


def mark(ok):
    return "met" if ok else "NOT met"


def report(r, Ts, threads, core, load_before):
    wbytes = int(next(iter(r["peak"].values()))["weights_bytes"])
    print(f"OPENBLAS_CORETYPE={core or '(OpenBLAS default)'}; load average before: {load_before}, "
          f"after: {load_average()}\n")
    for n in threads:
        bw, fma = r["bw"][n], r["fma"][n]
        print(f"### {n} thread{'s' if n > 1 else ''} (streaming read {bw:.1f} GB/s, peak FMA {fma:.0f} GFLOP/s)\n")
        print("| T | full, re-trace (ms) | full, first trace (ms) | record none (ms) | every byte into a reused buffer (ms) "
              "| torch keeping all, on as many cores (ms) | full / torch (≤ 0.67) | limit (ms) | vs limit "
              "| compute floor: FLOPs / peak FMA (ms) | vs the larger of limit and floor "
              "| full / none (≤ 1.2) | first / none | page faults per run: re-trace / first |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for T in Ts:
            t = r["times"][(n, T)]
            full, none, reused = float(t["full_median_ms"]), float(t["none_median_ms"]), float(t["reused_median_ms"])
            fresh = float(t["fresh_median_ms"])
            torch = r["torch"][(n, T)]
            if T <= 16:  # memory-bound: every weight read once
                limit, which, target, mine = wbytes / (bw * 1e9) * 1e3, "weights / bandwidth", 1.5, full
            else:
                limit, which, target, mine = float(r["sgemm"][(n, T)]["seconds"]) * 1e3, "FLOPs / sgemm", 1.3, none
            floor = float(r["sgemm"][(n, T)]["flops"]) / (fma * 1e9) * 1e3
            print(f"| {T} | {full:.1f} | {fresh:.1f} | {none:.1f} | {reused:.1f} | {torch:.1f} | {full / torch:.2f} "
                  f"{mark(full / torch <= 0.67)} | {limit:.1f} ({which}) | {mine / limit:.2f} (≤ {target}) "
                  f"{mark(mine / limit <= target)} | {floor:.1f} | {mine / max(limit, floor):.2f} | "
                  f"{full / none:.2f} {mark(full / none <= 1.2)} | "
                  f"{fresh / none:.2f} {mark(fresh / none <= 1.2)} | {t['full_faults']} / {t['fresh_faults']} |")
        print()
    print(torch_settings(r, Ts) + "\n")
    print("| T | peak RSS (MiB) | weights + trace held + 64 MiB | trace in a file (MiB) | trace held (MiB) |")
    print("|---|---|---|---|---|")
    for T in Ts:
        p = r["peak"][T]
        rss, held = int(p["peak_rss_bytes"]), int(p["held_bytes"])
        budget = wbytes + held + (64 << 20)
        print(f"| {T} | {rss / 2**20:.0f} | {budget / 2**20:.0f} {mark(rss <= budget)} | "
              f"{int(p['trace_bytes']) / 2**20:.1f} | {held / 2**20:.1f} |")
    if "save" in r:
        nbytes, save_s = int(r["save"]["bytes"]), float(r["save"]["seconds"])
        disk = sum(r["disk_bps"]) / len(r["disk_bps"])
        print(f"\ntrace write, T = {r['save']['T']}: {nbytes / 2**30:.2f} GiB in {save_s:.2f} s = {nbytes / save_s / 1e9:.3f} GB/s; "
              f"plain write + fsync of as many bytes just before and after: "
              f"{' and '.join(f'{b / 1e9:.3f}' for b in r['disk_bps'])} GB/s; "
              f"ratio to their mean {nbytes / save_s / disk:.2f} (1 = disk speed)")
        o = r["open"]
        print(f"open the {nbytes / 2**30:.2f} GiB trace: tt_trace_load {float(o['load_s']) * 1e3:.1f} ms, "
              f"+ layer 0's pattern read {float(o['pattern_read_s']) * 1e3:.1f} ms; whole `ttrace render --view grid` "
              f"command {r['render_s']:.2f} s (target open ≤ 0.5 s: {mark(float(o['load_s']) <= 0.5)})")
    if "fresh" in r:
        held = int(r["peak"][max(Ts)]["held_bytes"])
        at_once, later = r["fresh"]["0"], r["fresh"]["3"]
        print(f"new memory as large as the T = {max(Ts)} trace holds ({held / 1e9:.2f} GB), first write: "
              f"{' / '.join(f'{ms:.0f}' for ms in at_once)} ms when freed and taken again at once, "
              f"{' / '.join(f'{ms:.0f}' for ms in later)} ms 3 s later (what a first trace's pages cost here)")
        reporting = free_page_reporting()
        if reporting:
            print(reporting)


def free_page_reporting():
    """A line naming this kernel's free page reporting (free memory handed back to the host
    of a VM, which faults it in again when the guest takes it), or None where it has none."""
    try:
        order = int(open("/sys/module/page_reporting/parameters/page_reporting_order").read())
    except (OSError, ValueError):
        return None
    block = os.sysconf("SC_PAGE_SIZE") << order
    return f"this kernel hands its host every free block of {block >> 20} MiB and more (free page reporting, order {order})"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("--model", default="/tmp/ttrace-bench-gpt2s")
    ap.add_argument("--T", default="1,4,16,64,256,1024")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--scratch", default="/tmp", help="folder for the 3.5 GiB trace and the disk-speed file")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rounds", type=int, default=2, help="rounds of every timing, interleaved; the best of each is kept")
    args = ap.parse_args()
    if args.quick and args.T == "1,4,16,64,256,1024":
        args.T = "1,4,64"
        args.rounds = 1
    if not os.path.exists(os.path.join(args.model, "model.safetensors")):
        subprocess.run([PY, os.path.join(ROOT, "tests", "reference", "make_model.py"), args.model, "--layers", "12",
                        "--heads", "12", "--embd", "768", "--positions", "1024", "--vocab", "50257", "--seed", "7"],
                       check=True)
    core = coretype()
    load_before = load_average()
    t0 = time.perf_counter()
    r, Ts, threads = measure(args, core)
    report(r, Ts, threads, core, load_before)
    print(f"\n(run_perf.py took {time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
