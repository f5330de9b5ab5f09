"""The number check: every text of a view that holds a digit is recomputed from the trace.

check_svg(path, traces, ctx) returns a list of failure strings. traces maps "A" (the
trace drawn; also texts without data-tt-trace), "B" (a comparison's second trace) to
Trace objects. Values are computed here with numpy from the mathematics of each step,
never read from the C code that drew them.
"""
import json
import math
import re

import numpy as np

import svgnum as sn
from checks_llama import LlamaViewChecks
from safetensors_np import load


VOCAB_BYTES = None  # id -> the token's bytes, from GPT-2's vocab.json (check_numbers sets it)


def n_layers(cfg):
    """The block count of a GPT-2 (n_layer) or Llama (num_hidden_layers) config."""
    return int(cfg.get("n_layer", cfg.get("num_hidden_layers", 0)))


class Trace:
    def __init__(self, path):
        self.path = path
        self.t, self.meta = load(path)
        self.tokens = json.loads(self.meta.get("token_strings", "[]"))
        self.ids = json.loads(self.meta.get("token_ids", "[]"))
        self._text = None
        self.cfg = json.loads(self.meta.get("config", "{}"))
        self.prompt = self.meta.get("prompt", "")
        self.eps = float(self.cfg.get("layer_norm_epsilon", self.cfg.get("rms_norm_eps", 1e-5)))

    def get(self, name):
        return self.t.get(name)

    def text(self):
        """(the prompt's bytes as the tokens spell them, the offset of each token): bytes
        from the ids through the vocabulary where it is the trace's, else from the strings."""
        if self._text is None:
            def shown(b):
                return b.decode("utf-8", errors="tt_hex").replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")
            ok = VOCAB_BYTES is not None and len(self.ids) == len(self.tokens) and all(
                0 <= i < len(VOCAB_BYTES) and shown(VOCAB_BYTES[i]) == s for i, s in zip(self.ids, self.tokens))
            parts = [VOCAB_BYTES[i] for i in self.ids] if ok else [sn.unescape(s) for s in self.tokens]
            offs = [0]
            for b in parts:
                offs.append(offs[-1] + len(b))
            self._text = (b"".join(parts), offs)
        return self._text

    def label(self, i):
        """Token i as the views label it (a piece of a character with the character)."""
        text, offs = self.text()
        return sn.label_in(text, offs[i], offs[i + 1])


# ---- the collapse view: the identity-activation FFN as one matrix, from the model file -------
_WEIGHTS = {}


def model_weights(tr):
    """The weights of the model the trace came from (by its folder's name under assets/models),
    float64, names without "transformer."."""
    import os
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    name = os.path.basename(tr.meta.get("model", "").rstrip("/")) or "default"
    path = os.path.join(root, "assets", "models", name, "model.safetensors")
    own = os.path.join(tr.meta.get("model", ""), "model.safetensors")  # a model folder elsewhere
    if tr.meta.get("model") and os.path.exists(own):
        path = own
    elif not os.path.exists(path):
        path = os.path.join(root, "assets", "models", "default", "model.safetensors")
    if path not in _WEIGHTS:
        w, _ = load(path)
        _WEIGHTS[path] = {k[len("transformer."):] if k.startswith("transformer.") else k: v.astype(np.float64)
                          for k, v in w.items()}
    return _WEIGHTS[path]


def collapsed(tr, layer):
    """(x·W + b, max |x·W + b − out|, its flat index): W = W_fc·W_proj and b = b_fc·W_proj + b_proj
    kept as float32 numbers (as the view keeps them), x = ln2.hook_out, out = hook_mlp_out."""
    w = model_weights(tr)
    W1, W2 = w["h.%d.mlp.c_fc.weight" % layer], w["h.%d.mlp.c_proj.weight" % layer]      # (C, F), (F, C)
    W = (W1 @ W2).astype(np.float32).astype(np.float64)                                 # (C, C)
    b = (w["h.%d.mlp.c_fc.bias" % layer] @ W2 + w["h.%d.mlp.c_proj.bias" % layer]).astype(np.float32)
    x = tr.get("blocks.%d.ln2.hook_out" % layer).astype(np.float64)                     # (T, C)
    direct = x @ W + b.astype(np.float64)
    d = np.abs(direct - tr.get("blocks.%d.hook_mlp_out" % layer).astype(np.float64))
    return direct.astype(np.float32), float(d.max()), int(np.argmax(d))


# ---- the colour scale of a tensor (the legend's numbers) ---------------------------------
def scale_of(a, hook):
    f = np.asarray(a, dtype=np.float32).ravel()
    n = f.size
    step = n >> 22 if n > (1 << 22) else 1
    scan = f[::step]
    fin = scan[np.isfinite(scan)]
    masked = fin.size < scan.size
    lo, hi = (float(fin.min()), float(fin.max())) if fin.size else (0.0, 0.0)
    grad = hook.startswith("grad.")  # gradients: always diverging around 0
    probs = not grad and (hook.endswith("hook_pattern") or hook.endswith("hook_probs"))
    if not grad and (probs or lo >= 0):
        s_lo = 0.0
        s_hi = 1.0 if hook.endswith("hook_pattern") else (hi if hi > 0 else 1.0)
        if not probs and lo > 0 and lo > 0.5 * hi:
            s_lo = lo
        return {"div": False, "lo": s_lo, "hi": s_hi, "clipped": False, "masked": masked}
    lim = max(abs(lo), abs(hi))
    clipped = False
    stride = n // 4096 if n > 4096 else 1
    sample = f[::stride]
    sample = np.abs(sample[np.isfinite(sample)])[:4096]
    k = sample.size
    if k > 64:
        sample = np.sort(sample)
        p = float(sample[int((k - 1) * 0.995)])
        if 0 < p < 0.4 * lim:
            lim, clipped = p, True
    if lim <= 0:
        lim = 1.0
    return {"div": True, "lo": -lim, "hi": lim, "clipped": clipped, "masked": masked}


def joint_scale(a, b, hook):
    sa, sb = scale_of(a, hook), scale_of(b, hook)
    j = dict(sa)
    j["clipped"] = sa["clipped"] or sb["clipped"]
    if sa["div"] or sb["div"]:
        lim = max(abs(sa["lo"]), abs(sa["hi"]), abs(sb["lo"]), abs(sb["hi"]))
        j.update(div=True, lo=-lim, hi=lim)
    else:
        j.update(lo=min(sa["lo"], sb["lo"]), hi=max(sa["hi"], sb["hi"]))
    return j


# ---- LayerNorm: what goes in, from the residual stream --------------------------------------
def ln_input(tr, prefix):
    """The rows a norm normalises, from the residual-stream tensors."""
    post = tr.cfg.get("ttrace_block", "pre_ln") == "post_ln"
    m = re.match(r"blocks\.(\d+)\.(ln1|ln2)$", prefix)
    if m:
        L, which = int(m.group(1)), m.group(2)
        if not post:
            return tr.get("blocks.%d.%s" % (L, "hook_resid_pre" if which == "ln1" else "hook_resid_mid"))
        if which == "ln1":
            return tr.get("blocks.%d.hook_resid_pre" % L) + tr.get("blocks.%d.hook_attn_out" % L)
        return tr.get("blocks.%d.hook_resid_mid" % L) + tr.get("blocks.%d.hook_mlp_out" % L)
    if prefix == "ln_final":
        L = n_layers(tr.cfg) - 1
        return tr.get("blocks.%d.hook_resid_post" % L)
    return None


def ln_stats(tr, prefix):
    x = ln_input(tr, prefix)
    if x is None:
        return None
    x = x.astype(np.float64)
    rms = tr.cfg.get("ttrace_norm", "layernorm") == "rmsnorm" or tr.cfg.get("model_type") == "llama"
    mean = np.zeros(x.shape[0]) if rms else x.mean(axis=1)
    var = (x * x).mean(axis=1) if rms else x.var(axis=1)
    rstd = 1.0 / np.sqrt(var + tr.eps)
    normalized = (x - mean[:, None]) * rstd[:, None]
    return {"mean": mean, "sigma": np.sqrt(var), "rstd": rstd, "normalized": normalized}


def mean_sd(row):
    row = np.asarray(row, dtype=np.float64)
    return row.mean(), math.sqrt(max((row * row).mean() - row.mean() ** 2, 0.0))


# ---- the lens and cost views: the independent lens of tests/lens, the count of tests/cost ---------
def _sibling(name):
    import importlib
    import os
    import sys
    d = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", name)
    if d not in sys.path:
        sys.path.insert(0, d)
    return importlib.import_module("check_" + name)


_LENS = {}


def lens_of(tr):
    """{row: (hook, (T, V) logits)} of trace tr, with the model the trace names (or the default)."""
    if tr.path not in _LENS:
        import os
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
        name = os.path.basename(tr.meta.get("model", "").rstrip("/")) or "tiny-classroom"
        path = os.path.join(root, "assets", "models", name, "model.safetensors")
        if not os.path.exists(path):
            path = os.path.join(root, "assets", "models", "tiny-classroom", "model.safetensors")
        w, _ = load(path)
        w = {k[len("transformer."):] if k.startswith("transformer.") else k: v for k, v in w.items()}
        _LENS[tr.path] = _sibling("lens").lens(tr.t, tr.meta, w)
    return _LENS[tr.path]


def si(v):
    """As the cost view prints a count: three significant digits with k, M, G, T."""
    units, u = ["", " k", " M", " G", " T"], 0
    while v >= 999.5 and u < 4:
        v, u = v / 1000, u + 1
    return sn.fmt("%.3g" if u else "%.0f", v) + units[u]


def cost_steps(tr):
    """{step suffix: (FLOPs, bytes, seconds or None)} of the trace's pass, summed over layers."""
    ops = _sibling("cost").count(tr.cfg, len(tr.tokens), 0, False)
    secs = dict(kv.split("=") for kv in tr.meta["cost_seconds"].split(";")) if "cost_seconds" in tr.meta else {}
    out = {}
    for name, kind, flops, rd, wr in ops:
        suf = name.split(".", 2)[2] if name.startswith("blocks.") else name
        f, b, t = out.get(suf, (0, 0, 0))
        out[suf] = (f + flops, b + rd + wr, t + float(secs[name]) if name in secs else None)
    return out, ops


# ---- embedding neighbours: cosine similarity of W_E's rows, from the model file ------------------
_WTE = {}


def wte_of(tr):
    """W_E (V, C) in float64 of the model the trace names (its folder under assets/models), else the
    default model's."""
    import os
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    name = os.path.basename(tr.meta.get("model", "").rstrip("/")) or "tiny-classroom"
    path = os.path.join(root, "assets", "models", name, "model.safetensors")
    if not os.path.exists(path):
        path = os.path.join(root, "assets", "models", "tiny-classroom", "model.safetensors")
    if path not in _WTE:
        w, _ = load(path)
        key = next(k for k in ("transformer.wte.weight", "wte.weight", "model.embed_tokens.weight") if k in w)
        _WTE[path] = w[key].astype(np.float64)
    return _WTE[path]


_NEAR = {}


def neighbours(tr, q):
    """([(id, cosine, shared)] most similar first, tokens with q's row): W_E's rows grouped where they
    are equal bit for bit, each group once (its lowest id), q's own group left out."""
    W = wte_of(tr)
    if (id(W), q) not in _NEAR:
        _, group, counts = np.unique(W, axis=0, return_inverse=True, return_counts=True)
        group = group.reshape(-1)
        norms = np.linalg.norm(W, axis=1)
        cos = W @ W[q] / np.where(norms * norms[q] > 0, norms * norms[q], np.inf)
        first = {}
        for i in np.argsort(-cos, kind="stable"):
            g = int(group[i])
            if g != group[q] and g not in first:
                first[g] = int(i)
            if len(first) >= 16:
                break
        out = [(int(np.flatnonzero(group == g).min()), float(cos[i]), int(counts[g])) for g, i in first.items()]
        _NEAR[(id(W), q)] = (out, int(counts[group[q]]))
    return _NEAR[(id(W), q)]


def act_of(cfg, u):
    """The FFN activation of the config at u (float64 arrays)."""
    a = cfg.get("hidden_act") if cfg.get("model_type") == "llama" else cfg.get("activation_function", "gelu_new")
    u = np.asarray(u, dtype=np.float64)
    if a == "relu":
        return np.maximum(u, 0)
    if a in ("identity", "linear"):
        return u
    if a in ("silu", "swish"):
        return u / (1 + np.exp(-u))
    if a == "gelu":
        return 0.5 * u * (1 + np.vectorize(math.erf)(u / math.sqrt(2)))
    return 0.5 * u * (1 + np.tanh(math.sqrt(2 / math.pi) * (u + 0.044715 * u ** 3)))


def gate_fmt(v):
    """As the gates view prints a value: three decimals, or 1.2e−12 where that would read 0.000."""
    return sn.fmt("%.3f" if v == 0 or abs(v) >= 0.0005 else "%.1e", v)


