"""Reading what a ttrace SVG prints, and printing numbers the way the views do.

Each <text> of an SVG from ttrace says what it is (data-tt="cell r=2 c=0") and what it
belongs to (data-tt-panel="panel=cells hook=... head=3", data-tt-trace="B"). Nothing
there is the expected value: the checks compute every value from the trace themselves.
"""
import math
import re
import xml.etree.ElementTree as ET

MINUS = "\u2212"
SVG_NS = "{http://www.w3.org/2000/svg}"


def _fields(s):
    """'cell r=2 c=0' -> {'kind': 'cell', 'r': '2', 'c': '0'}"""
    out = {}
    if not s:
        return out
    parts = s.split()
    if parts and "=" not in parts[0]:
        out["kind"] = parts[0]
        parts = parts[1:]
    for p in parts:
        k, _, v = p.partition("=")
        out[k] = v
    return out


class Text:
    def __init__(self, el):
        self.s = el.text or ""
        self.note = _fields(el.get("data-tt"))
        self.scope = _fields(el.get("data-tt-panel"))
        self.trace = el.get("data-tt-trace") or ""
        self.x = float(el.get("x"))
        self.y = float(el.get("y"))

    @property
    def kind(self):
        return self.note.get("kind", "")

    def where(self):
        return "%r [%s | %s%s]" % (self.s, " ".join("%s=%s" % kv for kv in self.note.items()),
                                   " ".join("%s=%s" % kv for kv in self.scope.items()),
                                   " | trace " + self.trace if self.trace else "")


def texts(path):
    root = ET.parse(path).getroot()
    return [Text(el) for el in root.iter(SVG_NS + "text")]


# ---- numbers as the views print them -------------------------------------------------
def signs(s):
    return s.replace("-", MINUS)


def fmt_value(v):
    """The compact cell format (cells, legends, tables)."""
    v = float(v)
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return MINUS + "\u221e" if v < 0 else "\u221e"
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 10000:
        s = "%.1e" % v
    elif a >= 100:
        s = "%.0f" % v
    elif a >= 10:
        s = "%.1f" % v
    elif a >= 0.01:
        s = "%.2f" % v
    elif a >= 0.001:
        s = "%.3f" % v
    else:
        s = "%.0e" % v
    return signs(s)


def fmt(spec, v):
    v = float(v)
    if math.isinf(v):
        return MINUS + "\u221e" if v < 0 else "\u221e"
    return signs(spec % v)


def matches(printed, value, formatter=fmt_value, rel=2e-6):
    """printed equals value formatted the same way; where the value lies within float32
    rounding of a rounding boundary, either neighbour is accepted (one unit in the last
    printed digit, no more)."""
    if printed == formatter(value):
        return True
    v = float(value)
    if not math.isfinite(v):
        return False
    for f in (1 - rel, 1 + rel):
        if printed == formatter(v * f):
            return True
    d = rel * max(abs(v), 1e-30)
    return printed in (formatter(v - d), formatter(v + d))


def parse_num(s):
    s = s.strip().replace(MINUS, "-").replace("\u221e", "inf")
    return float(s)


# ---- labels -------------------------------------------------------------------------
def token_display(tok):
    return tok.replace(" ", "\u2423").replace("\n", "\u21b5").replace("\t", "\u21e5")


def fits(printed, full):
    """A label cut to fit ends with '…' and is a prefix of the full label."""
    if printed == full:
        return True
    return printed.endswith("\u2026") and full.startswith(printed[:-1])


ASCII_SIGN = re.compile(r"(?<![A-Za-z_0-9])-(?=[0-9.]|\u221e)")
DOUBLE_MINUS = re.compile("[\u2212-]\\s*[\u2212-]\\s*[0-9.\u221e]")
