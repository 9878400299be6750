#!/usr/bin/env python3
"""series_tests - a series of boots from the stick (series=N, issue 37), unattended, in QEMU.

  qemu-run  tools/qemu-run --image IMG -- series=3 profile=quick: one command, three boots under OVMF,
            each ending by resetting the machine (no one at the keyboard), exit 0; serial has three
            boots, each with its `series` record (boot k of 3, one series id, try 1, resets but the
            last) and its done ok, every boot with the series' command line; the copy's
            /quietbench/series/01.log .. 03.log say done and hold each boot's records (qemu-run
            compares them with serial), 04.log .. 20.log and results.log are as the image had them,
            and qb compare reads the folder copied off the stick as three runs.
  cut       series=3 workloads=selftest under OVMF, QEMU killed (SIGKILL: the power cut) in boot 2
            once its log was begun: 01.log is whole (its done record, its header done) and 02.log
            says running with no done. Then the stick is started again from GRUB's "quick" entry,
            without series= (what the default entry of a stick does): the loader continues the
            series with its own options, says boot 2 runs again, and boots 2 (start 2) and 3 run to
            the end; 01.log is byte for byte what the cut left, 02.log and 03.log hold their boots.
            Both starts change nothing on the stick outside the results files' and those three
            logs' extents and their directory entries' stamps.
  secure-boot  the same through shim and the signed GRUB and loader, Secure Boot on (Microsoft's keys,
            the stick's key in MokList: tools/qemu-run --secure-boot mok), series=2 workloads=selftest:
            both boots run unattended through the reset, two logs, exit 0.
  bios      SeaBIOS, the stick as a disk (legacy BIOS: GRUB's multiboot2 path, which writes no
            results file): series=3 stops before measuring with an `error` record saying it needs
            the UEFI path, done fail, and not one byte of the stick changes.

No timing is checked; each boot is bounded (--timeout). A failing case prints its serial log (kept in
build/seriestest/). The last line is "series tests: N passed, N failed".
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import image_checks
import image_stick

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import qbrecords  # noqa: E402

QEMU_RUN = os.path.join(ROOT, "tools", "qemu-run")
QB = os.path.join(ROOT, "tools", "qb")
QEMU_EXIT_OK, QEMU_EXIT_FAIL = 1, 3   # isa-debug-exit: (value << 1) | 1
LOGS = 20                             # tools/mkimage --series-logs
SERIES_LINE = re.compile(r"^series=([0-9a-f]{16}) boot (\d+) of (\d+) (running|done) try (\d+)$", re.M)


class Case:
    """What image_stick.prepare and image_checks need of a case."""

    def __init__(self, cfg, firmware="ovmf"):
        self.cfg, self.firmware = cfg, firmware
        self.sector, self.smp, self.disk, self.hc = 512, 2, "usb", "qemu-xhci"
        self.direct_efi = self.second_stick = self.nocable = False
        self.throttle, self.craft, self.results = None, None, "found"
        self.offsets, self.series_written, self.qemu_args = {}, (), ()


def header(disk, name):
    """The series line of a series log on the stick: (id, boot, of, state, try), or None."""
    text = image_stick.stick_log(disk, "series/" + name)[:image_stick.RESULTS_HDR]
    m = SERIES_LINE.search(text)
    return (m.group(1), int(m.group(2)), int(m.group(3)), m.group(4), int(m.group(5))) if m else None


def log_records(disk, name):
    recs, problems = qbrecords.parse_text(qbrecords.results_file_text(image_stick.stick_log(disk, name)))
    return recs, problems


def boots_of(records):
    out, cur = [], []
    for r in records:
        cur.append(r)
        if r.get("kind") == "done":
            out.append(cur)
            cur = []
    return out


def check_boots(text, want, errors, cmdline):
    """Serial's boots: each a series record (want: [(boot, of, try, again, resets)]), a boot record with the
    series' command line, a done ok. Returns the series records."""
    recs, problems = qbrecords.parse_text(text)
    errors.extend("line %d: damaged record (%s)" % (no, why) for no, why, raw in problems)
    boots = boots_of(recs)
    if len(boots) != len(want):
        errors.append("%d boots with a done record on serial, expected %d" % (len(boots), len(want)))
        return []
    series = []
    for i, (b, w) in enumerate(zip(boots, want), 1):
        s = qbrecords.of_kind(b, "series")
        boot = qbrecords.of_kind(b, "boot")
        d = qbrecords.done(b)
        if len(s) != 1:
            errors.append("boot %d: %d series records" % (i, len(s)))
            continue
        s = s[0]
        got = (s.get("boot"), s.get("of"), s.get("try"), s.get("again"), s.get("resets"))
        if got != w:
            errors.append("boot %d: series record says boot, of, try, again, resets %s, expected %s" % (i, got, w))
        if s.get("log") != "/quietbench/series/%02d.log" % w[0]:
            errors.append("boot %d: series record's log %s" % (i, s.get("log")))
        if not boot or boot[0].get("cmdline") != cmdline:
            errors.append("boot %d: cmdline %s, expected the series' %r" % (i, boot and boot[0].get("cmdline"), cmdline))
        if d.get("status") != "ok":
            errors.append("boot %d: done %s (%s)" % (i, d.get("status"), d.get("reason")))
        for e in qbrecords.of_kind(b, "error"):
            errors.append("boot %d: error record %s" % (i, e))
        if "series: boot %d of %d" % (w[0], w[1]) not in text:
            errors.append("serial does not say 'series: boot %d of %d'" % (w[0], w[1]))
        series.append(s)
    if len({s.get("id") for s in series}) != 1:
        errors.append("the boots name different series: %s" % [s.get("id") for s in series])
    return series


