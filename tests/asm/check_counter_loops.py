#!/usr/bin/env python3
"""check_counter_loops - prove from the machine code that the counter and locality workloads measure what they say.

Disassembles the objects given (default build/workloads/counter_loops.o and
build/workloads/locality_loops.o; `make asmtest` passes the kernel's and then
the twin's) and checks each inner loop (the instructions from a backward
branch's target up to the branch):
  counter_inc_plain    a load from, an add to, and a store back to the same memory operand; no LOCK
  counter_inc_checked  the same, plus a read of the length word in every iteration
  counter_inc_atomic   a LOCK XADD to memory in every iteration
  loc_*_shared         the gist's `*r += num[i]` as gcc -O2 compiles the gist: in every innermost
                       loop each element is an add from the array into a register and a store of
                       that register to the slot (`add (%rcx,%rax,4),%edx; mov %edx,(%rdi)`), the
                       slot never loaded inside the loop and no other branch in it
  loc_*_private        no store to memory in any innermost loop: the sum stays in registers
and, for every function in the objects, the form docs/workloads.md gives it in its table of timed
loops ("| function | timed by | form |"): `scalar` (no loop of it touches an SSE/AVX register),
`vector` (one does) or `untimed` (set-up, not checked). A function the table does not list fails,
so a new loop (or a vector variant under its own name) comes with its documented form.
Every function named must be there. Prints "asm: N passed, N failed".
"""
import os
import re
import subprocess
import sys
import tempfile

OBJS = [a for a in sys.argv[1:] if not a.startswith("--")] or \
    ["build/workloads/counter_loops.o", "build/workloads/locality_loops.o"]
DOCS = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--docs=")),
            os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "workloads.md"))
CC = os.environ.get("CC", "gcc")
REG32 = r"%(?:e[a-z]+|r\d+d)"
LOC_VARIANTS = ("interleaved", "blocked_strided", "blocked")
INSN = re.compile(r"^\s*([0-9a-f]+):\s+(.*)$")
SIMD_REG = re.compile(r"%(?:[xyz]mm\d+|mm\d)\b")
FORMS_HEADER = re.compile(r"^\|\s*function\s*\|\s*timed by\s*\|\s*form\s*\|\s*$")
FORMS = ("scalar", "vector", "untimed")
FUNC = re.compile(r"^[0-9a-f]+ <([A-Za-z_0-9]+)>:$")


def functions(objs):
    out = "".join(subprocess.run(["objdump", "-d", "--no-show-raw-insn", o], check=True, stdout=subprocess.PIPE,
                                 text=True).stdout for o in objs)
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


def loops(insns):
    """Every innermost loop: [target, branch] of a backward branch with no other such range inside it."""
    spans = []
    for addr, text in insns:
        m = re.match(r"j\w+\s+([0-9a-f]+)\b", text)
        if m and int(m.group(1), 16) <= addr:
            spans.append((int(m.group(1), 16), addr))
    inner = [s for s in spans if not any(o != s and s[0] <= o[0] and o[1] <= s[1] for o in spans)]
    return [[t for a, t in insns if lo <= a <= hi] for lo, hi in inner]


def loop_form(insns):
    """'vector' if an instruction inside any loop (a backward branch's span, inner or outer) uses an
    SSE/AVX/MMX register, 'scalar' if the function has loops and none does, None if it has no loop."""
    spans = [(int(m.group(1), 16), addr) for addr, m in
             ((a, re.match(r"j\w+\s+([0-9a-f]+)\b", t)) for a, t in insns) if m and int(m.group(1), 16) <= addr]
    if not spans:
        return None
    simd = [t for a, t in insns if any(lo <= a <= hi for lo, hi in spans) and SIMD_REG.search(t)]
    return "vector" if simd else "scalar"


