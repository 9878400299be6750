#!/usr/bin/env python3
"""qbsecureboot - what the stick's Secure Boot chain is made of and booted with: PE headers (NX_COMPAT, W^X
sections), GRUB's .sbat, the signing key and its certificate, and the firmware with its variable stores.

PE/COFF layout from Microsoft's "PE Format" (Optional Header Windows-Specific Fields; Section Table; Section
Flags). Shared by tools/mkimage, tools/qemu-run and the boot tests. As a program:

    python3 tools/qbsecureboot.py nx-compat FILE   set NX_COMPAT in FILE (after checking its sections), pad it
                                                   to 8 bytes and set its checksum, as sbsign would
    python3 tools/qbsecureboot.py check FILE       exit 1 unless NX_COMPAT is set and the sections are W^X
"""
import argparse
import os
import re
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# ---- PE/COFF ---------------------------------------------------------------
PE_LFANEW = 0x3C                       # DOS header: offset of the PE signature
PE_SIGNATURE = b"PE\0\0"
COFF_HEADER_SIZE = 20
PE32PLUS_MAGIC = 0x20B
OPT_SECTION_ALIGNMENT = 32             # optional header offsets (PE32+)
OPT_CHECKSUM = 64
OPT_DLL_CHARACTERISTICS = 70
DLLCHAR_NX_COMPAT = 0x0100             # IMAGE_DLLCHARACTERISTICS_NX_COMPAT
SECTION_HEADER_SIZE = 40
SCN_MEM_EXECUTE = 0x20000000
SCN_MEM_WRITE = 0x80000000
PAGE = 4096


class PeError(ValueError):
    pass


def pe_layout(data):
    """(offset of the optional header, [(name, virtual address, virtual size, characteristics)], section
    alignment, DllCharacteristics) of a PE32+ image."""
    if len(data) < 0x40 or data[:2] != b"MZ":
        raise PeError("not a PE image (no MZ header)")
    pe = struct.unpack_from("<I", data, PE_LFANEW)[0]
    if data[pe:pe + 4] != PE_SIGNATURE:
        raise PeError("not a PE image (no PE signature at 0x%x)" % pe)
    nsections, opt_size = struct.unpack_from("<H12xH", data, pe + 4 + 2)
    opt = pe + 4 + COFF_HEADER_SIZE
    if struct.unpack_from("<H", data, opt)[0] != PE32PLUS_MAGIC:
        raise PeError("not a PE32+ image")
    align = struct.unpack_from("<I", data, opt + OPT_SECTION_ALIGNMENT)[0]
    dllchar = struct.unpack_from("<H", data, opt + OPT_DLL_CHARACTERISTICS)[0]
    sections = []
    for i in range(nsections):
        at = opt + opt_size + i * SECTION_HEADER_SIZE
        name = data[at:at + 8].rstrip(b"\0").decode("latin-1")
        vsize, vaddr = struct.unpack_from("<II", data, at + 8)
        flags = struct.unpack_from("<I", data, at + 36)[0]
        sections.append((name, vaddr, vsize, flags))
    return opt, sections, align, dllchar


def pe_problems(data, want_nx=True):
    """What keeps the image from loading under strict memory protection: a section both writable and
    executable, sections not on 4 KiB pages, NX_COMPAT missing (want_nx). Empty when none."""
    _, sections, align, dllchar = pe_layout(data)
    out = []
    if align % PAGE:
        out.append("SectionAlignment is 0x%x, not a multiple of 4 KiB" % align)
    for name, vaddr, vsize, flags in sections:
        if flags & SCN_MEM_EXECUTE and flags & SCN_MEM_WRITE:
            out.append("section %s is writable and executable" % name)
        if vaddr % PAGE:
            out.append("section %s starts at 0x%x, not on a 4 KiB page" % (name, vaddr))
    if want_nx and not dllchar & DLLCHAR_NX_COMPAT:
        out.append("DllCharacteristics 0x%04x lacks NX_COMPAT (0x%04x)" % (dllchar, DLLCHAR_NX_COMPAT))
    return out


