#!/usr/bin/env python3
"""check_twin - check a log of the Linux twin (build/quietbench-host): the records a run must hold.

Checks, each counted as passed or failed:
- every record passes its CRC and nothing looks like a damaged record;
- one boot record, from the Linux platform, with the eviction flush named;
- a cpu record per CPU found, and cache records covering every online CPU;
- every result's check is "ok", or "skipped" with a reason;
- every workload asked for (--workloads, default the hosttest's) produced
  results and a workload record;
- no ok result with a reason, and cold_pct a number for the seeds' eviction read and clflush;
- every measured first-touch result carries its measures (docs/records.md),
  each computed from the figure's median, and inside the physical limits of
  kernel/measure/limits.c (no faster zeroing or copying than a core can do,
  no page fault or trap faster than an exception's round trip);
- no error records but "tsc disagreement" (others can be allowed with --allow-error);
- done last, status ok, its record count matching the log, and the exit
  status (--exit-status) 0 exactly when done says ok;
- the `state` record names the PMU and the noise sources; every result's
  `smis` is a count or "unavailable: <reason>", its `counters` an object of
  numbers or "unavailable" with `counters_note` "unavailable: <reason>";
- the state record's flush_check judged the eviction read (the run's flush)
  with one of the verdicts, its cold_pct on the side of 25% and 70% the
  verdict says, every domain its own; fell back to the larger eviction
  read where it was ineffective or partial and only then; and every result
  that flushed names the flush it got and its verdict as the state record
  says (params.flush, flush_verdict, flush_fallback; "no effective flush:
  results start warm" where the fallback was not effective either);
  flush's own methods carry a verdict. With --flush-noop (the run had
  flush_noop=on): the eviction read was found ineffective, or the rounds
  too disturbed to tell, never effective; with --flush-partial (the run had
  flush_partial=N): partial, or too disturbed to tell;
- every result carries `clock_mhz`, a number or null with `clock_note`, and
  a cycles measure beside each ns one exactly when the clock is known;
- where the noise workload ran: its result's `gaps` object (docs/records.md)
  adds up (the histogram's counts to `count`, one `noise_cpu` record per CPU
  with the counts summing to it and their `observed_s` to `observed_cpu_s`;
  in records that have them, the pooled `ppm` is `lost_cpu_s` over
  `observed_cpu_s` and the CPUs' ppm weighted by their observed time, rtla's
  `over_1us` and `over_5us` the CPUs' counts summed and pooled alike, each
  CPU's threshold 4 x its own loop minimum, the run's the least and the
  greatest of them, the bookkeeping's stalls the CPUs' summed), and the text
  ends with a `noise:` line (`noise (whose): ` under a hypervisor);
- with --here (the log was just made on this machine): `smis` is a count
  exactly when perf's msr PMU lists `smi` and the run was root, and without
  a core PMU driver in sysfs no result has counters and the state record
  says "no PMU driver".
A failing run prints its log. The last line is "twin: N passed, N failed".
"""
import argparse
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import qbrecords  # noqa: E402

DEFAULT_WORKLOADS = "selftest,counter,locality,first-touch"
PMU_DIR = "/sys/bus/event_source/devices"
CORE_PMUS = ("cpu", "cpu_core", "cpu_atom")

LIMITS_C = os.path.join(ROOT, "kernel", "measure", "limits.c")

# first-touch: the measures each result carries, primary first, by variant
# prefix (docs/records.md), and the limit each measure is held to (None: a
# single access is within the timer's resolution).
FT_MEASURES = [
    ("demand-zero-", [("ns_per_page", "fault_ns"), ("gb_per_s", "zero_gbps")]),
    ("page-fault-entry", [("ns_per_page", "trap_ns")]),
    ("zero-", [("ns_per_page", None), ("gb_per_s", "zero_gbps")]),
    ("tlb-miss", [("ns_per_page", None)]),
    ("hot-access", [("ns_per_access", "load_ns")]),
    ("copy-", [("ns_per_page", None), ("gb_per_s", "copy_gbps")]),
    ("numa-one-cpu-warms", [("ns_per_page", None), ("gb_per_s", "read_gbps")]),
    ("numa-each-cpu-touches", [("ns_per_page", None), ("gb_per_s", "read_gbps")]),
]