def check_log(disk, k, of, sid, tries, serial_boot, errors):
    """series/k.log says boot k of `of` done, start `tries`, and holds the boot's records, done last."""
    h = header(disk, "%02d.log" % k)
    if h != (sid, k, of, "done", tries):
        errors.append("series/%02d.log's series line %s, expected %s" % (k, h, (sid, k, of, "done", tries)))
    recs, problems = log_records(disk, "series/%02d.log" % k)
    errors.extend("series/%02d.log line %d: %s" % (k, no, why) for no, why, raw in problems)
    if serial_boot is not None and [dict(r) for r in recs] != [dict(r) for r in serial_boot]:
        errors.append("series/%02d.log holds %d records, serial had %d for its boot" % (k, len(recs), len(serial_boot)))
    if not recs or recs[-1].get("kind") != "done" or recs[-1].get("status") != "ok":
        errors.append("series/%02d.log does not end with a done ok" % k)


def unused_logs_as_made(image, disk, first, errors):
    for k in range(first, LOGS + 1):
        name = "series/%02d.log" % k
        if image_stick.stick_log(disk, name) != image_stick.stick_log(image, name):
            errors.append("%s changed, though no boot of the series wrote it" % name)


def results_log_left(disk, errors):
    for name in ("results.log", "results.prev"):
        if qbrecords.results_file_text(image_stick.stick_log(disk, name))[image_stick.RESULTS_HDR:].strip("\n"):
            errors.append("%s holds a log: a series boot writes its series log, not the results files" % name)


# ---- the cases -------------------------------------------------------------
def qemu_run(image, tmp, timeout, more, words):
    """tools/qemu-run on a kept copy of the image: (process, serial text, the copy)."""
    disk = os.path.join(tmp, "stick.img")
    log = os.path.join(tmp, "serial.log")
    cmd = [QEMU_RUN, "--image", image, "--keep-copy", disk, "--smp", "2", "--quiet", "--timeout", str(timeout),
           "--log", log] + more + ["--"] + words
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=4 * timeout)
    with open(log, encoding="latin-1") as f:
        return p, f.read(), disk


def case_secure_boot(image, tmp, timeout, errors):
    p, text, disk = qemu_run(image, tmp, timeout, ["--secure-boot", "mok"], ["series=2", "workloads=selftest",
                                                                             "profile=quick"])
    if p.returncode != 0:
        errors.append("qemu-run exit %d: %s" % (p.returncode, p.stdout[-1500:]))
    want = [(1, 2, 1, False, True), (2, 2, 1, False, False)]
    series = check_boots(text, want, errors, "series=2 workloads=selftest profile=quick finish=qemu")
    boots = boots_of(qbrecords.parse_text(text)[0])
    if series and len(boots) == 2:
        for k in (1, 2):
            check_log(disk, k, 2, series[0]["id"], 1, boots[k - 1], errors)
    return text