def pe_checksum(data, field):
    """The PE image checksum (16-bit one's-complement-style sum with carries folded, plus the length),
    with the checksum field itself taken as zero."""
    buf = bytearray(data)
    buf[field:field + 4] = b"\0\0\0\0"
    if len(buf) % 2:
        buf.append(0)
    total = 0
    for (word,) in struct.iter_unpack("<H", bytes(buf)):
        total += word
        total = (total & 0xFFFF) + (total >> 16)
    total = (total & 0xFFFF) + (total >> 16)
    return (total + len(data)) & 0xFFFFFFFF


SIGNATURE_ALIGN = 8                    # sbsign pads the image to 8 bytes before it appends the signature


def pe_normalise(path, nx_compat):
    """Put the image in the form sbsign leaves behind once sbattach --remove takes its signature away:
    padded to 8 bytes, with the PE checksum right; so a signed stick's files, stripped, equal the unsigned
    ones byte for byte. With nx_compat, also set NX_COMPAT in DllCharacteristics (objcopy cannot), after
    checking that strict firmware would load the sections at all."""
    with open(path, "rb") as f:
        data = bytearray(f.read())
    opt = pe_layout(data)[0]
    if nx_compat:
        problems = pe_problems(data, want_nx=False)
        if problems:
            raise PeError("; ".join(problems))
        dllchar = struct.unpack_from("<H", data, opt + OPT_DLL_CHARACTERISTICS)[0]
        struct.pack_into("<H", data, opt + OPT_DLL_CHARACTERISTICS, dllchar | DLLCHAR_NX_COMPAT)
    data += b"\0" * (-len(data) % SIGNATURE_ALIGN)
    struct.pack_into("<I", data, opt + OPT_CHECKSUM, pe_checksum(data, opt + OPT_CHECKSUM))
    with open(path, "wb") as f:
        f.write(data)


# ---- GRUB's .sbat ------------------------------------------------------------
SECUREBOOT_DIR = os.path.join(ROOT, "build", "secureboot")   # tools/sbfiles
SHIM = "usr/lib/shim/shimx64.efi.signed"
MOKMANAGER = "usr/lib/shim/mmx64.efi.signed"
SIGNED_GRUB = "usr/lib/grub/x86_64-efi-signed/grubx64.efi.signed"


