#!/usr/bin/python3
"""The committed lesson traces still match the engine: remake every trace the lessons
define into a temporary folder (`ttrace lesson --make-traces -o TMP`, the default model)
and compare each with lessons/traces/ tensor by tensor with `ttrace diff --tol 1e-4`
(max|A-B| <= 1e-4 * max(1, max|A|), the reference check's tolerance). Also: no stale or
missing trace files, and the committed traces stay small. Skips (77) without the model.

    check_traces.py TTRACE SOURCE_ROOT
"""
import glob
import os
import subprocess
import sys
import tempfile

TTRACE, ROOT = sys.argv[1], sys.argv[2]
TRACES = os.path.join(ROOT, "lessons", "traces")
LIMIT_MIB = 20

models = glob.glob(os.path.join(ROOT, "assets", "models", "*", "model.safetensors"))
if not models:
    print("skip: the default model (assets/models/*/model.safetensors) is not installed")
    sys.exit(77)

failed = 0
with tempfile.TemporaryDirectory() as tmp:
    r = subprocess.run([TTRACE, "lesson", "--make-traces", "-o", tmp], capture_output=True, text=True,
                       env={**os.environ, "TTRACE_LESSONS": os.path.join(ROOT, "lessons")}, timeout=600)
    print(r.stdout, end="")
    if r.returncode != 0:
        print("FAIL --make-traces:", r.stderr)
        sys.exit(1)
    made = sorted(os.path.basename(p) for p in glob.glob(os.path.join(tmp, "*.safetensors")))
    committed = sorted(os.path.basename(p) for p in glob.glob(os.path.join(TRACES, "*.safetensors")))
    for name in sorted(set(committed) - set(made)):
        print(f"FAIL lessons/traces/{name} is defined by no lesson (stale: delete it)")
        failed += 1
    for name in sorted(set(made) - set(committed)):
        print(f"FAIL lessons/traces/{name} is missing: run `ttrace lesson --make-traces` and commit it")
        failed += 1
    for name in sorted(set(made) & set(committed)):
        d = subprocess.run([TTRACE, "diff", "--tol", "1e-4", "--quiet", os.path.join(TRACES, name),
                            os.path.join(tmp, name)], capture_output=True, text=True, timeout=120)
        ok = d.returncode == 0 and "SAME: 0 problems" in d.stdout
        print(("ok    " if ok else "FAIL  ") + name + ("" if ok else "\n" + d.stdout + d.stderr))
        failed += not ok

total = sum(os.path.getsize(p) for p in glob.glob(os.path.join(TRACES, "*")))
print(f"lessons/traces: {total / 2**20:.2f} MiB (limit {LIMIT_MIB} MiB)")
if total > LIMIT_MIB * 2**20:
    print("FAIL the committed traces are too large: record fewer hooks (record= in the trace lines)")
    failed += 1
sys.exit(1 if failed else 0)
