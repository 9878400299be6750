#!/usr/bin/env python3
"""test_debfetch - tools/debfetch.py, offline, on packages that dpkg-deb -b builds here: a package whose
SHA-256, name, version and architecture match its record unpacks; a swapped one, a stray one beside it, a
link, one missing, one that names another package, or a folder that others can write are refused with
nothing unpacked; and fetch (apt replaced by a fake that plays apt-get download and, for one test, an
intruder) downloads into folders of mode 700 and passes apt the options the checks rely on.

Run: /usr/bin/python3 -m pytest tests/tools/test_debfetch.py
"""
import hashlib
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import debfetch  # noqa: E402

NAME, VERSION, ARCH = "qb-fake", "1:2.0-1", "all"      # an epoch, so the file name carries %3a
PAYLOAD = "usr/share/qb-fake/hello"


def build_deb(where, name=NAME, version=VERSION, arch=ARCH, text="from Debian\n"):
    """A real .deb, built with dpkg-deb -b, holding PAYLOAD with TEXT; returns its path."""
    tree = tempfile.mkdtemp(dir=where)
    os.makedirs(os.path.join(tree, "DEBIAN"))
    os.makedirs(os.path.join(tree, os.path.dirname(PAYLOAD)))
    with open(os.path.join(tree, "DEBIAN", "control"), "w") as f:
        f.write("Package: %s\nVersion: %s\nArchitecture: %s\nMaintainer: QuietBench <qb@example.org>\n"
                "Description: a test package\n" % (name, version, arch))
    with open(os.path.join(tree, PAYLOAD), "w") as f:
        f.write(text)
    out = tree + ".deb"
    subprocess.run(["dpkg-deb", "--root-owner-group", "-Zgzip", "-b", tree, out], check=True,
                   stdout=subprocess.DEVNULL)
    return out


def record_of(path, name=NAME, version=VERSION, arch=ARCH):
    """What apt's lists would say of the package at PATH: its stanza, with hashlib's SHA-256 of it."""
    with open(path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    return {"Package": name, "Version": version, "Architecture": arch, "SHA256": digest,
            "Filename": "pool/main/q/%s/%s_%s_%s.deb" % (name, name, version.split(":")[-1], arch)}


def stanza(rec):
    return "".join("%s: %s\n" % kv for kv in rec.items()) + "Description: a test package\n continued\n\n"


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="qb-debfetch-test-")
        self.addCleanup(shutil.rmtree, self.tmp)
        self.good = build_deb(self.tmp)
        self.rec = record_of(self.good)
        self.folder = os.path.join(self.tmp, "downloads")
        os.mkdir(self.folder, 0o700)
        self.dest = os.path.join(self.tmp, "dest")

    def put(self, src, name=None):
        shutil.copy(src, os.path.join(self.folder, name or debfetch.deb_name(self.rec)))

    def refused(self, *words):
        with self.assertRaises(debfetch.FetchError) as cm:
            debfetch.unpack([self.rec], self.folder, self.dest)
        for w in words:
            self.assertIn(w, str(cm.exception))
        self.assertFalse(os.path.exists(os.path.join(self.dest, PAYLOAD)), "a refused package was unpacked")
        return str(cm.exception)


