"""The window's state dump (the script command `state PATH`): one "key value" line each."""


def read_state(path):
    """The dump at path as a dict of strings."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            k, _, v = line.rstrip("\n").partition(" ")
            out[k] = v
    return out