def sbat_of(path):
    """A PE image's .sbat section as text, without the padding NULs."""
    with tempfile.TemporaryDirectory(prefix="qb-sbat-") as tmp:
        out = os.path.join(tmp, "sbat")
        subprocess.run(["objcopy", "-O", "binary", "--only-section=.sbat", path, out], check=True,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        with open(out, "rb") as f:
            return f.read().rstrip(b"\0").decode("ascii")


def grub_sbat(signed_grub, grub_bin_version):
    """Debian's .sbat lines for its GRUB, from its signed build, for the GRUB made from the same version's
    modules; raises ValueError when they do not describe that version (or lack a grub generation)."""
    text = sbat_of(signed_grub)
    if not re.search(r"^grub,\d+,", text, re.M):
        raise ValueError("%s's .sbat has no grub generation line:\n%s" % (signed_grub, text))
    versions = set(re.findall(r"^grub\.debian\d*,\d+,[^,]*,grub2,([^,]+),", text, re.M))
    if versions != {grub_bin_version}:
        raise ValueError("%s's .sbat describes grub2 %s, but the GRUB modules here are %s: run tools/sbfiles "
                         "again (it fetches the signed GRUB of the installed version)"
                         % (signed_grub, ", ".join(sorted(versions)) or "no version", grub_bin_version))
    return text if text.endswith("\n") else text + "\n"


# ---- the signing key ---------------------------------------------------------
# Where the stick's certificate is, named for what the user does with it (MokManager lists file names).
CERT_ON_STICK = "/ENROLL_THIS_KEY_IN_MOKMANAGER.cer"


def cert_pem(der_or_pem_path):
    """A certificate (DER or PEM) as PEM text, through openssl."""
    with open(der_or_pem_path, "rb") as f:
        head = f.read(64)
    form = "PEM" if b"-----BEGIN" in head else "DER"
    return subprocess.run(["openssl", "x509", "-inform", form, "-in", der_or_pem_path, "-outform", "PEM"],
                          check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE).stdout.decode()


# ---- firmware ------------------------------------------------------------------
OVMF12 = "/usr/share/OVMF"
OVMF13 = os.path.join(ROOT, "build", "ovmf13", "usr", "share", "OVMF")   # tools/ovmf13
# Owner GUID of the entries the tests add to db and MokList (any GUID will do; this one is QuietBench's).
OWNER_GUID = "6f0b5d0e-2a63-4b8c-9a51-0b7e5c1a2b30"
# --secure-boot modes: what the variable store holds besides Microsoft's keys (OVMF_VARS_4M.ms.fd).
SB_MODES = ("mok", "db", "not-enrolled")


def firmware(secure_boot, strict_nx):
    """(code, vars template) for a boot: Debian 12's OVMF, or Debian 13's strict-NX build; Secure Boot on
    (secure_boot is one of SB_MODES: Microsoft's keys enrolled) or off."""
    if strict_nx:
        return (os.path.join(OVMF13, "OVMF_CODE_4M.secboot.strictnx.fd"),
                os.path.join(OVMF13, "OVMF_VARS_4M.ms.fd" if secure_boot else "OVMF_VARS_4M.fd"))
    if secure_boot:
        return os.path.join(OVMF12, "OVMF_CODE_4M.secboot.fd"), os.path.join(OVMF12, "OVMF_VARS_4M.ms.fd")
    return os.path.join(OVMF12, "OVMF_CODE_4M.fd"), os.path.join(OVMF12, "OVMF_VARS_4M.fd")


def secure_qemu_args():
    """What OVMF's Secure Boot builds need from QEMU: SMM, and the variable store writable only from it."""
    return ["-global", "driver=cfi.pflash01,property=secure,value=on"]


def make_vars(template, out, mode, cert):
    """The variable store for a boot: a copy of template, with cert added to MokList (mode mok) or db (mode
    db) by virt-fw-vars; not-enrolled and Secure Boot off take the template as it is."""
    if mode not in ("mok", "db"):
        with open(template, "rb") as f, open(out, "wb") as g:
            g.write(f.read())
        return
    pem = out + ".cert.pem"
    with open(pem, "w") as f:
        f.write(cert_pem(cert))
    p = subprocess.run(["virt-fw-vars", "--input", template, "--output", out,
                        "--add-mok" if mode == "mok" else "--add-db", OWNER_GUID, pem],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    os.remove(pem)
    if p.returncode != 0:
        raise OSError("virt-fw-vars failed: %s" % p.stdout.decode(errors="replace"))


# What each refusal looks like on the console (COM1 carries OVMF's console): the firmware's own
# (its boot manager and the image verifier), shim's, and GRUB's, as (marker, who, what to do).
REFUSALS = (
    ("Access Denied", "the firmware",
     "it does not trust shim: its db lacks Microsoft's UEFI CA (allow the third-party CA in its setup, "
     "docs/real-machines.md)"),
    ("Verification failed", "shim",
     "the stick's key is not enrolled (or its GRUB's .sbat is revoked): enroll "
     "ENROLL_THIS_KEY_IN_MOKMANAGER.cer in MokManager (docs/real-machines.md)"),
    ("bad shim signature", "GRUB",
     "quietbench.efi is not signed by a key shim trusts: rebuild the stick with make image"),
)


def refusal(line):
    """(marker, who, what to do) if the console line is a Secure Boot refusal, else None."""
    for r in REFUSALS:
        if r[0] in line:
            return r
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("action", choices=("nx-compat", "check"))
    ap.add_argument("file")
    a = ap.parse_args()
    try:
        if a.action == "nx-compat":
            pe_normalise(a.file, nx_compat=True)
        with open(a.file, "rb") as f:
            problems = pe_problems(f.read())
    except (OSError, PeError) as e:
        print("qbsecureboot: %s: %s" % (a.file, e), file=sys.stderr)
        return 1
    for p in problems:
        print("qbsecureboot: %s: %s" % (a.file, p), file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