# ---- the checker ------------------------------------------------------------------------------
class Checker(LlamaViewChecks):
    def __init__(self, traces, vocab=None, name="", merges=None):
        self.traces = traces
        self.vocab = vocab
        self.merges = merges
        self.name = name
        self.fail = []
        self.checked = 0
        self.last_title = None

    def bad(self, t, why):
        self.fail.append("%s: %s: %s" % (self.name, t.where(), why))

    def trace_of(self, t):
        return self.traces.get(t.trace or "A", self.traces["A"])

    # -- values of the tensor a cell belongs to
    def norms(self, tr):
        """(T, L): the length of each token's vector in every block, for the title's hook
        (None when no title named it)."""
        if not hasattr(self, "norms_of"):
            return None
        cols = [np.linalg.norm(tr.get("blocks.%d.%s" % (l, self.norms_of)).astype(np.float64), axis=1)
                for l in range(n_layers(tr.cfg))]
        return np.stack(cols, axis=1)

    def _norms_diff(self):
        a, b = self.norms(self.traces["A"]), self.norms(self.traces["B"])
        return None if a is None or b is None else a - b

    def tensor(self, t, hook):
        if hook == "norms":
            if t.trace == "D":
                return self._norms_diff()
            return self.norms(self.trace_of(t))
        if hook.startswith("collapse.blocks."):
            return collapsed(self.trace_of(t), int(hook.split(".")[2]))[0]
        if t.trace == "D":
            a, b = self.traces["A"].get(hook), self.traces["B"].get(hook)
            if a is None or b is None:
                return None
            with np.errstate(invalid="ignore"):
                return a.astype(np.float32) - b.astype(np.float32)
        return self.trace_of(t).get(hook)

    def label_text(self, tr, axis, i, t):
        """The full label of index i along an axis, for trace tr (or the difference)."""
        if axis == "T":
            if t.trace == "D":
                a, b = self.traces["A"].tokens, self.traces["B"].tokens
                if i < len(a) and i < len(b) and a[i] != b[i]:
                    return self.traces["A"].label(i) + "\u2260" + self.traces["B"].label(i)
                return self.traces["A"].label(i) if i < len(a) else str(i)
            return tr.label(i) if i < len(tr.tokens) else str(i)
        if axis == "L":
            if t.trace == "D":  # positions whose tokens differ read a≠b
                both = [self.label_text(tr, "T", k, t) for k in (i, i + 1)]
                return "%s \u2192 %s" % tuple(both)
            return "%s \u2192 %s" % (tr.label(i), tr.label(i + 1))
        if axis == "V" and VOCAB_BYTES is not None and 0 <= i < len(VOCAB_BYTES):
            return sn.label_in(VOCAB_BYTES[i], 0, len(VOCAB_BYTES[i]))
        if axis == "1":
            return "value"
        return str(i)

    def check(self, texts):
        self.d_hooks = {t.scope["hook"] for t in texts if t.trace == "D" and "hook" in t.scope}
        # The tensor a comparison compares: A and B draw it on one scale, in every view.
        self.cmp_hook = next((t.scope["hook"] for t in texts if t.scope.get("panel") == "compare_header"
                              and "hook" in t.scope), None)
        for t in texts:
            self.one(t)
        self.own_labels(texts)
        self.finish(texts)
        return self.fail

    def own_labels(self, texts):
        """With two traces whose tokens differ, the panels of B carry B's own row labels
        (not only A's to their left)."""
        if "B" not in self.traces or self.traces["A"].tokens == self.traces["B"].tokens:
            return
        b_cells = [t for t in texts if t.trace == "B" and t.kind in ("cell", "tick")]
        b_labels = [t for t in texts if t.trace == "B" and t.kind == "label" and t.note.get("axis") == "T"
                    and t.note.get("dir") == "row"]
        rows_T = any(t.trace == "A" and t.kind == "label" and t.note.get("axis") == "T" and t.note.get("dir") == "row"
                     for t in texts)
        if b_cells and rows_T and not b_labels:
            self.fail.append("%s: B's rows carry no labels of their own (its tokens differ from A's)" % self.name)

    def one(self, t):
        s = t.s
        for m in sn.ASCII_SIGN.finditer(s):
            if t.kind != "label":
                self.bad(t, "an ASCII '-' as a minus sign (use U+2212)")
        if sn.DOUBLE_MINUS.search(s) and t.kind != "label":
            self.bad(t, "two minus signs in a row")
        k = t.kind
        if not k and t.scope.get("panel") in ("narration", "lesson_bar"):
            k = "prose"  # the lesson's own words (their numbers are the lessons' check: lines)
        fn = getattr(self, "k_" + k, None) if k else None
        if fn is None:
            if any(ch.isdigit() for ch in s) and k not in ("prose", "fixed", "name"):
                self.bad(t, "a number without data-tt (what is it?)")
            return
        self.checked += 1
        try:
            fn(t)
        except (KeyError, IndexError, ValueError, TypeError) as e:
            self.bad(t, "cannot check: %s: %s" % (type(e).__name__, e))

    # -- cells, labels, legends
    def k_cell(self, t):
        hook, head = t.scope["hook"], int(t.scope.get("head", -1))
        a = self.tensor(t, hook)
        if a is None:
            return self.bad(t, "no tensor %s" % hook)
        r, c = int(t.note["r"]), int(t.note["c"])
        v = a[head, r, c] if a.ndim == 3 else a[r, c] if a.ndim == 2 else a[r]
        if not sn.matches(t.s, v):
            self.bad(t, "cell shows %s, the trace has %s (%r)" % (t.s, sn.fmt_value(v), float(v)))

    # -- the tooltip of the cell under the pointer (render --hover, the window's hover)
    @staticmethod
    def tip_at(a, t):
        """a at the tooltip's cell (its head for head-major tensors), and that cell's index as
        the tooltip prints it."""
        hook, head = t.scope["hook"], int(t.scope.get("head", -1))
        r, c = int(t.note["r"]), int(t.note["c"])
        if a.ndim == 3:
            return a[head, r, c], "%s[%d, %d, %d]" % (hook, head, r, c)
        if a.ndim == 2:
            return a[r, c], "%s[%d, %d]" % (hook, r, c)
        return a[r], "%s[%d]" % (hook, r)

    @staticmethod
    def tip_number(printed, v):
        """The value as a tooltip prints it (%.6g, or the cells' −∞ / NaN), or None when it
        does."""
        want = sn.fmt("%.6g", v) if math.isfinite(float(v)) else sn.fmt_value(v)
        return None if printed == want or sn.matches(printed, v, lambda x: sn.fmt("%.6g", x)) else want

    def k_hover_value(self, t):
        v, _ = self.tip_at(self.tensor(t, t.scope["hook"]), t)
        want = self.tip_number(t.s, v)
        if want is not None:
            self.bad(t, "the tooltip shows %s, the trace has %s (%r)" % (t.s, want, float(v)))

    def k_hover_side(self, t):
        """A comparison's tooltip: 'A  v', 'B  v' or 'A − B  v' at the cell ('—' where that
        side has no such tensor of A's shape, or no difference is drawn)."""
        side, hook = t.note["s"], t.scope["hook"]
        prefix = {"A": "A  ", "B": "B  ", "D": "A \u2212 B  "}[side]
        if not t.s.startswith(prefix):
            return self.bad(t, "the tooltip's line should start %r" % prefix)
        a, b = self.traces["A"].get(hook), self.traces["B"].get(hook)
        same = a is not None and b is not None and a.shape == b.shape
        if side == "A":
            v = a
        elif side == "B":
            v = b if same else None
        else:
            v = a.astype(np.float32) - b.astype(np.float32) if same else None
        printed = t.s[len(prefix):]
        if v is None:
            if printed != "\u2014":
                self.bad(t, "the tooltip shows %s where side %s has no such tensor (want \u2014)" % (printed, side))
            return
        x, _ = self.tip_at(v, t)
        want = self.tip_number(printed, x)
        if want is not None:
            self.bad(t, "the tooltip shows %s, side %s has %s (%r)" % (printed, side, want, float(x)))

    def k_hover_where(self, t):
        """A comparison's tooltip: '[head H, ]row R label, column C[ label]' (labels of token
        and vocabulary axes only), in English or Korean."""
        hook, head = t.scope["hook"], int(t.scope.get("head", -1))
        r, c = int(t.note["r"]), int(t.note["c"])
        a = self.tensor(t, hook)
        tr = self.trace_of(t)
        row_axis, col_axis = ("T", "T") if a.ndim == 3 else ("T", "C")
        rl = self.label_text(tr, row_axis, r, t)
        cl = self.label_text(tr, col_axis, c, t) if col_axis in "TV" else ""
        ok = []
        for words in (("head", "row", "column"), ("\ud5e4\ub4dc", "\ud589", "\uc5f4")):
            lead = "%s %d, " % (words[0], head) if a.ndim == 3 and head >= 0 else ""
            ok.append(("%s%s %d %s, %s %d %s" % (lead, words[1], r, rl, words[2], c, cl)).rstrip(" "))
        if t.s not in ok:
            self.bad(t, "the tooltip's line should read %r" % ok[0])

    def k_hover_label(self, t):
        axis, i = t.note["axis"], int(t.note["i"])
        m = re.match(r"^\S+ (\d+): (.*)$", t.s)
        full = self.label_text(self.trace_of(t), axis, i, t)
        if not m or int(m.group(1)) != i or not sn.fits(m.group(2), full):
            self.bad(t, "the tooltip's line should read '<row|column> %d: %s'" % (i, full))

    def k_hover_index(self, t):
        _, want = self.tip_at(self.tensor(t, t.scope["hook"]), t)
        if t.s != want:
            self.bad(t, "the tooltip's index should be %s" % want)

    def k_label(self, t):
        axis, i = t.note["axis"], int(t.note["i"])
        full = self.label_text(self.trace_of(t), axis, i, t)
        if "indexed" in t.note:
            full = "%d %s" % (i, full)
        if not sn.fits(t.s, full):
            self.bad(t, "label should be %r" % full)

    def k_tick(self, t):
        hook = t.scope.get("hook", "")
        i, n = int(t.note["i"]), int(t.note["n"])
        if t.trace == "D":
            # One colour scale for every difference the figure draws (all layers of an overview).
            lim = 0.0
            for h in self.d_hooks or {hook}:
                a = self.tensor(t, h)
                if a is not None and np.isfinite(a).any():
                    lim = max(lim, float(np.nanmax(np.abs(np.where(np.isfinite(a), a, np.nan)))))
            sc = {"div": True, "lo": -(lim or 1), "hi": lim or 1, "clipped": False}
        elif t.scope.get("panel") == "sum":  # a + b = c on one symmetric scale: the largest end of the three
            lim = 0.0  # (in a comparison, the compared tensor's end is that of A and B together)
            for h in t.scope["hooks"].split(","):
                a = self.tensor(t, h) if h != "-" else None
                if a is not None:
                    ab = [self.traces[k].get(h) for k in ("A", "B")] if "B" in self.traces else [None]
                    shared = h == self.cmp_hook and all(x is not None for x in ab)
                    s = joint_scale(ab[0], ab[1], h) if shared else scale_of(a, h)
                    lim = max(lim, abs(float(np.float32(s["lo"]))), abs(float(np.float32(s["hi"]))))
            sc = {"div": True, "lo": -lim, "hi": lim, "clipped": False}
        elif t.trace in ("A", "B") and "B" in self.traces:
            if hook == "norms":
                a, b = self.norms(self.traces["A"]), self.norms(self.traces["B"])
            else:
                a, b = self.traces["A"].get(hook), self.traces["B"].get(hook)
            sc = joint_scale(a, b, hook) if a is not None and b is not None else scale_of(self.tensor(t, hook), hook)
        else:
            sc = scale_of(self.tensor(t, hook), hook)
        v = np.float32(sc["hi"]) - np.float32(i) / np.float32(n - 1) * (np.float32(sc["hi"]) - np.float32(sc["lo"]))
        want = sn.fmt_value(v)
        body = t.s
        if sc["clipped"] and i == 0:
            if not body.startswith("\u2265 "):
                return self.bad(t, "the top of a clipped scale says \u2265")
            body = body[2:]
        elif sc["clipped"] and i == n - 1:
            if not body.startswith("\u2264 "):
                return self.bad(t, "the bottom of a clipped scale says \u2264")
            body = body[2:]
        if not sn.matches(body, v):
            self.bad(t, "colour-bar tick should be %s" % want)

    def k_legend_title(self, t):
        """A legend titled with panel letters (a comparison's legends one above the other)
        draws the colour scale of the panels it names: A and B share one, A − B has its own."""
        want = {"A, B": ("A", "B"), "A \u2212 B": ("D",)}.get(t.s.strip())
        if want is not None and t.trace not in want:
            self.bad(t, "the legend titled %r draws the scale of panel %s" % (t.s, t.trace or "?"))

    # -- the collapse view (lesson 9)
    def k_collapse_shapes(self, t):
        cfg = self.trace_of(t).cfg
        C = int(cfg["n_embd"])
        F = int(cfg.get("n_inner") or 4 * C)
        got = [int(v) for v in re.findall(r"\d+", t.s)]
        if got != [C, F, F, C, C, C]:
            self.bad(t, "W_fc·W_proj is (%d, %d)·(%d, %d) = (%d, %d)" % (C, F, F, C, C, C))

    def _collapse_max_of(self, t, text):
        tr = self.trace_of(t)
        _, dmax, at = collapsed(tr, int(t.note["layer"]))
        C, T = int(tr.cfg["n_embd"]), len(tr.tokens)
        m = re.search(r"= (\S+) \D+(\d+)\D+(\d+)\D+(\d+) \u00d7 (\d+)", text)
        want = (("%.3g" % dmax).replace("-", "\u2212"), at // C, at % C, T, C)  # "7.07e−06", a real minus
        if not m or (m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4)), int(m.group(5))) != want:
            self.bad(t, "max |A \u2212 B| is %s at token %d, column %d of %d \u00d7 %d" % want)

    def k_window(self, t):
        m = re.search(r"(\d+)\D+(\d+)\D+(\d+)\D+(\d+)\D+(\d+)\D+(\d+)", t.s)
        if m and (int(m.group(3)) != int(t.note["rows"]) or int(m.group(6)) != int(t.note["cols"])):
            self.bad(t, "the tensor is %s x %s" % (t.note["rows"], t.note["cols"]))

    # -- titles: the hook, its layer and head, the shape
    def k_title(self, t):
        tr = self.trace_of(t)
        hook = t.s.split()[0] if t.s.split() else ""
        self.last_title = hook
        if "\u2016x\u2016" in t.s:  # vector lengths of this hook in every block
            self.norms_of = hook
        m = re.match(r"blocks\.(\d+)\.", hook)
        lay = re.search(r"(?:layer|층|블록) (\d+)", t.s)
        if m and lay and int(lay.group(1)) != int(m.group(1)):
            self.bad(t, "layer %s in the title of a layer-%s tensor" % (lay.group(1), m.group(1)))
        hd = re.search(r"(?:head|헤드) (\d+)", t.s)
        if hd and int(hd.group(1)) >= int(tr.cfg.get("n_head", 10 ** 9)):
            self.bad(t, "head %s of %s heads" % (hd.group(1), tr.cfg.get("n_head")))

    def k_subtitle(self, t):
        tr = self.trace_of(t)
        if t.s.startswith("\u2016x\u2016 = ") and self.last_title:  # the title may be cut before its "‖x‖"
            self.norms_of = self.last_title
        if self.last_title and tr.get(self.last_title) is not None:
            shape = "(" + ", ".join(str(d) for d in tr.get(self.last_title).shape) + ")"
            m = re.search(r"\([0-9, ]+\)\s*$", t.s)
            if m and m.group(0).strip() != shape:
                self.bad(t, "the shape of %s is %s" % (self.last_title, shape))
        if tr.prompt and "\u201c" in t.s and "\u2026" not in t.s and "\u201c%s\u201d" % tr.prompt not in t.s:
            self.bad(t, "the prompt is %r" % tr.prompt)

    # -- LayerNorm table
    def k_header(self, t):
        col = t.note["col"]
        want = {"mean": "\u03bc", "sigma": "\u03c3", "rstd": "1/\u221a", "token": "", "norm_stats": "\u03bc / \u03c3",
                "out_stats": "y:"}
        if col == "sigma" and t.s.startswith("rms \u221amean(x\u00b2)"):  # RMSNorm's scale
            return
        if col == "sigma" and ("\u221a" in t.s or "\u03c3" not in t.s):
            self.bad(t, "the \u03c3 column's header")
        elif want.get(col) and want[col] not in t.s and not t.s.endswith("\u2026"):
            self.bad(t, "the %s column's header" % col)

    def k_ln(self, t):
        tr = self.trace_of(t)
        prefix = t.scope["prefix"]
        col, r = t.note["col"], int(t.note["r"])
        st = ln_stats(tr, prefix)
        if col in ("mean", "sigma", "rstd", "norm_stats") and st is None:
            return self.bad(t, "cannot find the input of %s" % prefix)
        if col in ("mean", "sigma", "rstd"):
            v = st[col][r]
            if not sn.matches(t.s, v, rel=1e-4):
                self.bad(t, "%s of row %d is %s" % (col, r, sn.fmt_value(v)))
            return
        if col == "norm_stats":
            m, sd = mean_sd(st["normalized"][r])
            m = 0.0 if abs(m) < 5e-4 else m
        else:
            m, sd = mean_sd(tr.get(prefix + ".hook_out")[r])
        parts = t.s.split(" / ")
        if len(parts) != 2 or not sn.matches(parts[0], m, rel=1e-4) or not sn.matches(parts[1], sd, rel=1e-4):
            self.bad(t, "%s of row %d is %s / %s" % (col, r, sn.fmt_value(m), sn.fmt_value(sd)))

    # -- next-token bars
    def _probs(self, t):
        tr = self.trace_of(t)
        src, pos, tau = t.scope["source"], int(t.scope["pos"]), float(t.scope["tau"])
        z = tr.get(src)[pos].astype(np.float64)
        if src == "hook_probs":
            z = np.log(np.maximum(z, 1e-30))
        e = np.exp((z - z.max()) / tau)
        p = e / e.sum()
        order = np.argsort(-z, kind="stable")
        return p, order, z

    # -- the generation views (ttrace generate -o): timeline and KV cache
    def _gen(self, t):
        tr = self.trace_of(t)
        return tr, json.loads(tr.meta["generated_ids"])

    def _gen_source(self, tr, i):
        """The probabilities generated token i was drawn from (the model's, from the trace)."""
        return (tr.get("hook_probs")[-1] if i == 0 else tr.get("decode.%d.hook_probs" % (i - 1))[0]).astype(np.float64)

    def _vocab_text(self, i):
        if VOCAB_BYTES is not None:  # a token alone: a piece of a character as its bytes
            return sn.label_in(VOCAB_BYTES[i], 0, len(VOCAB_BYTES[i]))
        return sn.token_display(self.vocab[i]) if self.vocab is not None else "id %d" % i

    def _percent_ok(self, printed, v):
        f = (lambda x: sn.fmt("%.3f%%", x)) if v < 0.1 else (lambda x: sn.fmt("%.1f%%", x))
        return sn.matches(printed, v, formatter=f, rel=1e-4)

    def _tl_title_of(self, t, text):
        tr, gen = self._gen(t)
        sm = json.loads(tr.meta["sampling"])
        got = re.findall(r"\d+(?:\.\d+)?(?:e[+\u2212-]?\d+)?", text)
        want = [len(gen), float(sm["temperature"]), int(sm["top_k"]), float(sm["top_p"]), int(sm["seed"])]
        if len(got) != 5 or int(got[0]) != want[0] or abs(float(got[1]) - want[1]) > 1e-6 * max(1, want[1]) or \
                int(got[2]) != want[2] or abs(float(got[3]) - want[3]) > 1e-6 or int(got[4]) != want[4]:
            self.bad(t, "the generation's settings are %s" % want)

    def k_tl_prompt(self, t):
        tr = self.trace_of(t)
        if not sn.fits(t.s, tr.label(int(t.note["i"]))):
            self.bad(t, "prompt token %s" % t.note["i"])

    def k_tl_token(self, t):
        _, gen = self._gen(t)
        if not sn.fits(t.s, self._vocab_text(gen[int(t.note["i"])])):
            self.bad(t, "generated token %s is %r" % (t.note["i"], self._vocab_text(gen[int(t.note["i"])])))

    def k_tl_p(self, t):
        tr, gen = self._gen(t)
        i = int(t.note["i"])
        v = self._gen_source(tr, i)[gen[i]] * 100
        if not self._percent_ok(t.s, v):
            self.bad(t, "token %d had probability %.4f%%" % (i, v))

    def _tl_chips(self, texts):
        """The timeline's chips: every prompt and generated token in order, or the first ones
        and "… N more tokens (i and after)" for the rest."""
        chips = [t for t in texts if t.kind in ("tl_prompt", "tl_token")]
        if not chips:
            return
        tr, gen = self._gen(chips[0])
        T = len(tr.tokens)
        order = [int(t.note["i"]) + (T if t.kind == "tl_token" else 0) for t in chips]
        more = [t for t in texts if t.kind == "tokens_more" and t.scope.get("panel") == "timeline"]
        n = len(order)
        if order != list(range(n)) or (n < T + len(gen) and not more):
            self.fail.append("%s: the timeline shows tokens %s of %d and does not say which are left out" %
                             (self.name, order, T + len(gen)))
        for t in more:
            want = [T + len(gen) - n, n]
            if [int(x) for x in re.findall(r"\d+", t.s)] != want or int(t.note["shown"]) != n:
                self.bad(t, "%d more tokens (%d and after)" % tuple(want))

    def _tl_drawn_of(self, t, text):
        _, gen = self._gen(t)
        i = int(t.note["i"])
        m = re.match(r"\D*(\d+)", text)
        if not m or int(m.group(1)) != i or "\u201c%s\u201d" % self._vocab_text(gen[i]) not in text:
            self.bad(t, "token %d is %r" % (i, self._vocab_text(gen[i])))

    def _tl_ranked(self, t):
        tr, gen = self._gen(t)
        p = self._gen_source(tr, int(t.scope["pick"]))
        return p, np.argsort(-p, kind="stable")

    def k_tl_bar_token(self, t):
        p, order = self._tl_ranked(t)
        r = int(t.note["rank"])
        i = int(order[r])
        if not sn.fits(t.s, self._vocab_text(i)) and not any(
                p[j] == p[i] and sn.fits(t.s, self._vocab_text(j)) for j in range(len(p))):
            self.bad(t, "rank %d is %r" % (r, self._vocab_text(i)))

    def k_tl_bar_p(self, t):
        p, order = self._tl_ranked(t)
        v = p[order[int(t.note["rank"])]] * 100
        if not self._percent_ok(t.s, v):
            self.bad(t, "rank %s has probability %.4f%%" % (t.note["rank"], v))

    def k_tl_cut(self, t):
        tr, gen = self._gen(t)
        i = int(t.note["i"])
        kept = json.loads(tr.meta["generated_kept"])[i]
        V = int(tr.cfg["vocab_size"])
        got = [int(x) for x in re.findall(r"\d+", t.s)]
        if (kept < V and got != [kept, V]) or (kept >= V and got):
            self.bad(t, "token %d was drawn from the %d likeliest of %d" % (i, kept, V))

    def k_tl_cut_at(self, t):
        tr, _ = self._gen(t)
        kept = json.loads(tr.meta["generated_kept"])[int(t.scope["pick"])]
        if int(t.note["rank"]) != kept:
            self.bad(t, "the cut lies after rank %d (the %d likeliest were kept)" % (kept - 1, kept))

    def k_tl_foot(self, t):
        i = int(t.note["i"])
        want = "hook_probs" if i == 0 else "decode.%d.hook_probs" % (i - 1)
        if want not in t.s.split() and want + ";" not in t.s:
            self.bad(t, "the bars come from %s" % want)

    def k_kv_title(self, t):
        got = [int(x) for x in re.findall(r"\d+", t.s)]
        want = [int(t.scope["layer"]), int(t.scope["head"])] + ([int(t.scope["step"])] if int(t.scope["step"]) >= 0 else [])
        if got != want:
            self.bad(t, "layer, head, step are %s" % want)

    def _kv_rows_of(self, t, text):
        T, S = len(self.trace_of(t).tokens), int(t.scope["step"])
        rows = T + S + 1
        got = [int(x) for x in re.findall(r"\d+", text)]
        if got != ([rows, T, rows - T, rows - 1] if S >= 0 else [T]):
            self.bad(t, "the cache holds %d rows (%d from the prompt)" % (rows if S >= 0 else T, T))

    def k_kv_label(self, t):
        tr, gen = self._gen(t)
        j, T = int(t.note["j"]), len(tr.tokens)
        tok = sn.token_display(tr.tokens[j]) if j < T else self._vocab_text(gen[j - T])
        if not sn.fits(t.s, "%d %s" % (j, tok)):
            self.bad(t, "row %d is %r" % (j, tok))

    def _kv_heads(self, t):
        """(H, G, D, L) of the trace: GPT-2's keys or Llama's (num_key_value_heads, head_dim)."""
        cfg = self.trace_of(t).cfg
        H = int(cfg.get("num_attention_heads", cfg.get("n_head", 0)))
        C = int(cfg.get("hidden_size", cfg.get("n_embd", 0)))
        G = int(cfg.get("num_key_value_heads") or H)
        return H, G, int(cfg.get("head_dim") or C // H), int(cfg.get("num_hidden_layers", cfg.get("n_layer", 0)))

    def k_kv_gqa_share(self, t):
        H, G, _, _ = self._kv_heads(t)
        h, R = int(t.scope["head"]), H // G
        want = [h, h // R, h // R * R, h // R * R + R - 1]
        if [int(x) for x in re.findall(r"\d+", t.s)] != want:
            self.bad(t, "query head %d reads K/V head %d, shared by query heads %d-%d" % tuple(want))

    def k_kv_gqa_saves(self, t):
        H, G, D, L = self._kv_heads(t)
        T, S = len(self.trace_of(t).tokens), int(t.scope["step"])
        rows = T + S + 1 if S >= 0 else T
        want = [G, H, rows, L, 2 * L * G * D * rows * 4, 2 * L * H * D * rows * 4, H // G]
        if [int(x) for x in re.findall(r"\d+", t.s)] != want:
            self.bad(t, "G, H, positions, layers, bytes, bytes without GQA, ratio are %s" % want)

    def k_kv_w(self, t):
        tr = self.trace_of(t)
        a = tr.get("decode.%s.blocks.%s.attn.hook_pattern" % (t.scope["step"], t.scope["layer"]))
        v = float(a[int(t.scope["head"]), 0, int(t.note["j"])])
        if not sn.matches(t.s, v, formatter=lambda x: sn.fmt("%.3f", x), rel=1e-4):
            self.bad(t, "the new query's weight on key %s is %.5f" % (t.note["j"], v))

    def k_bars_head(self, t):
        pos = int(t.scope["pos"])
        tok = self.trace_of(t).label(pos)
        if "\u201c%s\u201d" % tok not in t.s or not re.search(r"\b%d\)" % pos, t.s):
            self.bad(t, "next after %r (position %d)" % (tok, pos))

    def k_bars_tau(self, t):
        if not t.s.endswith(sn.fmt("%.2f", float(t.scope["tau"]))):
            self.bad(t, "temperature")

    def k_bar_id(self, t):
        p, order, z = self._probs(t)
        rank = int(t.note["rank"])
        got = int(t.s)
        # Ties in the logits may come in either order.
        if got != int(order[rank]) and z[got] != z[order[rank]]:
            self.bad(t, "rank %d is id %d" % (rank, order[rank]))

    def k_bar_token(self, t):
        p, order, z = self._probs(t)
        i = int(order[int(t.note["rank"])])
        full = "id %d" % i
        if VOCAB_BYTES is not None:  # the candidate decoded after the prompt up to its position
            text, offs = self.trace_of(t).text()
            before = text[:offs[int(t.scope["pos"]) + 1]]
            full = sn.label_in(before + VOCAB_BYTES[i], len(before), len(before) + len(VOCAB_BYTES[i]))
        if not sn.fits(t.s, full):
            self.bad(t, "rank %s is %r" % (t.note["rank"], full))

    def k_bar_p(self, t):
        p, order, z = self._probs(t)
        v = p[order[int(t.note["rank"])]] * 100
        f = (lambda x: sn.fmt("%.3f%%", x)) if v < 0.1 else (lambda x: sn.fmt("%.1f%%", x))
        if not sn.matches(t.s, v, formatter=f, rel=1e-4):
            self.bad(t, "probability %s" % f(v))

    def k_bars_foot(self, t):
        tr = self.trace_of(t)
        V = tr.get(t.scope["source"]).shape[1]
        nums = [int(x) for x in re.findall(r"\d+", t.s)]
        if nums and (nums[0] != int(t.scope["pos"]) or V not in nums):
            self.bad(t, "row %s of %d entries" % (t.scope["pos"], V))

    # -- the logit lens
    def _lens_top(self, t):
        rows = lens_of(self.trace_of(t))
        z = rows[int(t.note["row"])][1][int(t.note["pos"])]
        e = np.exp(z - z.max())
        return int(np.argmax(z)), float(e.max() / e.sum())

    def k_lens_token(self, t):
        i, _ = self._lens_top(t)
        full = sn.token_display(self.vocab[i]) if self.vocab is not None else "id %d" % i
        if VOCAB_BYTES is not None:  # decoded after the prompt up to its position
            text, offs = self.trace_of(t).text()
            before = text[:offs[int(t.note["pos"]) + 1]]
            full = sn.label_in(before + VOCAB_BYTES[i], len(before), len(before) + len(VOCAB_BYTES[i]))
        if not sn.fits(t.s, full):
            self.bad(t, "the lens's top token is %r" % full)

    def k_lens_p(self, t):
        _, p = self._lens_top(t)
        v = p * 100
        f = (lambda x: sn.fmt("%.3f%%", x)) if v < 0.1 else (lambda x: sn.fmt("%.1f%%", x))
        if not sn.matches(t.s, v, formatter=f, rel=1e-4):
            self.bad(t, "the lens's top probability is %s" % f(v))

    def k_lens_row(self, t):
        r = int(t.note["row"])
        nums = [int(x) for x in re.findall(r"\d+", t.s)]
        if (r == 0 and nums) or (r > 0 and nums != [r - 1]):
            self.bad(t, "row %d is block %d's output" % (r, r - 1))

    # -- where the computation goes
    def _cost(self, t):
        steps, ops = cost_steps(self.trace_of(t))
        return steps[t.note["step"]] if "step" in t.note else None, ops

    def k_cost_flops(self, t):
        (f, b, s), _ = self._cost(t)
        if t.s != si(f):
            self.bad(t, "FLOPs %s" % si(f))

    def k_cost_bytes(self, t):
        (f, b, s), _ = self._cost(t)
        if t.s != si(b):
            self.bad(t, "bytes %s" % si(b))

    def k_cost_intensity(self, t):
        (f, b, s), _ = self._cost(t)
        if not sn.matches(t.s, f / b if b else 0, formatter=lambda x: sn.fmt("%.2f", x)):
            self.bad(t, "FLOPs per byte %.2f" % (f / b))

    def k_cost_time(self, t):
        (f, b, s), _ = self._cost(t)
        if s is None or not sn.matches(t.s.replace(" \u00b5s", ""), s * 1e6, formatter=lambda x: sn.fmt("%.1f", x),
                                       rel=1e-6):
            self.bad(t, "time %s" % (None if s is None else "%.1f us" % (s * 1e6)))

    def k_cost_caption(self, t):
        _, ops = self._cost(t)
        flops = sum(o[2] for o in ops)
        mm = sum(o[2] for o in ops if o[1] == "matmul")
        want = [sn.fmt("%d", len(self.trace_of(t).tokens)), sn.fmt("%.4f", flops / 1e9), sn.fmt("%.1f", 100 * mm / flops)]
        if re.findall(r"[\d.]+", t.s) != want:
            self.bad(t, "caption numbers %s" % want)

    # -- the pinned cell's arithmetic, from the trace's Q and K
    def _pin(self, t):
        tr = self.trace_of(t)
        L, h, i, j = (int(t.scope[k]) for k in ("layer", "head", "r", "c"))
        q = tr.get("blocks.%d.attn.hook_q" % L).astype(np.float64)[h]
        k = tr.get("blocks.%d.attn.hook_k" % L).astype(np.float64)[h]
        D = q.shape[1]
        scale = tr.cfg.get("ttrace_scale_attn", True)
        causal = tr.cfg.get("ttrace_causal", True)
        div = math.sqrt(D) if scale else 1.0
        row = q[i] @ k.T / div
        vis = np.arange(row.size) <= i if causal else np.ones(row.size, bool)
        mx = row[vis].max()
        e = np.where(vis, np.exp(row - mx), 0.0)
        return dict(q=q, k=k, D=D, i=i, j=j, s=row[j], mx=mx, rowsum=e.sum(), e=e[j], w=e[j] / e.sum(),
                    masked=bool(not vis[j]), dot=q[i] @ k[j], div=div)

    def _nums(self, s):
        return [sn.parse_num(x) for x in re.findall("[\u2212+]?[0-9]+(?:\\.[0-9]+)?(?:e[\u2212+]?[0-9]+)?", s)]

    def _expect(self, t, printed, values, specs):
        for p, v, f in zip(printed, values, specs):
            if not sn.matches(p, v, formatter=lambda x, f=f: sn.fmt(f, x), rel=1e-5):
                self.bad(t, "should print %s" % sn.fmt(f, v))

    def _tokens(self, s):
        return re.findall("[\u2212+]?[0-9]+\\.[0-9]+", s)

    def k_pin_index(self, t):
        sc = t.scope
        want = [int(sc["head"])] if int(sc["head"]) >= 0 else []
        want += [int(sc["r"]), int(sc["c"])]
        full = "%s[%s]" % (sc["hook"], ", ".join(str(x) for x in want))
        if t.s.endswith("\u2026") and full.startswith(t.s[:-1]):  # cut to the inspector's width
            return
        got = [int(x) for x in re.findall(r"\d+", t.s.split("[", 1)[1])]
        if got != want or t.s.split("[")[0] != sc["hook"]:
            self.bad(t, "the pinned cell is %s%s" % (sc["hook"], want))

    def k_pin_labels(self, t):
        self.pin_lines = getattr(self, "pin_lines", []) + [t]  # the line may wrap: read in finish

    def _pin_labels(self):
        groups = {}  # one line per pinned cell and side, wrapped or not
        for t in getattr(self, "pin_lines", []):
            groups.setdefault((tuple(sorted(t.scope.items())), t.trace), []).append(t)
        for lines in groups.values():
            self._pin_labels_of(lines[0], " ".join(x.s for x in lines))

    def _pin_labels_of(self, t, text):
        tr = self.trace_of(t)
        hook = t.scope["hook"]
        i, j = int(t.scope["r"]), int(t.scope["c"])
        a = self.tensor(t, hook)
        row_axis = "L" if hook.endswith("hook_loss") else "T"
        vocab_cols = a is not None and a.ndim == 2 and a.shape[1] == int(tr.cfg.get("vocab_size", -1))
        col_axis = "T" if a is not None and a.ndim == 3 and a.shape[1] == a.shape[2] else "V" if vocab_cols \
            else "1" if a is not None and a.ndim == 1 else None
        want = [self.label_text(tr, row_axis, i, t)]
        want += [self.label_text(tr, col_axis, j, t)] if col_axis else ["%d" % j]
        for lab in want:
            if (": %s" % lab) not in text and "\u2026" not in text:
                self.bad(t, "should name %r (the line reads %r)" % (lab, text))

    def k_pin_value(self, t):
        a = self.tensor(t, t.scope["hook"])
        h, i, j = int(t.scope["head"]), int(t.scope["r"]), int(t.scope["c"])
        v = a[h, i, j] if a.ndim == 3 else a[i, j] if a.ndim == 2 else a[i]
        if not sn.matches(t.s[2:], v, formatter=lambda x: sn.fmt("%.6g", x), rel=1e-6):
            self.bad(t, "= %s" % sn.fmt("%.6g", v))

    def k_pin_dot(self, t):
        P = self._pin(t)
        m = re.search(r"q(\d+) \u00b7 k(\d+)", t.s)
        if m and (int(m.group(1)), int(m.group(2))) != (P["i"], P["j"]):
            self.bad(t, "q%d \u00b7 k%d" % (P["i"], P["j"]))
        m = re.search(r"D = (\d+)", t.s)
        if m and int(m.group(1)) != P["D"]:
            self.bad(t, "D = %d" % P["D"])

    def k_pin_term(self, t):
        P = self._pin(t)
        d = int(t.note["d"])
        a, b = P["q"][P["i"], d], P["k"][P["j"], d]
        self._expect(t, self._tokens(t.s), [a, b, a * b], ["%.3f"] * 3)
        # largest first: this product is at least as large as every one not shown
        self.term_seen = getattr(self, "term_seen", []) + [abs(a * b)]

    def k_pin_rest(self, t):
        P = self._pin(t)
        prods = np.sort(np.abs(P["q"][P["i"]] * P["k"][P["j"]]))[::-1]
        shown = int(t.note["shown"])
        order = np.argsort(-np.abs(P["q"][P["i"]] * P["k"][P["j"]]), kind="stable")
        rest = (P["q"][P["i"]] * P["k"][P["j"]])[order[shown:]].sum()
        n = int(re.search(r"(\d+)", t.s).group(1))
        if n != P["D"] - shown:
            self.bad(t, "%d more" % (P["D"] - shown))
        self._expect(t, self._tokens(t.s)[-1:], [rest], ["%.3f"])
        seen = getattr(self, "term_seen", [])
        if seen and min(seen) + 1e-9 < prods[shown]:
            self.bad(t, "the products shown are not the largest")
        self.term_seen = []

    def k_pin_sum(self, t):
        self._expect(t, self._tokens(t.s), [self._pin(t)["dot"]], ["%.4f"])

    def k_pin_recorded_raw(self, t):
        P = self._pin(t)
        L, h = int(t.scope["layer"]), int(t.scope["head"])
        v = self.trace_of(t).get("blocks.%d.attn.hook_attn_scores_raw" % L)[h, P["i"], P["j"]]
        self._expect(t, self._tokens(t.s), [v], ["%+.4f"])

    def k_pin_scaled(self, t):
        P = self._pin(t)
        m = re.search("\u221a(\\d+)", t.s)
        if not m or int(m.group(1)) != P["D"]:
            self.bad(t, "\u221a%d" % P["D"])
        self._expect(t, self._tokens(t.s)[-1:], [P["s"]], ["%+.4f"])

    def k_pin_mask(self, t):
        P = self._pin(t)
        if (t.note["masked"] == "1") != P["masked"] or (("masked" in t.s or "가림" in t.s) != P["masked"]):
            self.bad(t, "the cell is %s" % ("masked" if P["masked"] else "visible"))

    def k_pin_exp_masked(self, t):
        if not self._pin(t)["masked"] or t.s.strip() != "4.  exp(\u2212\u221e) = 0":
            self.bad(t, "exp(\u2212\u221e) = 0 only for a masked cell")

    def k_pin_exp(self, t):
        P = self._pin(t)
        if P["masked"]:
            return self.bad(t, "a masked cell's exponential is exp(\u2212\u221e) = 0")
        self._expect(t, self._tokens(t.s), [P["s"], P["mx"], P["e"]], ["%.4f"] * 3)

    def k_pin_max(self, t):
        self._expect(t, self._tokens(t.s), [self._pin(t)["mx"]], ["%.4f"])

    def k_pin_rowsum(self, t):
        self._expect(t, self._tokens(t.s), [self._pin(t)["rowsum"]], ["%.4f"])

    def k_pin_div(self, t):
        P = self._pin(t)
        self._expect(t, self._tokens(t.s), [P["e"], P["rowsum"], P["w"]], ["%.4f"] * 3)

    def k_pin_recorded_w(self, t):
        P = self._pin(t)
        L, h = int(t.scope["layer"]), int(t.scope["head"])
        v = self.trace_of(t).get("blocks.%d.attn.hook_pattern" % L)[h, P["i"], P["j"]]
        self._expect(t, self._tokens(t.s), [v], ["%.4f"])

    # -- the pinned cell's arithmetic for every other step, from the trace and the weights
    def _cell(self, t):
        sc = t.scope
        return sc["hook"], int(sc.get("layer", -1)), int(sc.get("head", -1)), int(sc["r"]), int(sc["c"])

    def _g(self, t, name):
        a = self.trace_of(t).get(name)
        if a is None:
            raise KeyError(name)
        return a.astype(np.float64)

    def _mm(self, t):
        """(x, W column, bias or None) of the matrix product that made the pinned cell."""
        tr = self.trace_of(t)
        hook, L, h, i, j = self._cell(t)
        W = model_weights(tr)
        if tr.cfg.get("model_type") == "llama":
            return self._mm_llama(t, tr, W, hook.split(".", 2)[2] if hook.startswith("blocks.") else hook, L, h, i, j)
        post = tr.cfg.get("ttrace_block", "pre_ln") == "post_ln"
        C, H = int(tr.cfg["n_embd"]), int(tr.cfg["n_head"])
        D = C // H
        sfx = hook.split(".", 2)[2] if hook.startswith("blocks.") else hook
        pre = "h.%d." % L
        if sfx in ("attn.hook_qkv", "attn.hook_q", "attn.hook_k", "attn.hook_v"):
            x = self._g(t, "blocks.%d.%s" % (L, "hook_resid_pre" if post else "ln1.hook_out"))[i]
            col = j if sfx == "attn.hook_qkv" else "qkv".index(sfx[-1]) * C + h * D + j
            return x, W[pre + "attn.c_attn.weight"][:, col], W[pre + "attn.c_attn.bias"][col]
        if sfx == "hook_attn_out":
            z = self._g(t, "blocks.%d.attn.hook_z" % L)          # (H, T, D)
            x = z[:, i, :].reshape(-1)                           # heads side by side
            return x, W[pre + "attn.c_proj.weight"][:, j], W[pre + "attn.c_proj.bias"][j]
        if sfx == "mlp.hook_pre":
            x = self._g(t, "blocks.%d.%s" % (L, "ln1.hook_out" if post else "ln2.hook_out"))[i]
            return x, W[pre + "mlp.c_fc.weight"][:, j], W[pre + "mlp.c_fc.bias"][j]
        if sfx == "hook_mlp_out":
            x = self._g(t, "blocks.%d.mlp.hook_post" % L)[i]
            return x, W[pre + "mlp.c_proj.weight"][:, j], W[pre + "mlp.c_proj.bias"][j]
        if sfx == "hook_logits":
            x = self._g(t, "ln_final.hook_out")[i]
            E = W.get("lm_head.weight", W["wte.weight"])
            return x, E[j], None
        raise KeyError("no product for " + hook)

    def _mm_llama(self, t, tr, W, sfx, L, h, i, j):
        """The Llama block's products: nn.Linear weights (out, in), biases where present."""
        D = int(tr.cfg.get("head_dim") or int(tr.cfg["hidden_size"]) // int(tr.cfg["num_attention_heads"]))
        pre = "model.layers.%d." % L
        lin = {"attn.hook_q": ("ln1.hook_out", "self_attn.q_proj", h * D + j),
               "attn.hook_k": ("ln1.hook_out", "self_attn.k_proj", h * D + j),
               "attn.hook_v": ("ln1.hook_out", "self_attn.v_proj", h * D + j),
               "mlp.hook_pre": ("ln2.hook_out", "mlp.gate_proj", j),
               "mlp.hook_pre_linear": ("ln2.hook_out", "mlp.up_proj", j),
               "hook_mlp_out": ("mlp.hook_post", "mlp.down_proj", j)}
        if sfx in lin:
            src, name, row = lin[sfx]
            x = self._g(t, "blocks.%d.%s" % (L, src))[i]
        elif sfx == "hook_attn_out":
            x, name, row = self._g(t, "blocks.%d.attn.hook_z" % L)[:, i, :].reshape(-1), "self_attn.o_proj", j
        elif sfx == "hook_logits":
            E = W.get("lm_head.weight", W["model.embed_tokens.weight"])
            return self._g(t, "ln_final.hook_out")[i], E[j], None
        else:
            raise KeyError("no product for " + sfx)
        b = W.get(pre + name + ".bias")
        return x, W[pre + name + ".weight"][row], None if b is None else b[row]

    def _pin_rope(self, t):
        """(a, b, θ_i, position, angle, rotated value) of a pinned rotated q or k cell."""
        tr = self.trace_of(t)
        hook, L, h, i, d = self._cell(t)
        x = self._g(t, "blocks.%d.attn.hook_%s" % (L, hook[-1]))[h, i]   # (D) before the rotation
        D = x.size
        k = d % (D // 2)
        theta = float(tr.cfg.get("rope_theta", 10000.0))
        pos = i + int(tr.cfg.get("ttrace_rope_offset", 0))
        th = theta ** (-2.0 * k / D)
        a, b, ang = x[k], x[k + D // 2], pos * th
        out = a * math.cos(ang) - b * math.sin(ang) if d < D // 2 else b * math.cos(ang) + a * math.sin(ang)
        return a, b, th, pos, ang, out

    def k_pin_rope_pair(self, t):
        a, b, _, _, _, _ = self._pin_rope(t)
        nums = self._num_tokens(t.s)
        self._same(t, nums[1], a, "%+.6g")
        self._same(t, nums[3], b, "%+.6g")

    def k_pin_rope_theta(self, t):
        self._same(t, self._num_tokens(t.s)[-1], self._pin_rope(t)[2], "%.6g")

    def k_pin_rope_angle(self, t):
        _, _, _, pos, ang, _ = self._pin_rope(t)
        nums = self._num_tokens(t.s)
        if int(nums[0]) != pos:
            self.bad(t, "the rotary position is %d" % pos)
        self._same(t, nums[-1], ang, "%.6g")

    def k_pin_rope_out(self, t):
        self._same(t, self._num_tokens(t.s)[-1], self._pin_rope(t)[5], "%+.6g")
        self._same(t, self._num_tokens(t.s)[-1], self._recorded_value(t), "%+.6g")

    def _glu(self, t):
        _, L, _, i, j = self._cell(t)
        g = self._g(t, "blocks.%d.mlp.hook_pre" % L)[i, j]
        u = self._g(t, "blocks.%d.mlp.hook_pre_linear" % L)[i, j]
        return g, g / (1 + math.exp(-g)), u

    def k_pin_glu_g(self, t):
        self._same(t, self._num_tokens(t.s)[-1], self._glu(t)[0], "%+.6g")

    def k_pin_glu_act(self, t):
        self._same(t, self._num_tokens(t.s)[-1], self._glu(t)[1], "%+.6g")

    def k_pin_glu_up(self, t):
        self._same(t, self._num_tokens(t.s)[-1], self._glu(t)[2], "%+.6g")

    def k_pin_glu_out(self, t):
        g, s, u = self._glu(t)
        self._same(t, self._num_tokens(t.s)[-1], s * u, "%+.6g")
        self._same(t, self._num_tokens(t.s)[-1], self._recorded_value(t), "%+.6g")

    def _num_tokens(self, s):
        """The numbers of a line, integers included (term lines take their last three)."""
        return re.findall("[\u2212+]?[0-9]+(?:\\.[0-9]+)?(?:e[\u2212+]?[0-9]+)?", s)

    def _same(self, t, printed, v, spec):
        if not sn.matches(printed, v, formatter=lambda x: sn.fmt(spec, x), rel=1e-5):
            self.bad(t, "should print %s" % sn.fmt(spec, v))

    def _recorded_value(self, t):
        hook, L, h, i, j = self._cell(t)
        a = self.trace_of(t).get(hook)
        return float(a[h, i, j] if a.ndim == 3 else a[i, j] if a.ndim == 2 else a[i])

    def k_pin_recorded(self, t):
        self._same(t, self._num_tokens(t.s)[-1], self._recorded_value(t), "%+.6g")

    def k_pin_mm_counts(self, t):
        x, w, _ = self._mm(t)
        if int(re.search(r"(\d+)", t.s).group(1)) != x.size:
            self.bad(t, "%d terms" % x.size)
        self.mm_seen = []

    def _mm_sign(self, t, positive):
        x, w, _ = self._mm(t)
        prod = x * w
        part = prod[prod > 0] if positive else prod[prod < 0]
        if int(re.search(r"(\d+)", t.s).group(1)) != part.size:
            self.bad(t, "%d %s terms" % (part.size, "positive" if positive else "negative"))
        self._same(t, self._num_tokens(t.s)[-1], part.sum(), "%+.4f")

    def k_pin_mm_pos(self, t):
        self._mm_sign(t, True)

    def k_pin_mm_neg(self, t):
        self._mm_sign(t, False)

    def k_pin_mm_term(self, t):
        x, w, _ = self._mm(t)
        k = int(t.note["k"])
        for p_, v, f in zip(self._num_tokens(t.s)[-3:], [x[k], w[k], x[k] * w[k]], ["%.4f", "%.4f", "%+.4f"]):
            self._same(t, p_, v, f)
        if ("%d " % k) not in t.s:
            self.bad(t, "should name term %d" % k)
        self.mm_seen = getattr(self, "mm_seen", []) + [k]

    def k_pin_mm_rest(self, t):
        x, w, _ = self._mm(t)
        prod = x * w
        seen = getattr(self, "mm_seen", [])
        if int(t.note["shown"]) != len(seen):
            self.bad(t, "%d terms were shown" % len(seen))
        pos = [k for k in seen if prod[k] > 0]
        neg = [k for k in seen if prod[k] < 0]
        # the ones shown are the largest of each sign, in order
        if sorted(prod[pos], reverse=True) != sorted(prod[prod > 0], reverse=True)[:len(pos)]:
            self.bad(t, "the positive terms shown are not the largest")
        if sorted(prod[neg]) != sorted(prod[prod < 0])[:len(neg)]:
            self.bad(t, "the negative terms shown are not the most negative")
        n = int(re.search(r"(\d+)", t.s).group(1))
        if n != prod.size - len(seen):
            self.bad(t, "%d other terms" % (prod.size - len(seen)))
        self._same(t, self._num_tokens(t.s)[-1], prod.sum() - prod[seen].sum(), "%+.4f")
        self.mm_seen = []

    def k_pin_mm_bias(self, t):
        b = self._mm(t)[2]
        self._same(t, self._num_tokens(t.s)[-1], b, "%+.4f")

    def k_pin_mm_sum(self, t):
        x, w, b = self._mm(t)
        self._same(t, self._num_tokens(t.s)[0], x @ w + (b or 0.0), "%+.6g")

    def _mix(self, t):
        hook, L, h, i, d = self._cell(t)
        A = self._g(t, "blocks.%d.attn.hook_pattern" % L)[h, i]
        v = self._g(t, "blocks.%d.attn.hook_v" % L)[h, :, d]
        return A, v

    def k_pin_mix_term(self, t):
        A, v = self._mix(t)
        j = int(t.note["j"])
        for p_, val, f in zip(self._num_tokens(t.s)[-3:], [A[j], v[j], A[j] * v[j]], ["%.4f", "%.4f", "%+.4f"]):
            self._same(t, p_, val, f)

    def k_pin_mix_rest(self, t):
        A, _ = self._mix(t)
        n = int(re.search(r"(\d+)", t.s).group(1))
        if n != A.size - int(t.note["shown"]):
            self.bad(t, "%d other tokens" % (A.size - int(t.note["shown"])))

    def k_pin_mix_sum(self, t):
        A, v = self._mix(t)
        self._same(t, self._num_tokens(t.s)[0], A @ v, "%+.6g")

    def _sum_parts(self, t):
        tr = self.trace_of(t)
        hook, L, h, i, j = self._cell(t)
        post = tr.cfg.get("ttrace_block", "pre_ln") == "post_ln"
        if not tr.cfg.get("ttrace_residual", True):  # the sublayer's output alone
            names = (None, "blocks.%d.%s" % (L, "hook_attn_out" if hook.endswith("mid") else "hook_mlp_out"))
            return [0.0, self._g(t, names[1])[i, j]]
        if hook.endswith("hook_resid_mid"):
            names = ("blocks.%d.hook_resid_pre" % L, "blocks.%d.hook_attn_out" % L)
        elif hook.endswith("hook_resid_post"):
            names = ("blocks.%d.%s" % (L, "ln1.hook_out" if post else "hook_resid_mid"), "blocks.%d.hook_mlp_out" % L)
        else:
            raise KeyError(hook)
        return [self._g(t, n)[i, j] for n in names]

    def k_pin_sum_a(self, t):
        self._same(t, self._num_tokens(t.s)[-1], self._sum_parts(t)[0], "%+.6g")

    def k_pin_sum_b(self, t):
        self._same(t, self._num_tokens(t.s)[-1], self._sum_parts(t)[1], "%+.6g")

    def k_pin_sum_total(self, t):
        self._same(t, self._num_tokens(t.s)[-1], sum(self._sum_parts(t)), "%+.6g")

    def _embed(self, t):
        tr = self.trace_of(t)
        _, _, _, i, j = self._cell(t)
        ids = json.loads(tr.meta["token_ids"])
        W = model_weights(tr)
        pos = tr.get("hook_pos_embed")
        return ids[i], W["wte.weight"][ids[i], j], (None if pos is None else float(pos[i, j]))

    def k_pin_embed_id(self, t):
        tid = self._embed(t)[0]
        if not t.s.rstrip().endswith("id %d" % tid):
            self.bad(t, "id %d" % tid)

    def k_pin_embed_row(self, t):
        tid, x, _ = self._embed(t)
        if ("W_E[%d, %s]" % (tid, t.scope["c"])) not in t.s:
            self.bad(t, "W_E[%d, %s]" % (tid, t.scope["c"]))
        self._same(t, self._num_tokens(t.s)[-1], x, "%+.6g")

    def k_pin_embed_pos(self, t):
        tr = self.trace_of(t)
        _, _, _, i, j = self._cell(t)
        C = int(tr.cfg["n_embd"])
        kind = tr.cfg.get("ttrace_positions", "learned")
        if kind == "learned":
            want = model_weights(tr)["wpe.weight"][i, j]
        else:  # PE[p, 2k] = sin(p / 10000^(2k/C)), PE[p, 2k+1] = cos(same)
            ang = i / 10000.0 ** ((j - j % 2) / C)
            want = math.sin(ang) if j % 2 == 0 else math.cos(ang)
        self._same(t, self._num_tokens(t.s)[-1], want, "%+.6g")

    def k_pin_embed_sum(self, t):
        _, x, p_ = self._embed(t)
        self._same(t, self._num_tokens(t.s)[-1], x + p_, "%+.6g")

    def _ln(self, t):
        tr = self.trace_of(t)
        hook, L, h, i, j = self._cell(t)
        prefix = hook[:-len(".hook_out")]
        x = ln_input(tr, prefix).astype(np.float64)[i]
        rms = tr.cfg.get("ttrace_norm", "layernorm") == "rmsnorm"
        mu = 0.0 if rms else x.mean()
        sigma = math.sqrt(((x - mu) ** 2).mean() + float(np.float32(tr.eps)))
        W = model_weights(tr)
        name = "ln_f" if prefix == "ln_final" else "h.%d.ln_%s" % (L, prefix[-1])
        g, b = W[name + ".weight"][j], W.get(name + ".bias", np.zeros(j + 1))[j]
        n = (x[j] - mu) / sigma
        return dict(x=x[j], mu=mu, sigma=sigma, n=n, g=g, b=b, out=n * g + b)

    def k_pin_ln_x(self, t):
        self._same(t, self._num_tokens(t.s)[-1], self._ln(t)["x"], "%+.6g")

    def k_pin_ln_mu(self, t):
        self._same(t, self._num_tokens(t.s)[-1], self._ln(t)["mu"], "%+.6g")

    def k_pin_ln_sigma(self, t):
        self._same(t, self._num_tokens(t.s)[-1], self._ln(t)["sigma"], "%.5f")

    def k_pin_ln_norm(self, t):
        self._same(t, self._num_tokens(t.s)[-1], self._ln(t)["n"], "%+.6g")

    def k_pin_ln_affine(self, t):
        P = self._ln(t)
        nums = self._num_tokens(t.s)
        self._same(t, nums[0], P["g"], "%+.6g")
        self._same(t, nums[1], P["b"], "%+.6g")

    def k_pin_ln_out(self, t):
        self._same(t, self._num_tokens(t.s)[0], self._ln(t)["out"], "%+.6g")

    def _act(self, t):
        tr = self.trace_of(t)
        _, L, _, i, j = self._cell(t)
        u = self._g(t, "blocks.%d.mlp.hook_pre" % L)[i, j]
        a = tr.cfg.get("activation_function", "gelu_new")
        if a in ("relu",):
            g = max(u, 0.0)
        elif a in ("identity", "linear"):
            g = u
        elif a in ("silu", "swish"):
            g = u / (1 + math.exp(-u))
        elif a == "gelu":
            g = 0.5 * u * (1 + math.erf(u / math.sqrt(2)))
        else:
            g = 0.5 * u * (1 + math.tanh(math.sqrt(2 / math.pi) * (u + 0.044715 * u ** 3)))
        return u, g

    def k_pin_act_u(self, t):
        self._same(t, self._num_tokens(t.s)[-1], self._act(t)[0], "%+.6g")

    def k_pin_act(self, t):
        self._same(t, self._num_tokens(t.s)[0], self._act(t)[1], "%+.6g")

    def _sm(self, t):
        _, _, _, i, j = self._cell(t)
        z = self._g(t, "hook_logits")[i]
        mx = z.max()
        e = np.exp(z - mx)
        return dict(z=z[j], mx=mx, e=e[j], sum=e.sum(), p=e[j] / e.sum(), V=z.size)

    def k_pin_sm_z(self, t):
        P, nums = self._sm(t), self._num_tokens(t.s)
        self._same(t, nums[0], P["z"], "%+.4f")
        self._same(t, nums[1], P["mx"], "%+.4f")

    def k_pin_sm_exp(self, t):
        self._same(t, self._num_tokens(t.s)[-1], self._sm(t)["e"], "%.6g")

    def k_pin_sm_sum(self, t):
        P = self._sm(t)
        self._same(t, self._num_tokens(t.s)[0], P["sum"], "%.6g")
        if "V = %d" % P["V"] not in t.s:
            self.bad(t, "V = %d" % P["V"])

    def k_pin_sm_p(self, t):
        self._same(t, self._num_tokens(t.s)[0], self._sm(t)["p"], "%.6g")

    def _loss(self, t):
        tr = self.trace_of(t)
        i = int(t.scope["r"])
        tid = json.loads(tr.meta["token_ids"])[i + 1]
        return tid, float(self._g(t, "hook_probs")[i, tid])

    def k_pin_loss_target(self, t):
        tid = self._loss(t)[0]
        if not t.s.rstrip().endswith("id %d" % tid):
            self.bad(t, "id %d" % tid)

    def k_pin_loss_p(self, t):
        self._same(t, self._num_tokens(t.s)[-1], self._loss(t)[1], "%.6g")

    def k_pin_loss(self, t):
        self._same(t, self._num_tokens(t.s)[0], -math.log(self._loss(t)[1]), "%.5f")
    # -- gradients (a trace made with --grad): the legend, the pinned cell, the norm view
    def k_legend_gradient(self, t):
        if not t.scope.get("hook", "").startswith("grad."):
            self.bad(t, "only a gradient's colour bar says it is a gradient")

    def _gnums(self, s):
        return re.findall("[\u2212+]?[0-9.]+(?:e[\u2212+]?[0-9]+)?", s)

    def _gexpect(self, t, printed, values):
        if len(printed) < len(values):
            return self.bad(t, "should print %s" % ", ".join(sn.fmt("%.6g", v) for v in values))
        for p, v in zip(printed, values):
            if not sn.matches(p, v, formatter=lambda x: sn.fmt("%.6g", x), rel=1e-5):
                self.bad(t, "should print %s" % sn.fmt("%.6g", v))

    def _glogits(self, t):
        """p, the true next id, T and the gradient at the pinned (t, v) of grad.hook_logits."""
        tr = self.trace_of(t)
        r, c = int(t.scope["r"]), int(t.scope["c"])
        z = tr.get("hook_logits").astype(np.float64)[r]
        p = np.exp(z - z.max())
        p /= p.sum()
        ids = json.loads(tr.meta["token_ids"])
        return p[c], (ids[r + 1] if r + 1 < len(ids) else None), len(ids), c, r

    def k_pin_g_p(self, t):
        p, _, _, _, _ = self._glogits(t)
        self._gexpect(t, self._gnums(t.s.split("=")[-1]), [p])

    def k_pin_g_next(self, t):
        _, nxt, _, c, r = self._glogits(t)
        tr = self.trace_of(t)
        named = "(id" not in t.s or (("id %d)" % nxt) in t.s and tr.label(r + 1) in t.s)
        if (t.note["is"] == "1") != (nxt == c) or not named:  # a wrapped line's rest names nothing
            self.bad(t, "the true next token is %r (id %d)" % (tr.tokens[r + 1], nxt))

    def k_pin_g_minus(self, t):
        p, nxt, _, c, _ = self._glogits(t)
        one = 1.0 if nxt == c else 0.0
        nums = self._gnums(t.s)
        self._gexpect(t, [nums[0], nums[-1]], [p, p - one])
        if int(nums[1]) != int(one):
            self.bad(t, "p \u2212 %d" % int(one))

    def k_pin_g_div(self, t):
        _, _, T, _, _ = self._glogits(t)
        if int(self._gnums(t.s)[-1]) != T - 1:
            self.bad(t, "\u00f7 %d" % (T - 1))

    def k_pin_g_result(self, t):
        p, nxt, T, c, _ = self._glogits(t)
        d = p - (1.0 if nxt == c else 0.0)
        nums = self._gnums(t.s)
        self._gexpect(t, [nums[0], nums[-1]], [d, d / (T - 1)])
        if int(nums[1]) != T - 1:
            self.bad(t, "/ %d" % (T - 1))

    def k_pin_g_last(self, t):
        if int(t.scope["r"]) != len(self.trace_of(t).tokens) - 1:
            self.bad(t, "only the last position has no next token")

    def k_pin_g_recorded(self, t):
        a = self.tensor(t, t.scope["hook"])
        h, i, j = int(t.scope["head"]), int(t.scope["r"]), int(t.scope["c"])
        self._gexpect(t, self._gnums(t.s)[-1:], [a[h, i, j] if a.ndim == 3 else a[i, j]])

    def _gsoftmax(self, t):
        tr = self.trace_of(t)
        L, h, i, j = (int(t.scope[k]) for k in ("layer", "head", "r", "c"))
        A = tr.get("blocks.%d.attn.hook_pattern" % L).astype(np.float64)[h, i]
        dA = tr.get("grad.blocks.%d.attn.hook_pattern" % L).astype(np.float64)[h, i]
        return A, dA, i, j

    def k_pin_g_a(self, t):
        A, dA, i, j = self._gsoftmax(t)
        nums = self._gnums(t.s)
        if [int(x) for x in (nums[1], nums[2], nums[4], nums[5])] != [i, j, i, j]:
            self.bad(t, "A[%d, %d] and dA[%d, %d]" % (i, j, i, j))
        self._gexpect(t, [nums[3], nums[6]], [A[j], dA[j]])

    def k_pin_g_rowdot(self, t):
        A, dA, i, _ = self._gsoftmax(t)
        self._gexpect(t, self._gnums(t.s)[-1:], [float(A @ dA)])

    def k_pin_g_jvp(self, t):
        A, dA, _, j = self._gsoftmax(t)
        row = float(A @ dA)
        self._gexpect(t, self._gnums(t.s)[1:], [A[j], dA[j], row])

    def k_pin_g_jvp_result(self, t):
        A, dA, _, j = self._gsoftmax(t)
        self._gexpect(t, self._gnums(t.s), [A[j] * (dA[j] - float(A @ dA))])

    def k_pin_g_dzv_head(self, t):
        tr = self.trace_of(t)
        D = tr.get("grad.blocks.%s.attn.hook_z" % t.scope["layer"]).shape[2]
        if [int(x) for x in re.findall(r"\d+", t.s)][-3:] != [int(t.scope["r"]), int(t.scope["c"]), D]:
            self.bad(t, "dA[%s, %s], D = %d" % (t.scope["r"], t.scope["c"], D))

    def k_pin_g_dzv(self, t):
        tr = self.trace_of(t)
        L, h, i, j = (int(t.scope[k]) for k in ("layer", "head", "r", "c"))
        dz = tr.get("grad.blocks.%d.attn.hook_z" % L).astype(np.float64)
        v = tr.get("blocks.%d.attn.hook_v" % L).astype(np.float64)
        self._gexpect(t, self._gnums(t.s)[-1:], [float(dz[h, i] @ v[h * v.shape[0] // dz.shape[0], j])])

    def k_gn_norm(self, t):
        a = self.trace_of(t).get(t.note["hook"])
        if a is None:
            return self.bad(t, "no tensor %s" % t.note["hook"])
        v = float(np.linalg.norm(a.astype(np.float64).ravel()))
        if not sn.matches(t.s, v, formatter=lambda x: sn.fmt("%.4g", x), rel=1e-5):
            self.bad(t, "\u2016%s\u2016 = %s" % (t.note["hook"], sn.fmt("%.4g", v)))

    def k_gn_small(self, t):
        pass  # "no room for these rows": _gradnorm_complete counts on it

    def k_gn_label(self, t):
        hook = t.note["hook"][len("grad."):]
        m = (re.fullmatch(r"blocks\.(\d+)\.hook_(resid_\w+)", hook)
             or re.fullmatch(r"h\.(\d+)\.(.+)\.weight", hook))
        want = "%s %s" % m.groups() if m else re.sub(r"\.weight$", "", hook)
        if t.s != want:
            self.bad(t, "the row of %s is labelled %r" % (t.note["hook"], want))

    # -- (T, V) tensors: the top columns per token
    def _top(self, t):
        a = self.tensor(t, t.scope["hook"])
        r, rank = int(t.note["r"]), int(t.note["rank"])
        row = a[r].astype(np.float64)
        order = np.argsort(-row, kind="stable")
        return row, order, rank

    def k_top_value(self, t):
        row, order, rank = self._top(t)
        v = row[order[rank]]
        if not sn.matches(t.s, v):
            self.bad(t, "rank %d of row %s is %s" % (rank + 1, t.note["r"], sn.fmt_value(v)))

    def k_top_token(self, t):
        row, order, rank = self._top(t)
        ok = []
        for i in np.nonzero(row == row[order[rank]])[0]:  # ties may come in either order
            ok.append(self.label_text(self.trace_of(t), "V", int(i), t))
        if not any(sn.fits(t.s, f) for f in ok):
            self.bad(t, "rank %d of row %s is %r" % (rank + 1, t.note["r"], ok[0]))

    def k_rank_header(self, t):
        if t.s != "#%d" % (int(t.note["rank"]) + 1):
            self.bad(t, "rank header")

    def k_index(self, t):
        if t.s != t.note["i"]:
            self.bad(t, "index %s" % t.note["i"])

    # -- embedding neighbours
    def _near(self, t):
        tr = self.trace_of(t)
        near, shared = neighbours(tr, int(t.scope["id"]))
        return tr, near, shared, int(t.note.get("rank", 0))

    def _vocab_label(self, i):
        if VOCAB_BYTES is None:
            return self.vocab[i] if self.vocab is not None else "id %d" % i
        return sn.label_in(VOCAB_BYTES[i], 0, len(VOCAB_BYTES[i]))

    def _query_labels(self, t):
        tr, q = self.trace_of(t), int(t.scope["id"])
        return [tr.label(i) for i, x in enumerate(tr.ids) if x == q] + [self._vocab_label(q)]

    def k_nb_caption(self, t):
        if getattr(self, "nb_captioned", False):
            return  # a wrapped caption: its first line names the token
        self.nb_captioned = True
        q = int(t.scope["id"])
        if not any(t.s.startswith("%s (id %d)" % (lab, q)) for lab in self._query_labels(t)):
            self.bad(t, "the token is %r (id %d)" % (self._query_labels(t)[-1], q))

    def k_nb_self_shared(self, t):
        _, _, shared, _ = self._near(t)
        label_digits = set(re.findall(r"\d+", " ".join(self._query_labels(t))))
        nums = [x for x in re.findall(r"\d+", t.s) if x not in label_digits]
        if shared < 2 or nums not in ([], [str(shared - 1)]):
            self.bad(t, "%d other tokens have this token's row" % (shared - 1))

    def k_nb_rank(self, t):
        _, near, _, r = self._near(t)
        if t.s != str(r) or r > len(near):
            self.bad(t, "rank %d" % r)

    def k_nb_token(self, t):
        _, near, _, r = self._near(t)
        i, _, shared = near[r - 1]
        if shared != 1 or not sn.fits(t.s, self._vocab_label(i)):
            self.bad(t, "neighbour %d is %s" % (r, "a row %d tokens share" % shared if shared > 1 else
                                                 repr(self._vocab_label(i))))

    def k_nb_id(self, t):
        _, near, _, r = self._near(t)
        if t.s != str(near[r - 1][0]) or near[r - 1][2] != 1:
            self.bad(t, "neighbour %d is id %d" % (r, near[r - 1][0]))

    def k_nb_shared(self, t):
        _, near, _, r = self._near(t)
        if near[r - 1][2] < 2 or re.findall(r"\d+", t.s) != [str(near[r - 1][2])]:
            self.bad(t, "neighbour %d is a row of %d token(s)" % (r, near[r - 1][2]))

    def k_nb_cos(self, t):
        _, near, _, r = self._near(t)
        v = near[r - 1][1]
        f = lambda x: sn.fmt("%.3f", x)  # noqa: E731
        if not sn.matches(t.s, v, formatter=f, rel=1e-6):
            self.bad(t, "the cosine of neighbour %d is %s" % (r, f(v)))

    # -- FFN neurons as gates
    def _gates(self, t):
        """(u, a(u), up or None, hook_post) of the view's position: a(u) is hook_post (GPT-2) or
        silu(u) (Llama's gate), checked against the activation's formula here."""
        tr = self.trace_of(t)
        L, pos = int(t.scope["layer"]), int(t.scope["pos"])
        u = tr.get("blocks.%d.mlp.hook_pre" % L)[pos].astype(np.float64)
        post = tr.get("blocks.%d.mlp.hook_post" % L)[pos].astype(np.float64)
        if tr.cfg.get("model_type") == "llama":
            up = tr.get("blocks.%d.mlp.hook_pre_linear" % L)[pos].astype(np.float64)
            a = act_of(tr.cfg, u)
            if np.max(np.abs(a * up - post)) > 1e-4 * max(1.0, np.max(np.abs(post))):
                self.bad(t, "hook_post is not silu(hook_pre)\u00b7up")
            return u, a, up, post
        if np.max(np.abs(act_of(tr.cfg, u) - post)) > 1e-4 * max(1.0, np.max(np.abs(u))):
            self.bad(t, "hook_post is not the activation of hook_pre")
        return u, post, None, post

    def _gate_value(self, t, v, what):
        if not sn.matches(t.s, v, formatter=gate_fmt, rel=1e-5):
            self.bad(t, "%s of neuron %s is %s" % (what, t.note["j"], gate_fmt(v)))

    def k_gate_neuron(self, t):
        u, a, _, _ = self._gates(t)
        key = -a if t.note["side"] == "on" else u  # fire most: largest a(u); off: most negative u
        order = np.argsort(key, kind="stable")
        r, j = int(t.note["rank"]), int(t.note["j"])
        if t.s != str(j) or abs(key[j] - key[order[r - 1]]) > 0:
            self.bad(t, "neuron %d of the %s side is %d" % (r, t.note["side"], int(order[r - 1])))

    def k_gate_u(self, t):
        self._gate_value(t, self._gates(t)[0][int(t.note["j"])], "u")

    def k_gate_a(self, t):
        self._gate_value(t, self._gates(t)[1][int(t.note["j"])], "a(u)")

    def k_gate_up(self, t):
        self._gate_value(t, self._gates(t)[2][int(t.note["j"])], "up")

    def k_gate_post(self, t):
        self._gate_value(t, self._gates(t)[3][int(t.note["j"])], "hook_post")

    def k_gates_caption(self, t):
        tr = self.trace_of(t)
        L, pos = int(t.note["layer"]), int(t.note["pos"])
        allowed = {str(L), str(pos)} | set(re.findall(r"\d+", tr.label(pos)))
        if not set(re.findall(r"\d+", t.s)) <= allowed or ("blocks." in t.s and "blocks.%d." % L not in t.s):
            self.bad(t, "blocks.%d.mlp at token %d" % (L, pos))

    def k_gates_count(self, t):
        u = self._gates(t)[0]
        want = {"0", str(int((u > 0).sum())), str(u.size)}
        if not set(re.findall(r"\d+", t.s)) <= want:
            self.bad(t, "u > 0 for %d of %d neurons" % (int((u > 0).sum()), u.size))

    # -- the activation plot
    def k_axis_number(self, t):
        if not re.fullmatch("\u2212?[0-9]+", t.s):
            self.bad(t, "an axis number")

    def k_gelu_count(self, t):
        L = int(t.note["layer"])
        n = self.trace_of(t).get("blocks.%d.mlp.hook_pre" % L).size
        # The caption may wrap: each of its lines holds only the count and the block's number.
        nums = re.findall(r"\d+", t.s)
        if any(x not in (str(n), str(L)) for x in nums) or ("blocks." in t.s and ("blocks.%d." % L) not in t.s):
            self.bad(t, "the %d (u, g) pairs of blocks.%d" % (n, L))

    def k_block_label(self, t):
        if not re.fullmatch(r"(?:block |블록 )?%s" % t.note["l"], t.s):
            self.bad(t, "block %s" % t.note["l"])

    def k_lesson_counter(self, t):
        if not t.s.startswith("%d / " % (int(t.note["step"]) + 1)):
            self.bad(t, "step %d" % (int(t.note["step"]) + 1))

    # -- tokens, merges, heads, layers
    def k_prompt(self, t):
        p = self.trace_of(t).prompt
        line = t.s.split("\u201c", 1)[-1] if "\u201c" in t.s else t.s  # one line of a wrapped prompt
        if line.strip() and line.strip() in p + "\u201d":
            return
        if ("\u201c%s\u201d" % p) not in t.s and "\u2026" not in t.s and p not in t.s:
            self.bad(t, "the prompt is %r" % p)

    def k_token_id(self, t):
        ids = json.loads(self.trace_of(t).meta.get("token_ids", "[]"))
        i = int(t.note["i"])
        if t.s != str(ids[i]):
            self.bad(t, "token %d has id %d" % (i, ids[i]))

    def k_embed_rows_more(self, t):
        ids = json.loads(self.trace_of(t).meta.get("token_ids", "[]"))
        shown, rows = int(t.note["shown"]), int(t.note["rows"])
        if rows != len(set(ids)):
            self.bad(t, "the prompt looks up %d distinct rows" % len(set(ids)))
        if [int(x) for x in re.findall(r"\d+", t.s)] != [rows - shown]:
            self.bad(t, "%d rows not labelled" % (rows - shown))

    def _token_count_of(self, t, text):
        T = len(self.trace_of(t).tokens)
        if str(T) not in re.findall(r"\d+", text):
            self.bad(t, "%d tokens" % T)

    def k_merge(self, t):
        """Pieces as bytes (a piece of a character with the character): read back to bytes and
        compared with merges.txt's pair of that rank."""
        m = re.fullmatch(r"(.+) \+ (.+) \u2192 (.+)  \(#(\d+)\)", t.s)
        if not m:
            return self.bad(t, "a merge line reads 'a + b \u2192 ab  (#rank)'")
        rank = int(m.group(4))
        try:
            a, b, ab = (sn.label_bytes(m.group(k)) for k in (1, 2, 3))
        except ValueError as e:
            return self.bad(t, str(e))
        want = self.merges[rank] if self.merges and rank < len(self.merges) else None
        if want is None or (a, b) != want:
            self.bad(t, "merge #%d is %r + %r" % (rank, *(want or ("?", "?"))))
        if ab != a + b:
            self.bad(t, "%r + %r makes %r" % (a, b, a + b))

    def k_token_group(self, t):
        """The characters under a bracket: the tokens first .. first + n − 1 decoded."""
        text, offs = self.trace_of(t).text()
        first, n = int(t.note["first"]), int(t.note["n"])
        g = text[offs[first]:offs[first + n]].lstrip(b" ")
        want = sn.label_in(g, 0, len(g))
        if t.s != want:
            self.bad(t, "tokens %d..%d spell %r" % (first, first + n - 1, want))

    def k_tokens_more(self, t):
        if t.scope.get("panel") == "timeline":
            return  # prompt and generated tokens: _tl_chips
        T, shown = len(self.trace_of(t).tokens), int(t.note["shown"])
        if [int(x) for x in re.findall(r"\d+", t.s)] != [T - shown, shown]:
            self.bad(t, "%d tokens from %d are not shown" % (T - shown, shown))

    def k_rows_more(self, t):
        shown, rows = int(t.note["shown"]), int(t.note["rows"])
        hook = t.scope.get("hook")
        a = self.tensor(t, hook) if hook else None
        if a is not None and a.shape[0] != rows:
            self.bad(t, "%s has %d rows" % (hook, a.shape[0]))
        if [int(x) for x in re.findall(r"\d+", t.s)] != [rows - shown]:
            self.bad(t, "%d rows not shown" % (rows - shown))

    def k_bars_more(self, t):
        k, asked = int(t.note["k"]), int(t.note["asked"])
        if [int(x) for x in re.findall(r"\d+", t.s)] != [asked - k]:
            self.bad(t, "%d candidates not shown" % (asked - k))

    def k_merge_group(self, t):
        self.groups = getattr(self, "groups", []) + [t.s]

    def k_merge_group_again(self, t):
        # "… heading": the last group's heading, marked as continued
        if not self.groups or t.s != "\u2026 " + self.groups[-1]:
            self.bad(t, "a repeated heading is the last group's, marked as continued")

    def k_merge_more(self, t):
        pass

    def k_head_label(self, t):
        # "head 3", or "3" alone where a grid's panels are too narrow for the word
        if not re.fullmatch(r"(?:(?:head|헤드) )?%s" % t.note["h"], t.s):
            self.bad(t, "head %s" % t.note["h"])

    def k_layer_label(self, t):
        if not re.fullmatch(r"(?:layer|층|블록|block) %s" % t.note["l"], t.s):
            self.bad(t, "layer %s" % t.note["l"])

    def k_head_d(self, t):
        cfg = self.trace_of(t).cfg
        D = int(cfg["n_embd"]) // int(cfg["n_head"])
        m = re.search(r"(\d+)\D+(\d+)$", t.s)
        if not m or int(m.group(1)) != int(t.note["h"]) or int(m.group(2)) != D:
            self.bad(t, "head %s, D = %d" % (t.note["h"], D))

    def _wte_shape_of(self, t, text):
        cfg = self.trace_of(t).cfg
        nums = [int(x) for x in re.findall(r"\d+", text)]
        if nums[-2:] != [int(cfg["vocab_size"]), int(cfg["n_embd"])]:
            self.bad(t, "W_E is %s \u00d7 %s (the title reads %r)" % (cfg["vocab_size"], cfg["n_embd"], text))

    def k_vocab_last(self, t):
        if int(t.s) != int(self.trace_of(t).cfg["vocab_size"]) - 1:
            self.bad(t, "the last id is V \u2212 1")

    # -- the window's frame: navigator, step header, formula, shapes
    def k_nav_block(self, t):
        L = n_layers(self.trace_of(t).cfg)
        nums = [int(x) for x in re.findall(r"\d+", t.s)]
        if nums != [int(t.scope["layer"]), 0, L - 1]:
            self.bad(t, "block %s of 0\u2013%d" % (t.scope["layer"], L - 1))

    def k_nav_step(self, t):
        if not t.s.startswith("%d  " % (int(t.note["i"]) + 1)):
            self.bad(t, "step %d" % (int(t.note["i"]) + 1))

    def k_step_counter(self, t):
        if not t.s.startswith("%d / " % (int(t.scope["step"]) + 1)):
            self.bad(t, "step %d" % (int(t.scope["step"]) + 1))

    def k_formula(self, t):
        pass  # words and symbols; the minus signs are checked for every text

    def k_shapes(self, t):
        self.shapes = getattr(self, "shapes", []) + [t]

    def k_axis_title(self, t):
        """An axis named by a width letter says the width the tensor has along it."""
        m = re.search(r"\((\d?)([CDFVT])\)", t.s)
        hook = self.last_title
        tr = self.trace_of(t)
        if not m or not hook or tr.get(hook) is None:
            return
        cfg = tr.cfg
        if cfg.get("model_type") == "llama":
            C, H = int(cfg["hidden_size"]), int(cfg["num_attention_heads"])
            D, F = int(cfg.get("head_dim") or C // H), int(cfg["intermediate_size"])
        else:
            C, H = int(cfg["n_embd"]), int(cfg["n_head"])
            D, F = C // H, int(cfg.get("n_inner") or 4 * C)
        size = {"C": C, "D": D, "F": F, "V": int(cfg["vocab_size"]),
                "T": len(tr.tokens)}[m.group(2)] * int(m.group(1) or 1)
        shape = tr.get(hook).shape
        dim = shape[-1] if t.note.get("dir") == "col" else shape[-2] if len(shape) >= 2 else shape[0]
        if dim != size:
            self.bad(t, "this axis of %s has %d entries, not %s%s" % (hook, dim, m.group(1), m.group(2)))

    # Kinds whose text may wrap onto several lines, each line carrying the note: their lines
    # are gathered as the figure is read and checked once, joined, by the method named here
    # (given the first line, for its note and scope, and the whole text).
    WRAPPING = {"collapse_max": "_collapse_max_of", "tl_title": "_tl_title_of", "tl_drawn": "_tl_drawn_of",
                "token_count": "_token_count_of", "wte_shape": "_wte_shape_of", "kv_rows": "_kv_rows_of"}

    def _wrapped_line(self, t):
        self.wrapped_lines = getattr(self, "wrapped_lines", {})
        self.wrapped_lines.setdefault(t.kind, []).append(t)

    k_collapse_max = k_tl_title = k_tl_drawn = k_token_count = k_wte_shape = k_kv_rows = _wrapped_line

    def _check_wrapped(self):
        for kind, lines in getattr(self, "wrapped_lines", {}).items():
            getattr(self, self.WRAPPING[kind])(lines[0], " ".join(t.s for t in lines))

    def _cost_rows_largest(self, texts):
        """A cost table cut short shows the steps with the most FLOPs (and says how many
        smaller ones it leaves out)."""
        more = [t for t in texts if t.kind == "rows_more" and t.scope.get("panel") == "cost"]
        if not more:
            return
        steps, _ = cost_steps(self.trace_of(more[0]))
        shown = {t.note["step"] for t in texts if t.kind == "cost_flops"}
        left = set(steps) - shown
        if len(shown) != int(more[0].note["shown"]) or len(steps) != int(more[0].note["rows"]):
            self.fail.append("%s: the cost table shows %d of %d steps, its line says %s of %s" % (
                self.name, len(shown), len(steps), more[0].note["shown"], more[0].note["rows"]))
        elif left and shown and min(steps[s][0] for s in shown) < max(steps[s][0] for s in left):
            self.fail.append("%s: the cut cost table leaves out %s, larger than the shown %s" % (
                self.name, max(left, key=lambda s: steps[s][0]), min(shown, key=lambda s: steps[s][0])))

    def finish(self, texts):
        """Checks that need the whole figure."""
        tr = self.traces["A"]
        # A (T, V) tensor shown as a matrix names each token's winners (top columns, with values).
        vocab_cells = [t for t in texts if t.kind in ("cell", "tick") and t.scope.get("hook") in ("hook_logits", "hook_probs")
                       and t.trace == ""]
        if vocab_cells and not any(t.kind == "bars_head" for t in texts):
            hook = vocab_cells[0].scope["hook"]
            rows = {int(t.note["r"]) for t in texts if t.kind == "top_value" and t.note.get("rank") == "0"}
            T = tr.get(hook).shape[0]
            more = [int(x.note["shown"]) for x in texts if x.kind == "rows_more"]
            if rows != set(range(more[0] if more else T)):  # every row, or the first ones and "… N more rows"
                self.fail.append("%s: %s shows the largest value of rows %s only, of %d rows" %
                                 (self.name, hook, sorted(rows), T))
        # The tokens view shows every token, or the first ones and "… N more tokens".
        ids = sorted(int(t.note["i"]) for t in texts if t.kind == "token_id")
        if ids and (ids != list(range(len(ids))) or
                    (len(ids) < len(tr.tokens) and not any(t.kind == "tokens_more" for t in texts))):
            self.fail.append("%s: the tokens view shows tokens %s of %d and does not say which are left out" %
                             (self.name, ids, len(tr.tokens)))
        self._gradnorm_complete(texts)
        # The LayerNorm view draws its rows going in and coming out as heatmaps above the table
        # (their colour bars' numbers show they were drawn; a squeezed view once left them out).
        if any(t.scope.get("panel") == "layernorm" for t in texts) and not any(t.kind == "tick" for t in texts):
            self.fail.append("%s: the LayerNorm view has its table but not its heatmaps" % self.name)
        self._cost_rows_largest(texts)
        self._check_wrapped()
        self._swiglu_complete(texts)
        self._pin_labels()
        self._tl_chips(texts)
        self.wrapped_complete(texts)
        self.rope_complete(texts)
        self.gqa_complete(texts)
        self._blocks_complete()
        for t in getattr(self, "shapes", []):
            hook = self.last_title
            if hook and tr.get(hook) is not None and "\u2192" in t.s:
                shape = tuple(tr.get(hook).shape)
                out = t.s.rsplit("\u2192", 1)[1]
                m = re.match(r"\s*\(([0-9, ]+)\)", out)
                if m and tuple(int(x) for x in m.group(1).split(",")) != shape:
                    self.bad(t, "the step's output %s is %s" % (hook, shape))
        groups = getattr(self, "groups", [])
        if groups and not self._pieces_in_order(groups, [tr.label(i) for i in range(len(tr.tokens))],
                                                any(t.kind == "merge_more" for t in texts)):
            self.fail.append("%s: the pre-tokens end as %s, not %s" % (self.name, [tr.label(i) for i in
                                                                                  range(len(tr.tokens))], groups))

    GN_SIDES = (re.compile(r"grad\.blocks\.\d+\.hook_resid_(pre|mid|post)"),
                re.compile(r"grad\.(h\.\d+\.(attn\.c_attn|attn\.c_proj|mlp\.c_fc|mlp\.c_proj)|wte|wpe|lm_head)\.weight"))

    def _gradnorm_complete(self, texts):
        """The gradient-norm view has a row for every norm of a side (the residual stream,
        the weights) that its trace holds, or none and a line that says there is no room."""
        shown, small = {}, set()
        for t in texts:
            if t.kind == "gn_norm":
                shown.setdefault(t.trace, set()).add(t.note["hook"])
            elif t.kind == "gn_small":
                small.add(t.trace)
        for side in set(shown) | small:
            tr = self.traces[side or "A"]
            for pat in self.GN_SIDES:
                want = {n for n in tr.t if pat.fullmatch(n)}
                got = {h for h in shown.get(side, ()) if pat.fullmatch(h)}
                if got != want and (got or side not in small):
                    self.fail.append("%s: the gradient norms %sshow %d of the %d rows of %s (missing %s)" %
                                     (self.name, "of %s " % side if side else "", len(got), len(want),
                                      pat.pattern, sorted(want - got)[:3]))

    @staticmethod
    def _pieces_in_order(groups, want, more):
        """The merges' headings ("pre-token → piece · piece:") name the tokens in order. A
        heading cut to the width ends in a piece cut with "…" (its other pieces hidden); the
        next heading then starts at a later token. Fewer pieces than tokens only when a cut
        or "… N more merges" (more) says so."""
        at, cut = 0, False
        for g in groups:
            g = re.sub(r"(:|  \(.*\))$", "", g)
            pieces = g.split(" \u2192 ", 1)[-1].split(" \u00b7 ")
            for j, pc in enumerate(pieces):
                if cut and j == 0:  # the first piece of the heading after a cut one
                    at = want.index(pc, at) if pc in want[at:] else len(want)
                    cut = False
                if at >= len(want):
                    return False
                if pc.endswith("\u2026") and j == len(pieces) - 1:  # "‹80:가› …", "‹EA:가› ·…": cut after a piece
                    if not want[at].startswith(pc[:-1].rstrip(" \u00b7")):
                        return False
                    cut = True
                elif pc != want[at]:
                    return False
                at += 1
        return at == len(want) or cut or more

    # -- a comparison's header: the largest |A − B| and where it is
    def _diff(self, hook):
        if hook == "norms":
            return self._norms_diff()
        a, b = self.traces["A"].get(hook), self.traces["B"].get(hook)
        if a is None or b is None or a.shape != b.shape:
            return None
        with np.errstate(invalid="ignore"):
            return a.astype(np.float32) - b.astype(np.float32)

    def k_compare_max(self, t):
        if "B" not in self.traces or t.scope["hook"] == "-" or "= " not in t.s:
            return
        d = self._diff(t.scope["hook"])
        if d is None:
            return
        mode = int(t.scope["mode"])
        hd = re.search(r"(?:head|헤드) (\d+)", t.s)
        part = d[int(hd.group(1))] if hd and d.ndim == 3 else d
        if mode == 2:  # every layer: the largest over all of them
            suffix = t.scope["hook"].split(".", 2)[-1]
            parts = [self._diff("blocks.%d.%s" % (l, suffix)) for l in range(n_layers(self.traces["A"].cfg))]
            part = np.concatenate([np.abs(x[np.isfinite(x)]).ravel() for x in parts if x is not None])
        fin = np.abs(part[np.isfinite(part)])
        v = float(fin.max()) if fin.size else 0.0
        got = re.search("= ([0-9.e+\u2212]+)", t.s).group(1).rstrip(":")
        if v == 0:
            if got != "0":
                self.bad(t, "the traces agree here")
        elif not sn.matches(got, v, formatter=lambda x: sn.fmt("%.4g", x), rel=1e-5):
            self.bad(t, "max |A \u2212 B| = %s" % sn.fmt("%.4g", v))

    def k_compare_where(self, t):
        if "B" not in self.traces or t.scope["hook"] in ("-", "norms"):
            return
        d = self._diff(t.scope["hook"])
        m = re.search(r"(?:row|행) (\d+)(?: (\S+))?, (?:column|열) (\d+)", t.s)
        if d is None or not m:
            return
        r, c = int(m.group(1)), int(m.group(3))
        hd = re.search(r"(?:head|헤드) (\d+)", t.s.split("\u00b7")[0])
        h = int(hd.group(1)) if hd else int(t.scope["head"])
        part = d[h] if d.ndim == 3 else d
        fin = np.where(np.isfinite(part), np.abs(part), -1)
        if fin[r, c] != fin.max():
            idx = np.unravel_index(int(np.argmax(fin)), fin.shape)
            self.bad(t, "the largest difference is at row %d, column %d" % idx)
        if m.group(2) and m.group(2) != self.traces["A"].label(r):
            self.bad(t, "row %d is %r" % (r, self.traces["A"].label(r)))

    def k_compare_side(self, t):
        tr = self.trace_of(t)
        shown = (tr.prompt or "").replace("\n", "\u21b5")  # a line break shows as ↵
        if tr.prompt and "\u201c%s\u201d" % shown not in t.s and "\u2026" not in t.s:
            self.bad(t, "this side's prompt is %r" % tr.prompt)
