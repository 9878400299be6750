"""image_stick - the sticks image_tests boots: a copy of the image changed as a user (or a user's tools) would
change it, with mtools (this kernel has no vfat), and the QEMU command line that plugs it in."""
import os
import shutil
import socket
import subprocess
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OVMF_CODE = "/usr/share/OVMF/OVMF_CODE_4M.fd"
OVMF_VARS = "/usr/share/OVMF/OVMF_VARS_4M.fd"
FAT_OFFSET = "@@1M"   # tools/mkimage puts the FAT partition at 1 MiB
RESULTS_HDR = 512
RESULTS_DIR = "::/quietbench/"
# QEMU 7.2's usb-storage reports 512-byte blocks whatever logical_block_size says; QEMU 10's does not.
QEMU10 = os.path.join(ROOT, "build", "qemu10", "usr", "bin", "qemu-system-x86_64")


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kw)


def mtools(tool, disk, *args):
    return run([tool, "-i", disk + FAT_OFFSET] + list(args))


def results_offsets(copy):
    """Each results file's first byte in the disk image: its header, found by content and
    confirmed by reading the file back through the FAT with mtools."""
    with open(copy, "rb") as f:
        data = f.read()
    out = {}
    for name in ("results.log", "results.prev"):
        back = subprocess.run(["mtype", "-i", copy + FAT_OFFSET, RESULTS_DIR + name],
                              check=True, stdout=subprocess.PIPE).stdout[:RESULTS_HDR]
        at = data.find(back)
        if at < 0 or data.find(back, at + 1) >= 0:
            raise OSError("%s's header is not found once in the image" % name)
        out[name] = at
    return out


def series_offsets(copy, names):
    """{name: first byte in the image} of the series logs named ("01.log"), found as results_offsets does."""
    with open(copy, "rb") as f:
        data = f.read()
    out = {}
    for name in names:
        back = subprocess.run(["mtype", "-i", copy + FAT_OFFSET, RESULTS_DIR + "series/" + name],
                              check=True, stdout=subprocess.PIPE).stdout[:RESULTS_HDR]
        at = data.find(back)
        if at < 0 or data.find(back, at + 1) >= 0:
            raise OSError("series/%s's header is not found once in the image" % name)
        out["series/" + name] = at
    return out


def stick_log(disk, name):
    """A results file read back from the stick's FAT with mtools, as a user's Linux would."""
    return subprocess.run(["mtype", "-i", disk + FAT_OFFSET, RESULTS_DIR + name], check=True,
                          stdout=subprocess.PIPE).stdout.decode("latin-1")


# ---- what is done to a stick before it boots --------------------------------

def craft_damaged_header(copy, tmp, offsets):
    """results.log's header damaged on the disk."""
    with open(copy, "r+b") as f:
        f.seek(offsets["results.log"])
        f.write(b"Quietbench")


def craft_moved(copy, tmp, offsets):
    """A copy of results.log put back under its name: the header inside still names the old place,
    whose freed clusters still hold the same bytes."""
    a = os.path.join(tmp, "results.log")
    mtools("mcopy", copy, RESULTS_DIR + "results.log", a)
    mtools("mcopy", copy, a, RESULTS_DIR + "copy.log")
    mtools("mdel", copy, RESULTS_DIR + "results.log")
    mtools("mren", copy, RESULTS_DIR + "copy.log", RESULTS_DIR + "results.log")


def craft_prev_over_log(copy, tmp, offsets):
    """results.prev copied over results.log (a user keeping the older log): both headers then
    name results.prev's extent."""
    a = os.path.join(tmp, "results.prev")
    mtools("mcopy", copy, RESULTS_DIR + "results.prev", a)
    mtools("mcopy", copy, "-o", a, RESULTS_DIR + "results.log")


