"""ttrace cost against an independent count from the model's config.json.

  /usr/bin/python3 tests/cost/check_cost.py TTRACE REPO

Every step's FLOPs and bytes of the prefill and of one decode step, computed here from the
rules of docs/cost.md (written from the shapes of GPT-2's forward pass, not from the C);
the measured times: every step's positive, their sum the reported total, and that total
within a tolerance of the wall time of whole runs; the fused Q/K/V numbers; the bad-input
exit codes and one-line errors.
"""
import json
import os
import subprocess
import sys

F32 = 4
ACT = {"gelu_new": 9, "gelu": 5, "relu": 1, "silu": 4, "identity": 0}


def matmul(name, b, m, k, n, bias):
    flops = 2 * b * m * n * k + (m * n if bias else 0)
    return (name, "matmul", flops, F32 * (b * m * k + b * k * n + (n if bias else 0)), F32 * b * m * n)


def elem(name, n, per, floats_in, floats_out, extra=0):
    return (name, "elementwise" if per else "move", n * per, F32 * floats_in + extra, F32 * floats_out)


def count(cfg, T, ctx, decode):
    """The ops of a pass over T new tokens with ctx cached rows."""
    C, H, L, V = cfg["n_embd"], cfg["n_head"], cfg["n_layer"], cfg["vocab_size"]
    F = cfg.get("n_inner") or 4 * C
    D, S = C // H, T + ctx
    act = cfg.get("activation_function", "gelu_new")
    rms = cfg.get("ttrace_norm") == "rmsnorm"
    pos = cfg.get("ttrace_positions", "learned") != "none"
    tc, hts = T * C, H * T * S

    def norm(name):  # reads x, γ (β); writes out, normalized, mean, scale
        return elem(name, tc, 4 if rms else 7, tc + C * (1 if rms else 2), 2 * tc + 2 * T)

    ops = [elem("hook_embed", tc, 0, tc, tc, 4 * T), elem("blocks.0.hook_resid_pre", tc, 1 if pos else 0,
                                                          2 * tc if pos else tc, tc)]
    for l in range(L):
        b = "blocks.%d." % l
        ops += [norm(b + "ln1.hook_out"),
                matmul(b + "attn.hook_qkv", 1, T, C, 3 * C, True),
                elem(b + "attn.hook_v", 3 * tc, 0, 3 * tc, 3 * tc),
                matmul(b + "attn.hook_attn_scores_raw", H, T, D, S, False),
                elem(b + "attn.hook_attn_scores_scaled", hts, 1, hts, hts),
                elem(b + "attn.hook_attn_scores", hts, 0, hts, hts),
                elem(b + "attn.hook_pattern", hts, 5, hts, hts),
                matmul(b + "attn.hook_z", H, T, S, D, False),
                matmul(b + "hook_attn_out", 1, T, C, C, True),
                elem(b + "hook_resid_mid", tc, 1, 2 * tc, tc),
                norm(b + "ln2.hook_out"),
                matmul(b + "mlp.hook_pre", 1, T, C, F, True),
                elem(b + "mlp.hook_post", T * F, ACT[act], T * F, T * F),
                matmul(b + "hook_mlp_out", 1, T, F, C, True),
                elem(b + "hook_resid_post", tc, 1, 2 * tc, tc)]
    ops += [norm("ln_final.hook_out"), matmul("hook_logits", 1, T, C, V, False),
            elem("hook_probs", T * V, 5, T * V, T * V)]
    if not decode and T >= 2:
        n = (T - 1) * V
        ops.append(elem("hook_loss", n, 3, n, T - 1, 4 * T))
    return ops


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, **kw)


