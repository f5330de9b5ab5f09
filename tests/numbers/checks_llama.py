"""The numbers of the Llama block's views (rope, gqa, swiglu, blocks), recomputed with numpy
from the trace (and, for the blocks view, from the classroom model's config.json), from the
mathematics: RoPE's rotate-half rotation at positions offset + t with θᵢ = θ^(−2i/D), the KV
cache as 2 · layers · H_kv · D · 4 bytes per token, SwiGLU as act(gate) · up, the step
shapes from the config's sizes. Checker (checks.py) inherits these k_* methods.
"""
import json
import math
import os
import re

import numpy as np

import svgnum as sn

NUM = re.compile(r"[\u2212+-]?\d+(?:\.\d+)?(?:e[+\u2212-]?\d+)?")
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SHIFT_POSITIONS = 128  # the rope view's shift test covers at most these positions
OFF_BELOW = 0.1        # the swiglu view: |act(g)| below this counts as switched off
TOP_ROWS = 8
GQA_GROUP_LINES = 8    # the gqa view names the query heads of the first 8 K/V heads


def nums(s):
    """The numbers printed in s, as printed (minus signs as U+2212)."""
    return NUM.findall(s)


def num(tok):
    return float(tok.replace("\u2212", "-"))


def dims(cfg):
    """(L, C, H, G, D, F, V, P, theta, offset) of a trace's or a folder's config (GPT-2's or Llama's keys)."""
    if cfg.get("model_type") == "llama":
        L, C, H = cfg["num_hidden_layers"], cfg["hidden_size"], cfg["num_attention_heads"]
        G = cfg.get("num_key_value_heads") or H
        D = cfg.get("head_dim") or C // H
        F, V, P = cfg["intermediate_size"], cfg["vocab_size"], cfg.get("max_position_embeddings", 2048)
        theta = float(cfg.get("rope_theta", 10000.0))
    else:
        L, C, H = cfg["n_layer"], cfg["n_embd"], cfg["n_head"]
        G, D = H, C // H
        F, V, P = cfg.get("n_inner") or 4 * C, cfg["vocab_size"], cfg.get("n_positions") or cfg.get("n_ctx")
        theta = 10000.0  # positions=rope on GPT-2 uses the usual base
    return L, C, H, G, D, F, V, P, theta, int(cfg.get("ttrace_rope_offset", 0))


def activation(name, x):
    if name in ("silu", "swish"):
        return x / (1.0 + np.exp(-x))
    if name == "gelu":
        return 0.5 * x * (1.0 + np.vectorize(math.erf)(x / math.sqrt(2.0)))
    if name in ("gelu_new", "gelu_pytorch_tanh", "gelu_tanh"):
        return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))
    if name == "relu":
        return np.maximum(x, 0.0)
    return x


