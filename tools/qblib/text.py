"""text.py - how the text views (qb table, qb compare) write numbers and line up columns."""
from . import figure as qbfigure

UNSTABLE_CV_PCT = 5.0  # a result whose repetitions vary more than this (cv, in percent) is marked unstable


def num(v, digits=3):
    """A number as the records give it: integers plain, decimals to `digits`."""
    if v is None:
        return "-"
    if isinstance(v, float) and not v.is_integer():
        return "%.*f" % (digits, v)
    return "%d" % v


def sig(v, digits=4):
    """A measured value to `digits` significant digits, never in exponent form past 10^4: 0.4672, 12.92,
    1083, 84725."""
    if v is None:
        return "-"
    if v == 0:
        return "0"
    if abs(v) >= 10 ** digits:
        return "%.0f" % v
    s = "%.*g" % (digits, v)
    if "e" in s:  # tiny: keep it readable
        return "%.*f" % (digits + 2, v)
    return s


def quart(f, digits=3):
    """"0.462-0.512": a figure's quartiles, or "-" without them."""
    if f is None or f.q1 is None or f.q3 is None:
        return "-"
    return "%s-%s" % (sig(f.q1, digits), sig(f.q3, digits))


def value(f, unit=False):
    """A figure's median and the noisy mark, or a space where it is not noisy (so that digits line up):
    "0.4672 ", "0.4672~"; with unit=True "0.4672 ns/increment~"."""
    if f is None or f.value is None:
        return "-"
    return sig(f.value) + (" " + f.unit if unit and f.unit else "") + (f.mark or " ")


def cv(v):
    """A coefficient of variation in percent, marked unstable past UNSTABLE_CV_PCT."""
    if v is None:
        return "-"
    return "%.1f%s" % (v, " unstable" if v > UNSTABLE_CV_PCT else "")


def pct(v):
    return "-" if v is None else "(%.0f%%)" % v


def params_text(p, skip=()):
    return " ".join("%s=%s" % (k, v) for k, v in (p or {}).items() if k not in skip) or "-"


def _numeric(c):
    c = c.rstrip(qbfigure.MARK + " ")
    try:
        float(c.strip("()%"))
        return True
    except ValueError:
        return c == "-"


def grid(header, rows, indent="  ", right=()):
    """Text columns; columns in `right`, or whose cells are all numbers (or "-"), are right-aligned."""
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    right = [i in right or i > 0 and all(_numeric(str(r[i])) for r in rows) for i in range(len(header))]
    out = []
    for r in [header] + rows:
        cells = [str(c).rjust(widths[i]) if right[i] else str(c).ljust(widths[i]) for i, c in enumerate(r)]
        out.append(indent + "  ".join(cells).rstrip())
    return out
