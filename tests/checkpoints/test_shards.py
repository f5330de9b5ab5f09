#!/usr/bin/python3
"""Sharded safetensors as Hugging Face's save_pretrained writes them: model.safetensors.index.json
({"metadata": {"total_size": N}, "weight_map": {tensor: shard file}}) beside
model-0000N-of-0000M.safetensors. The shards are written here from a single-file model
(tests/reference/make_model.py); the sharded folder must trace exactly as the original,
and broken shard sets are refused in one line with nothing written.

    test_shards.py TTRACE
"""
import json
import os
import shutil
import tempfile

import common
import stfile


def shard(src, dst, n_shards, edit=None):
    """Splits src/model.safetensors into n_shards files in dst; edit(shards, weight_map)
    may break the set before it is written."""
    os.makedirs(dst)
    shutil.copy(os.path.join(src, "config.json"), dst)
    entries, meta = stfile.read(os.path.join(src, "model.safetensors"))
    names = [f"model-{i + 1:05d}-of-{n_shards:05d}.safetensors" for i in range(n_shards)]
    shards = [entries[i::n_shards] for i in range(n_shards)]
    weight_map = {e[0]: names[i] for i, s in enumerate(shards) for e in s}
    if edit:
        edit(shards, names, weight_map)
    for name, s in zip(names, shards):
        if s is not None:
            stfile.write(os.path.join(dst, name), s, meta)
    total = sum(len(e[3]) for e in entries)
    with open(os.path.join(dst, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f, indent=2, sort_keys=True)
    return dst


def main():
    c = common.Checks(common.ttrace_arg())
    tmp = tempfile.mkdtemp(prefix="ttrace-shards-")
    try:
        one = common.make_model(os.path.join(tmp, "one"), "--layers", "3", "--heads", "4", "--embd", "32")
        c.same_trace("3 F32 shards trace as the single file", one, shard(one, os.path.join(tmp, "s3"), 3), tmp)
        odd = common.make_model(os.path.join(tmp, "odd"), "--layers", "2", "--heads", "3", "--embd", "24",
                                "--dtype", "F16", "--prefix", "--untied", "--shuffle")
        c.same_trace("2 F16 shards, transformer. prefix, own lm_head", odd, shard(odd, os.path.join(tmp, "s2"), 2), tmp)
        other = common.make_model(os.path.join(tmp, "other"), "--layers", "3", "--heads", "4", "--embd", "32",
                                  "--seed", "2")
        c.same_trace("(the comparison sees another model's weights)", one, shard(other, os.path.join(tmp, "o3"), 3),
                     tmp, expect_same=False)
        c.same_trace("a single shard (model-00001-of-00001)", one, shard(one, os.path.join(tmp, "s1"), 1), tmp)

        o = os.path.join(tmp, "out.safetensors")

        def drop_shard(shards, names, wm):
            shards[1] = None

        d = shard(one, os.path.join(tmp, "missing"), 3, drop_shard)
        c.refused("a missing shard is named", ["trace", "-m", d, "-o", o, "hi"], 4,
                  "shard model-00002-of-00003.safetensors is missing", o)

        def lose_tensor(shards, names, wm):  # in shard 1 (every third tensor from the first)
            assert wm["h.1.ln_2.bias"] == names[0]
            shards[0] = [e for e in shards[0] if e[0] != "h.1.ln_2.bias"]

        d = shard(one, os.path.join(tmp, "absent"), 3, lose_tensor)
        c.refused("a tensor the index lists but its shard lacks", ["trace", "-m", d, "-o", o, "hi"], 3,
                  "tensor 'h.1.ln_2.bias' is listed in shard model-00001-of-00003.safetensors, which does not hold it",
                  o)

        def twice(shards, names, wm):
            assert wm["h.0.ln_1.bias"] == names[0]
            shards[2] = shards[2] + [e for e in shards[0] if e[0] == "h.0.ln_1.bias"]

        d = shard(one, os.path.join(tmp, "twice"), 3, twice)
        c.refused("a tensor in two shards", ["trace", "-m", d, "-o", o, "hi"], 3,
                  "tensor 'h.0.ln_1.bias' is in shard model-00003-of-00003.safetensors but the index puts it in "
                  "model-00001-of-00003.safetensors", o)

        def unlisted(shards, names, wm):
            del wm["ln_f.bias"]

        d = shard(one, os.path.join(tmp, "unlisted"), 2, unlisted)
        c.refused("a tensor the index does not list", ["trace", "-m", d, "-o", o, "hi"], 3,
                  "tensor 'ln_f.bias' in shard", o)

        def escape(shards, names, wm):
            for k in wm:
                if wm[k] == names[1]:
                    wm[k] = "../" + names[1]

        d = shard(one, os.path.join(tmp, "escape"), 2, escape)
        c.refused("a shard outside the folder", ["trace", "-m", d, "-o", o, "hi"], 3, "is not a file name", o)

        d = shard(one, os.path.join(tmp, "nomap"), 2)
        with open(os.path.join(d, "model.safetensors.index.json"), "w") as f:
            json.dump({"metadata": {}}, f)
        c.refused("an index without weight_map", ["trace", "-m", d, "-o", o, "hi"], 3, "weight_map", o)
        with open(os.path.join(d, "model.safetensors.index.json"), "w") as f:
            f.write("{\"weight_map\": ")
        c.refused("an index that is not JSON", ["trace", "-m", d, "-o", o, "hi"], 3, "not valid JSON", o)

        bare = os.path.join(tmp, "bare")
        os.makedirs(bare)
        shutil.copy(os.path.join(one, "config.json"), bare)
        c.refused("a folder with no weights at all", ["trace", "-m", bare, "-o", o, "hi"], 4,
                  "has no model.safetensors (nor model.safetensors.index.json)", o)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return c.done()


if __name__ == "__main__":
    raise SystemExit(main())
