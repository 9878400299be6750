#!/usr/bin/env python3
"""mokmanager - the first boot of a stick whose key is not enrolled, as a person meets it, driven over the
serial console (OVMF's console includes COM1): shim's "Verification failed" box, then MokManager: Enroll key
from disk, the stick, the certificate, Continue, Yes, Reboot. The variable store it leaves has the key in
MokList, as the machine's would; the next boot goes straight through (secureboot_tests' mokmanager case).

With --screens DIR (make sbscreens), a screendump of each screen is written as DIR/secureboot-NN-NAME.png,
and of GRUB's menu on the next boot, the pictures docs/real-machines.md shows; with --text, each screen's
text is printed as it was read.

Each step waits for its words on the screen (read back from the serial stream, tests/boot/vtscreen.py), then
presses the keys a person would: Enter, or Down arrows to an item found on the screen, then Enter."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import qbsecureboot  # noqa: E402
import screenshot  # noqa: E402  (its PPM reader, PNG writer and monitor client)
import vtscreen  # noqa: E402

ENTER = b"\r"
DOWN = b"\x1b[B"          # the terminal's cursor-down key (VT100), which OVMF's console reads from COM1
STEP_TIMEOUT_S = 120      # from one screen to the next under TCG on a loaded machine
DRAWN_S = 1.5             # after a screen's words appear: the rest of it is drawn by then
CERT_NAME = qbsecureboot.CERT_ON_STICK.lstrip("/")
LABEL = "QUIETBENCH"      # the stick's FAT label (tools/mkimage), which MokManager lists it by

# (picture name, words that must be on the screen, the item to choose, or None for Enter alone)
STEPS = (
    ("shim-refusal", "Verification failed: (0x1A) Security Violation", None),
    ("mok-countdown", "Press any key to perform MOK management", None),
    ("mok-menu", "Enroll key from disk", "Enroll key from disk"),
    ("mok-volume", LABEL, LABEL),
    ("mok-file", CERT_NAME, CERT_NAME),
    ("mok-enroll", "View key 0", "Continue"),
    ("mok-confirm", "Enroll the key(s)?", "Yes"),
    ("mok-reboot", "Reboot", "Reboot"),
)


class Machine:
    """QEMU under OVMF with Secure Boot on and Microsoft's keys, the stick on an xHCI, serial on a pipe both
    ways, and a monitor socket for screendumps."""

    def __init__(self, image, vars_path, tmp):
        self.screen = vtscreen.Screen()
        self.log = bytearray()
        self.lock = threading.Lock()
        self.sock = os.path.join(tmp, "monitor.sock")
        code, _ = qbsecureboot.firmware("not-enrolled", False)
        cmd = ["qemu-system-x86_64", "-machine", "q35,smm=on", "-accel", "tcg,thread=multi", "-cpu", "max",
               "-smp", "2", "-m", "1024"] + qbsecureboot.secure_qemu_args() + [
               "-drive", "if=pflash,format=raw,readonly=on,file=" + code,
               "-drive", "if=pflash,format=raw,file=" + vars_path,
               "-drive", "if=none,id=stick,format=raw,file=" + image,
               "-device", "qemu-xhci,id=xhci", "-device", "usb-storage,bus=xhci.0,port=1,drive=stick",
               "-display", "none", "-serial", "stdio", "-monitor", "unix:%s,server=on,wait=off" % self.sock,
               "-no-reboot", "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.pump = threading.Thread(target=self._pump, daemon=True)
        self.pump.start()

    def _pump(self):
        for chunk in iter(lambda: self.proc.stdout.read1(4096), b""):
            with self.lock:
                self.log.extend(chunk)
                self.screen.feed(chunk)

    def wait_for(self, words, timeout=STEP_TIMEOUT_S):
        """True once words are on the screen, and a moment later (the rest of the screen drawn; a person
        reads before pressing). Not until the screen is still: MokManager's countdown redraws every second."""
        deadline = time.time() + timeout
        while time.time() < deadline and self.proc.poll() is None:
            with self.lock:
                seen = self.screen.find(words)
            if seen:
                time.sleep(DRAWN_S)
                return True
            time.sleep(0.2)
        return False

    def press(self, keys):
        self.proc.stdin.write(keys)
        self.proc.stdin.flush()

    def choose(self, item):
        """Down arrows from the menu's first item to item, then Enter."""
        with self.lock:
            items = self.screen.menu(item)
        where = next((i for i, it in enumerate(items) if it.startswith(item)), None)
        if where is None:
            raise RuntimeError("%r is not in the menu on the screen (%s)" % (item, items))
        self.press(DOWN * where + ENTER)
        return items

    def screendump(self, png):
        ppm = png + ".ppm"
        screenshot.monitor_command(self.sock, "screendump " + ppm)
        deadline = time.time() + 10
        while not os.path.exists(ppm) and time.time() < deadline:
            time.sleep(0.1)
        time.sleep(0.5)  # QEMU writes it whole, but not at once
        with open(ppm, "rb") as f:
            w, h, rgb = screenshot.read_ppm(f.read())
        os.remove(ppm)
        screenshot.write_png(png, w, h, rgb)

    def screen_text(self):
        with self.lock:
            return self.screen.text()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.pump.join(5)


