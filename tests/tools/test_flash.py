#!/usr/bin/env python3
"""test_flash - tools/qb-flash against a fixture sysfs tree and mount table: every refusal, and real writes.

Run: python3 -m unittest tests/tools/test_flash.py  (or python3 tests/tools/test_flash.py)
Regular files stand in for the device nodes (QB_FLASH_ALLOW_FILE=1); the
tool finds each one's sysfs entry by its name, as it does for /dev/sdX.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FLASH = os.path.join(ROOT, "tools", "qb-flash")
MIB = 1 << 20
IMAGE_MIB = 8
USB_PATH = "devices/pci0000:00/0000:00:14.0/usb1/1-1/1-1:1.0/host6/target6:0:0/6:0:0:0/block"
ATA_PATH = "devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block"
NVME_PATH = "devices/pci0000:00/0000:00:1d.0/0000:3d:00.0/nvme/nvme0"
VIRT_PATH = "devices/virtual/block"

# name: (parent path, removable, size in MiB, partitions, holders of the disk, slaves)
DISKS = {
    "sdb": (USB_PATH, "1", 64, ["sdb1"], [], []),         # a spare stick
    "sdc": (USB_PATH, "0", 64, [], [], []),               # USB, removable flag not set (common for USB SSDs)
    "sda": (ATA_PATH, "0", 512, ["sda1", "sda2"], [], []),  # internal SATA disk
    "nvme0n1": (NVME_PATH, "0", 512, ["nvme0n1p1"], [], []),
    "sdd": (USB_PATH, "1", 64, ["sdd1", "sdd2"], [], []),  # a stick with a mounted partition
    "sde": (USB_PATH, "1", 64, ["sde1", "sde2"], [], []),  # a stick the system runs from
    "sdf": (USB_PATH, "1", 4, [], [], []),                 # smaller than the image
    "sdg": (USB_PATH, "1", 64, [], ["dm-1"], []),          # opened by device-mapper (LUKS, LVM)
    "sdh": (USB_PATH, "1", 64, ["sdh1"], [], []),          # root on dm-0 on top of sdh1
    "sdi": (USB_PATH, "1", 0, [], [], []),                 # card reader without a card
    "dm-0": (VIRT_PATH, "0", 60, [], [], ["sdh1"]),
    "dm-1": (VIRT_PATH, "0", 60, [], [], ["sdg"]),
}

BASE_MOUNTS = """\
/dev/sda2 / ext4 rw,relatime 0 0
proc /proc proc rw 0 0
/dev/sda1 /boot/efi vfat rw 0 0
/dev/nvme0n1p1 /data ext4 rw 0 0
/dev/sdd2 /media/user/MY\\040STICK vfat rw 0 0
"""


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


class FlashTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="qb-flash-test-")
        self.sys = os.path.join(self.tmp, "sys")
        self.dev = os.path.join(self.tmp, "dev")
        os.makedirs(os.path.join(self.sys, "class", "block"))
        os.makedirs(self.dev)
        for name, (parent, removable, mib, parts, holders, slaves) in DISKS.items():
            node = os.path.join(self.sys, parent, name)
            write(os.path.join(node, "removable"), removable + "\n")
            write(os.path.join(node, "size"), "%d\n" % (mib * MIB // 512))
            write(os.path.join(node, "device", "vendor"), "Acme    \n")
            write(os.path.join(node, "device", "model"), "Stick %s\n" % name)
            os.makedirs(os.path.join(node, "holders"))
            os.makedirs(os.path.join(node, "slaves"))
            for h in holders:
                os.symlink("../../" + h, os.path.join(node, "holders", h))
            for s in slaves:
                os.symlink("../../" + s, os.path.join(node, "slaves", s))
            os.symlink(os.path.relpath(node, os.path.join(self.sys, "class", "block")),
                       os.path.join(self.sys, "class", "block", name))
            self.make_dev(name, mib)
            for i, p in enumerate(parts, 1):
                pnode = os.path.join(node, p)
                write(os.path.join(pnode, "partition"), "%d\n" % i)
                write(os.path.join(pnode, "size"), "2048\n")
                os.makedirs(os.path.join(pnode, "holders"))
                os.makedirs(os.path.join(pnode, "slaves"))
                os.symlink(os.path.relpath(pnode, os.path.join(self.sys, "class", "block")),
                           os.path.join(self.sys, "class", "block", p))
                self.make_dev(p, 1)
        # dm-0 (root) sits on sdh1: sdh1's holders say so too.
        os.symlink("../../../dm-0", os.path.join(self.sys, USB_PATH, "sdh", "sdh1", "holders", "dm-0"))
        self.mounts = os.path.join(self.tmp, "mounts")
        write(self.mounts, BASE_MOUNTS)
        self.image = os.path.join(self.tmp, "quietbench.img")
        with open(self.image, "wb") as f:
            f.write(bytes(range(256)) * (IMAGE_MIB * MIB // 256))

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def make_dev(self, name, mib):
        with open(os.path.join(self.dev, name), "wb") as f:
            f.truncate(mib * MIB)

    def flash(self, device, *args, stdin="", allow_file=True, image=None):
        env = dict(os.environ, QB_SYSFS=self.sys, QB_MOUNTS=self.mounts)
        env.pop("QB_FLASH_ALLOW_FILE", None)
        if allow_file:
            env["QB_FLASH_ALLOW_FILE"] = "1"
        dev = device if os.path.isabs(device) else os.path.join(self.dev, device)
        p = subprocess.run([sys.executable, FLASH, image or self.image, dev] + list(args), input=stdin,
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
        return p.returncode, p.stdout + p.stderr

    def assert_refused(self, device, why, **kw):
        rc, out = self.flash(device, "--yes", **kw)
        self.assertEqual(rc, 1, out)
        self.assertIn("refused", out)
        self.assertIn(why, out)
        if not os.path.isabs(device) and os.path.exists(os.path.join(self.dev, device)):
            with open(os.path.join(self.dev, device), "rb") as f:
                head = f.read(4096)
                self.assertEqual(head, bytes(len(head)), "refused device was written")

    def written(self, name):
        with open(os.path.join(self.dev, name), "rb") as f, open(self.image, "rb") as g:
            img = g.read()
            return f.read(len(img)) == img

    # ---- refusals ---------------------------------------------------------------------
    def test_refuses_a_regular_file_without_the_test_switch(self):
        self.assert_refused("sdb", "not a block device", allow_file=False)

    def test_refuses_a_character_device(self):
        self.assert_refused("/dev/null", "not a block device")

    def test_refuses_a_missing_device(self):
        self.assert_refused("sdz", "No such file")

    def test_refuses_a_device_unknown_to_sysfs(self):
        self.make_dev("loop7", 64)
        self.assert_refused("loop7", "not a block device known to")

    def test_refuses_a_partition(self):
        self.assert_refused("sdb1", "is a partition")

    def test_refuses_internal_disks(self):
        self.assert_refused("sda", "not a removable or USB device")
        self.assert_refused("nvme0n1", "not a removable or USB device")

    def test_refuses_a_stick_with_a_mounted_partition(self):
        self.assert_refused("sdd", "/dev/sdd2 is mounted at /media/user/MY STICK")

    def test_refuses_the_disk_holding_root(self):
        write(self.mounts, BASE_MOUNTS.replace("/dev/sda2 /", "/dev/sde2 /"))
        self.assert_refused("sde", "holds the running system's root")

    def test_refuses_root_on_device_mapper_over_the_stick(self):
        write(self.mounts, BASE_MOUNTS.replace("/dev/sda2 /", "/dev/dm-0 /"))
        self.assert_refused("sdh", "holds the running system's root")

    def test_refuses_a_stick_in_use_by_device_mapper(self):
        self.assert_refused("sdg", "in use by dm-1")

    def test_refuses_an_image_larger_than_the_device(self):
        self.assert_refused("sdf", "larger than")

    def test_refuses_a_reader_without_medium(self):
        self.assert_refused("sdi", "no medium")

    def test_unconfirmed_writes_nothing(self):
        rc, out = self.flash("sdb", stdin="no\n")
        self.assertEqual(rc, 1, out)
        self.assertIn("not confirmed", out)
        self.assertFalse(self.written("sdb"))
        rc, out = self.flash("sdb", stdin="")
        self.assertEqual(rc, 1, out)
        self.assertFalse(self.written("sdb"))

    def test_missing_image_is_a_usage_error(self):
        rc, out = self.flash("sdb", "--yes", image=os.path.join(self.tmp, "none.img"))
        self.assertEqual(rc, 2, out)

    # ---- writes ---------------------------------------------------------------------------
    def test_writes_after_confirmation_and_shows_the_device(self):
        rc, out = self.flash("sdb", stdin="yes\n")
        self.assertEqual(rc, 0, out)
        self.assertIn("Acme Stick sdb", out)
        self.assertIn("64.0 MiB", out)
        self.assertIn("verified", out)
        self.assertTrue(self.written("sdb"))
        self.assertEqual(os.path.getsize(os.path.join(self.dev, "sdb")), 64 * MIB)  # not truncated

    def test_writes_with_yes_to_a_usb_disk_without_removable_flag(self):
        rc, out = self.flash("sdc", "--yes")
        self.assertEqual(rc, 0, out)
        self.assertTrue(self.written("sdc"))

    def test_follows_symlinks_like_dev_disk_by_id(self):
        link = os.path.join(self.tmp, "usb-Acme_Stick-0:0")
        os.symlink(os.path.join(self.dev, "sdb"), link)
        rc, out = self.flash(link, "--yes")
        self.assertEqual(rc, 0, out)
        self.assertTrue(self.written("sdb"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
