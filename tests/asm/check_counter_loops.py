#!/usr/bin/env python3
"""check_counter_loops - prove from the machine code that the counter workload measures what it says.

Disassembles build/workloads/counter_loops.o and checks each inner loop (the
instructions from a backward branch's target up to the branch):
  counter_inc_plain    a load from, an add to, and a store back to the same memory operand; no LOCK
  counter_inc_checked  the same, plus a read of the length word in every iteration
  counter_inc_atomic   a LOCK XADD to memory in every iteration
Prints "asm: N passed, N failed".
"""
import re
import subprocess
import sys

OBJ = sys.argv[1] if len(sys.argv) > 1 else "build/workloads/counter_loops.o"
INSN = re.compile(r"^\s*([0-9a-f]+):\s+(.*)$")
FUNC = re.compile(r"^[0-9a-f]+ <([A-Za-z_0-9]+)>:$")


def functions(obj):
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", obj], check=True, stdout=subprocess.PIPE, text=True).stdout
    funcs, cur = {}, None
    for line in out.splitlines():
        m = FUNC.match(line.strip())
        if m:
            cur = funcs.setdefault(m.group(1), [])
            continue
        m = INSN.match(line)
        if m and cur is not None:
            cur.append((int(m.group(1), 16), m.group(2).strip()))
    return funcs


def loop_body(insns):
    """Instructions of the innermost loop: from a backward branch's target to the branch."""
    for addr, text in insns:
        m = re.match(r"j\w+\s+([0-9a-f]+)\b", text)
        if m and int(m.group(1), 16) <= addr:
            target = int(m.group(1), 16)
            return [t for a, t in insns if target <= a <= addr]
    return []


def load_add_store(body):
    """True if the body loads (%R) into X, adds 1 to X and stores X back to (%R), or adds to memory directly."""
    for t in body:
        m = re.match(r"mov\s+\((%\w+)\),(%\w+)$", t)
        if m:
            mem, reg = m.groups()
            if any(re.match(r"add\s+\$0x1,%s$" % re.escape(reg), u) for u in body) and \
               any(re.match(r"mov\s+%s,\(%s\)$" % (re.escape(reg), re.escape(mem)), u) for u in body):
                return mem
        m = re.match(r"add[q]?\s+\$0x1,\((%\w+)\)$", t)
        if m:
            return m.group(1)
    return None


def main():
    f = functions(OBJ)
    passed = failed = 0

    def check(name, cond, why):
        nonlocal passed, failed
        if cond:
            passed += 1
            return
        failed += 1
        print("FAIL %s: %s" % (name, why))
        for _, text in f.get(name.split(":")[0], []):
            print("    " + text)

    plain = loop_body(f.get("counter_inc_plain", []))
    check("counter_inc_plain", load_add_store(plain) is not None, "no load-add-store to memory in the loop")
    check("counter_inc_plain:nolock", plain and not any(t.startswith("lock") for t in plain), "no loop found, or LOCK in it")

    checked = loop_body(f.get("counter_inc_checked", []))
    mem = load_add_store(checked)
    check("counter_inc_checked", mem is not None, "no load-add-store to memory in the loop")
    reads = [t for t in checked if re.search(r"\((%\w+)\)", t) and mem and "(%s)" % mem not in t]
    check("counter_inc_checked:length", len(reads) >= 1, "the length word is not read in every iteration")

    atomic = loop_body(f.get("counter_inc_atomic", []))
    check("counter_inc_atomic", any(re.match(r"lock xadd\s+%\w+,\(%\w+\)", t) for t in atomic), "no LOCK XADD in the loop")
    print("asm: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
