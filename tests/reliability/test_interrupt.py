#!/usr/bin/python3
"""A `ttrace trace` killed while it writes a large trace leaves nothing behind and the
previous output intact: SIGINT, SIGTERM and SIGKILL with the unnamed temporary file
(O_TMPFILE), SIGINT and SIGTERM with the named fallback (TTRACE_NO_O_TMPFILE=1, as on a
filesystem without O_TMPFILE, where a handler removes the file).

    test_interrupt.py TTRACE SOURCE_ROOT

The model is a random one (tests/reference/make_model.py) with GPT-2's vocabulary and
512 positions; a 500-token prompt recording hook_logits and hook_probs makes a 200 MB
trace. The signal is sent once the writer's temporary file holds data but not all of it.
"""
import hashlib
import os
import signal
import subprocess
import sys
import tempfile
import time

TTRACE, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
passed, failed = 0, 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok    {name}")
    else:
        failed += 1
        print(f"FAIL  {name}: {detail}")


def digest(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def temp_fd(pid, folder, final):
    """The size of the writer's temporary file in folder (any file it has open there but the
    final one: unnamed, shown as "folder/#N (deleted)", or named), or None while it has none."""
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if target.startswith(folder + "/") and target != final:
                return os.stat(f"/proc/{pid}/fd/{fd}").st_size
    except OSError:
        return None
    return None


def kill_mid_write(args, folder, sig, env, final_size):
    """Starts the writer, signals it mid-write; returns (exit status, size when signalled)."""
    p = subprocess.Popen([TTRACE, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    deadline, size = time.time() + 120, None
    while time.time() < deadline and p.poll() is None:
        size = temp_fd(p.pid, folder, args[-2])
        if size and size < final_size:
            p.send_signal(sig)
            break
        time.sleep(0.0005)
    p.wait(timeout=120)
    return p.returncode, size


def main():
    os.environ["TTRACE_ASSETS"] = os.path.join(ROOT, "assets")
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "model")
        subprocess.run([sys.executable, os.path.join(ROOT, "tests", "reference", "make_model.py"), model,
                        "--layers", "1", "--heads", "2", "--embd", "16", "--positions", "512"],
                       check=True, capture_output=True)
        out_dir = os.path.join(tmp, "out")
        os.mkdir(out_dir)
        out = os.path.join(out_dir, "trace.safetensors")
        prompt = "the" + " the" * 499
        big = ["trace", "-q", "-m", model, "--record", "hook_logits", "--record", "hook_probs", "-o", out, prompt]
        r = subprocess.run([TTRACE, *big], capture_output=True)
        check("the large trace is written", r.returncode == 0, r.stderr)
        final_size = os.path.getsize(out)
        check("it is large (over 150 MB)", final_size > 150 << 20, final_size)
        r = subprocess.run([TTRACE, "trace", "-q", "-m", model, "-o", out, "the previous output"], capture_output=True)
        before = digest(out)
        cases = [(signal.SIGINT, False), (signal.SIGTERM, False), (signal.SIGKILL, False),
                 (signal.SIGINT, True), (signal.SIGTERM, True)]
        for sig, named in cases:
            env = dict(os.environ)
            if named:
                env["TTRACE_NO_O_TMPFILE"] = "1"
            how = f"{sig.name} ({'named temporary file' if named else 'O_TMPFILE'})"
            for attempt in range(3):  # the writer may finish before it is caught mid-write
                rc, size = kill_mid_write(big, out_dir, sig, env, final_size)
                if rc == -sig:
                    break
            check(f"{how}: killed mid-write", rc == -sig and size and 0 < size < final_size, f"exit {rc}, size {size}")
            left = sorted(os.listdir(out_dir))
            check(f"{how}: nothing left behind", left == ["trace.safetensors"], left)
            check(f"{how}: the previous output is intact", digest(out) == before)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


main()
