#!/usr/bin/env python3
"""secureboot_tests - the stick under Secure Boot as machines are sold (Microsoft's keys), as its user meets
it: signed right, refused where it must be, enrolled once, and under strict-NX firmware.

The image is the tests' (build/test/quietbench.img, signed with the throwaway key under build/test-key/);
--unsigned is make image-unsigned's. Boots go through tools/qemu-run, which reads the stick's results.log
back and compares it with serial.

make sbtest (in make test):
  signatures       no boot: sbverify --cert accepts GRUB and quietbench.efi with the build's certificate and
                   refuses them with another; \\EFI\\BOOT holds Debian's shim and MokManager byte for byte
                   and no fbx64.efi; GRUB's .sbat is Debian's, its grub generation at least shim's
                   SbatLevel; quietbench.efi has NX_COMPAT and W^X sections on 4 KiB pages; the stick's
                   certificate is the build's, and no private key is anywhere on it
  stripped         no boot: the signed image holds the unsigned image's files, byte for byte, once
                   sbattach --remove strips GRUB's and quietbench.efi's signatures; only the certificate
                   is added, and the volume id is the same
  sb-mok           Secure Boot, Microsoft's keys, the build's key pre-seeded in MokList: done ok, and the
                   stick's results.log holds what serial had
  sb-not-enrolled  Secure Boot, Microsoft's keys only: qemu-run says shim refused it ("Verification
                   failed") and exits 1, without waiting for its timeout
make test-slow (--slow):
  mokmanager       the key enrolled in MokManager over serial like a person (tests/boot/mokmanager.py),
                   then the next boot, with the variable store it left, ends done ok
  mok-entry        GRUB's "Secure Boot: enroll this stick's key" entry starts MokManager under Secure Boot:
                   its menu (Enroll key from disk, Enroll hash from disk) comes up
  sb-db            the build's certificate in the firmware's db instead (a machine owner's way): done ok
  unsigned-efi     quietbench.efi's signature removed: GRUB refuses it ("bad shim signature"), qemu-run
                   says so and exits 1
  no-third-party   a firmware whose db lacks Microsoft's UEFI CA (Debian's snakeoil keys): the firmware
                   refuses shim ("Access Denied"), qemu-run says so and exits 1
  strictnx-sb      Debian 13's strict-NX OVMF, Secure Boot on, the key in MokList: done ok
  strictnx-off     the same firmware, Secure Boot off, the unsigned image: done ok
  strictnx-probe   the control: a probe in quietbench.efi's place that runs code from its own .data section
                   comes back under Debian 12's OVMF and dies under the strict one, Secure Boot on (so
                   strictnx-sb can fail)

The last line is "secureboot tests: N passed, N failed"; each case prints its time.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import qbsecureboot  # noqa: E402
import mokmanager  # noqa: E402

QEMU_RUN = os.path.join(ROOT, "tools", "qemu-run")
QUICK = ["profile=quick", "workloads=selftest"]
FAT = "@@1M"
SIGNED = ("/EFI/BOOT/grubx64.efi", "/quietbench.efi")
# Marks of a PEM private key, cut in two so that this file holds neither whole.
PRIVATE_MARKS = (b"PRIVATE " + b"KEY-----",)


def sh(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kw)


def files_of(image, tmp, tag):
    """{path: bytes} of every file on the image's FAT, copied off with mtools."""
    dest = os.path.join(tmp, tag)
    os.makedirs(dest)
    p = sh(["mcopy", "-s", "-n", "-i", image + FAT, "::/", dest])
    if p.returncode != 0:
        raise OSError("mcopy from %s: %s" % (image, p.stdout.decode(errors="replace")))
    out = {}
    for base, _, names in os.walk(dest):
        for n in names:
            path = os.path.join(base, n)
            with open(path, "rb") as f:
                out["/" + os.path.relpath(path, dest)] = f.read()
    return out


def qemu_run(args, log, timeout=300):
    t0 = time.time()
    p = subprocess.run([QEMU_RUN, "--quiet", "--smp", "2", "--log", log] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=timeout)
    return p.returncode, p.stdout, time.time() - t0


def expect_ok(a, tmp, args, name):
    """A boot through qemu-run that must end done ok with the stick's results.log checked."""
    log = os.path.join(a.logdir, name + ".log")
    rc, out, _ = qemu_run(args + ["--", *QUICK], log)
    errors = [] if rc == 0 else ["qemu-run exit %d, expected 0" % rc]
    if "the stick's results.log holds the" not in out:
        errors.append("qemu-run did not check the stick's results.log against serial")
    return errors, out