def rotate(x, positions, theta):
    """x (heads, n, D) turned at the given positions (rotate-half, Hugging Face's layout)."""
    D = x.shape[-1]
    inv = theta ** (-np.arange(0, D, 2, dtype=np.float64) / D)
    ang = np.asarray(positions, dtype=np.float64)[:, None] * inv[None, :]
    ang = np.concatenate([ang, ang], axis=-1)
    half = np.concatenate([-x[..., D // 2:], x[..., :D // 2]], axis=-1)
    return x * np.cos(ang) + half * np.sin(ang)


class LlamaViewChecks:
    # -- helpers
    def _expect_nums(self, t, got, want, rel=2e-6):
        """got: printed tokens; want: [(value, printf spec)]."""
        if len(got) != len(want):
            return self.bad(t, "prints %d numbers, want %d (%s)" % (len(got), len(want),
                                                                   ", ".join(sn.fmt(s, v) for v, s in want)))
        for g, (v, spec) in zip(got, want):
            if not sn.matches(g, v, formatter=lambda x, spec=spec: sn.fmt(spec, x), rel=rel):
                return self.bad(t, "%s should be %s" % (g, sn.fmt(spec, v)))

    def _ints(self, t, got, want):
        self._expect_nums(t, got, [(v, "%d") for v in want])

    def _whole(self, t, want):
        """A text the view wraps (a paragraph) has its note on each of its lines: they are read
        together until they hold want numbers. The whole text then, else None (a line to wait on,
        or the wrapped end of a text already read whole); wrapped_complete reports one that stops
        short."""
        acc = self.__dict__.setdefault("wrap_acc", {})
        key = (t.kind, tuple(sorted(t.note.items())), tuple(sorted(t.scope.items())), t.trace)
        got = acc.get(key)
        if got == "done" and not nums(t.s):
            return None
        text = t.s if got in (None, "done") else got + " " + t.s
        if len(nums(text)) < want:
            acc[key] = text
            return None
        acc[key] = "done"
        return text

    def wrapped_complete(self, texts):
        """Every wrapped text holds all its numbers."""
        for (kind, note, scope, trace), text in getattr(self, "wrap_acc", {}).items():
            if text != "done":
                self.fail.append("%s: %r [%s | %s]: its lines stop before all its numbers" %
                                 (self.name, text, kind, " ".join("%s=%s" % kv for kv in scope)))

    def _rope(self, t):
        tr = self.trace_of(t)
        L, C, H, G, D, F, V, P, theta, off = dims(tr.cfg)
        return tr, H, G, D, theta, off

    def _rope_pair(self, t, name, h, pos, i):
        tr, H, G, D, theta, off = self._rope(t)
        x = tr.get("blocks.%s.attn.%s" % (t.scope["layer"], name)).astype(np.float64)
        return x[h, pos, i], x[h, pos, i + D // 2]

    # -- rope
    def k_rope_title(self, t):
        tr, H, G, D, theta, off = self._rope(t)
        head, T = int(t.scope["head"]), len(tr.tokens)
        text = self._whole(t, 7)
        if text is None:
            return
        self._expect_nums(t, nums(text), [(int(t.scope["layer"]), "%d"), (head, "%d"), (head // (H // G), "%d"),
                                         (theta, "%.0f"), (D, "%d"), (off, "%d"), (off + T - 1, "%d")])

    def k_rope_pair(self, t):
        tr, H, G, D, theta, off = self._rope(t)
        i, text = int(t.note["i"]), self._whole(t, 3)
        if text is not None:
            self._ints(t, nums(text), [i, i, i + D // 2])

    def k_rope_freq(self, t):
        tr, H, G, D, theta, off = self._rope(t)
        i, text = int(t.note["i"]), self._whole(t, 2)
        if text is not None:
            self._expect_nums(t, nums(text), [(i, "%d"), (theta ** (-2.0 * i / D), "%.4g")])

    def k_rope_turn(self, t):
        tr, H, G, D, theta, off = self._rope(t)
        i, text = int(t.note["i"]), self._whole(t, 1)
        if text is not None:
            self._expect_nums(t, nums(text), [(2 * math.pi / theta ** (-2.0 * i / D), "%.4g")])

    def k_rope_angle(self, t):
        tr, H, G, D, theta, off = self._rope(t)
        i, pos = int(t.note["i"]), int(t.note["t"])
        self._expect_nums(t, nums(t.s), [((off + pos) * theta ** (-2.0 * i / D), "%.2f")])

    def k_rope_pos(self, t):
        tr, H, G, D, theta, off = self._rope(t)
        self._ints(t, nums(t.s), [off + int(t.note["t"])])

    def k_rope_tok(self, t):
        tr = self.trace_of(t)
        if not sn.fits(t.s, tr.label(int(t.note["t"]))):
            self.bad(t, "position %s is %r" % (t.note["t"], tr.label(int(t.note["t"]))))

    def k_rope_at(self, t):
        tr, H, G, D, theta, off = self._rope(t)
        got = nums(t.s.split("\u201c")[0])
        self._ints(t, got, [off + int(t.note["t"])])

    def k_rope_num(self, t):
        tr, H, G, D, theta, off = self._rope(t)
        i, pos, v, head = int(t.note["i"]), int(t.note["t"]), t.note["v"], int(t.scope["head"])
        if v == "pair":
            return self._ints(t, nums(t.s), [i])
        if v == "angle":
            return self._expect_nums(t, nums(t.s), [((off + pos) * theta ** (-2.0 * i / D), "%.4f")])
        name = {"q": "hook_q", "rq": "hook_rot_q", "k": "hook_k", "rk": "hook_rot_k"}[v]
        h = head if v in ("q", "rq") else head // (H // G)
        a, b = self._rope_pair(t, name, h, pos, i)
        self._expect_nums(t, nums(t.s), [(a, "%.3f"), (b, "%.3f")], rel=1e-5)

    def _shift_of(self, off):
        return -off if off else 4

    def k_rope_shift(self, t):
        tr, H, G, D, theta, off = self._rope(t)
        s, T, text = self._shift_of(off), len(tr.tokens), self._whole(t, 3)
        if text is None:
            return
        self._expect_nums(t, nums(text), [(off + s, "%d"), (off + s + T - 1, "%d"), (s, "%+.0f")])

    def k_rope_measure(self, t):
        tr, H, G, D, theta, off = self._rope(t)
        layer, s = t.scope["layer"], self._shift_of(off)
        n = min(len(tr.tokens), SHIFT_POSITIONS)
        if int(t.note["shift"]) != s or int(t.note["n"]) != n:
            return self.bad(t, "the shift is %d over %d positions" % (s, n))
        text = self._whole(t, 5)
        if text is None:
            return
        q = tr.get("blocks.%s.attn.hook_q" % layer).astype(np.float64)[:, :n]
        k = tr.get("blocks.%s.attn.hook_k" % layer).astype(np.float64)[:, :n]
        raw = tr.get("blocks.%s.attn.hook_attn_scores_raw" % layer).astype(np.float64)[:, :n, :n]
        pos = off + s + np.arange(n)
        shifted = rotate(q, pos, theta) @ np.repeat(rotate(k, pos, theta), H // G, axis=0).transpose(0, 2, 1)
        diff, largest = float(np.abs(shifted - raw).max()), float(np.abs(raw).max())
        self._expect_nums(t, nums(text), [(diff, "%.2e"), (H, "%d"), (n, "%d"), (n, "%d"), (largest, "%.4g")],
                          rel=1e-3)
        if diff > 1e-4 * max(1.0, largest):
            self.bad(t, "the shifted scores differ by %.3g: the scores do not stay" % diff)

    def k_rope_more(self, t):
        """What the view leaves out where there is no room (rope_complete checks that it does)."""
        tr, H, G, D, theta, off = self._rope(t)
        want = [] if t.note["table"] == "1" else [off + int(t.note["t"])]
        text = self._whole(t, len(want))
        if text is not None:
            self._ints(t, nums(text), want)

    def k_rope_rows_more(self, t):
        text = self._whole(t, 1)
        if text is not None:
            self._ints(t, nums(text), [int(t.note["n"])])

    def k_rope_pos_more(self, t):
        tr, H, G, D, theta, off = self._rope(t)
        first, shown, T = int(t.note["first"]), int(t.note["shown"]), len(tr.tokens)
        text = self._whole(t, 4)
        if text is not None:
            self._ints(t, nums(text), [off + first, off + first + shown - 1, off, off + T - 1])

    def rope_complete(self, texts):
        """A rope view shows the chosen position's numbers and the shift test, or says which it
        leaves out; pair rows it leaves out are counted."""
        panels = {}
        for t in texts:
            if t.scope.get("panel") == "rope":
                panels.setdefault((t.trace, tuple(sorted(t.scope.items()))), []).append(t)
        for ts in panels.values():
            kinds = {t.kind for t in ts}
            if "rope_title" not in kinds:
                continue
            more = [t for t in ts if t.kind == "rope_more"]
            table = more[0].note["table"] == "1" if more else True
            shift = not more
            if ("rope_at" in kinds) != table or ("rope_shift" in kinds) != shift:
                self.fail.append("%s: the rope view %s the numbers at its position and %s the shift test, and "
                                 "says %s" % (self.name, "shows" if "rope_at" in kinds else "leaves out",
                                              "shows" if "rope_shift" in kinds else "leaves out",
                                              repr(more[0].s) if more else "nothing of it"))
            T = len(self.trace_of(ts[0]).tokens)
            circles = sorted({int(t.note["t"]) for t in ts if t.kind == "rope_pos"})
            pm = [t for t in ts if t.kind == "rope_pos_more"]
            want = list(range(int(pm[0].note["first"]), int(pm[0].note["first"]) + int(pm[0].note["shown"]))) \
                if pm else list(range(T))
            if circles and circles != want:
                self.fail.append("%s: the rope view draws positions %s of %d and says %s" %
                                 (self.name, circles, T, repr(pm[0].s) if pm else "nothing of it"))
            pairs = {t.note["i"] for t in ts if t.kind == "rope_pair"}
            left = [int(t.note["n"]) for t in ts if t.kind == "rope_rows_more"]
            if not pairs or len(pairs) + sum(left) > 3:
                self.fail.append("%s: the rope view shows pairs %s and says %d more" % (self.name, sorted(pairs),
                                                                                       sum(left)))

    # -- gqa
    def _gqa(self, t):
        tr = self.trace_of(t)
        L, C, H, G, D, F, V, P, theta, off = dims(tr.cfg)
        return tr, L, H, G, D, P

    def k_gqa_title(self, t):
        tr, L, H, G, D, P = self._gqa(t)
        text = self._whole(t, 3)
        if text is None:
            return
        self._ints(t, nums(text), [H, G, H // G])

    def k_gqa_q(self, t):
        self._ints(t, nums(t.s), [int(t.note["i"])])

    def k_gqa_kv(self, t):
        self._ints(t, nums(t.s), [int(t.note["i"])])

    def k_gqa_group(self, t):
        tr, L, H, G, D, P = self._gqa(t)
        g, per = int(t.note["g"]), H // G
        want = [g, g] if per == 1 else [g, g * per, g * per + per - 1]
        text = self._whole(t, len(want))
        if text is not None:
            self._ints(t, nums(text), want)

    def k_gqa_token(self, t):
        tr, L, H, G, D, P = self._gqa(t)
        text = self._whole(t, 6)
        if text is None:
            return
        self._ints(t, nums(text), [2, L, G, D, 4, 2 * L * G * D * 4])

    def k_gqa_mha(self, t):
        tr, L, H, G, D, P = self._gqa(t)
        text = self._whole(t, 7)
        if text is None:
            return
        self._ints(t, nums(text), [H, 2, L, H, D, 4, 2 * L * H * D * 4])

    def k_gqa_prompt(self, t):
        tr, L, H, G, D, P = self._gqa(t)
        text = self._whole(t, 3)
        if text is None:
            return
        T = len(tr.tokens)
        self._ints(t, nums(text), [T, 8 * L * G * D * T, 8 * L * H * D * T])

    def k_gqa_ctx(self, t):
        tr, L, H, G, D, P = self._gqa(t)
        text = self._whole(t, 3)
        if text is None:
            return
        mib = 1024.0 ** 2
        self._expect_nums(t, nums(text), [(P, "%d"), (8 * L * G * D * P / mib, "%.4g"), (8 * L * H * D * P / mib, "%.4g")])

    def k_gqa_saves(self, t):
        tr, L, H, G, D, P = self._gqa(t)
        text = self._whole(t, 2)
        if text is None:
            return
        self._expect_nums(t, nums(text), [(100.0 * (H - G) / H, "%.0f"), (H // G, "%d")])

    def k_gqa_groups_more(self, t):
        tr, L, H, G, D, P = self._gqa(t)
        text = self._whole(t, 1)
        if text is not None:
            self._ints(t, nums(text), [G - GQA_GROUP_LINES])

    def k_gqa_more(self, t):
        text = self._whole(t, 1)
        if text is not None:
            self._ints(t, nums(text), [int(t.note["n"])])

    GQA_LINES = ("gqa_token", "gqa_mha", "gqa_prompt", "gqa_ctx", "gqa_saves")

    def gqa_complete(self, texts):
        """A gqa view shows every K/V head's group (up to GQA_GROUP_LINES, then says how many more)
        and the cache's lines in order, the ones it leaves out counted."""
        ts = [t for t in texts if t.scope.get("panel") == "gqa"]
        if not any(t.kind == "gqa_title" for t in ts):
            return
        tr, L, H, G, D, P = self._gqa(next(t for t in ts if t.kind == "gqa_title"))
        groups = sorted({int(t.note["g"]) for t in ts if t.kind == "gqa_group"})
        if groups != list(range(min(G, GQA_GROUP_LINES))) or (G > GQA_GROUP_LINES) != any(
                t.kind == "gqa_groups_more" for t in ts):
            self.fail.append("%s: the gqa view shows the groups of K/V heads %s of %d" % (self.name, groups, G))
        shown = [k for k in self.GQA_LINES if any(t.kind == k for t in ts)]
        left = sum(int(t.note["n"]) for t in ts if t.kind == "gqa_more")
        if shown != list(self.GQA_LINES[:len(shown)]) or len(shown) + left != len(self.GQA_LINES):
            self.fail.append("%s: the gqa view shows the cache lines %s and says %d more" % (self.name, shown, left))

    # -- swiglu
    def _swiglu(self, t):
        tr = self.trace_of(t)
        layer, pos = t.scope["layer"], int(t.scope["pos"])
        g = tr.get("blocks.%s.mlp.hook_pre" % layer).astype(np.float64)[pos]
        u = tr.get("blocks.%s.mlp.hook_pre_linear" % layer).astype(np.float64)[pos]
        a = tr.get("blocks.%s.mlp.hook_post" % layer).astype(np.float64)[pos]
        act = activation(tr.cfg.get("hidden_act", "silu"), g)
        return tr, g, act, u, a

    def k_swiglu_title(self, t):
        tr, g, act, u, a = self._swiglu(t)
        pos = int(t.scope["pos"])
        label = re.search("\u201c(.*)\u201d", t.s)
        if not label or not sn.fits(label.group(1), tr.label(pos)):
            self.bad(t, "position %d is %r" % (pos, tr.label(pos)))
        rest = re.sub("\u201c.*\u201d", "", t.s)
        self._ints(t, nums(rest), [int(t.scope["layer"]), pos, len(g)])

    def k_swiglu_max(self, t):
        tr, g, act, u, a = self._swiglu(t)
        v = [g, act, u, a][int(t.note["row"])]
        self._expect_nums(t, nums(t.s), [(float(np.abs(v).max()), "%.3f")], rel=1e-5)

    def _swiglu_rows(self, tab, g, act, u, a):
        if tab == "top":
            return list(np.argsort(-np.abs(a), kind="stable")[:TOP_ROWS])
        shut = np.flatnonzero(np.abs(act) < OFF_BELOW)
        return list(shut[np.argsort(-np.abs(u[shut]), kind="stable")][:TOP_ROWS])

    def k_swiglu_head(self, t):
        tr, g, act, u, a = self._swiglu(t)
        # A heading may wrap: its lines are read together until they hold all its numbers.
        tab, acc = t.note["tab"], getattr(self, "swiglu_acc", {})
        self.swiglu_acc = acc
        if acc.get(tab) == "done" and not nums(t.s):
            return  # the wrapped end of a heading already read whole
        text = (acc[tab] + " " + t.s) if acc.get(tab) not in (None, "done") else t.s
        want = 1 if tab == "top" else 3
        if len(nums(text)) < want:
            acc[tab] = text
            return
        acc[tab] = "done"
        t.s = text
        if tab == "top":
            return self._ints(t, nums(t.s), [min(TOP_ROWS, len(g))])
        self._expect_nums(t, nums(t.s), [(int((np.abs(act) < OFF_BELOW).sum()), "%d"), (len(g), "%d"),
                                         (OFF_BELOW, "%.1f")])

    def k_swiglu_cell(self, t):
        if getattr(self, "swiglu_acc", {}).get(t.note["tab"]) not in (None, "done"):
            self.bad(t, "the table's heading stops before all its numbers")
        tr, g, act, u, a = self._swiglu(t)
        rows = self._swiglu_rows(t.note["tab"], g, act, u, a)
        r = int(t.note["r"])
        if r >= len(rows):
            return self.bad(t, "the table has %d rows" % len(rows))
        j, v = int(rows[r]), t.note["v"]
        if v == "j":
            return self._ints(t, nums(t.s), [j])
        value = {"g": g, "act": act, "u": u, "a": a}[v][j]
        self._expect_nums(t, nums(t.s), [(value, "%.3f")], rel=1e-5)

    def k_swiglu_more(self, t):
        # "… N more rows not shown" under a table that shows its first `shown` rows of `rows`
        tr, g, act, u, a = self._swiglu(t)
        n, shown = len(self._swiglu_rows(t.note["tab"], g, act, u, a)), int(t.note["shown"])
        if int(t.note["rows"]) != n or not 0 <= shown < n:
            return self.bad(t, "the table has %d rows, not %s (%d shown)" % (n, t.note["rows"], shown))
        self._ints(t, nums(t.s), [n - shown])

    def _swiglu_complete(self, texts):
        """Each table of the swiglu view shows its rows from the first, in order, with all five
        values of each: every row, or as many as its "… N more" line says it shows."""
        tables = {}
        for t in texts:
            if t.kind in ("swiglu_head", "swiglu_cell", "swiglu_more"):
                key = (t.trace, t.scope.get("layer"), t.scope.get("pos"), t.note.get("tab"))
                tables.setdefault(key, []).append(t)
        for (trace, layer, pos, tab), ts in tables.items():
            tr, g, act, u, a = self._swiglu(ts[0])
            n = len(self._swiglu_rows(tab, g, act, u, a))
            more = [int(t.note["shown"]) for t in ts if t.kind == "swiglu_more"]
            k = more[0] if len(more) == 1 else n
            cells = [(int(t.note["r"]), t.note["v"]) for t in ts if t.kind == "swiglu_cell"]
            want = [(r, v) for r in range(k) for v in ("j", "g", "act", "u", "a")]
            if len(more) > 1 or cells != want:
                self.fail.append("%s: the swiglu table %s (layer %s, position %s) shows rows %s of %d%s" %
                                 (self.name, tab, layer, pos, sorted({r for r, v in cells}), n,
                                  " and says it shows %s" % more if more else " and says none are left out"))

    # -- blocks
    def _blocks_cfg(self, t):
        if t.note.get("model", "-") == "-":
            return self.trace_of(t).cfg
        with open(os.path.join(ROOT, "assets", "models", t.note["model"], "config.json")) as f:
            return json.load(f)

    # The T line, the sizes and "repeated L times" may wrap: each line carries the note, and the
    # lines are read joined (_blocks_complete, from finish).
    def _blocks_line(self, t, key, want):
        self.blocks_lines = getattr(self, "blocks_lines", {})
        self.blocks_lines.setdefault((key, t.trace), ([], want))[0].append(t)

    def _blocks_complete(self):
        for lines, want in getattr(self, "blocks_lines", {}).values():
            joined = " ".join(t.s for t in lines)
            before = len(self.fail)
            self._ints(lines[0], nums(joined), want)
            if len(self.fail) > before and len(lines) > 1:
                self.fail[-1] += " (its %d lines read %r)" % (len(lines), joined)

    def k_blocks_T(self, t):
        self._blocks_line(t, "T", [len(self.trace_of(t).tokens)])

    def k_blocks_cfg(self, t):
        cfg = self._blocks_cfg(t)
        L, C, H, G, D, F, V, P, theta, off = dims(cfg)
        self.blocks_sides = getattr(self, "blocks_sides", {})
        self.blocks_sides[t.note["side"]] = (L, C, H, G, D, F, V, P)
        self._blocks_line(t, "cfg " + t.note["side"], [L, C, H, G, D, F, V, P])

    def k_blocks_each(self, t):
        side = getattr(self, "blocks_sides", {}).get(t.note["side"])
        if side is None:
            return self.bad(t, "no sizes were printed for this side")
        self._blocks_line(t, "each " + t.note["side"], [side[0]])

    # The output shape of each step, from the sizes (None: the text names none).
    @staticmethod
    def _step_output(step, T, L, C, H, G, D, F, V, P):
        table = {"tokenize": (T,), "embed": (T, C), "sum": (T, C), "ln1": (T, C), "ln2": (T, C),
                 "ln_final": (T, C), "qkv": (T, 3 * C), "split": (H, T, D), "scores": (H, T, T),
                 "scale": (H, T, T), "mask": (H, T, T), "softmax": (H, T, T), "weighted": (H, T, D),
                 "proj": (T, C), "resid1": (T, C), "resid2": (T, C), "ffn_up": (T, F), "gelu": (T, F),
                 "ffn_down": (T, C), "logits": (T, V), "probs": (T, V), "q_proj": (H, T, D),
                 "o_proj": (T, C), "gate": (T, F), "up": (T, F), "swiglu": (T, F), "down": (T, C)}
        return table.get(step)

    def k_blocks_shape(self, t):
        side = getattr(self, "blocks_sides", {}).get(t.note["side"])
        if side is None:
            return self.bad(t, "no sizes were printed for this side")
        L, C, H, G, D, F, V, P = side
        T = len(self.trace_of(t).tokens)
        s = t.s
        cut = s.endswith("\u2026")
        got = nums(s)
        if cut and got:
            got = got[:-1]  # the last number may be cut short
        allowed = {T, C, H, G, D, F, V, P, L, 3 * C, H * D, G * D, T - 1, D // 2, 0, 1, 2, 3, H // G,
                   8 * L * G * D * T, 8 * L * H * D * T}
        for g in got:
            v = num(g)
            if v == int(v) and int(v) in allowed:
                continue
            if g == sn.fmt("%.4g", math.sqrt(D)):
                continue
            return self.bad(t, "%s is none of this model's sizes" % g)
        want = self._step_output(t.note["id"], T, L, C, H, G, D, F, V, P)
        if want is None or "\u2192" not in s:
            return
        out = s.rsplit("\u2192", 1)[1]
        m = re.search(r"\(([0-9, ]+)\)", out)
        if m and not cut and tuple(int(x) for x in m.group(1).split(",")) != want:
            self.bad(t, "step %s gives %s" % (t.note["id"], want))
