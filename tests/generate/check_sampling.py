#!/usr/bin/python3
"""The C generator and sampling rule (src/generate) against sampling_ref.py, an independent
Python implementation of docs/generation.md: the raw generator outputs for several seeds
(including known splitmix64/xoshiro256** values), and picks on random logits rows with ties,
wide ranges, every combination of temperature, top-k and top-p.

    check_sampling.py SAMPLING_PROBE
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sampling_ref import Rng, sample, splitmix64  # noqa: E402

probe = sys.argv[1]
failures = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL", msg)


# splitmix64 from state 0 gives 0xE220A8397B1DCDAF first (its authors' reference output).
if splitmix64(0)[1] != 0xE220A8397B1DCDAF:
    fail("sampling_ref.py's splitmix64 is not the reference one")

for seed in [0, 1, 42, 2**63 + 12345, 2**64 - 1]:
    out = subprocess.run([probe, "rng", str(seed), "40"], capture_output=True, text=True, check=True).stdout.split()
    r = Rng(seed)
    want_int = [r.next() for _ in range(40)]
    r = Rng(seed)
    want_dbl = [r.double() for _ in range(40)]
    got_int = [int(x) for x in out[:40]]
    got_dbl = [float(x) for x in out[40:]]
    if got_int != want_int:
        fail(f"seed {seed}: generator outputs differ: {got_int[:3]} vs {want_int[:3]}")
    if got_dbl != want_dbl:
        fail(f"seed {seed}: doubles differ: {got_dbl[:3]} vs {want_dbl[:3]}")

rng = np.random.default_rng(5)
V = 300
rows = []
for i in range(12):
    scale = [0.1, 1.0, 5.0, 30.0][i % 4]
    row = (rng.standard_normal(V) * scale).astype(np.float32)
    if i % 3 == 0:  # ties: equal logits must rank by id
        row[rng.integers(0, V, 40)] = row.max()
    rows.append(row)
settings = [(0, 0, 1.0), (1.0, 0, 1.0), (0.7, 0, 1.0), (1.3, 5, 1.0), (1.0, 0, 0.9), (0.8, 40, 0.5),
            (2.0, 1, 1.0), (1.0, 1000, 0.3), (1.0, 3, 0.999), (0.05, 0, 0.95)]
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "logits.f32")
    np.stack(rows).tofile(path)
    for (t, k, p) in settings:
        for seed in [0, 9]:
            out = subprocess.run([probe, "sample", path, str(V), repr(t), str(k), repr(p), str(seed)],
                                 capture_output=True, text=True, check=True).stdout.splitlines()
            r = Rng(seed)
            for i, row in enumerate(rows):
                want = sample([float(x) for x in row], t, k, p, r)
                g = out[i].split()
                got = (int(g[0]), float(g[1]), int(g[2]))
                if got[0] != want[0] or got[2] != want[2] or abs(got[1] - want[1]) > 1e-12:
                    fail(f"T={t} k={k} p={p} seed={seed} row {i}: C {got} vs Python {want}")
print("sampling: %s" % ("ok" if failures == 0 else f"{failures} failures"))
sys.exit(1 if failures else 0)