def expect_refusal(a, args, name, who, marker):
    """A boot that the firmware, shim or GRUB must refuse: qemu-run names who and what, exit 1."""
    log = os.path.join(a.logdir, name + ".log")
    rc, out, _ = qemu_run(args + ["--timeout", "280", "--", *QUICK], log)
    errors = [] if rc == 1 else ["qemu-run exit %d, expected 1" % rc]
    want = 'Secure Boot: %s refused an image ("%s")' % (who, marker)
    if want not in out:
        errors.append("qemu-run did not say %r" % want)
    return errors, out


# ---- make sbtest ------------------------------------------------------------------
def case_signatures(a, tmp):
    errors, notes = [], []
    files = files_of(a.image, tmp, "signed")
    other_key, other_cert = os.path.join(tmp, "other.key"), os.path.join(tmp, "other.crt")
    sh(["openssl", "req", "-new", "-x509", "-newkey", "rsa:2048", "-sha256", "-nodes", "-days", "1",
        "-subj", "/CN=not the build's key", "-keyout", other_key, "-out", other_cert], check=True)
    for name in SIGNED:
        path = os.path.join(tmp, "signed" + name)
        good = sh(["sbverify", "--cert", a.cert, path])
        bad = sh(["sbverify", "--cert", other_cert, path])
        if good.returncode != 0:
            errors.append("sbverify --cert %s %s: %s" % (a.cert, name, good.stdout.decode(errors="replace")))
        if bad.returncode == 0:
            errors.append("sbverify accepts %s with a certificate that did not sign it" % name)
        notes.append("%s: %s" % (name, good.stdout.decode(errors="replace").strip().splitlines()[-1:]))
    sb = a.sb_files
    for name, src in (("/EFI/BOOT/BOOTX64.EFI", qbsecureboot.SHIM), ("/EFI/BOOT/mmx64.efi", qbsecureboot.MOKMANAGER)):
        with open(os.path.join(sb, src), "rb") as f:
            if files.get(name) != f.read():
                errors.append("%s is not Debian's %s" % (name, os.path.basename(src)))
    if any(n.lower().endswith("fbx64.efi") for n in files):
        errors.append("fbx64.efi is on the stick: shim's fallback would loop on Reset System")
    sbat = qbsecureboot.sbat_of(os.path.join(tmp, "signed/EFI/BOOT/grubx64.efi"))
    debian = qbsecureboot.sbat_of(os.path.join(sb, qbsecureboot.SIGNED_GRUB))
    if sbat.strip() != debian.strip():
        errors.append("GRUB's .sbat is not Debian's:\n%s\n--- Debian's:\n%s" % (sbat, debian))
    level = shim_grub_level(os.path.join(sb, qbsecureboot.SHIM), tmp)
    gen = re.search(r"^grub,(\d+),", sbat, re.M)
    if not gen or level is None or int(gen.group(1)) < level:
        errors.append("GRUB's grub generation %s is below shim's SbatLevel grub,%s" % (gen and gen.group(1), level))
    problems = qbsecureboot.pe_problems(files.get("/quietbench.efi", b""))
    errors.extend("quietbench.efi: " + p for p in problems)
    der = sh(["openssl", "x509", "-in", a.cert, "-outform", "DER"]).stdout
    if files.get(qbsecureboot.CERT_ON_STICK) != der:
        errors.append("%s is not the build's certificate in DER" % qbsecureboot.CERT_ON_STICK)
    with open(a.image, "rb") as f:
        raw = f.read()
    with open(a.key, "rb") as f:
        key_body = [line for line in f.read().splitlines() if line and not line.startswith(b"-----")]
    if any(m in raw for m in PRIVATE_MARKS) or any(line in raw for line in key_body[1:-1]):
        errors.append("the image holds the private key, or a private key")
    return errors, "\n".join(notes)


def shim_grub_level(shim, tmp):
    """The highest grub generation in shim's built-in SbatLevel (.sbatlevel: its previous and latest)."""
    out = os.path.join(tmp, "sbatlevel")
    sh(["objcopy", "-O", "binary", "--only-section=.sbatlevel", shim, out], check=True)
    with open(out, "rb") as f:
        levels = [int(g) for g in re.findall(rb"^grub,(\d+)$", f.read(), re.M)]
    return max(levels) if levels else None


