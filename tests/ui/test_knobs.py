#!/usr/bin/python3
"""The what-if panel in the real window under xvfb-run: K opens it, 1 turns off ÷√d_k and
traces the variant at once (the comparison's largest difference at the current step must
equal numpy's from two traces made on the command line), 8 also knocks out the current
head (ablate=L.H), 0 goes back to the baseline, K closes the panel.

    test_knobs.py TTRACE MAKE_MODEL_PY
Exit 77 (skipped) when xvfb-run is missing.
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from window_state import check, failures, require_xvfb, view_script  # noqa: E402
from window_state import read_state as state  # noqa: E402
from safetensors_read import read_tensor  # noqa: E402

ttrace, make_model = sys.argv[1], sys.argv[2]
require_xvfb()


def max_diff(a, b, hook):
    (_, va, _), (_, vb, _) = read_tensor(a, hook), read_tensor(b, hook)
    return max(abs(x - y) for x, y in zip(va, vb) if abs(x) != float("inf") and abs(y) != float("inf"))


with tempfile.TemporaryDirectory() as tmp:
    S = lambda name: os.path.join(tmp, name)  # noqa: E731
    model, trace = S("model"), S("base.safetensors")
    subprocess.run([sys.executable, make_model, model, "--layers", "2", "--heads", "4", "--embd", "32", "--seed", "5"],
                   check=True)
    prompt = "The weather is nice today"
    subprocess.run([ttrace, "trace", "-q", "-m", model, "-o", trace, prompt], check=True)
    for name, sets in (("noscale", ["scale_attn=false"]), ("ablate", ["scale_attn=false", "ablate=1.2"])):
        args = sum((["--set", s] for s in sets), [])
        subprocess.run([ttrace, "trace", "-q", "-m", model, "-o", S(name + ".safetensors"), prompt] + args, check=True)
    script = "".join([
        "wait 200\n", "key Right\n" * 11,  # softmax, layer 0
        "key k\n", f"state {S('k1')}\n",
        "key 1\n", f"state {S('k2')}\n", f"shot {S('k2.png')}\n",
        "key Down\n", "key ]\n", "key ]\n",  # layer 1, head 2
        "key 8\n", f"state {S('k3')}\n",
        "key 0\n", f"state {S('k4')}\n",
        "key k\n", "key 1\n", f"state {S('k5')}\n",  # closed: 1 is no knob any more
        "quit\n",
    ])
    view_script(ttrace, trace, script, tmp, ["--state-out", S("final")])
    k1, k2, k3, k4, k5 = (state(S(n)) for n in ("k1", "k2", "k3", "k4", "k5"))
    check(k1.get("knobs") == "1" and k1.get("variant") == "-", f"K opens the panel: {k1.get('knobs')}")
    check(k2.get("variant") == "scale_attn=false", f"1 flips scale_attn: {k2.get('variant')!r}")
    want = max_diff(trace, S("noscale.safetensors"), "blocks.0.attn.hook_pattern")
    got = float(k2.get("compare_max_abs", "nan"))
    check(k2.get("compare_hook") == "blocks.0.attn.hook_pattern" and abs(got - want) <= 1e-6 * max(1, want),
          f"the comparison at softmax: max |A - B| {got} = {want} from `trace --set scale_attn=false`")
    check(k3.get("variant") == "scale_attn=false, ablate=1.2", f"8 knocks out head 1.2: {k3.get('variant')!r}")
    want = max_diff(trace, S("ablate.safetensors"), "blocks.1.attn.hook_pattern")
    got = float(k3.get("compare_max_abs", "nan"))
    check(abs(got - want) <= 1e-6 * max(1, want), f"layer 1 with head 1.2 out: max |A - B| {got} = {want}")
    check(k4.get("variant") == "-" and "compare_hook" not in k4, f"0: the baseline alone: {k4.get('variant')!r}")
    check(k5.get("knobs") == "0" and k5.get("variant") == "-", "K closes the panel; 1 then flips nothing")
    check(os.path.getsize(S("k2.png")) > 0, "screenshot of the panel")
    shots = os.environ.get("TTRACE_KNOB_SHOT")
    if shots:
        shutil.copy(S("k2.png"), shots)
sys.exit(1 if failures else 0)