def form_wrong(f, name, want):
    """None if function name's loops are of the form want ('scalar' or 'vector'), else why not."""
    if name not in f:
        return "not in the objects"
    got = loop_form(f[name])
    if got is None:
        return "no loop found"
    if got != want:
        simd = "; ".join(t for _, t in f[name] if SIMD_REG.search(t))
        return "%s where docs/workloads.md says %s%s" % (got, want, ": " + simd if simd else "")
    return None


def documented_forms(text):
    """{function: form} from the table of timed loops in docs/workloads.md's text; a row's first cell
    names functions in backquotes, its last cell begins with the form."""
    lines, forms = text.splitlines(), {}
    start = next((i for i, l in enumerate(lines) if FORMS_HEADER.match(l.strip())), None)
    if start is None:
        raise SystemExit("asm: no table '| function | timed by | form |' in %s" % DOCS)
    for line in lines[start + 2:]:
        if not line.strip().startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        form = cells[-1].split(":")[0].split()[0] if cells[-1] else ""
        if form not in FORMS:
            raise SystemExit("asm: %s: form %r is none of %s" % (line.strip(), form, ", ".join(FORMS)))
        for name in re.findall(r"`([A-Za-z_0-9]+)`", cells[0]):
            forms[name] = form
    return forms


def operands(text):
    """An instruction's operands, split at the commas outside parentheses."""
    parts = text.split(None, 1)
    if len(parts) < 2:
        return []
    out, depth, cur = [], 0, ""
    for ch in parts[1]:
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return out + [cur.strip()] if cur.strip() else out


def writes_memory(text):
    """True if the instruction stores: its last operand (AT&T's destination) is memory, and it is no compare."""
    ops = operands(text)
    return bool(ops) and "(" in ops[-1] and not re.match(r"(cmp|test|prefetch|nop)", text)


def gist_slot_loop(body):
    """None if body is the gist's loop, else why not: an add from memory into a register, that register
    stored to a slot, as many stores as adds, the slot never read, no other branch."""
    adds = [m.groups() for m in (re.match(r"add[l]?\s+(\S*\(.*\)),(%s)$" % REG32, t) for t in body) if m]
    if not adds:
        return "no add from the array into a 32-bit register"
    stores = [m.groups() for m in (re.match(r"mov[l]?\s+(%s),(\(%%\w+\))$" % REG32, t) for t in body) if m]
    slots = {mem for reg, mem in stores if any(reg == r for _, r in adds)}
    if len(slots) != 1:
        return "the summed register is not stored to one slot in the loop"
    slot = slots.pop()
    if len(stores) != len(adds):
        return "%d stores to the slot for %d elements" % (len(stores), len(adds))
    reads = [t for t in body if slot in t and not re.match(r"mov[l]?\s+%s," % REG32 + re.escape(slot) + "$", t)]
    if reads:
        return "the slot is read in the loop: " + "; ".join(reads)
    branches = [t for t in body if t.startswith("j")]
    if len(branches) != 1:
        return "a branch inside the loop: a store might be skipped"
    return None


def shared_ok(f, name):
    """None if every innermost loop of function name is the gist's slot loop, else why not."""
    bodies = loops(f.get(name, []))
    return "no loop found" if not bodies else next((w for w in map(gist_slot_loop, bodies) if w), None)


# The slot loop as it must not compile: reloaded from memory every element (volatile), or with the
# store sunk out of the loop (a slot type the array cannot alias, or restrict).
BAD_SLOTS = {
    "volatile uint64_t (the old form: a reload)": "volatile uint64_t *slot",
    "volatile uint32_t (a reload)": "volatile uint32_t *slot",
    "uint64_t (the store sunk)": "uint64_t *slot",
    "restrict (the store sunk)": "uint32_t *restrict slot",
}
GOOD_SLOT = "uint32_t, as the gist's int (must pass)"
SLOT_LOOP = """#include <stdint.h>
void loc_blocked_shared(const uint32_t *a, uint64_t s, uint64_t e, %s)
{
	for (uint64_t i = s; i < e; i++)
		*slot += a[i];
}
"""