class UnpackTest(Base):
    def test_good_package_unpacks(self):
        self.put(self.good)
        self.assertEqual(debfetch.deb_name(self.rec), "qb-fake_1%3a2.0-1_all.deb")
        got = debfetch.unpack([self.rec], self.folder, self.dest)
        self.assertEqual([r["Package"] for r in got], [NAME])
        with open(os.path.join(self.dest, PAYLOAD)) as f:
            self.assertEqual(f.read(), "from Debian\n")

    def test_dest_is_replaced(self):
        os.makedirs(self.dest)
        open(os.path.join(self.dest, "old"), "w").close()
        self.put(self.good)
        debfetch.unpack([self.rec], self.folder, self.dest)
        self.assertFalse(os.path.exists(os.path.join(self.dest, "old")))
        self.assertTrue(os.path.exists(os.path.join(self.dest, PAYLOAD)))

    def test_swapped_package_refused(self):
        # Same name, version and architecture, other contents: only the hash tells them apart.
        self.put(build_deb(self.tmp, text="from someone else\n"))
        os.makedirs(self.dest)
        open(os.path.join(self.dest, "kept"), "w").close()
        msg = self.refused("SHA-256", self.rec["SHA256"], "nothing unpacked")
        self.assertTrue(os.path.exists(os.path.join(self.dest, "kept")), "DEST changed though refused: " + msg)

    def test_stray_package_refused(self):
        self.put(self.good)
        stray = build_deb(self.tmp, name="qb-stray", version="1.0", text="stray\n")
        shutil.copy(stray, os.path.join(self.folder, "qb-stray_1.0_all.deb"))
        self.refused("qb-stray_1.0_all.deb", "not asked for")
        self.assertFalse(os.path.exists(self.dest))

    def test_stray_of_other_version_refused(self):
        # A second copy of the package asked for, at another version, is a stray too.
        self.put(self.good)
        other = build_deb(self.tmp, version="1:1.0-1", text="older\n")
        shutil.copy(other, os.path.join(self.folder, "qb-fake_1%3a1.0-1_all.deb"))
        self.refused("qb-fake_1%3a1.0-1_all.deb", "not asked for")

    def test_world_writable_folder_refused(self):
        self.put(self.good)
        for mode in (0o777, 0o770, 0o702):
            os.chmod(self.folder, mode)
            self.refused("mode %03o" % mode, "other users")
        os.chmod(self.folder, 0o700)
        debfetch.unpack([self.rec], self.folder, self.dest)    # the same folder, private again, passes

    def test_private_dir_is_700(self):
        old = os.umask(0)       # even with no umask to help
        try:
            d = debfetch.private_dir("qb-debfetch-test-mode-")
        finally:
            os.umask(old)
        self.addCleanup(os.rmdir, d)
        st = os.lstat(d)
        self.assertEqual(stat.S_IMODE(st.st_mode), 0o700)
        self.assertEqual(st.st_uid, os.geteuid())

    def test_other_package_refused(self):
        # A package that names itself otherwise, even with the hash the record gives, is refused.
        other = build_deb(self.tmp, name="qb-other")
        self.rec = record_of(other)
        self.put(other)
        self.refused("Package", "'qb-other'", "'qb-fake'")

    def test_other_architecture_refused(self):
        other = build_deb(self.tmp, arch="amd64")
        self.rec = record_of(other)
        self.put(other)
        self.refused("Architecture", "'amd64'")

    def test_missing_package_refused(self):
        self.refused("missing", debfetch.deb_name(self.rec))

    def test_link_refused(self):
        os.symlink(self.good, os.path.join(self.folder, debfetch.deb_name(self.rec)))
        self.refused("not a plain file")

    def test_record_without_hash_refused(self):
        self.put(self.good)
        del self.rec["SHA256"]
        self.refused("no SHA256")

    def test_command_line(self):
        records = os.path.join(self.tmp, "records")
        with open(records, "w") as f:
            f.write(stanza(self.rec))
        self.put(self.good)
        stray = os.path.join(self.folder, "evil_1.0_amd64.deb")
        shutil.copy(build_deb(self.tmp, name="evil", version="1.0", arch="amd64"), stray)
        argv = [sys.executable, os.path.join(ROOT, "tools", "debfetch.py"), "unpack", records, self.folder,
                self.dest]
        p = subprocess.run(argv, capture_output=True, text=True)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("evil_1.0_amd64.deb", p.stderr)
        self.assertEqual(p.stdout, "")
        self.assertFalse(os.path.exists(self.dest))
        os.unlink(stray)
        p = subprocess.run(argv, capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.split(), [NAME, VERSION, ARCH, self.rec["SHA256"]])
        self.assertTrue(os.path.exists(os.path.join(self.dest, PAYLOAD)))


class ParseTest(unittest.TestCase):
    def test_stanzas(self):
        text = stanza({"Package": "a", "Version": "1", "SHA256": "x"}) + stanza({"Package": "b", "Version": "2"})
        recs = debfetch.parse_records(text)
        self.assertEqual([(r["Package"], r["Version"]) for r in recs], [("a", "1"), ("b", "2")])
        self.assertEqual(recs[0]["SHA256"], "x")
        self.assertEqual(recs[0]["Description"], "a test package\ncontinued")


class FakeApt(debfetch.Apt):
    """apt with no network: apt-cache show answers from RECORDS, apt-get download copies from DEBS (and, if
    INTRUDER is set, drops that file beside them as another user would); every call and folder mode noted."""
    RECORDS, DEBS, INTRUDER = {}, {}, None

    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.calls = []
        FakeApt.last = self

    def run(self, argv, cwd=None):
        self.calls.append((argv, cwd, cwd and stat.S_IMODE(os.lstat(cwd).st_mode)))
        if argv[0] == "apt-cache":
            spec = argv[-1]
            out = "".join(stanza(r) for r in self.RECORDS.values() if spec in (r["Package"], "%s=%s"
                          % (r["Package"], r["Version"])))
            return subprocess.CompletedProcess(argv, 0 if out else 100, out, "" if out else "E: No packages found")
        if "download" in argv:
            for spec in argv[argv.index("download") + 1:]:
                rec = self.RECORDS[spec.split("=")[0]]
                shutil.copy(self.DEBS[rec["Package"]], os.path.join(cwd, debfetch.deb_name(rec)))
            if self.INTRUDER:
                shutil.copy(self.INTRUDER, cwd)
            return subprocess.CompletedProcess(argv, 0, "", "")
        if "update" in argv:
            self.update_modes = {}
            if not self.lists:
                return subprocess.CompletedProcess(argv, 0, "", "")
            with open(os.path.join(os.path.dirname(self.lists), "sources.list")) as f:
                self.sources = f.read()
            for top, dirs, _ in os.walk(os.path.dirname(self.lists)):
                for d in [top] + [os.path.join(top, x) for x in dirs]:
                    self.update_modes[d] = stat.S_IMODE(os.lstat(d).st_mode)
            return subprocess.CompletedProcess(argv, 0, "", "")
        raise AssertionError("unexpected apt call %r" % argv)