def read_limits(path=LIMITS_C):
    """The physical limits table of kernel/measure/limits.c: name -> (bound, is_max)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    found = re.findall(r'\[LIMIT_\w+\]\s*=\s*\{\s*"(\w+)",\s*"[^"]*",\s*([0-9.eE+-]+),\s*"[^"]*",\s*([01])', text)
    return {name: (float(bound), is_max == "1") for name, bound, is_max in found}


def ft_expected(variant):
    for prefix, measures in FT_MEASURES:
        if variant.startswith(prefix):
            return measures
    return None


def check_first_touch(results, limits, t):
    """Every measured first-touch result: its measures, from its figure, inside the physical limits."""
    for r in results:
        if r.get("workload") != "first-touch" or r.get("check") == "skipped":
            continue
        v = r.get("variant", "")
        want = ft_expected(v)
        if not t.check(want is not None, "first-touch/%s: no measures are defined for it" % v):
            continue
        m = r.get("measures")
        if not t.check(isinstance(m, dict), "first-touch/%s: measures %s (%s)" % (v, m, r.get("measures_note"))):
            continue
        plain = [n for n in m if not n.startswith("cycles")]  # the cycles beside them: check_clock
        t.check(plain == [name for name, _ in want], "first-touch/%s: measures %s, expected %s" % (v, plain, [n for n, _ in want]))
        fig = r if r.get("figure") == "all" else r.get("clean", {})
        for name, limit in want:
            x = m.get(name) or {}
            med = x.get("median")
            if not t.check(isinstance(med, (int, float)), "first-touch/%s: %s median %s" % (v, name, med)):
                continue
            ticks, scale = fig.get("median"), x.get("scale")
            if isinstance(ticks, (int, float)) and isinstance(scale, (int, float)) and ticks > 0:
                from_fig = scale / ticks if x.get("inverse") else scale * ticks
                t.check(math.isclose(med, from_fig, rel_tol=2e-3, abs_tol=1e-6),
                        "first-touch/%s: %s median %s is not the figure's %s ticks x scale (%s)" % (v, name, med, ticks, from_fig))
            if limit is None:
                continue
            if not t.check(limit in limits, "first-touch/%s: limit %s not in %s" % (v, limit, LIMITS_C)):
                continue
            bound, is_max = limits[limit]
            if is_max:
                bound *= max(1, r.get("threads") or 1) if limit == "read_gbps" else 1
                t.check(med <= bound, "first-touch/%s: %s %s %s past the limit %s (%s) yet %s" % (
                    v, med, x.get("unit"), name, bound, limit, r.get("check")))
            else:
                t.check(med >= bound, "first-touch/%s: %s %s %s under the limit %s (%s) yet %s" % (
                    v, med, x.get("unit"), name, bound, limit, r.get("check")))


class Tally:
    def __init__(self):
        self.passed, self.failed = 0, []

    def check(self, cond, msg):
        if cond:
            self.passed += 1
        else:
            self.failed.append(msg)
        return cond


def check_run(recs, problems, args, t):
    for no, why, raw in problems:
        t.check(False, "line %d: %s: %s" % (no, why, raw[:120]))
    t.check(not problems, "damaged records")

    boots = qbrecords.of_kind(recs, "boot")
    if t.check(len(boots) == 1, "expected one boot record, got %d" % len(boots)):
        b = boots[0]
        t.check(b.get("platform") == "linux" and b.get("loader") == "linux", "boot: not the Linux platform: %s" % b)
        t.check(b.get("wbinvd") is False and b.get("flush_method") == "eviction-read" and (b.get("flush_bytes") or 0) > 0,
                "boot: the eviction flush is not described")
        t.check((b.get("tsc_hz") or 0) > 0, "boot: TSC frequency unknown")
        cpus = qbrecords.of_kind(recs, "cpu")
        t.check(len(cpus) == b.get("cpus_found"), "%d cpu records for %s CPUs found" % (len(cpus), b.get("cpus_found")))
        online = sorted(c["index"] for c in cpus if c.get("online"))
        t.check(len(online) == b.get("cpus_online"), "%d online cpu records, boot says %s" % (len(online), b.get("cpus_online")))
        d = qbrecords.done(recs) or {}
        for kind, r in (("boot", b), ("done", d)):  # every CPU found counted once (issue 36)
            parts = [r.get(k) for k in ("cpus_online", "cpus_parked", "cpus_not_started", "cpus_lost")]
            t.check(all(isinstance(p, int) for p in parts) and sum(parts) == r.get("cpus_found"),
                    "%s: cpus_found %s is not online + parked + not started + lost %s" % (kind, r.get("cpus_found"), parts))
        for level in (1, 2):
            covered = sorted(i for k in qbrecords.of_kind(recs, "cache")
                             if k.get("level") == level and k.get("type") != "instruction" for i in k["shared_by"])
            t.check(covered == online, "L%d caches cover CPUs %s, expected %s" % (level, covered, online))

    results = qbrecords.of_kind(recs, "result")
    for r in results:
        name = "%s/%s (%s threads, %s)" % (r.get("workload"), r.get("variant"), r.get("threads"), r.get("params"))
        if r.get("check") == "skipped":
            t.check(bool(r.get("reason")), "%s: skipped without a reason" % name)
        else:
            t.check(r.get("check") == "ok", "%s: check %s: %s" % (name, r.get("check"), r.get("reason")))
    for m in qbrecords.of_kind(recs, "matrix"):
        t.check(m.get("check") == "ok", "matrix %s/%s: check %s" % (m.get("workload"), m.get("variant"), m.get("check")))
    check_first_touch(results, read_limits(), t)

    ran = {w.get("name") for w in qbrecords.of_kind(recs, "workload")}
    with_results = {r.get("workload") for r in results}
    for w in args.workloads.split(","):
        t.check(w in ran, "no workload record for %s" % w)
        t.check(w in with_results, "no results from %s" % w)

    for r in results:
        t.check(r.get("check") != "ok" or "reason" not in r,
                "%s/%s is ok but carries the reason %r" % (r.get("workload"), r.get("variant"), r.get("reason")))
    # Where caches are real, the seeds' eviction read and CLFLUSH must leave a measurable coldness.
    flush = {r.get("variant"): r for r in results if r.get("workload") == "flush" and r.get("check") == "ok"}
    if flush:
        seed = [v for v, r in flush.items() if v.startswith("evict-") and v != "evict-llc"]
        for v in seed + ["clflush"]:
            r = flush.get(v)
            t.check(r is not None and isinstance(r.get("cold_pct"), (int, float)),
                    "flush %s: cold_pct %s (%s)" % (v, r and r.get("cold_pct"), r and r.get("cold_pct_note")))

    # A TSC disagreement (CPUID 16h against the measurement) is visible, never fatal.
    for e in qbrecords.of_kind(recs, "error"):
        t.check(e.get("what") in args.allow_error + ["tsc disagreement"],
                "error record: %s" % {k: v for k, v in e.items() if k != "v"})

    d = qbrecords.done(recs)
    if t.check(d is not None, "no done record: the run is incomplete"):
        t.check(recs[-1] is d, "done is not the last record")
        t.check(d.get("status") == "ok", "done: status %s (%s)" % (d.get("status"), d.get("reason")))
        t.check(d.get("records") == len(recs), "done counts %s records, the log holds %d" % (d.get("records"), len(recs)))
        t.check(d.get("errors") == len(qbrecords.of_kind(recs, "error")), "done counts %s errors" % d.get("errors"))
        if args.exit_status is not None:
            t.check((args.exit_status == 0) == (d.get("status") == "ok"),
                    "exit status %d with done %s" % (args.exit_status, d.get("status")))
    elif args.exit_status is not None:
        t.check(args.exit_status != 0, "exit status 0 without a done record")


def check_clock(results, t):
    """clock_mhz in every result: a number, or null with the reason; cycles measures only with a clock."""
    for r in results:
        name = "%s/%s" % (r.get("workload"), r.get("variant"))
        mhz = r.get("clock_mhz", "absent")
        if mhz is None:
            t.check(isinstance(r.get("clock_note"), str) and r["clock_note"], "%s: clock_mhz null without clock_note" % name)
        else:
            t.check(isinstance(mhz, (int, float)) and mhz > 0, "%s: clock_mhz %r" % (name, mhz))
        m = r.get("measures") if isinstance(r.get("measures"), dict) else {}
        for n, x in m.items():
            if not n.startswith("ns"):
                continue
            cyc = m.get("cycles" + n[2:])
            if mhz is None:
                t.check(cyc is None, "%s: %s in cycles without a clock" % (name, n))
            elif isinstance(x.get("median"), (int, float)) and t.check(cyc is not None, "%s: no cycles beside %s" % (name, n)):
                t.check(math.isclose(cyc["median"], x["median"] * mhz / 1000, rel_tol=2e-3),
                        "%s: %s cycles %s is not %s ns at %s MHz" % (name, n, cyc["median"], x["median"], mhz))


def check_noise(recs, text, t):
    """The noise workload's result, its per-CPU records and its line."""
    res = [r for r in qbrecords.of_kind(recs, "result") if r.get("workload") == "noise"]
    if not res or res[0].get("check") == "skipped":
        return
    r = res[0]
    g = r.get("gaps")
    if not t.check(isinstance(g, dict), "noise: no gaps object: %r" % g):
        return
    h = g.get("hist") or {}
    edges, counts = h.get("edges_ns") or [], h.get("counts") or []
    t.check(len(edges) == len(counts) and edges == sorted(edges) and edges and edges[-1] >= 1e8,
            "noise: histogram edges %r to 100 ms and beyond" % edges[-3:])
    t.check(sum(counts) == g.get("count"), "noise: the histogram holds %d gaps, count says %s" % (sum(counts), g.get("count")))
    t.check(g.get("threshold_ticks", 0) >= g.get("loop_min_ticks", 1) * 2, "noise: threshold %s under the loop %s"
            % (g.get("threshold_ticks"), g.get("loop_min_ticks")))
    cpus = qbrecords.of_kind(recs, "noise_cpu")
    t.check(sorted(c.get("cpu") for c in cpus) == sorted(r.get("cpus") or []),
            "noise: noise_cpu records for %s, the result ran on %s" % ([c.get("cpu") for c in cpus], r.get("cpus")))
    t.check(sum(c.get("count", 0) for c in cpus) == g.get("count"), "noise: the CPUs' gaps do not add up to count")
    for k, v in (g.get("attributed") or {}).items():
        if v is not None:  # null: counted on some CPUs only (attributed_note)
            t.check(sum((c.get("attributed") or {}).get(k, 0) for c in cpus) == v,
                    "noise: attributed.%s does not add up" % k)
    if "observed_cpu_s" in g:  # records before it have neither
        obs = [c.get("observed_s") for c in cpus]
        t.check(all(isinstance(x, (int, float)) for x in obs) and isinstance(g["observed_cpu_s"], (int, float))
                and abs(sum(obs) - g["observed_cpu_s"]) <= 1e-5 * (len(obs) + 1),
                "noise: the CPUs' observed_s %s do not add up to observed_cpu_s %s" % (obs, g["observed_cpu_s"]))
    if "ppm" in g:  # records before the pooled figure have none of what follows
        check_noise_pooled(g, cpus, t)
    lines = [ln for ln in text.splitlines() if NOISE_LINE.match(ln) and " ppm" in ln and ", longest gap " in ln]
    t.check(lines, "noise: no \"noise: ... ppm, longest gap ...\" line")