def enroll(image, vars_path, tmp, screens=None, text=False):
    """Boot the stick with vars_path (Microsoft's keys, the stick's key not enrolled) and enroll its key in
    MokManager as a person would. Returns (errors, serial log); vars_path then holds the enrolled key."""
    m = Machine(image, vars_path, tmp)
    errors = []
    try:
        for n, (name, words, item) in enumerate(STEPS, 1):
            if not m.wait_for(words):
                errors.append("step %d (%s): %r never came on the screen; the screen:\n%s"
                              % (n, name, words, m.screen_text()))
                break
            if text:
                print("---- %s ----\n%s" % (name, m.screen_text()))
            if screens:
                m.screendump(os.path.join(screens, "secureboot-%02d-%s.png" % (n, name)))
            if item is None:
                m.press(ENTER)
            else:
                m.choose(item)
        else:
            # Reboot: with -no-reboot QEMU leaves, as the machine resets.
            try:
                m.proc.wait(timeout=STEP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                errors.append("MokManager did not reset the machine after Reboot; the screen:\n%s" % m.screen_text())
    finally:
        m.stop()
    return errors, m.log.decode("latin-1")


MENU_ENTRY = "Secure Boot: enroll this stick's key"   # boot/grub/grub.cfg's MokManager entry


def grub_menu(image, vars_path, tmp, png):
    """The next boot, the key enrolled: GRUB's menu (the stick's quietbench.cfg holding it there), with the
    entry that starts MokManager on purpose; a screendump of it. Returns errors."""
    cfg = os.path.join(tmp, "menu.cfg")
    with open(cfg, "w") as f:
        f.write('set qb_options=""\nset timeout=-1\nset default=quick\n')
    subprocess.run(["mcopy", "-o", "-i", image + "@@1M", cfg, "::/quietbench.cfg"], check=True)
    m = Machine(image, vars_path, tmp)
    try:
        if not m.wait_for(MENU_ENTRY):
            return ["GRUB's menu with %r never came; the screen:\n%s" % (MENU_ENTRY, m.screen_text())]
        m.screendump(png)
    finally:
        m.stop()
    return []


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--image", default=os.path.join(ROOT, "build", "test", "quietbench.img"))
    ap.add_argument("--screens", metavar="DIR", help="write a PNG of each screen here")
    ap.add_argument("--text", action="store_true", help="print each screen's text")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="qb-mok-")
    try:
        stick, store = os.path.join(tmp, "stick.img"), os.path.join(tmp, "vars.fd")
        shutil.copyfile(a.image, stick)
        qbsecureboot.make_vars(qbsecureboot.firmware("not-enrolled", False)[1], store, "not-enrolled", None)
        if a.screens:
            os.makedirs(a.screens, exist_ok=True)
        errors, log = enroll(stick, store, tmp, a.screens, a.text)
        if a.screens and not errors:
            errors = grub_menu(stick, store, tmp, os.path.join(a.screens, "secureboot-%02d-grub-menu.png"
                                                              % (len(STEPS) + 1)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for e in errors:
        print("mokmanager: " + e)
    print("mokmanager: %s" % ("enrolled" if not errors else "failed"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