def craft_truncated(copy, tmp, offsets):
    """results.log saved again at half its size (an editor's save): its first cluster stays put."""
    a = os.path.join(tmp, "results.log")
    mtools("mcopy", copy, RESULTS_DIR + "results.log", a)
    with open(a, "r+b") as f:
        f.truncate(os.path.getsize(a) // 2)
    mtools("mdel", copy, RESULTS_DIR + "results.log")
    mtools("mcopy", copy, a, RESULTS_DIR + "results.log")


def craft_fragmented(copy, tmp, offsets):
    """results.log saved again, whole and with its first cluster in place, but in two pieces: a
    small file holds its second cluster (mtools takes the first free clusters)."""
    a, small = os.path.join(tmp, "results.log"), os.path.join(tmp, "small")
    with open(small, "wb") as f:
        f.write(b"x")
    mtools("mcopy", copy, RESULTS_DIR + "results.log", a)
    mtools("mdel", copy, RESULTS_DIR + "results.log")
    mtools("mcopy", copy, small, RESULTS_DIR + "first")
    mtools("mcopy", copy, small, RESULTS_DIR + "second")
    mtools("mdel", copy, RESULTS_DIR + "first")
    mtools("mcopy", copy, a, RESULTS_DIR + "results.log")
    runs = mtools("mshowfat", copy, RESULTS_DIR + "results.log").stdout.decode()
    if runs.count("<") < 2:
        raise OSError("results.log did not end up in pieces: %s" % runs)


CRAFTS = {
    "damaged-header": craft_damaged_header,
    "moved": craft_moved,
    "prev-over-log": craft_prev_over_log,
    "truncated": craft_truncated,
    "fragmented": craft_fragmented,
}


def build_4kn(image, out):
    """The image again with 4096-byte sectors (tools/mkimage --sector-size 4096), from the same build:
    the image's folder, or the one above it (the tests' image is build/test/quietbench.img)."""
    build = os.path.dirname(os.path.abspath(image))
    if not os.path.exists(os.path.join(build, "quietbench.efi")):
        build = os.path.dirname(build)
    run([os.path.join(ROOT, "tools", "mkimage"), "--efi", os.path.join(build, "quietbench.efi"),
         "--mb2", os.path.join(build, "quietbench-mb2.elf"), "--secureboot", os.path.join(build, "secureboot"),
         "--sector-size", "4096", "-o", out])


def prepare(case, image, tmp):
    """A copy of the image with the case's quietbench.cfg (and BOOTX64.EFI for uefi-direct),
    changed as the case says. Keeps before.img (and other.img, the second stick) beside it."""
    copy = os.path.join(tmp, "stick.img")
    if case.sector == 4096:
        build_4kn(image, copy)
    else:
        shutil.copyfile(image, copy)
    cfg = os.path.join(tmp, "quietbench.cfg")
    with open(cfg, "w") as f:
        f.write(case.cfg)
    mtools("mcopy", copy, "-o", cfg, "::/quietbench.cfg")
    if case.direct_efi:
        efi = os.path.join(tmp, "quietbench.efi")
        mtools("mcopy", copy, "-o", "::/quietbench.efi", efi)
        mtools("mcopy", copy, "-o", efi, "::/EFI/BOOT/BOOTX64.EFI")
    case.offsets = results_offsets(copy)
    if case.craft:
        CRAFTS[case.craft](copy, tmp, case.offsets)
    if case.second_stick:
        shutil.copyfile(copy, os.path.join(tmp, "other.img"))
    shutil.copyfile(copy, os.path.join(tmp, "before.img"))
    return copy


def qemu_cmd(case, disk, tmp):
    cmd = ["qemu-system-x86_64", "-machine", "q35", "-accel", "tcg,thread=multi", "-cpu", "max",
           "-smp", str(case.smp), "-m", "1024", "-display", "none", "-serial", "none" if case.nocable else "stdio",
           "-monitor", "none",
           "-no-reboot", "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]
    if case.sector == 4096:
        cmd[0:1] = [QEMU10, "-L", os.path.join(os.path.dirname(os.path.dirname(QEMU10)), "share", "qemu")]
    if case.firmware == "ovmf":
        vars_copy = os.path.join(tmp, "vars.fd")
        shutil.copyfile(OVMF_VARS, vars_copy)
        stick = "if=none,id=stick,format=raw,file=" + disk
        if case.throttle:
            # The stick behind a throttle, opened wide; once the kernel writes
            # to it, its writes crawl at case.throttle bytes a second (image_tests
            # sets it through the monitor).
            stick = "if=none,id=stick,driver=throttle,throttle-group=slow,file.driver=raw,file.file.filename=" + disk
            cmd += ["-object", "throttle-group,id=slow,x-bps-write=1000000000"]
            cmd[cmd.index("-monitor") + 1] = "unix:%s,server,nowait" % os.path.join(tmp, "monitor.sock")
        cmd += ["-drive", "if=pflash,format=raw,readonly=on,file=" + OVMF_CODE,
                "-drive", "if=pflash,format=raw,file=" + vars_copy,
                "-drive", stick, "-device", "%s,id=xhci,addr=5" % case.hc]
        blocks = ",logical_block_size=4096,physical_block_size=4096" if case.sector == 4096 else ""
        if case.second_stick:
            # The same image on the lower port, not the one booted: bootindex=1 so that OVMF
            # connects it too (once any device has a bootindex, OVMF connects only those).
            cmd += ["-drive", "if=none,id=other,format=raw,file=" + os.path.join(tmp, "other.img"),
                    "-device", "usb-storage,bus=xhci.0,port=1,drive=other,bootindex=1"]
            cmd += ["-device", "usb-storage,bus=xhci.0,port=2,drive=stick,bootindex=0"]
        elif case.disk == "usb":
            cmd += ["-device", "usb-storage,bus=xhci.0,port=1,drive=stick" + blocks]
        elif case.disk == "usb-hub":
            cmd += ["-device", "usb-hub,bus=xhci.0,port=1", "-device", "usb-storage,bus=xhci.0,port=1.2,drive=stick"]
        else:
            cmd += ["-device", "ahci,id=ahci", "-device", "ide-hd,bus=ahci.0,drive=stick,bootindex=0"]
    else:  # SeaBIOS is QEMU's default firmware
        cmd += ["-drive", "if=ide,format=raw,file=" + disk]
    return cmd + list(getattr(case, "qemu_args", ()))


def hmp(sock, command):
    """One command to QEMU's human monitor on a unix socket."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(sock)
    buf = b""
    while b"(qemu)" not in buf:
        buf += s.recv(4096)
    s.sendall(command.encode() + b"\n")
    buf = b""
    while b"(qemu)" not in buf:
        buf += s.recv(4096)
    s.close()


def boot(cmd, timeout, watch=None):
    """Run QEMU, collecting stdout; returns (exit status or None on timeout, log text, seconds).
    watch: (bytes, fn): fn() once, when those bytes first appear in the log."""
    start = time.time()
    log = bytearray()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)

    def pump():
        pending = watch
        for chunk in iter(lambda: proc.stdout.read1(4096), b""):
            log.extend(chunk)
            if pending and pending[0] in log:
                pending[1]()
                pending = None

    t = threading.Thread(target=pump, daemon=True)
    t.start()
    try:
        status = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        status = None
    t.join(5)
    return status, log.decode("latin-1"), time.time() - start