NOISE_LINE = re.compile(r"noise( \([^)]*\))?: ")  # "noise: ", or "noise (under KVM, the host's too): "


def _close(a, b, rel=1e-3, absolute=1e-3):
    return isinstance(a, (int, float)) and isinstance(b, (int, float)) and abs(a - b) <= max(rel * abs(b), absolute)


def _pooled(cpus, ppm_of):
    """The CPUs' ppm weighted by their observed seconds: all their lost time over all their observed time."""
    obs = sum(c.get("observed_s") or 0 for c in cpus)
    vals = [(ppm_of(c), c.get("observed_s") or 0) for c in cpus]
    if not obs or any(p is None for p, o in vals if o):
        return None
    return sum(p * o for p, o in vals if o) / obs


def check_noise_pooled(g, cpus, t):
    """The pooled ppm, rtla's thresholds, each CPU's own threshold and the bookkeeping, against the CPUs' records."""
    obs, lost = g.get("observed_cpu_s"), g.get("lost_cpu_s")
    if obs:
        t.check(_close(g.get("ppm"), lost / obs * 1e6), "noise: ppm %s is not lost_cpu_s %s over observed_cpu_s %s"
                % (g.get("ppm"), lost, obs))
        t.check(_close(g.get("ppm"), _pooled(cpus, lambda c: c.get("ppm"))),
                "noise: ppm %s is not the CPUs' ppm weighted by their observed_s (%s)"
                % (g.get("ppm"), _pooled(cpus, lambda c: c.get("ppm"))))
    else:
        t.check(g.get("ppm") is None, "noise: nothing observed, yet ppm %s" % g.get("ppm"))
    for key in ("over_1us", "over_5us"):
        o = g.get(key)
        if not t.check(isinstance(o, dict) or (o is None and g.get("over_note")), "noise: %s %r" % (key, o)):
            continue
        if o is None:
            continue
        t.check(o.get("count") == sum((c.get(key) or {}).get("count", 0) for c in cpus),
                "noise: %s.count %s is not the CPUs' summed" % (key, o.get("count")))
        want = _pooled(cpus, lambda c: (c.get(key) or {}).get("ppm"))
        t.check(o.get("ppm") is None if not obs else _close(o.get("ppm"), want),
                "noise: %s.ppm %s is not the CPUs' pooled (%s)" % (key, o.get("ppm"), want))
    o1, o5 = g.get("over_1us") or {}, g.get("over_5us") or {}
    t.check(o5.get("count", 0) <= o1.get("count", 0), "noise: more gaps of 5 us (%s) than of 1 us (%s)"
            % (o5.get("count"), o1.get("count")))
    mins = [c.get("loop_min_ticks") for c in cpus]
    t.check(all(isinstance(m, int) and c.get("threshold_ticks") == 4 * m for m, c in zip(mins, cpus)),
            "noise: a CPU's threshold is not 4 x its own loop minimum: %s"
            % [(c.get("loop_min_ticks"), c.get("threshold_ticks")) for c in cpus])
    if all(isinstance(m, int) for m in mins) and mins:
        t.check((g.get("loop_min_ticks"), g.get("loop_min_ticks_max")) == (min(mins), max(mins)),
                "noise: loop_min_ticks %s..%s, the CPUs' %s" % (g.get("loop_min_ticks"), g.get("loop_min_ticks_max"),
                                                                 mins))
    b = g.get("bookkeeping") or {}
    t.check(b.get("stalls") == sum(c.get("stalls", 0) for c in cpus) and b.get("stalls", 0) <= g.get("count", 0),
            "noise: bookkeeping.stalls %s, the CPUs' %s, count %s" % (b.get("stalls"), [c.get("stalls") for c in cpus],
                                                                       g.get("count")))
    t.check(isinstance(g.get("attribution_window"), str) and g["attribution_window"],
            "noise: attribution_window %r" % g.get("attribution_window"))