def case_stripped(a, tmp):
    signed, unsigned = files_of(a.image, tmp, "signed"), files_of(a.unsigned, tmp, "unsigned")
    errors = []
    for name in SIGNED:
        path = os.path.join(tmp, "signed" + name)
        p = sh(["sbattach", "--remove", path])
        if p.returncode != 0:
            errors.append("sbattach --remove %s: %s" % (name, p.stdout.decode(errors="replace")))
        with open(path, "rb") as f:
            signed[name] = f.read()
    extra = sorted(set(signed) - set(unsigned))
    if extra != [qbsecureboot.CERT_ON_STICK]:
        errors.append("the signed image adds %s, expected only %s" % (extra, qbsecureboot.CERT_ON_STICK))
    missing = sorted(set(unsigned) - set(signed))
    if missing:
        errors.append("the signed image lacks %s" % missing)
    differ = sorted(n for n in set(signed) & set(unsigned) if signed[n] != unsigned[n])
    if differ:
        errors.append("differ once the signatures are removed: %s" % differ)
    ids = [sh(["mdir", "-i", img + FAT, "::/"]).stdout.decode().split("Serial Number is ")[-1].split()[0]
           for img in (a.image, a.unsigned)]
    if ids[0] != ids[1]:
        errors.append("volume ids differ: signed %s, unsigned %s" % tuple(ids))
    return errors, "%d files compared, volume %s" % (len(set(signed) & set(unsigned)), ids[0])


def case_sb_mok(a, tmp):
    return expect_ok(a, tmp, ["--image", a.image, "--secure-boot", "mok"], "sb-mok")


def case_sb_not_enrolled(a, tmp):
    return expect_refusal(a, ["--image", a.image, "--secure-boot", "not-enrolled"], "sb-not-enrolled", "shim",
                          "Verification failed")


# ---- make test-slow ----------------------------------------------------------------
def case_mokmanager(a, tmp):
    stick, store = os.path.join(tmp, "stick.img"), os.path.join(tmp, "vars.fd")
    shutil.copyfile(a.image, stick)
    qbsecureboot.make_vars(qbsecureboot.firmware("not-enrolled", False)[1], store, "not-enrolled", None)
    errors, log = mokmanager.enroll(stick, store, tmp)
    with open(os.path.join(a.logdir, "mokmanager-enroll.log"), "w", encoding="latin-1") as f:
        f.write(log)
    if errors:
        return errors, log[-3000:]
    # The machine as it came back up: its variable store now holds the key (no pre-seeding here).
    return expect_ok(a, tmp, ["--image", stick, "--secure-boot", "not-enrolled", "--vars", store], "mokmanager")


def case_mok_entry(a, tmp):
    """GRUB's menu entry starts MokManager on purpose (chainloaded, shim verifying it): its menu comes up."""
    stick, store, cfg = (os.path.join(tmp, n) for n in ("stick.img", "vars.fd", "quietbench.cfg"))
    shutil.copyfile(a.image, stick)
    with open(cfg, "w") as f:
        f.write("set timeout=0\nset default=mokmanager\n")
    sh(["mcopy", "-o", "-i", stick + FAT, cfg, "::/quietbench.cfg"], check=True)
    qbsecureboot.make_vars(qbsecureboot.firmware("mok", False)[1], store, "mok", a.cert)
    m = mokmanager.Machine(stick, store, tmp)
    errors = []
    try:
        for words in ("Press any key to perform MOK management", "Enroll hash from disk"):
            if not m.wait_for(words):
                errors.append("%r never came on the screen" % words)
                break
            m.press(mokmanager.ENTER)
        text = m.screen_text()
    finally:
        m.stop()
    with open(os.path.join(a.logdir, "mok-entry.log"), "w", encoding="latin-1") as f:
        f.write(m.log.decode("latin-1"))
    return errors, text


def case_sb_db(a, tmp):
    return expect_ok(a, tmp, ["--image", a.image, "--secure-boot", "db"], "sb-db")


def case_unsigned_efi(a, tmp):
    stick, efi = os.path.join(tmp, "stick.img"), os.path.join(tmp, "quietbench.efi")
    shutil.copyfile(a.image, stick)
    sh(["mcopy", "-o", "-i", stick + FAT, "::/quietbench.efi", efi], check=True)
    sh(["sbattach", "--remove", efi], check=True)
    sh(["mcopy", "-o", "-i", stick + FAT, efi, "::/quietbench.efi"], check=True)
    return expect_refusal(a, ["--image", stick, "--secure-boot", "mok", "--cert", a.cert], "unsigned-efi", "GRUB",
                          "bad shim signature")


def case_no_third_party(a, tmp):
    store = os.path.join(tmp, "vars.fd")
    shutil.copyfile(os.path.join(qbsecureboot.OVMF12, "OVMF_VARS_4M.snakeoil.fd"), store)
    return expect_refusal(a, ["--image", a.image, "--secure-boot", "not-enrolled", "--vars", store],
                          "no-third-party", "the firmware", "Access Denied")


def case_strictnx_sb(a, tmp):
    return expect_ok(a, tmp, ["--image", a.image, "--strict-nx", "--secure-boot", "mok"], "strictnx-sb")


def case_strictnx_off(a, tmp):
    return expect_ok(a, tmp, ["--image", a.unsigned, "--strict-nx"], "strictnx-off")


