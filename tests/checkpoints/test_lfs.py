#!/usr/bin/python3
"""A Git LFS pointer in place of a safetensors file (a clone without `git lfs pull`): the
134-byte text "version https://git-lfs.github.com/spec/v1 / oid sha256:... / size N" is named
for what it is, not read as a header length; as a model's model.safetensors, as one of its
shards, and as a trace given to dump, view, render and diff. Nothing is written.

    test_lfs.py TTRACE
"""
import json
import os
import shutil
import tempfile

import common

POINTER = ("version https://git-lfs.github.com/spec/v1\n"
           "oid sha256:248dfc3911869ec493c76e65bf2fcf7f615828b0254c12b473182f0f81d3a707\n"
           "size 548105171\n")
SAID = "this is a Git LFS pointer, not the file itself; run `git lfs pull`"


def main():
    c = common.Checks(common.ttrace_arg())
    tmp = tempfile.mkdtemp(prefix="ttrace-lfs-")
    try:
        assert len(POINTER) == 134
        o = os.path.join(tmp, "out.safetensors")
        good = common.make_model(os.path.join(tmp, "good"), "--layers", "1", "--heads", "2", "--embd", "16")
        d = os.path.join(tmp, "pointer")
        os.makedirs(d)
        shutil.copy(os.path.join(good, "config.json"), d)
        with open(os.path.join(d, "model.safetensors"), "w") as f:
            f.write(POINTER)
        c.refused("model.safetensors as an LFS pointer", ["trace", "-m", d, "-o", o, "hi"], 3,
                  f"{d}/model.safetensors: {SAID}", o)

        s = os.path.join(tmp, "sharded")
        os.makedirs(s)
        shutil.copy(os.path.join(good, "model.safetensors"), os.path.join(s, "model-00001-of-00002.safetensors"))
        shutil.copy(os.path.join(good, "config.json"), s)
        with open(os.path.join(s, "model-00002-of-00002.safetensors"), "w") as f:
            f.write(POINTER)
        with open(os.path.join(s, "model.safetensors.index.json"), "w") as f:
            json.dump({"metadata": {}, "weight_map": {"wte.weight": "model-00001-of-00002.safetensors",
                                                       "ln_f.bias": "model-00002-of-00002.safetensors"}}, f)
        c.refused("a shard as an LFS pointer", ["trace", "-m", s, "-o", o, "hi"], 3,
                  f"model-00002-of-00002.safetensors: {SAID}", o)

        tr = os.path.join(tmp, "trace.safetensors")
        r = c.trace(good, tr)
        c.check("a real trace", r.returncode == 0, r.stderr)
        p = os.path.join(tmp, "pointer.safetensors")
        with open(p, "w") as f:
            f.write(POINTER)
        png = os.path.join(tmp, "out.png")
        c.refused("dump of an LFS pointer", ["dump", p], 3, f"{p}: {SAID}")
        if "  demo " in c.run("--help").stdout:  # a build with SDL2 (-Dgui) has view and render
            c.refused("view of an LFS pointer", ["view", p], 3, f"{p}: {SAID}")
            c.refused("render of an LFS pointer", ["render", p, "-o", png], 3, f"{p}: {SAID}", png)
        else:
            print("skip view and render: this build has no window")
        c.refused("diff against an LFS pointer", ["diff", tr, p], 3, f"{p}: {SAID}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return c.done()


if __name__ == "__main__":
    raise SystemExit(main())