class FetchTest(Base):
    def setUp(self):
        super().setUp()
        FakeApt.RECORDS, FakeApt.DEBS, FakeApt.INTRUDER = {NAME: self.rec}, {NAME: self.good}, None

    def test_fetch_downloads_into_private_folder(self):
        got = debfetch.fetch(self.dest, [NAME], release="bookworm-backports", apt_class=FakeApt)
        self.assertEqual([r["SHA256"] for r in got], [self.rec["SHA256"]])
        self.assertTrue(os.path.exists(os.path.join(self.dest, PAYLOAD)))
        calls = FakeApt.last.calls
        show = [c for c in calls if c[0][0] == "apt-cache"]
        self.assertEqual(len(show), 1)
        self.assertIn("--no-all-versions", show[0][0])
        self.assertIn("bookworm-backports", show[0][0])
        dl = [c for c in calls if "download" in c[0]]
        self.assertEqual(len(dl), 1)
        argv, cwd, mode = dl[0]
        self.assertEqual(mode, 0o700, "apt-get download ran in a folder of mode %03o" % mode)
        self.assertEqual(argv[-1], "%s=%s" % (NAME, VERSION))        # the exact version of the record
        self.assertEqual("APT::Sandbox::User=root" in argv, os.geteuid() == 0)
        self.assertFalse(os.path.exists(cwd), "the download folder was left behind")

    def test_fetch_refuses_intruder(self):
        FakeApt.INTRUDER = build_deb(self.tmp, name="qb-intruder", version="6.6")
        with self.assertRaises(debfetch.FetchError) as cm:
            debfetch.fetch(self.dest, [NAME], apt_class=FakeApt)
        self.assertIn(os.path.basename(FakeApt.INTRUDER), str(cm.exception))
        self.assertFalse(os.path.exists(self.dest))

    def test_fetch_refuses_wrong_hash(self):
        FakeApt.DEBS = {NAME: build_deb(self.tmp, text="swapped\n")}
        with self.assertRaises(debfetch.FetchError) as cm:
            debfetch.fetch(self.dest, [NAME], apt_class=FakeApt)
        self.assertIn("SHA-256", str(cm.exception))
        self.assertFalse(os.path.exists(self.dest))

    def test_fetch_refuses_other_version(self):
        with self.assertRaises(debfetch.FetchError) as cm:
            debfetch.fetch(self.dest, [NAME + "=3.0"], apt_class=FakeApt)
        self.assertIn("3.0", str(cm.exception))
        self.assertFalse(os.path.exists(self.dest))
        # As root, stale system lists are refreshed once before giving up; otherwise they are not.
        updates = [c for c in FakeApt.last.calls if "update" in c[0]]
        self.assertEqual(len(updates), 1 if os.geteuid() == 0 else 0)

    def test_private_lists(self):
        source = "deb [signed-by=/usr/share/keyrings/k.gpg] http://deb.debian.org/debian trixie main"
        debfetch.fetch(self.dest, [NAME], source=source, apt_class=FakeApt)
        apt = FakeApt.last
        modes = apt.update_modes
        self.assertIn(apt.lists, modes)
        loose = {d: "%03o" % m for d, m in modes.items() if m & 0o022}
        self.assertEqual(loose, {}, "apt's private folders are writable by others")
        update = [c[0] for c in apt.calls if "update" in c[0]][0]
        for opt in ("Dir::State::Lists=" + apt.lists, "Acquire::AllowInsecureRepositories=false",
                    "Dir::State::status=/dev/null"):
            self.assertIn(opt, update)
        for argv, _, _ in apt.calls:       # apt-cache reads the same private lists that update filled
            self.assertIn("Dir::State::Lists=" + apt.lists, argv)
        self.assertEqual(apt.sources, source + "\n")


class ToolsTest(unittest.TestCase):
    def test_tools_fetch_through_debfetch(self):
        # The three download tools make no world-writable folder and leave unpacking to debfetch.
        for tool in ("sbfiles", "ovmf13", "qemu10"):
            with open(os.path.join(ROOT, "tools", tool)) as f:
                code = "\n".join(ln for ln in f.read().splitlines() if not ln.lstrip().startswith("#"))
            self.assertIn("tools/debfetch.py\" fetch", code, tool)
            self.assertIsNone(re.search(r"chmod\b[^\n]*(\b[0-7]?[0-7][0-7][2367]\b|[ao]\+[rx]*w)", code),
                              "%s makes a folder writable by others" % tool)
            for raw in ("dpkg-deb -x", "apt-get download", "mktemp"):
                self.assertNotIn(raw, code, "%s does %s itself" % (tool, raw))


if __name__ == "__main__":
    unittest.main()
