"""caselib - the loop the boot test scripts share: run named cases, each in its own temporary folder, print
ok or FAIL with the reasons and the serial log, and a last line "<title>: N passed, N failed"."""
import shutil
import subprocess
import sys
import tempfile


def run_cases(title, cases, prefix="qb-case-"):
    """cases: (name, fn) with fn(tmp, errors) -> the serial log text. Returns the exit status."""
    passed = failed = 0
    for name, fn in cases:
        errors, text = [], ""
        tmp = tempfile.mkdtemp(prefix=prefix)
        try:
            text = fn(tmp, errors) or ""
        except (OSError, subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
            errors.append("set-up failed: %s" % e)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        if errors:
            failed += 1
            print("FAIL %s" % name)
            for e in errors:
                print("  - " + e)
            print("  ---- serial log ----\n%s\n  ---- end of log ----" % text)
        else:
            passed += 1
            print("ok   %s" % name)
        sys.stdout.flush()
    print("%s: %d passed, %d failed" % (title, passed, failed))
    return 1 if failed else 0