def this_machine():
    """What perf offers here: (smi counted, a core PMU driver), as the twin would find them."""
    smi = os.path.exists(os.path.join(PMU_DIR, "msr", "events", "smi")) and os.geteuid() == 0
    core = any(os.path.exists(os.path.join(PMU_DIR, p, "type")) for p in CORE_PMUS)
    return smi, core


def is_reason(v):
    return isinstance(v, str) and v.startswith("unavailable: ") and len(v) > len("unavailable: ")


def check_perf(recs, args, t):
    """The twin's counters and noise detectors through perf (issue 23 part 8)."""
    states = [s for s in qbrecords.of_kind(recs, "state") if s.get("scope") == "run"]
    if not t.check(len(states) >= 1, "no state record of the run"):
        return
    st = states[0]
    src = st.get("noise_sources") or {}
    t.check(isinstance(st.get("pmu"), str) and st.get("pmu"), "state: no pmu: %r" % st.get("pmu"))
    t.check(st.get("pmu") != "none" or is_reason(st.get("pmu_counters")),
            "state: pmu none without the reason: %r" % st.get("pmu_counters"))
    for k in ("smi_count", "aperf_mperf"):
        t.check(src.get(k) is True or is_reason(src.get(k)), "state: noise_sources.%s is %r" % (k, src.get(k)))
    results = [r for r in qbrecords.of_kind(recs, "result") if isinstance(r.get("noise"), dict)]
    t.check(results, "no result carries noise")
    smi_counted = src.get("smi_count") is True
    for r in results:
        name = "%s/%s" % (r.get("workload"), r.get("variant"))
        smis = r["noise"].get("smis")
        if smi_counted:
            t.check(isinstance(smis, int) and not isinstance(smis, bool), "%s: smis %r while the state counts SMIs" % (name, smis))
        else:
            t.check(smis == src.get("smi_count"), "%s: smis %r, the state says %r" % (name, smis, src.get("smi_count")))
        c = r.get("counters")
        if isinstance(c, dict):
            t.check(c and all(isinstance(v, (int, float)) for v in c.values()), "%s: counters %r" % (name, c))
        else:
            t.check(c == "unavailable" and is_reason(r.get("counters_note")),
                    "%s: counters %r with note %r" % (name, c, r.get("counters_note")))
    if not args.here:
        return
    smi, core = this_machine()
    t.check(smi_counted == smi, "smi_count %r here, where perf's msr PMU %s smi and we are %sroot"
            % (src.get("smi_count"), "lists" if os.path.exists(os.path.join(PMU_DIR, "msr", "events", "smi"))
               else "does not list", "" if os.geteuid() == 0 else "not "))
    if not core:
        t.check(st.get("pmu") == "none" and "no PMU driver" in str(st.get("pmu_counters")),
                "state: no core PMU in %s, yet pmu %r, pmu_counters %r" % (PMU_DIR, st.get("pmu"), st.get("pmu_counters")))
        for r in results:
            t.check(not isinstance(r.get("counters"), dict), "%s/%s: counters without a PMU driver"
                    % (r.get("workload"), r.get("variant")))