def case_qemu_run(image, tmp, timeout, errors):
    p, text, disk = qemu_run(image, tmp, timeout, [], ["series=3", "profile=quick"])
    if p.returncode != 0:
        errors.append("qemu-run exit %d: %s" % (p.returncode, p.stdout[-1500:]))
    if "the stick's series logs" not in p.stdout or "hold the records serial had for each boot" not in p.stdout:
        errors.append("qemu-run did not say the series logs hold serial's records: %s" % p.stdout[-800:])
    want = [(1, 3, 1, False, True), (2, 3, 1, False, True), (3, 3, 1, False, False)]
    series = check_boots(text, want, errors, "series=3 profile=quick finish=qemu")
    if not series or errors:
        return text
    boots = boots_of(qbrecords.parse_text(text)[0])
    for k in (1, 2, 3):
        check_log(disk, k, 3, series[0]["id"], 1, boots[k - 1], errors)
    unused_logs_as_made(image, disk, 4, errors)
    results_log_left(disk, errors)
    # qb compare on the folder as a user copies it off the stick.
    folder = os.path.join(tmp, "series")
    subprocess.run(["mcopy", "-s", "-n", "-i", disk + image_stick.FAT_OFFSET, "::/quietbench/series", tmp],
                   check=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    q = subprocess.run([sys.executable, QB, "compare", folder, folder], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if q.returncode != 0 or "3 runs (01.log, 02.log, 03.log)" not in q.stdout:
        errors.append("qb compare on the series folder (exit %d): %s %s" % (q.returncode, q.stdout[:400], q.stderr[-400:]))
    return text


def boot_until(cmd, timeout, kill_on=None):
    """QEMU until it exits, or is killed (SIGKILL: a power cut) once kill_on appears on serial;
    (exit status, or None when killed or timed out; serial text)."""
    log = bytearray()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    killed = threading.Event()

    def pump():
        for chunk in iter(lambda: proc.stdout.read1(4096), b""):
            log.extend(chunk)
            if kill_on and not killed.is_set() and kill_on in log:
                killed.set()
                proc.kill()

    t = threading.Thread(target=pump, daemon=True)
    t.start()
    try:
        status = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        status = None
    t.join(5)
    return (None if killed.is_set() else status), log.decode("latin-1")


def case_cut(image, tmp, timeout, errors):
    opts = "series=3 workloads=selftest profile=quick finish=qemu"
    case = Case('set qb_options="%s"\nset timeout=0\nset default=full\n' % opts)
    disk = image_stick.prepare(case, image, tmp)
    case.offsets.update(image_stick.series_offsets(disk, ["%02d.log" % k for k in range(1, 4)]))
    cmd = [a for a in image_stick.qemu_cmd(case, disk, tmp) if a != "-no-reboot"]  # a series' boots reset
    status, text = boot_until(cmd, 3 * timeout, kill_on=b"/quietbench/series/02.log (")
    if status is not None:
        errors.append("QEMU was not killed in boot 2 (exit %s)" % status)
        return text
    # The cut: boot 1 whole, boot 2 begun and not done.
    first = header(disk, "01.log")
    if not first or first[1:4] != (1, 3, "done"):
        errors.append("after the cut, 01.log's series line is %s" % (first,))
        return text
    check_log(disk, 1, 3, first[0], 1, boots_of(qbrecords.parse_text(text)[0])[0], errors)
    second = header(disk, "02.log")
    if second != (first[0], 2, 3, "running", 1):
        errors.append("after the cut, 02.log's series line is %s, expected running, start 1" % (second,))
    if any(r.get("kind") == "done" for r in log_records(disk, "series/02.log")[0]):
        errors.append("02.log has a done record though its boot was cut")
    case.series_written = ("01.log", "02.log")
    image_checks.check_untouched(case, disk, tmp, errors)
    log1 = image_stick.stick_log(disk, "series/01.log")
    # The stick started again from an entry without series=: the series continues by itself.
    cfg = os.path.join(tmp, "quietbench.cfg")
    with open(cfg, "w") as f:
        f.write('set qb_options="finish=qemu"\nset timeout=0\nset default=quick\n')
    image_stick.mtools("mcopy", disk, "-o", cfg, "::/quietbench.cfg")
    shutil.copyfile(disk, os.path.join(tmp, "before-2.img"))
    status, text2 = boot_until(cmd, 3 * timeout)
    if status != QEMU_EXIT_OK:
        errors.append("the second start: QEMU exit status %s, expected %d (finish=qemu after boot 3)"
                      % (status, QEMU_EXIT_OK))
    for line in ("quietbench: series: boot 2 again (start 2)", "quietbench: series: the series under way continues "
                 "with its own options: " + opts, "series: boot 2 again (start 2): its last start did not reach "
                 "its done"):
        if line not in text2:
            errors.append("the second start does not say %r" % line)
    series = check_boots(text2, [(2, 3, 2, True, True), (3, 3, 1, False, False)], errors, opts)
    for s in series:
        if s.get("entry_cmdline") != "finish=qemu profile=quick":
            errors.append("series record's entry_cmdline %r, expected GRUB's quick entry's" % s.get("entry_cmdline"))
    if image_stick.stick_log(disk, "series/01.log") != log1:
        errors.append("01.log changed after the cut: the boot before it must stay whole")
    boots = boots_of(qbrecords.parse_text(text2)[0])
    if len(boots) == 2:
        check_log(disk, 2, 3, first[0], 2, boots[0], errors)
        check_log(disk, 3, 3, first[0], 1, boots[1], errors)
    case.series_written = ("02.log", "03.log")
    image_checks.check_untouched(case, disk, tmp, errors, before="before-2.img")
    unused_logs_as_made(image, disk, 4, errors)
    return text + "\n---- the second start ----\n" + text2


def case_bios(image, tmp, timeout, errors):
    case = Case('set qb_options="series=3 finish=qemu workloads=selftest"\nset timeout=0\nset default=quick\n',
                firmware="seabios")
    disk = image_stick.prepare(case, image, tmp)
    status, text = boot_until(image_stick.qemu_cmd(case, disk, tmp), timeout)
    if status != QEMU_EXIT_FAIL:
        errors.append("QEMU exit status %s, expected %d (done fail)" % (status, QEMU_EXIT_FAIL))
    recs, _ = qbrecords.parse_text(text)
    errs = [e for e in qbrecords.of_kind(recs, "error") if e.get("what") == "series"]
    if len(errs) != 1 or "needs the UEFI path" not in errs[0].get("detail", "") or \
            "legacy BIOS" not in errs[0].get("detail", ""):
        errors.append("expected one series error saying it needs the UEFI path on legacy BIOS: %s" % errs)
    d = qbrecords.done(recs)
    if not d or d.get("status") != "fail" or d.get("reason") != "series= cannot run on this boot":
        errors.append("done %s, expected fail: series= cannot run on this boot" % d)
    if qbrecords.of_kind(recs, "result") or qbrecords.of_kind(recs, "series"):
        errors.append("something was measured, or a series record came, though the series was refused")
    with open(os.path.join(tmp, "before.img"), "rb") as f, open(disk, "rb") as g:
        if f.read() != g.read():
            errors.append("the stick changed on legacy BIOS")
    return text


CASES = [("qemu-run", case_qemu_run), ("cut", case_cut), ("secure-boot", case_secure_boot), ("bios", case_bios)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--image", default=os.path.join(ROOT, "build", "test", "quietbench.img"))
    ap.add_argument("--logdir", default=os.path.join(ROOT, "build", "seriestest"))
    ap.add_argument("--timeout", type=float, default=300, help="seconds per boot")
    ap.add_argument("cases", nargs="*", help="case names (default: all)")
    a = ap.parse_args()
    image = os.path.abspath(a.image)
    for f in (image, image_stick.OVMF_CODE, image_stick.OVMF_VARS):
        if not os.path.exists(f):
            print("series tests: %s is missing (run tools/deps and make image)" % f)
            print("series tests: 0 passed, 1 failed")
            return 1
    unknown = [n for n in a.cases if n not in dict(CASES)]
    if unknown:
        print("series tests: no case %s (cases: %s)" % (", ".join(unknown), " ".join(dict(CASES))))
        return 2
    os.makedirs(a.logdir, exist_ok=True)
    passed = failed = 0
    for name, fn in CASES:
        if a.cases and name not in a.cases:
            continue
        errors, text, t0 = [], "", time.time()
        tmp = tempfile.mkdtemp(prefix="qb-series-")
        try:
            text = fn(image, tmp, a.timeout, errors)
        except (OSError, subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
            errors.append("set-up failed: %s" % e)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        log = os.path.join(a.logdir, name + ".log")
        with open(log, "w", encoding="latin-1") as f:
            f.write(text or "")
        if errors:
            failed += 1
            print("FAIL %s (%.1f s)" % (name, time.time() - t0))
            for e in errors:
                print("  - " + e)
            print("  ---- serial log %s ----\n%s\n  ---- end of log ----" % (log, (text or "")[-6000:]))
        else:
            passed += 1
            print("ok   %s (%.1f s)" % (name, time.time() - t0))
        sys.stdout.flush()
    print("series tests: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
