"""qbrecords - read QuietBench serial logs: find `@qb {json} crc` records and check them.

A line holds a record when it contains "@qb ". Everything after that marker
must be exactly `{JSON} CRC`, where CRC is zlib's crc32 of the JSON text as
8 lowercase hex digits. Damaged records are reported with their line number,
never dropped silently. Used by tools/qemu-run, tools/qb and the boot tests.

Lines are counted as grep -n and editors count them: split at LF only, with
the CR of a CRLF dropped, so a stray control byte does not shift the numbers.
Damage from a real serial line is reported as:
- a record cut short ("no CRC at the end"), a flipped byte ("CRC mismatch");
- two records run together on one line (each is checked on its own);
- stray bytes after an intact record (the record is kept, the line reported);
- a record whose "@qb " marker itself is damaged ("looks like a record").
"""
import json
import re
import zlib

MARKER = "@qb "
_TAIL = re.compile(r" ([0-9a-f]{8})\s*$")
_LOOSE_TAIL = re.compile(r"\} ([0-9a-f]{8})")
# Record text without a usable marker: the start of a record or a `} crc` end.
_LOOKS_LIKE = re.compile(r'\{"v":\d|"kind":"|\} [0-9a-f]{8}\s*$')


class Record(dict):
    """A decoded record, remembering the log line it came from."""

    line = 0


def _crc(js):
    return "%08x" % (zlib.crc32(js.encode("latin-1", "replace")) & 0xFFFFFFFF)


def _decode(js, crc):
    """Return (object, None) if `js` matches `crc` and is a record, else (None, reason)."""
    got = _crc(js)
    if got != crc:
        return None, "CRC mismatch (%s, computed %s)" % (crc, got)
    try:
        obj = json.loads(js)
    except ValueError as e:
        return None, "CRC ok but JSON invalid: %s" % e
    if not isinstance(obj, dict) or "v" not in obj or "kind" not in obj:
        return None, "record lacks v or kind"
    return obj, None


def _check(body):
    """Check the text after one marker: (object or None, reason or None)."""
    m = _TAIL.search(body)
    if m:
        return _decode(body[: m.start()], m.group(1))
    # No clean end: an intact record followed by stray bytes is kept and reported.
    for m in reversed(list(_LOOSE_TAIL.finditer(body))):
        obj, _ = _decode(body[: m.start() + 1], m.group(1))
        if obj is not None:
            return obj, "stray bytes after the CRC (record kept)"
    return None, "no CRC at the end (truncated?)"


def split_lines(text):
    """The log's lines, numbered from 1 like grep -n: LF ends a line, a CR before it is dropped."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


def parse_text(text):
    """Return (records, problems): problems are (line number, reason, text)."""
    records, problems = [], []

    def keep(obj, no):
        rec = Record(obj)
        rec.line = no
        records.append(rec)

    for no, raw in enumerate(split_lines(text), 1):
        at = raw.find(MARKER)
        if at < 0:
            if _LOOKS_LIKE.search(raw):
                problems.append((no, "looks like a record but has no '@qb ' marker (damaged marker?)", raw))
            continue
        body = raw[at + len(MARKER):].rstrip("\r\n")
        obj, why = _check(body)
        nxt = body.find(MARKER)
        if obj is None and nxt >= 0:
            # Records run together (a lost line end): check each piece on its own.
            starts = [at]
            while True:
                at = raw.find(MARKER, at + len(MARKER))
                if at < 0:
                    break
                starts.append(at)
            for i, s in enumerate(starts):
                piece = raw[s + len(MARKER): starts[i + 1] if i + 1 < len(starts) else len(raw)]
                obj, why = _check(piece.rstrip("\r\n"))
                if obj is not None:
                    keep(obj, no)
                if why:
                    problems.append((no, "record %d of %d on the line: %s" % (i + 1, len(starts), why), raw))
            continue
        if obj is not None:
            keep(obj, no)
        if why:
            problems.append((no, why, raw))
    return records, problems


RESULTS_FILE_MAGIC = "QuietBench results file v1\n"
RESULTS_FILE_HDR = 512


def results_file_text(text):
    """A results file from the boot stick (kernel/lib/resfile.h) holds its header, then
    `used` bytes of log, then newlines or the end of an older log: keep the header and
    the log. Any other text is returned as it is."""
    if not text.startswith(RESULTS_FILE_MAGIC):
        return text
    m = re.search(r"^used=(\d{20})$", text[:RESULTS_FILE_HDR], re.M)
    if not m:
        return text
    return text[:RESULTS_FILE_HDR + int(m.group(1))]


def lava_log_text(text):
    """A LAVA job log (lava-run's JSON lines, or a server's YAML export: `- {"dt": ..., "lvl": "target",
    "msg": ...}` per line) gives the serial output it captured: its "target" lines, LAVA's escaping of
    quotes undone. Any other text is returned as it is."""
    head = text.lstrip()[:200]
    if not (head.startswith('{"dt"') or head.startswith('- {"dt"') or head.startswith("- {dt")):
        return text
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("- "):
            line = line[2:]
        try:
            d = json.loads(line)
        except ValueError:
            continue
        if d.get("lvl") == "target" and isinstance(d.get("msg"), str):
            out.append(d["msg"].replace('\\"', '"'))
    return "\n".join(out) + "\n"


def parse_file(path):
    # newline="" keeps line ends as they are, so numbering is split_lines' own.
    with open(path, "r", encoding="latin-1", newline="") as f:
        return parse_text(lava_log_text(results_file_text(f.read())))


def of_kind(records, kind):
    return [r for r in records if r.get("kind") == kind]


def matrices(records):
    """The matrix records, each with its values: a large matrix says "rows": n and its
    rows follow as matrix_row records (one per row, "row": i); they are put back
    together here, and so is every other per-row field a row carries (first-touch's
    "ns", "claimed_ns", ...). A row that is missing leaves the matrix's "values" None."""
    out = []
    pending = None
    for r in records:
        kind = r.get("kind")
        if kind == "matrix":
            m = dict(r)
            if "values" not in m and isinstance(m.get("rows"), int):
                m["values"] = [None] * m["rows"]
                pending = m
            else:
                pending = None
            out.append(m)
        elif kind == "matrix_row" and pending is not None:
            i = r.get("row")
            if (r.get("workload"), r.get("variant")) == (pending.get("workload"), pending.get("variant")) and \
                    isinstance(i, int) and 0 <= i < len(pending["values"]):
                for key, v in r.items():
                    if key in ("v", "kind", "workload", "variant", "row"):
                        continue
                    if not isinstance(pending.get(key), list) or len(pending[key]) != pending["rows"]:
                        pending[key] = [None] * pending["rows"]
                    pending[key][i] = v
    for m in out:
        if isinstance(m.get("values"), list) and any(v is None for v in m["values"]):
            m["values"] = None
    return out


def done(records):
    """The last done record, or None."""
    d = of_kind(records, "done")
    return d[-1] if d else None