VERDICT = re.compile(r"^(effective|partial|ineffective|cannot tell: no visible caches|cannot tell: the warm set was "
                     r"not warm|cannot tell: disturbed \(\d+ of \d+ rounds\)|not checked: .+)$")
NO_EFFECTIVE = "no effective flush: results start warm"
FALLBACK = "clflush+eviction-read"
PCT_OF = {"effective": (70, None), "partial": (25, None), "ineffective": (None, 25)}


def check_flush_check(recs, args, t):
    """The run's flush check in the state record, and every flushed result naming what it got."""
    runs = [s for s in qbrecords.of_kind(recs, "state") if s.get("scope") == "run"]
    fc = runs[0].get("flush_check") if runs else None
    if not t.check(isinstance(fc, dict) and isinstance(fc.get("methods"), list) and fc["methods"],
                   "state: no flush_check: %r" % (fc,)):
        return
    rows = fc["methods"]
    first = rows[0]
    t.check(first.get("method") == "eviction-read" and first.get("used_for") == "the run's flush",
            "flush_check: the run's flush is %r" % first)
    t.check(all(VERDICT.match(str(r.get("verdict"))) for r in rows),
            "flush_check verdicts %s" % [r.get("verdict") for r in rows])
    for r in rows:
        lo, hi = PCT_OF.get(r.get("verdict"), (None, None))
        if lo is not None or hi is not None:
            pct = r.get("cold_pct")
            t.check(isinstance(pct, (int, float)) and (lo is None or pct >= lo) and (hi is None or pct < hi),
                    "flush_check %s: cold_pct %s but %s" % (r.get("method"), pct, r.get("verdict")))
        doms = r.get("domains")
        t.check(isinstance(doms, list) and len(doms) == fc.get("domains") and
                all(VERDICT.match(str(d.get("verdict"))) for d in doms),
                "flush_check %s: domains %r of %r" % (r.get("method"), doms, fc.get("domains")))
    verdict = str(first.get("verdict"))
    fell_back = verdict in ("ineffective", "partial")
    if args.flush_noop:  # a no-op is never effective, nor partial
        t.check(verdict == "ineffective" or verdict.startswith("cannot tell: disturbed"),
                "flush_noop=on: the no-op eviction read was judged %r (%s%% cold)" % (verdict, first.get("cold_pct")))
    if args.flush_partial:  # a partial flush is never effective, nor ineffective
        t.check(verdict == "partial" or verdict.startswith("cannot tell: disturbed"),
                "flush_partial=%d: the partial eviction read was judged %r (%s%% cold)"
                % (args.flush_partial, verdict, first.get("cold_pct")))
    want_flush = FALLBACK if fell_back else "eviction-read"
    t.check(fc.get("run_flush") == want_flush, "flush_check: run_flush %r, expected %r" % (fc.get("run_flush"), want_flush))
    want_verdict = verdict
    if fell_back:
        fb = [r for r in rows if r.get("used_for") == "the fallback"]
        t.check(len(fb) == 1 and fb[0].get("method") == "eviction-read-large" and
                fb[0].get("evict_bytes", 0) >= 2 * first.get("evict_bytes", 0) > 0,
                "flush_check: the fallback's row %s (the run's flush read %s bytes)" % (fb, first.get("evict_bytes")))
        want_verdict = fb[0].get("verdict") if fb else None
        if want_verdict in ("partial", "ineffective"):
            want_verdict = NO_EFFECTIVE
        t.check(fc.get("verdict") == want_verdict, "flush_check: verdict %r, expected %r" % (fc.get("verdict"),
                                                                                            want_verdict))
        t.check(fc.get("fallback") == "%s: eviction-read was %s" % (FALLBACK, verdict),
                "flush_check: fallback %r" % fc.get("fallback"))
    else:
        t.check(len(rows) == 1 and fc.get("fallback") is None and fc.get("verdict") == verdict,
                "flush_check: a fallback without an ineffective or partial flush: %r" % fc)
    flushed = [r for r in qbrecords.of_kind(recs, "result")
               if (r.get("params") or {}).get("flush") not in (None, "none")]
    t.check(flushed, "no result says what flush it got")
    for r in flushed:
        p = r["params"]
        name = "%s/%s" % (r.get("workload"), r.get("variant"))
        t.check(p["flush"] in (want_flush, want_flush + "-each-iteration"),
                "%s: params.flush %r, the run's flush is %r" % (name, p["flush"], want_flush))
        t.check(p.get("flush_verdict") == fc.get("verdict"), "%s: flush_verdict %r, state says %r"
                % (name, p.get("flush_verdict"), fc.get("verdict")))
        t.check((p.get("flush_fallback") == "eviction-read was %s" % verdict) == fell_back and
                ("flush_fallback" in p) == fell_back, "%s: flush_fallback %r" % (name, p.get("flush_fallback")))
    for r in qbrecords.of_kind(recs, "result"):
        if r.get("workload") == "flush" and r.get("check") == "ok" and r.get("variant", "").startswith("evict-"):
            t.check(VERDICT.match(str(r.get("verdict"))), "flush %s: verdict %r" % (r.get("variant"), r.get("verdict")))


