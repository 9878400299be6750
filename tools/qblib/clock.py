"""clock.py - the core clock of a run and of its results, and what a ratio of two clocks means.

Every result of a newer record carries `clock_mhz` (the median per-repetition core clock: APERF/MPERF on
bare metal, the msr PMU or cycles against ref-cycles on the twin) or null with `clock_note` saying why
(docs/records.md). A run's clock is the median of its results' clocks; a run none of whose results has
one is "unknown" with the first reason given; a run whose records predate the field says so. A ratio of
two figures taken at clocks more than CLOCK_DIFF_PCT apart includes that difference, and the views mark it:
compared once rounded to 0.1%, as the header prints it, so that 2000 against 2100 MHz (5.0%, which floats
make 5.000000000000004) is not marked and 2000 against 2102 (5.1%) is.
The twin's `state` record may say whether the OS had boost on (`boost`).
"""
import numpy as np

CLOCK_DIFF_PCT = 5.0
BEFORE = "not recorded (records before clock_mhz)"


def of_result(r):
    """A result's clock in MHz, or None."""
    v = (r or {}).get("clock_mhz")
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 else None


def of_results(results):
    """The median clock of these results (None where none has one)."""
    v = [c for c in (of_result(r) for r in results) if c is not None]
    return float(np.median(v)) if v else None


def of_run(run):
    """(MHz or None, the text the views print): "2995 MHz", "unknown: <first clock_note>" or BEFORE."""
    res = run.results()
    mhz = of_results(res)
    if mhz is not None:
        return mhz, "%.0f MHz" % mhz
    if any("clock_mhz" in r for r in res):
        note = next((str(r["clock_note"]) for r in res if r.get("clock_note")), "no reason given")
        return None, "unknown: " + note
    return None, BEFORE


def boost(run):
    """The twin's boost state ("on", "off", "off (turned off for the run)", "unknown: why"), or None."""
    s = next((x for x in run.of_kind("state") if x.get("boost") is not None), None)
    return None if s is None else str(s["boost"])


def run_text(run):
    """"clock: 2995 MHz (median of 14 results' clocks); boost on" for a table's or a report's header."""
    mhz, text = of_run(run)
    if mhz is not None:
        n = sum(1 for r in run.results() if of_result(r) is not None)
        text += " (median of %d result%s' clocks)" % (n, "" if n == 1 else "s")
    b = boost(run)
    return "clock: " + text + ("; boost %s" % b if b else "")


def side(runs):
    """The clock of several runs: the median of their clocks, and its text (the first run's when none has one)."""
    got = [of_run(r) for r in runs]
    known = [m for m, _ in got if m is not None]
    if known:
        mhz = float(np.median(known))
        more = "" if len(runs) == 1 else " (median of %d of %d runs)" % (len(known), len(runs))
        return mhz, "%.0f MHz%s" % (mhz, more)
    return None, got[0][1] if got else BEFORE


def difference_pct(a, b):
    """How far apart two clocks are, in percent of the lower one; None where one is unknown."""
    if a is None or b is None:
        return None
    return 100.0 * (max(a, b) / min(a, b) - 1.0)


def beyond(d):
    """True where a clock difference d (percent, or None) is over CLOCK_DIFF_PCT once rounded to 0.1%."""
    return d is not None and round(d, 1) > CLOCK_DIFF_PCT


def pair_note(a, b):
    """"ratio includes a 12% clock difference (B's higher)" (to 0.1% under 10%: "5.1%") when the clocks
    differ by more than CLOCK_DIFF_PCT (beyond()), else None."""
    d = difference_pct(a, b)
    if not beyond(d):
        return None
    return "ratio includes a %s%% clock difference (%s's higher)" % ("%.1f" % d if d < 10 else "%.0f" % d,
                                                                "B" if b > a else "A")