# The blocked private loop, which -O3 vectorises unless the function says otherwise.
SUM_LOOP = """#include <stdint.h>
%s uint64_t loc_blocked_private(const uint32_t *a, uint64_t s, uint64_t e)
{
	uint64_t acc = 0;
	for (uint64_t i = s; i < e; i++)
		acc += a[i];
	return acc;
}
"""
SCALAR_ATTR = '__attribute__((optimize("no-tree-vectorize")))'
# (label, attribute, the form the table says, must the check pass?)
SUM_CASES = [
    ("-O3 as it was (SSE2), documented scalar", "", "scalar", False),
    ("pinned scalar, documented scalar", SCALAR_ATTR, "scalar", True),
    ("pinned scalar, documented vector", SCALAR_ATTR, "vector", False),
    ("-O3 as it was (SSE2), documented vector", "", "vector", True),
]
FORMS_FIXTURE = """| function | timed by | form |
|---|---|---|
| `loc_blocked_shared`, `loc_blocked_private` | locality | scalar: one element an iteration |
| `loc_total` | nothing | untimed |
"""


def self_test_forms(d):
    """The form check must reject a vectorised loop where scalar is documented, pass the pinned one,
    and the table's reader must see every function of a row and miss one it does not list."""
    bad = 0
    for label, attr, want, good in SUM_CASES:
        src, obj = os.path.join(d, "sum.c"), os.path.join(d, "sum.o")
        with open(src, "w") as fh:
            fh.write(SUM_LOOP % attr)
        subprocess.run([CC, "-std=gnu11", "-O3", "-c", src, "-o", obj], check=True)
        why = form_wrong(functions([obj]), "loc_blocked_private", want)
        print("self-test: %s: %s" % (label, "rejected (%s)" % why if why else "passed"))
        bad += (why is None) != good
    forms = documented_forms(FORMS_FIXTURE)
    ok = forms == {"loc_blocked_shared": "scalar", "loc_blocked_private": "scalar", "loc_total": "untimed"}
    print("self-test: the table's forms read %s" % ("as written" if ok else "wrongly: %r" % forms))
    bad += not ok
    return bad


def self_test():
    """The check must reject every bad form and pass the gist's, compiled as the workloads are (-O3)."""
    bad = 0
    with tempfile.TemporaryDirectory() as d:
        bad += self_test_forms(d)
        for label, decl in list(BAD_SLOTS.items()) + [(GOOD_SLOT, "uint32_t *slot")]:
            src, obj = os.path.join(d, "slot.c"), os.path.join(d, "slot.o")
            with open(src, "w") as fh:
                fh.write(SLOT_LOOP % decl)
            subprocess.run([CC, "-std=gnu11", "-O3", "-c", src, "-o", obj], check=True)
            why = shared_ok(functions([obj]), "loc_blocked_shared")
            good = label == GOOD_SLOT
            print("self-test: %s: %s" % (label, "rejected (%s)" % why if why else "passed"))
            bad += (why is None) != good
    print("asm self-test: %s" % ("ok" if not bad else "%d forms judged wrongly" % bad))
    return 1 if bad else 0


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
    f = functions(OBJS)
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

    for v in LOC_VARIANTS:
        name = "loc_%s_shared" % v
        check(name, shared_ok(f, name) is None, shared_ok(f, name))
        name = "loc_%s_private" % v
        bodies = loops(f.get(name, []))
        stores = [t for b in bodies for t in b if writes_memory(t)]
        check(name, bodies and not stores, "no loop found" if not bodies else "a store in the loop: " + "; ".join(stores))

    with open(DOCS) as fh:
        forms = documented_forms(fh.read())
    for name in sorted(f):
        check(name + ":form", name in forms, "no form for it in the table of timed loops in " + DOCS)
    for name, want in sorted(forms.items()):
        if want != "untimed":
            why = form_wrong(f, name, want)
            check(name + ":" + want, why is None, why)
    print("asm: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(self_test() if "--self-test" in sys.argv else main())