DMI_TABLES, DMI_ID = "/sys/firmware/dmi/tables/DMI", "/sys/class/dmi/id/product_name"


def check_smbios(recs, args, t):
    """One machine record (issue 37); here, its source is what this machine's sysfs allows: the tables where they
    can be read, else /sys/class/dmi/id's product_name as the product, else none, saying so."""
    m = qbrecords.of_kind(recs, "machine")
    if not t.check(len(m) == 1, "expected one machine record, got %d" % len(m)) or not args.here:
        return
    m = m[0]
    if os.access(DMI_TABLES, os.R_OK):
        t.check(m.get("source") == "sysfs-tables", "machine: source %s, but %s can be read" % (m.get("source"), DMI_TABLES))
    elif os.access(DMI_ID, os.R_OK):
        with open(DMI_ID) as f:
            product = f.read().strip() or None
        t.check(m.get("source") == "sysfs-id" and (m.get("system") or {}).get("product") == product,
                "machine: source %s, product %r; %s says %r" % (m.get("source"), (m.get("system") or {}).get("product"),
                                                               DMI_ID, product))
    else:
        t.check(m.get("source") == "none" and "no /sys/class/dmi/id" in (m.get("source_note") or ""),
                "machine: neither %s nor %s here, but the record says %s: %s" % (DMI_TABLES, DMI_ID, m.get("source"),
                                                                               m.get("source_note")))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log")
    ap.add_argument("--exit-status", type=int, help="the twin's exit status")
    ap.add_argument("--workloads", default=DEFAULT_WORKLOADS, help="comma list that must have run")
    ap.add_argument("--allow-error", action="append", default=[], metavar="WHAT",
                    help="an error record's `what` that does not fail the check (repeatable)")
    ap.add_argument("--flush-noop", action="store_true",
                    help="the run had flush_noop=on: its eviction read must be found ineffective (and the run fall back) "
                    "or its rounds too disturbed to tell; never effective or partial")
    ap.add_argument("--flush-partial", type=int, metavar="PCT",
                    help="the run had flush_partial=PCT: its eviction read must be found partial (and the run fall "
                    "back) or its rounds too disturbed to tell; never effective or ineffective")
    ap.add_argument("--here", action="store_true",
                    help="the log was just made on this machine: check perf's answers against its sysfs")
    args = ap.parse_args()
    recs, problems = qbrecords.parse_file(args.log)
    with open(args.log, encoding="latin-1") as f:
        text = f.read()
    t = Tally()
    check_run(recs, problems, args, t)
    check_flush_check(recs, args, t)
    check_perf(recs, args, t)
    check_clock(qbrecords.of_kind(recs, "result"), t)
    check_noise(recs, text, t)
    check_smbios(recs, args, t)
    if t.failed:
        with open(args.log, encoding="latin-1") as f:
            sys.stdout.write("---- %s\n%s---- end of %s\n" % (args.log, f.read(), args.log))
        for msg in t.failed:
            print("FAIL: " + msg)
    print("twin: %d passed, %d failed" % (t.passed, len(t.failed)))
    return 1 if t.failed else 0


if __name__ == "__main__":
    sys.exit(main())
