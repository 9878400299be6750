"""test_same_stream - qb same-stream, the guard of issue 36's refactor: the Linux twin's quick profile recorded before
the framework moved (twin-quick-before-36.log, built at 113379f) and after (twin-quick-after-36.log) give the same
results, checks, params and plan; and the comparison tells apart every kind of change it must see, on streams made
from the before log in memory (a param changed, a result dropped, two swapped, a check changed), while timings and
the flush verdict alone compare equal."""
import copy
import os

from qbtest import DATA, qb
from qblib import stream
import qbrecords

BEFORE = os.path.join(DATA, "twin-quick-before-36.log")
AFTER = os.path.join(DATA, "twin-quick-after-36.log")


def records(path):
    return qbrecords.parse_file(path)[0]


def results(recs):
    return [i for i, r in enumerate(recs) if r.get("kind") == "result"]


def test_before_and_after_the_refactor_are_the_same():
    r = qb("same-stream", BEFORE, AFTER)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "the same" in r.stdout
    n = len(stream.key_stream(records(BEFORE)))
    assert n > 150, n  # every workload's results and plan: not a stream of nothing


def test_every_change_is_seen():
    recs = records(BEFORE)
    base = stream.key_stream(recs)
    idx = results(recs)
    with_params = [i for i in idx if recs[i].get("params")]

    changed = copy.deepcopy(recs)
    k = with_params[3]
    name = sorted(changed[k]["params"])[0]
    changed[k]["params"][name] = "something else"
    d = stream.differences(base, stream.key_stream(changed))
    assert len(d) == 1 and "params" in d[0], d

    dropped = [r for i, r in enumerate(recs) if i != idx[5]]
    d = stream.differences(base, stream.key_stream(dropped))
    assert len(d) == 1 and "only before" in d[0], d

    swapped = list(recs)
    a, b = next((i, j) for i, j in zip(idx, idx[1:]) if recs[i].get("variant") != recs[j].get("variant"))
    swapped[a], swapped[b] = swapped[b], swapped[a]
    assert stream.differences(base, stream.key_stream(swapped))

    check = copy.deepcopy(recs)
    check[idx[0]]["check"] = "short"
    d = stream.differences(base, stream.key_stream(check))
    assert len(d) == 1 and "check" in d[0] and "'short'" in d[0], d


def test_timings_and_verdicts_alone_are_the_same():
    recs = copy.deepcopy(records(BEFORE))
    for i in results(recs):
        r = recs[i]
        for f in ("median", "min", "max", "planned_s", "measured_s", "reps_kept"):
            if isinstance(r.get(f), (int, float)):
                r[f] = r[f] * 2 + 1
        if "flush_verdict" in (r.get("params") or {}):
            r["params"]["flush_verdict"] = "cannot tell: disturbed (21 of 21 rounds)"
    assert stream.differences(stream.key_stream(records(BEFORE)), stream.key_stream(recs)) == []


def test_a_log_without_records_is_an_error(tmp_path):
    empty = tmp_path / "empty.log"
    empty.write_text("nothing here\n")
    r = qb("same-stream", BEFORE, empty)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
