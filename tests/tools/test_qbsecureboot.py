#!/usr/bin/env python3
"""test_qbsecureboot - tools/qbsecureboot.py's PE work on a real UEFI image (a GRUB that grub-mkimage makes
here): the checksum it writes is the one objcopy and sbsign write, NX_COMPAT is set and nothing else
changes, a writable and executable section or one off its page is refused, and the image it leaves is what
sbattach --remove leaves once sbsign has signed it, byte for byte (so a signed stick stripped of its
signatures equals the unsigned one).

Run: python3 -m pytest tests/tools/test_qbsecureboot.py
"""
import os
import struct
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import qbsecureboot as sb  # noqa: E402


def sh(cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


class PeTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="qb-pe-")
        self.efi = os.path.join(self.tmp.name, "grub.efi")
        sh(["grub-mkimage", "-O", "x86_64-efi", "-p", "/", "-o", self.efi, "echo"])

    def tearDown(self):
        self.tmp.cleanup()

    def read(self, path=None):
        with open(path or self.efi, "rb") as f:
            return f.read()

    def test_checksum_is_objcopys(self):
        """objcopy writes the PE checksum when it copies an image: ours must be the same number."""
        copy = os.path.join(self.tmp.name, "copy.efi")
        sh(["objcopy", "--target", "efi-app-x86_64", self.efi, copy])
        data = self.read(copy)
        field = sb.pe_layout(data)[0] + sb.OPT_CHECKSUM
        written = struct.unpack_from("<I", data, field)[0]
        self.assertNotEqual(written, 0)
        self.assertEqual(sb.pe_checksum(data, field), written)

    def test_nx_compat_and_nothing_else(self):
        before = self.read()
        self.assertTrue(any("NX_COMPAT" in p for p in sb.pe_problems(before)))
        sb.pe_normalise(self.efi, nx_compat=True)
        after = self.read()
        self.assertEqual(sb.pe_problems(after), [])
        opt = sb.pe_layout(after)[0]
        self.assertEqual(sb.pe_layout(after)[3], sb.pe_layout(before)[3] | sb.DLLCHAR_NX_COMPAT)
        changed = [i for i in range(len(before)) if before[i] != after[i]]
        allowed = set(range(opt + sb.OPT_CHECKSUM, opt + sb.OPT_CHECKSUM + 4)) | \
            set(range(opt + sb.OPT_DLL_CHARACTERISTICS, opt + sb.OPT_DLL_CHARACTERISTICS + 2))
        self.assertTrue(set(changed) <= allowed, "bytes changed outside the two fields: %s" % changed[:8])
        self.assertEqual(len(after) % sb.SIGNATURE_ALIGN, 0)

    def test_refuses_writable_code_and_unaligned_sections(self):
        data = bytearray(self.read())
        opt = sb.pe_layout(data)[0]
        nsections, opt_size = struct.unpack_from("<H12xH", data, opt - sb.COFF_HEADER_SIZE + 2)
        first = opt + opt_size  # the first section header
        flags = struct.unpack_from("<I", data, first + 36)[0]
        struct.pack_into("<I", data, first + 36, flags | sb.SCN_MEM_WRITE | sb.SCN_MEM_EXECUTE)
        vaddr = struct.unpack_from("<I", data, first + 12)[0]
        struct.pack_into("<I", data, first + 12, vaddr + 0x200)
        problems = sb.pe_problems(bytes(data), want_nx=False)
        self.assertTrue(any("writable and executable" in p for p in problems), problems)
        self.assertTrue(any("not on a 4 KiB page" in p for p in problems), problems)
        with open(self.efi, "wb") as f:
            f.write(data)
        with self.assertRaises(sb.PeError):
            sb.pe_normalise(self.efi, nx_compat=True)

    def test_signed_then_stripped_is_the_same_bytes(self):
        key, cert = os.path.join(self.tmp.name, "k.key"), os.path.join(self.tmp.name, "k.crt")
        sh(["openssl", "req", "-new", "-x509", "-newkey", "rsa:2048", "-sha256", "-nodes", "-days", "1",
            "-subj", "/CN=test", "-keyout", key, "-out", cert])
        sb.pe_normalise(self.efi, nx_compat=False)
        signed = self.efi + ".signed"
        sh(["sbsign", "--key", key, "--cert", cert, "--output", signed, self.efi])
        self.assertNotEqual(self.read(signed), self.read())
        sh(["sbattach", "--remove", signed])
        self.assertEqual(self.read(signed), self.read())


if __name__ == "__main__":
    unittest.main()
