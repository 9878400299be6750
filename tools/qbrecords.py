"""qbrecords - read QuietBench serial logs: find `@qb {json} crc` records and check them.

A line holds a record when it contains "@qb ". Everything after that marker
must be exactly `{JSON} CRC`, where CRC is zlib's crc32 of the JSON text as
8 lowercase hex digits. Damaged records are reported with their line number,
never dropped silently. Used by tools/qemu-run and the boot tests.
"""
import json
import re
import zlib

MARKER = "@qb "
_TAIL = re.compile(r" ([0-9a-f]{8})\s*$")


class Record(dict):
    """A decoded record, remembering the log line it came from."""

    line = 0


def parse_text(text):
    """Return (records, problems): problems are (line number, reason, text)."""
    records, problems = [], []
    for no, raw in enumerate(text.splitlines(), 1):
        at = raw.find(MARKER)
        if at < 0:
            continue
        body = raw[at + len(MARKER):].rstrip("\r\n")
        m = _TAIL.search(body)
        if not m:
            problems.append((no, "no CRC at the end (truncated?)", raw))
            continue
        js = body[: m.start()]
        crc = "%08x" % (zlib.crc32(js.encode("latin-1", "replace")) & 0xFFFFFFFF)
        if crc != m.group(1):
            problems.append((no, "CRC mismatch (%s, computed %s)" % (m.group(1), crc), raw))
            continue
        try:
            obj = json.loads(js)
        except ValueError as e:
            problems.append((no, "CRC ok but JSON invalid: %s" % e, raw))
            continue
        if not isinstance(obj, dict) or "v" not in obj or "kind" not in obj:
            problems.append((no, "record lacks v or kind", raw))
            continue
        rec = Record(obj)
        rec.line = no
        records.append(rec)
    return records, problems


def parse_file(path):
    with open(path, "r", encoding="latin-1") as f:
        return parse_text(f.read())


def of_kind(records, kind):
    return [r for r in records if r.get("kind") == kind]


def done(records):
    """The last done record, or None."""
    d = of_kind(records, "done")
    return d[-1] if d else None
