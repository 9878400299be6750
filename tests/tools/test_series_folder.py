"""test_series_folder - a stick's /quietbench/series/ folder read as it sits on the mounted stick (issue 37): qb
compare takes the boots of the series 01.log names that reached their done, in boot order, and says which it
left out (a boot cut before its done, one not run yet); an older series' log, the empty logs and the block
padding are passed over. The logs are the committed real QEMU runs (runs-qemu-quick-counter), each put in a
series log as the kernel writes one: the header of tests/fixtures/resfile/series-02.log.hdr (a QEMU series
boot's) with its fields set, the log from the next block, the rest newlines, and the end sector."""
import glob
import os
import re

from qbtest import DATA, ROOT, qb

QEMU = sorted(glob.glob(os.path.join(DATA, "runs-qemu-quick-counter", "*.log")))
TWIN = os.path.join(DATA, "runs-twin-quick-counter")
CAPTURE = os.path.join(ROOT, "tests", "fixtures", "resfile", "series-02.log.hdr")
HDR, LENGTH = 512, 64 * 1024
SERIES = "b4bcd0629e831845"


def header(name, used, series=None):
    """The captured header with this log's name and used, and its series line (k, N, state, try) or none."""
    with open(CAPTURE, "rb") as f:
        text = f.read().decode("latin-1")
    text = re.sub(r"(?m)^file=.*$", "file=" + name, text)
    text = re.sub(r"(?m)^used=\d{20}$", "used=%020d" % used, text)
    if series:
        sid, k, of, state, tries = series
        text = re.sub(r"(?m)^series=.*$", "series=%s boot %02d of %02d %s try %d" % (sid, k, of, state, tries), text)
    else:
        text = re.sub(r"(?m)^series=.*\n^options=.*\n", "", text)
    return (text.rstrip("\n") + "\n").ljust(HDR, "\n").encode("latin-1")


def series_log(path, name, log=b"", series=None):
    body = log + b"\n" * (-len(log) % HDR)
    with open(path / name, "wb") as f:
        f.write(header(name, len(body), series) + body)
        f.write(b"\n" * (LENGTH - HDR - len(body) - HDR))
        f.write(b"QuietBench results file end v1\n".ljust(HDR, b"\n"))


def stick(tmp_path, boots, of=4, last="running"):
    """A series folder: the first `boots` logs done with the real runs, the next `last` (or nothing), then an
    older series' log and empty ones, up to 08.log."""
    folder = tmp_path / "series"
    folder.mkdir()
    runs = [open(p, "rb").read() for p in QEMU]
    for k in range(1, 9):
        name = "%02d.log" % k
        if k <= boots:
            series_log(folder, name, runs[k - 1], (SERIES, k, of, "done", 1))
        elif k == boots + 1 and last:
            series_log(folder, name, runs[0][:20000], (SERIES, k, of, last, 2))
        elif k == 6:
            series_log(folder, name, runs[1], ("0123456789abcdef", 6, 6, "done", 1))
        else:
            series_log(folder, name)
    return folder


def test_a_series_cut_in_its_fourth_boot(tmp_path):
    folder = stick(tmp_path, 3)
    r = qb("compare", folder, TWIN)
    assert r.returncode == 0, r.stderr
    assert "A %s: 3 runs (01.log, 02.log, 03.log): QEMU TCG" % folder in r.stdout
    assert "test: the runs as runs (3 and 3 runs)" in r.stdout
    assert ("boot 4 of 4 did not reach its done (04.log, start 2: a power cut, a reset or a hang); left out"
            in r.stderr)
    # The same runs, named one by one, give the same table: the folder adds and drops nothing.
    plain = qb("compare", ",".join(QEMU), TWIN)
    assert plain.returncode == 0, plain.stderr
    strip = re.compile(r"^A .*$", re.M)
    assert strip.sub("", r.stdout) == strip.sub("", plain.stdout)


def test_spread_of_a_series_not_yet_whole(tmp_path):
    folder = stick(tmp_path, 2, of=5, last=None)
    r = qb("compare", "--spread", folder, TWIN)
    assert r.returncode == 0, r.stderr
    assert "2 runs (01.log, 02.log)" in r.stdout
    for k in (3, 4, 5):
        assert "boot %d of 5 has not run yet (%02d.log): the series is not whole" % (k, k) in r.stderr


def test_a_series_folder_without_a_series(tmp_path):
    folder = tmp_path / "series"
    folder.mkdir()
    for k in range(1, 4):
        series_log(folder, "%02d.log" % k)
    r = qb("compare", folder, TWIN)
    assert r.returncode != 0
    assert "its 01.log holds no series" in r.stderr
