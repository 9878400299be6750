"""smbios_checks - what a boot that QEMU gave -smbios type=1 and type=17 must report (issue 37): the `machine`
record with the product and manufacturer asked for, the serial number as the first 12 hex digits of its
SHA-256 and never in clear, the one memory_device record with the part number and speed asked for, the
memory configuration line, the entry point the firmware published, and the serial console's system: and
memory: lines (the screen's header has the same line: tests/unit/test_fbcon.c)."""
import hashlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools"))
import qbrecords  # noqa: E402

MANUFACTURER, PRODUCT, SERIAL = "Acme Labs", "Roadrunner 9000", "RR9-0042"
PART, SPEED = "M321R4GA3BB6-CQK", 4800
QEMU_ARGS = ("-smbios", "type=1,manufacturer=%s,product=%s,serial=%s" % (MANUFACTURER, PRODUCT, SERIAL),
             "-smbios", "type=17,part=%s,speed=%d" % (PART, SPEED))
CONFIG = "1 of 1 slot: 1 x 1 GiB RAM-%d DIMM, ECC" % SPEED


def check_smbios(source, version, text=None):
    """A check of the records (and, given the serial text, the console lines) for a boot with QEMU_ARGS whose
    firmware published the entry point `source` of SMBIOS `version`."""
    def check(recs, errors, log_text=None):
        m = qbrecords.of_kind(recs, "machine")
        if len(m) != 1:
            errors.append("expected one machine record, got %d" % len(m))
            return
        m = m[0]
        y = m.get("system") or {}
        want = {"source": source, "smbios_version": version, "memory_config": CONFIG, "memory_slots": 1,
                "memory_populated": 1, "dimms_per_node": [1], "end_of_table": True}
        for k, v in want.items():
            if m.get(k) != v:
                errors.append("machine: %s is %r, expected %r" % (k, m.get(k), v))
        if (y.get("manufacturer"), y.get("product")) != (MANUFACTURER, PRODUCT):
            errors.append("machine: system %s" % y)
        if y.get("serial") != "sha256:" + hashlib.sha256(SERIAL.encode()).hexdigest()[:12]:
            errors.append("machine: system serial %r, expected the first 12 hex digits of its SHA-256" % y.get("serial"))
        devs = qbrecords.of_kind(recs, "memory_device")
        if len(devs) != 1:
            errors.append("expected one memory_device record, got %d" % len(devs))
        else:
            d = devs[0]
            if (d.get("part_number"), d.get("speed_mts"), d.get("configured_mts")) != (PART, SPEED, SPEED):
                errors.append("memory_device: part %r, speed %r, configured %r" % (d.get("part_number"),
                                                                                  d.get("speed_mts"),
                                                                                  d.get("configured_mts")))
        raw = "\n".join(str(r) for r in recs)
        if SERIAL in raw:
            errors.append("the serial number %s is in a record in clear (serials=on was not given)" % SERIAL)
        smb = [e for e in qbrecords.of_kind(recs, "error") if e.get("what") == "smbios"]
        if smb:
            errors.append("smbios error records: %s" % smb)
        if log_text is not None:
            for line in ("system: %s %s, " % (MANUFACTURER, PRODUCT), "memory: %s\n" % CONFIG):
                if line not in log_text:
                    errors.append("serial log lacks %r" % line)
    return check