def case_strictnx_probe(a, tmp):
    """nxprobe.efi (tests/boot/nxprobe.c), signed like quietbench.efi and in its place on a copy of the stick,
    runs a RET from its own .data section: it comes back under Debian 12's Secure Boot OVMF, and Debian 13's
    strict-NX build (shim setting W^X on what it loads) stops it with a page fault."""
    stick, probe = os.path.join(tmp, "stick.img"), os.path.join(tmp, "nxprobe.efi")
    shutil.copyfile(a.image, stick)
    sh(["sbsign", "--key", a.key, "--cert", a.cert, "--output", probe, a.nxprobe], check=True)
    sh(["mcopy", "-o", "-i", stick + FAT, probe, "::/quietbench.efi"], check=True)
    errors, out = [], ""
    for strict, want in ((False, b"nxprobe: ran code from its .data section"), (True, b"X64 Exception Type - 0E")):
        cmd = [QEMU_RUN, "--image", stick, "--secure-boot", "mok", "--smp", "1", "--timeout", "280"]
        p = subprocess.Popen(cmd + (["--strict-nx"] if strict else []) + ["--", *QUICK], stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        text, deadline = b"", time.time() + 280
        os.set_blocking(p.stdout.fileno(), False)
        while time.time() < deadline and p.poll() is None and want not in text and b"nxprobe: ran" not in text:
            text += p.stdout.read() or b""
            time.sleep(0.2)
        p.terminate()  # qemu-run stops QEMU and removes its copy
        p.wait(30)
        text += p.stdout.read() or b""
        out += text.decode("latin-1")[-1500:]
        if want not in text:
            errors.append("%s OVMF: %r never came" % ("strict-NX" if strict else "Debian 12's", want.decode()))
        if strict and b"nxprobe: ran code" in text:
            errors.append("the strict-NX firmware ran code from the probe's .data: it enforces nothing")
    return errors, out


FAST = [("signatures", case_signatures), ("stripped", case_stripped), ("sb-mok", case_sb_mok),
        ("sb-not-enrolled", case_sb_not_enrolled)]
SLOW = [("mokmanager", case_mokmanager), ("mok-entry", case_mok_entry), ("sb-db", case_sb_db),
        ("unsigned-efi", case_unsigned_efi),
        ("no-third-party", case_no_third_party), ("strictnx-sb", case_strictnx_sb),
        ("strictnx-off", case_strictnx_off), ("strictnx-probe", case_strictnx_probe)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--image", default=os.path.join(ROOT, "build", "test", "quietbench.img"))
    ap.add_argument("--unsigned", default=os.path.join(ROOT, "build", "quietbench-unsigned.img"))
    ap.add_argument("--key", default=os.path.join(ROOT, "build", "test-key", "quietbench-test.key"))
    ap.add_argument("--cert", default=os.path.join(ROOT, "build", "test-key", "quietbench-test.crt"))
    ap.add_argument("--sb-files", default=os.path.join(ROOT, "build", "secureboot"),
                    help="Debian's shim, MokManager and signed GRUB (tools/sbfiles), to compare the stick with")
    ap.add_argument("--nxprobe", default=os.path.join(ROOT, "build", "test", "nxprobe.efi"))
    ap.add_argument("--logdir", default=os.path.join(ROOT, "build", "sbtest"))
    ap.add_argument("--slow", action="store_true", help="the slow tier's cases instead")
    ap.add_argument("cases", nargs="*", help="case names (default: the tier's)")
    a = ap.parse_args()
    cases = SLOW if a.slow else FAST
    if a.cases:
        known = dict(FAST + SLOW)
        unknown = [c for c in a.cases if c not in known]
        if unknown:
            print("secureboot tests: no case %s (cases: %s)" % (" ".join(unknown), " ".join(known)))
            return 2
        cases = [(c, known[c]) for c in a.cases]
    for f in (a.image, a.unsigned, a.key, a.cert):
        if not os.path.exists(f):
            print("secureboot tests: %s is missing (make build/test/quietbench.img image-unsigned)" % f)
            print("secureboot tests: 0 passed, 1 failed")
            return 1
    os.makedirs(a.logdir, exist_ok=True)
    passed = failed = 0
    for name, fn in cases:
        tmp = tempfile.mkdtemp(prefix="qb-sb-")
        t0 = time.time()
        try:
            errors, out = fn(a, tmp)
        except (OSError, subprocess.CalledProcessError, subprocess.TimeoutExpired, RuntimeError) as e:
            errors, out = ["set-up failed: %s" % e], ""
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        took = time.time() - t0
        if errors:
            failed += 1
            print("FAIL %s (%.1f s)" % (name, took))
            for e in errors:
                print("  - " + e)
            print("  ---- output (serial logs in %s) ----\n%s\n  ---- end ----" % (a.logdir, out))
        else:
            passed += 1
            print("ok   %s (%.1f s)" % (name, took))
        sys.stdout.flush()
    print("secureboot tests: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
