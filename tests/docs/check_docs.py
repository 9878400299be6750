#!/usr/bin/env python3
"""check_docs - every link in the README and docs/ resolves, and every `make` target and `tools/` command they
show still parses.

Reads README.md, docs/**/*.md and the README.md files of tests/ and tools/. For each:
- a link [text](target) to a file must find the file (relative to the page); with #anchor, the anchor must be a
  heading of the target page (GitHub's slugs); web links are not fetched;
- a code span or block that runs `make TARGET...` must name targets the Makefile has (`make -n`, which runs
  no recipe);
- one that runs `tools/NAME` must find NAME, and `tools/NAME --help` (for tools/qb, `tools/qb COMMAND --help`)
  must exit 0.

It first checks itself on a page made for the purpose with a broken link, a missing anchor, an unknown make
target and an unknown tool, each of which must be reported. Exit 0 when every page passes."""
import glob
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
SPAN = re.compile(r"`([^`\n]+)`")
MAKE = re.compile(r"(?:^|[\s;&|(])make((?:\s+[-\w.=/$()]+)+)")
TOOL = re.compile(r"(?:^|[\s;&|(])(?:sudo\s+)?(tools/[\w.-]+)(?:\s+([a-z][\w-]*))?")


def pages(root):
    out = [os.path.join(root, "README.md")]
    out += sorted(glob.glob(os.path.join(root, "docs", "**", "*.md"), recursive=True))
    for sub in ("tests", "tools"):
        out += sorted(glob.glob(os.path.join(root, sub, "**", "README.md"), recursive=True))
    return [p for p in out if os.path.exists(p)]


def slug(heading):
    """GitHub's anchor of a heading: lower case, punctuation out, spaces to hyphens."""
    s = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return s.replace(" ", "-")


def anchors(path):
    with open(path, encoding="utf-8") as f:
        text = FENCE.sub("", f.read())
    seen, out = {}, set()
    for m in re.finditer(r"^#{1,6}\s+(.*)$", text, re.M):
        s = slug(m.group(1))
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.add(s if not n else "%s-%d" % (s, n))
    return out


def code_texts(text):
    """The code of a page: fenced blocks, indented blocks and code spans, one string each."""
    out = [m.group(0) for m in FENCE.finditer(text)]
    rest = FENCE.sub("", text)
    out += [line[4:] for line in rest.splitlines() if line.startswith("    ") and line.strip()]
    out += SPAN.findall(rest)
    return out


def check_links(path, text, errors):
    for m in LINK.finditer(FENCE.sub("", text)):
        target = m.group(1)
        if re.match(r"^[a-z]+:", target):  # http:, https:, mailto:
            continue
        file, _, anchor = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
        if not os.path.exists(dest):
            errors.append("%s: link to %s: no such file" % (path, target))
        elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
            errors.append("%s: link to %s: no heading #%s in %s" % (path, target, anchor, os.path.relpath(dest, ROOT)))


def commands(text):
    """(make targets, tool commands) that the page's code runs."""
    targets, tools = set(), set()
    for code in code_texts(text):
        for line in code.splitlines():
            for m in MAKE.finditer(line):
                for word in m.group(1).split():
                    if word.startswith("-") or "=" in word or "$" in word:
                        continue
                    if not re.match(r"^[a-z][\w.-]*$", word):
                        break
                    targets.add(word)
            for m in TOOL.finditer(line):
                tools.add((m.group(1), m.group(2) if m.group(1) == "tools/qb" else None))
    return targets, tools


def check_commands(root, path, text, errors, cache):
    targets, tools = commands(text)
    for t in sorted(targets):
        if t not in cache:
            p = subprocess.run(["make", "-n", "-C", root, t], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True)
            cache[t] = None if p.returncode == 0 else (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
        if cache[t]:
            errors.append("%s: `make %s` does not parse: %s" % (path, t, cache[t]))
    for tool, sub in sorted(tools, key=str):
        exe = os.path.join(root, tool)
        if not os.path.exists(exe):
            errors.append("%s: %s: no such tool" % (path, tool))
            continue
        if os.path.isdir(exe) or not os.access(exe, os.X_OK):
            continue  # tools/qbrecords.py, a module: found is enough
        key = (tool, sub)
        if key not in cache:
            cmd = [exe] + ([sub] if sub else []) + ["--help"]
            p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=60, cwd=root)
            cache[key] = None if p.returncode == 0 else (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
        if cache[key]:
            errors.append("%s: `%s%s --help` fails: %s" % (path, tool, " " + sub if sub else "", cache[key]))


LIMITS_C = os.path.join("kernel", "measure", "limits.c")
LIMITS_MD = os.path.join("docs", "limits.md")


def check_limits(root, errors):
    """docs/limits.md's table of physical limits is kernel/measure/limits.c's: every name, bound and direction."""
    with open(os.path.join(root, LIMITS_C), encoding="utf-8") as f:
        table = re.findall(r'\[LIMIT_\w+\]\s*=\s*\{\s*"(\w+)",\s*"[^"]*",\s*([0-9.]+),\s*"([^"]*)",\s*([01])', f.read())
    with open(os.path.join(root, LIMITS_MD), encoding="utf-8") as f:
        doc = f.read()
    if not table:
        errors.append("%s: no limits found (the check no longer understands it)" % LIMITS_C)
    for name, bound, unit, is_max in table:
        b = float(bound)
        want = "| `%s` | %s %s %s" % (name, "at most" if is_max == "1" else "at least", ("%g" % b), unit)
        if want not in doc:
            errors.append("%s: the limit %s (%s %g %s) is not in its table (expected a row starting %r)"
                          % (LIMITS_MD, name, "max" if is_max == "1" else "min", b, unit, want))


def check_pages(root, paths):
    errors, cache = [], {}
    for path in paths:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        check_links(path, text, errors)
        check_commands(root, path, text, errors, cache)
    return errors


def self_check():
    """A page with one of each fault must give four errors."""
    with tempfile.TemporaryDirectory(prefix="check-docs-") as tmp:
        page = os.path.join(tmp, "bad.md")
        with open(page, "w", encoding="utf-8") as f:
            f.write("# Bad page\n\nSee [nothing](no-such-file.md) and [here](#no-such-heading).\n\n"
                    "    make no-such-target\n    tools/no-such-tool --x\n\n[fine](#bad-page)\n")
        errors = check_pages(ROOT, [page])
        want = ("no such file", "no heading #no-such-heading", "`make no-such-target`", "no such tool")
        missing = [w for w in want if not any(w in e for e in errors)]
        if missing or len(errors) != len(want):
            print("check_docs: the self-check did not catch %s (errors: %s)" % (missing, errors))
            return False
    return True


def main():
    if not self_check():
        return 1
    paths = pages(ROOT)
    errors = check_pages(ROOT, paths)
    check_limits(ROOT, errors)
    for e in errors:
        print("check_docs: " + e.replace(ROOT + os.sep, ""))
    print("check_docs: %d page(s), %d problem(s)" % (len(paths), len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
