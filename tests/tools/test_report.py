"""test_report - qb report in a real browser: four runs (two machines, two runs each) on one page, rendered by
Debian's Chromium headless. The page must load with no console message of error level, every embedded plot
must decode, and the tables must be there; the screenshot is kept in build/report.png for a person to look at (and
build/report-lava.png for a page of LAVA result exports, build/report-noisy.png for the twin's noisy results).
A page with a broken image and a script error is rendered too, to show the checks can fail."""
import os
import re
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(HERE, "data")
QB = os.path.join(ROOT, "tools", "qb")
CHROMIUM = shutil.which("chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]
RUNS = ["smp4.log", "counter-smp4.log", "smp8-2sockets-smt-numa2.log", "counter-2sockets-smt.log"]

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (tools/deps installs it)")


def browse(page, tmp, dom=False):
    """(body tag of the DOM after load, console lines of error level[, the whole DOM]) of page in headless
    Chromium."""
    r = subprocess.run([CHROMIUM] + FLAGS + ["--user-data-dir=%s" % (tmp / "profile"), "--enable-logging=stderr",
                                             "--log-level=0", "--virtual-time-budget=5000", "--dump-dom",
                                             "file://%s" % page], capture_output=True, text=True, timeout=120)
    body = re.search(r"<body[^>]*>", r.stdout)
    console = [ln for ln in r.stderr.splitlines() if ":CONSOLE" in ln and ("Uncaught" in ln or "rror" in ln)]
    out = (body.group(0) if body else ""), console
    return out + (r.stdout,) if dom else out


def test_four_runs_read_in_chromium(tmp_path):
    page = tmp_path / "report.html"
    r = subprocess.run([sys.executable, QB, "report"] + [os.path.join(DATA, n) for n in RUNS] + ["-o", page],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout == "qb report: wrote %s: 4 runs on 2 machines\n" % page  # no temporary paths, no raw JSON
    text = page.read_text()
    assert "http://" not in text and "https://" not in text  # self-contained: nothing fetched
    for label in ("M1: smp4.log", "M1: counter-smp4.log", "M2: smp8-2sockets-smt-numa2.log", "M2: counter-2sockets-smt.log"):
        assert label in text
    assert '<h3 id="results-counter">counter</h3>' in text and '<h3 id="results-selftest">selftest</h3>' in text
    for a in re.findall(r'href="#([^"]+)"', text):  # the contents lead somewhere
        assert 'id="%s"' % a in text, a
    assert "overflow" not in text and "max-height" not in text  # no table in a scroll box of its own
    assert "M1: QEMU TCG CPU version 2.5+, 4 CPUs, 2 runs" in text
    body, console = browse(page, tmp_path)
    assert console == []
    m = re.search(r'data-images="ok:(\d+)"', body)
    assert m and int(m.group(1)) >= 4, body  # the counter runs' plots, decoded
    assert int(re.search(r'data-tables="(\d+)"', body).group(1)) >= 5
    shot = os.path.join(ROOT, "build", "report.png")
    os.makedirs(os.path.dirname(shot), exist_ok=True)
    subprocess.run([CHROMIUM] + FLAGS + ["--user-data-dir=%s" % (tmp_path / "profile2"), "--window-size=1400,2400",
                                         "--screenshot=%s" % shot, "file://%s" % page],
                   capture_output=True, timeout=120)
    assert os.path.getsize(shot) > 50000


def test_lava_exports_read_in_chromium(tmp_path):
    """Four runs straight from a LAVA server's result exports (data/lava-server/, see
    test_lava_export.py) next to one serial log: the page loads clean and says what the exports lack."""
    page = tmp_path / "lava.html"
    runs = [os.path.join(DATA, "lava-server", "results-%d.yaml" % j) for j in (3, 4, 5, 6)]
    r = subprocess.run([sys.executable, QB, "report"] + runs + [os.path.join(DATA, "smp4.log"), "-o", page],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip().endswith(": 5 runs on 3 machines")
    body, console = browse(page, tmp_path)
    assert console == []
    assert 'data-images="ok:' in body
    assert int(re.search(r'data-tables="(\d+)"', body).group(1)) >= 6
    shot = os.path.join(ROOT, "build", "report-lava.png")
    subprocess.run([CHROMIUM] + FLAGS + ["--user-data-dir=%s" % (tmp_path / "profile2"), "--window-size=1400,1600",
                                         "--screenshot=%s" % shot, "file://%s" % page],
                   capture_output=True, timeout=120)
    assert os.path.getsize(shot) > 20000


def test_checks_catch_a_broken_page(tmp_path):
    page = tmp_path / "bad.html"
    page.write_text('<html><body><img src="data:image/png;base64,AAAA"><script>nonexistent();</script>'
                    '<script>window.addEventListener("load", function () { var bad = Array.prototype.filter.call('
                    'document.images, function (i) { return !i.complete || i.naturalWidth === 0; });'
                    ' document.body.dataset.images = bad.length ? "broken:" + bad.length : "ok:0"; });</script>'
                    "</body></html>")
    body, console = browse(page, tmp_path)
    assert 'data-images="broken:1"' in body
    assert any("nonexistent" in ln for ln in console)


def test_noisy_mark_and_units_in_chromium(tmp_path):
    """A QEMU run and the twin's quick run: in the page Chromium renders, every noisy result's cell is
    hatched and carries the ~ mark, the legend says what it means, and the tables speak ns per increment,
    ns per element, ns per page and ns per access; the machines table names the hypervisor and the twin's
    firmware is said, not "None"."""
    page = tmp_path / "noisy.html"
    runs = [os.path.join(DATA, n) for n in ("counter-smp4.log", "twin-quick.log")]
    r = subprocess.run([sys.executable, QB, "report"] + runs + ["-o", page], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    from qblib import run as qbrun, figure
    twin = qbrun.load(runs[1], warn=False)
    noisy = [x for x in twin.results() if figure.of(x, twin).noisy]
    assert noisy
    body, console, dom = browse(page, tmp_path, dom=True)
    assert console == []
    assert int(re.search(r'data-noisy="(\d+)"', body).group(1)) >= len(noisy)
    cells = re.findall(r'<td class="num noisy[^"]*"[^>]*>(.*?)</td>', dom)
    assert cells and all('<span class="mark">~</span>' in c for c in cells)
    assert "fewer than half of the repetitions clean" in dom
    for unit in ("ns/increment", "ns/element", "ns/page", "ns/access"):
        assert "<td>%s</td>" % unit in dom, unit
    assert "virtual machine (a hypervisor: CPUID.1:ECX[31]" in dom
    assert "not visible to the Linux twin" in dom and ">None<" not in dom
    shot = os.path.join(ROOT, "build", "report-noisy.png")
    os.makedirs(os.path.dirname(shot), exist_ok=True)
    subprocess.run([CHROMIUM] + FLAGS + ["--user-data-dir=%s" % (tmp_path / "profile2"), "--window-size=1400,2400",
                                         "--screenshot=%s" % shot, "file://%s" % page], capture_output=True, timeout=120)
    assert os.path.getsize(shot) > 50000