def main():
    ttrace, root = sys.argv[1], sys.argv[2]
    fails = []
    cfg = json.load(open(os.path.join(root, "assets", "models", "tiny-classroom", "config.json")))
    prompt = "The weather is nice"
    p = run([ttrace, "cost", "--tsv", "--qkv", "--repeats", "5", "--context", "9", prompt])
    if p.returncode != 0:
        raise SystemExit("check_cost: ttrace cost failed: %s" % p.stderr)
    rows = [line.split("\t") for line in p.stdout.splitlines()]
    T = 4
    expect = {"prefill": count(cfg, T, 0, False), "decode": count(cfg, 1, 9, True)}
    for name, ops in expect.items():
        got = [r for r in rows if r[0] == name]
        if [r[1] for r in got] != [o[0] for o in ops]:
            fails.append("%s: steps %s, expected %s" % (name, [r[1] for r in got], [o[0] for o in ops]))
            continue
        for r, o in zip(got, ops):
            for what, a, b in (("kind", r[2], o[1]), ("FLOPs", float(r[3]), o[2]), ("bytes read", float(r[4]), o[3]),
                               ("bytes written", float(r[5]), o[4])):
                if a != b:
                    fails.append("%s %s: %s %s, expected %s" % (name, o[0], what, a, b))
        tot = [r for r in rows if r[0] == "total" and r[1] == name][0]
        flops = sum(o[2] for o in ops)
        mm = sum(o[2] for o in ops if o[1] == "matmul")
        nbytes = sum(o[3] + o[4] for o in ops)
        if (float(tot[3]), float(tot[4]), float(tot[5])) != (flops, mm, nbytes):
            fails.append("%s totals %s, expected %s" % (name, tot[3:6], (flops, mm, nbytes)))
        print("%s: %d steps, %.0f FLOPs (matrix products %.2f%%), %.0f bytes" % (name, len(ops), flops,
                                                                                 100 * mm / flops, nbytes))
    # times: each prefill step measured and positive; their sum is the total; near the wall time
    pre = [r for r in rows if r[0] == "prefill"]
    secs = [float(r[6]) for r in pre]
    if min(secs) <= 0:
        fails.append("a prefill step without a positive time: %s" % [r[1] for r in pre if float(r[6]) <= 0])
    tot = [r for r in rows if r[0] == "total" and r[1] == "prefill"][0]
    total, wall = float(tot[6]), float(tot[7])
    if abs(sum(secs) - total) > 1e-6 * total:
        fails.append("the steps' times sum to %g, the total says %g" % (sum(secs), total))
    if not (0.7 * wall <= total <= 1.02 * wall):
        fails.append("the steps' times sum to %g s, a whole run took %g s" % (total, wall))
    print("times: %d steps, sum %.1f us, whole run %.1f us" % (len(secs), total * 1e6, wall * 1e6))
    dec = [float(r[6]) for r in rows if r[0] == "decode"]
    if any(s != -1 for s in dec):
        fails.append("decode steps carry times, but the decode step is counted, not run")
    mach = [r for r in rows if r[0] == "machine"][0]
    if not (float(mach[1]) > 1e8 and float(mach[2]) > 1e8 and 0 < float(mach[3]) < 1.5):
        fails.append("machine probes: %s" % mach)
    # fused Q/K/V: the same FLOPs; the fused one reads x once instead of three times
    q = [r for r in rows if r[0] == "qkv"][0]
    C = cfg["n_embd"]
    fused_b = F32 * (T * C + 3 * C * C + 3 * C + 3 * T * C)
    sep_b = 3 * F32 * (T * C + C * C + C + T * C)
    want = [2 * T * C * 3 * C + 3 * T * C, 3 * (2 * T * C * C + T * C), fused_b, sep_b]
    if [float(x) for x in q[5:9]] != want or float(q[3]) <= 0 or float(q[4]) <= 0:
        fails.append("qkv line %s, expected FLOPs/bytes %s" % (q, want))
    # bad input: one line on stderr, the documented exit code, nothing on stdout
    bad = [(["--repeats", "0", prompt], 2), (["--context", "x", prompt], 2), (["--context", "128", prompt], 3),
           ([""], 3), (["-m", "/nonexistent-model", prompt], 4), ([], 2), (["-b", "nosuch", prompt], 3)]
    for args, code in bad:
        p = run([ttrace, "cost"] + args)
        lines = p.stderr.strip().splitlines()
        if p.returncode != code or len(lines) != 1 or p.stdout:
            fails.append("cost %s: exit %d (want %d), stderr %r" % (args, p.returncode, code, p.stderr))
    for f in fails:
        print("FAIL", f)
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
