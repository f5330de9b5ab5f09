#!/usr/bin/env python3
"""`meson install --destdir` into a temporary folder, then the installed ttrace, run from
there with no TTRACE_* variables, must use the installed assets and lessons (not the
source tree's): it traces and renders, lists the installed lessons, and fails with the
font error when the installed fonts are taken away. The man page lists every command
`ttrace --help` lists; the bash completion (sourced, its function called with COMP_WORDS)
completes commands, options, the hooks of a trace and lesson numbers; the zsh completion,
the desktop entry (desktop-file-validate) and the icon are installed; the binary holds no
path of the build or source tree.

  test_install.py BUILD_DIR SOURCE_ROOT WORK_DIR
"""
import os
import re
import shutil
import subprocess
import sys

BUILD, ROOT, WORK = sys.argv[1], os.path.realpath(sys.argv[2]), sys.argv[3]
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    dest = os.path.join(WORK, "dest")
    r = run(["meson", "install", "-C", BUILD, "--destdir", dest, "--no-rebuild", "--quiet"])
    check(r.returncode == 0, "meson install: %s" % r.stderr.strip()[-400:])
    prefix = run(["meson", "introspect", "--buildoptions", BUILD]).stdout
    pre = re.search(r'"name": "prefix", "value": "([^"]+)"', prefix).group(1)
    # Move the installed tree somewhere else: the binary must find its data beside itself.
    root = os.path.join(WORK, "moved")
    shutil.move(dest + pre, root)
    exe = os.path.join(root, "bin", "ttrace")
    share = os.path.join(root, "share")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TTRACE_")}
    env["SDL_VIDEODRIVER"] = "dummy"
    cwd = os.path.join(WORK, "cwd")
    os.makedirs(cwd)

    with open(exe, "rb") as f:
        blob = f.read()
    for p in {ROOT, os.path.realpath(BUILD)}:
        check(p.encode() not in blob, "the installed binary holds the path %s" % p)

    r = run([exe, "trace", "-o", "w.safetensors", "The weather is nice"], cwd=cwd, env=env)
    check(r.returncode == 0, "installed trace: %s" % r.stderr.strip())
    r = run([exe, "render", "w.safetensors", "--step", "attn.hook_pattern", "-o", "f.png"], cwd=cwd, env=env)
    check(r.returncode == 0 and os.path.getsize(os.path.join(cwd, "f.png")) > 10000,
          "installed render: %s" % r.stderr.strip())
    r = run([exe, "lesson", "--list"], cwd=cwd, env=env)
    check(os.path.join(share, "ttrace", "lessons") in r.stdout, "lesson --list does not use the installed lessons:\n"
          + r.stdout[:300])
    fonts = os.path.join(share, "ttrace", "fonts")
    shutil.move(fonts, fonts + ".away")
    r = run([exe, "render", "w.safetensors", "--step", "attn.hook_pattern", "-o", "g.png"], cwd=cwd, env=env)
    check(r.returncode != 0 and "font" in r.stderr, "render found fonts outside the installed tree: %s" % r.stderr)
    shutil.move(fonts + ".away", fonts)

    man = os.path.join(share, "man", "man1", "ttrace.1")
    check(os.path.isfile(man), "no man page at %s" % man)
    page = open(man).read() if os.path.isfile(man) else ""
    commands = re.findall(r"^  ([a-z][a-z-]*) ", run([exe, "--help"], env=env).stdout, re.M)
    check(len(commands) >= 10, "ttrace --help lists %d commands" % len(commands))
    for c in commands:
        check(re.search(r"^\.B %s$" % re.escape(c.replace("-", "\\-")), page, re.M),
              "the man page does not describe `ttrace %s`" % c)

    bash = os.path.join(share, "bash-completion", "completions", "ttrace")
    zsh = os.path.join(share, "zsh", "site-functions", "_ttrace")
    check(os.path.isfile(bash) and os.path.isfile(zsh), "completions not installed")
    desktop = os.path.join(share, "applications", "ttrace.desktop")
    r = run(["desktop-file-validate", desktop])
    check(r.returncode == 0 and not r.stdout.strip(), "desktop-file-validate: %s%s" % (r.stdout, r.stderr))
    check("Exec=ttrace demo" in open(desktop).read(), "the desktop entry does not run ttrace demo")
    check(os.path.isfile(os.path.join(share, "icons", "hicolor", "scalable", "apps", "ttrace.svg")), "no icon")
    check(os.path.isfile(os.path.join(share, "doc", "ttrace", "LICENSE")), "no LICENSE installed")

    def complete(*words):
        line = " ".join("'%s'" % w for w in words)
        script = ('source "%s"; COMP_WORDS=(%s); COMP_CWORD=%d; _ttrace; printf "%%s\\n" "${COMPREPLY[@]}"'
                  % (bash, line, len(words) - 1))
        e = dict(env, PATH=os.path.dirname(exe) + ":" + env.get("PATH", ""))
        return run(["bash", "-c", script], cwd=cwd, env=e).stdout.split()

    check("export-html" in complete("ttrace", "ex"), "bash: commands")
    check("--step" in complete("ttrace", "render", "--st"), "bash: render's options")
    hooks = complete("ttrace", "dump", "w.safetensors", "blocks.0.attn.hook_p")
    check(hooks == ["blocks.0.attn.hook_pattern"], "bash: hooks of the trace: %s" % hooks)
    check("blocks.1.ln1.hook_out" in complete("ttrace", "render", "w.safetensors", "--step", "blocks.1.ln1"),
          "bash: --step hooks")
    lessons = complete("ttrace", "lesson", "1")
    check("1" in lessons and "12" in lessons and "01-weather" not in lessons, "bash: lesson numbers: %s" % lessons)
    check("01-weather" in complete("ttrace", "lesson", "01"), "bash: lesson names")
    if failures:
        sys.exit(1)
    print("ok: installed into", root)


if __name__ == "__main__":
    main()
