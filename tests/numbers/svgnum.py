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
        self.px = float(el.get("font-size") or 0)
        self.w = float(el.get("textLength") or 0)  # the drawn width (0: not given)
        self.rotated = "rotate" in (el.get("transform") or "")

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


def size(path):
    """The figure's (width, height) in pixels."""
    root = ET.parse(path).getroot()
    return float(root.get("width")), float(root.get("height"))


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
    if not math.isfinite(v) or (v == int(v) and abs(v) < 2 ** 53):
        return False  # a whole number is exact: no rounding boundary (and %d would truncate v·(1 − rel))
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


# ---- text split across tokens -----------------------------------------------------------
# A piece of a character is written as its bytes in hex between ‹ and ›, then ':' and the
# character when the text around completes it, else the range of characters its lead byte
# and the bytes after may begin (Hangul shown as characters, anything else as U+XXXX), else
# nothing. Computed here from the definition of UTF-8 (Python's codec over the whole text),
# not from the C code's three-byte window.
_RANGES = {}


def completions(prefix):
    """(lowest, highest) code point whose UTF-8 encoding begins with prefix, or None."""
    if prefix in _RANGES:
        return _RANGES[prefix]
    b0 = prefix[0]
    span = {2: (0x1F, 6), 3: (0x0F, 12), 4: (0x07, 18)}
    n = 2 if 0xC0 <= b0 < 0xE0 else 3 if 0xE0 <= b0 < 0xF0 else 4 if 0xF0 <= b0 < 0xF8 else 0
    found = None
    if n and len(prefix) < n:
        mask, shift = span[n]
        base = (b0 & mask) << shift
        cps = [cp for cp in range(base, min(base + (1 << shift), 0x110000))
               if not 0xD800 <= cp < 0xE000 and chr(cp).encode("utf-8").startswith(prefix)]
        found = (cps[0], cps[-1]) if cps else None
    _RANGES[prefix] = found
    return found


def _char_shown(c):
    if c in " \n\t":
        return {" ": "\u2423", "\n": "\u21b5", "\t": "\u21e5"}[c]
    if ord(c) < 0x20 or ord(c) == 0x7F:
        return "\\x%02X" % ord(c)
    return c


def _spans(text):
    """(start, end, character or None) covering the bytes of text; None: not a whole
    character (a byte alone, or a sequence the text ends in the middle of)."""
    out, i = [], 0
    while i < len(text):
        for n in (1, 2, 3, 4):
            try:
                c = text[i:i + n].decode("utf-8")
            except UnicodeDecodeError:
                continue
            if len(c) == 1:
                out.append((i, i + n, c))
                i += n
                break
        else:
            # A lead byte and continuation bytes up to the end of the text: cut off there.
            j = i + 1
            while j < len(text) and 0x80 <= text[j] < 0xC0:
                j += 1
            if j == len(text) and completions(text[i:j]):
                out.append((i, j, None))
                i = j
            else:
                out.append((i, i + 1, None))
                i += 1
    return out


def label_in(text, a, b):
    """The label of bytes [a, b) of text."""
    out = []
    for s, e, c in _spans(text):
        if e <= a or s >= b:
            continue
        if c is not None and s >= a and e <= b:
            out.append(_char_shown(c))
            continue
        part = text[max(s, a):min(e, b)]
        what = ""
        if c is not None:
            what = ":" + c
        elif s >= a and completions(text[s:e]):
            lo, hi = completions(text[s:e])
            hangul = all(0xAC00 <= x <= 0xD7A3 for x in (lo, hi))
            what = ":" + ("%s\u2026%s" % (chr(lo), chr(hi)) if hangul else "U+%04X\u2026U+%04X" % (lo, hi))
        out.append("\u2039" + " ".join("%02X" % x for x in part) + what + "\u203a")
    return "".join(out)


def unescape(display):
    """A display string of the tokenizer back to bytes (\\xNN for bytes that are no whole
    character, \\n \\t \\r)."""
    out, i = b"", 0
    while i < len(display):
        m = re.match(r"\\x([0-9A-F]{2})", display[i:])
        v = int(m.group(1), 16) if m else None
        if m and (v >= 0x80 or v < 0x20 or v == 0x7F):
            out += bytes([v])
            i += 4
        elif display[i] == "\\" and display[i + 1:i + 2] in ("n", "t", "r"):
            out += {"n": b"\n", "t": b"\t", "r": b"\r"}[display[i + 1]]
            i += 2
        else:
            out += display[i].encode("utf-8")
            i += 1
    return out


def label_bytes(label):
    """The bytes a label stands for (the inverse of label_in); ValueError when a piece's
    character does not hold its bytes."""
    out, i = b"", 0
    while i < len(label):
        if label[i] == "\u2039":
            j = label.index("\u203a", i)
            hexes, _, char = label[i + 1:j].partition(":")
            part = bytes(int(h, 16) for h in hexes.split())
            if char and "\u2026" not in char and part not in char.encode("utf-8"):
                raise ValueError("%r is not part of %r" % (part, char))
            out += part
            i = j + 1
        else:
            out += {"\u2423": b" ", "\u21b5": b"\n", "\u21e5": b"\t"}.get(label[i], label[i].encode("utf-8"))
            i += 1
    return out
