"""tools/signing-key: a key made only when asked, mode 0600, a folder's mode
changed only where the script made the folder, a named key that is missing
refused, a certificate that is not the key's refused, the key never printed."""
import os
import stat
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "signing-key")


def run(*args):
    return subprocess.run([TOOL] + list(args), capture_output=True, text=True)


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def test_made_on_first_use_then_reused(tmp_path):
    key, cert = tmp_path / "new" / "k.key", tmp_path / "new" / "k.crt"
    p = run("--create", str(key), str(cert))
    assert p.returncode == 0, p.stderr
    assert mode(key) == 0o600 and mode(key.parent) == 0o700
    assert "made a new signing key" in p.stderr
    assert "fingerprint SHA-1" in p.stdout
    secret = key.read_text()
    assert "PRIVATE KEY" in secret
    assert "PRIVATE" not in p.stdout + p.stderr
    before = key.read_bytes()
    p = run("--create", str(key), str(cert))
    assert p.returncode == 0 and "made a new" not in p.stderr
    assert key.read_bytes() == before


def test_existing_folder_mode_kept(tmp_path):
    os.chmod(tmp_path, 0o755)
    p = run("--create", str(tmp_path / "k.key"), str(tmp_path / "k.crt"))
    assert p.returncode == 0, p.stderr
    assert mode(tmp_path) == 0o755


def test_named_key_missing_is_an_error(tmp_path):
    key = tmp_path / "typo.key"
    p = run(str(key), str(tmp_path / "typo.crt"))
    assert p.returncode == 1
    assert "no key at" in p.stderr
    assert not key.exists()


@pytest.mark.parametrize("missing", ["key", "cert"])
def test_half_a_pair_is_an_error(tmp_path, missing):
    key, cert = tmp_path / "k.key", tmp_path / "k.crt"
    assert run("--create", str(key), str(cert)).returncode == 0
    (key if missing == "key" else cert).unlink()
    p = run("--create", str(key), str(cert))
    assert p.returncode == 1
    assert not key.exists() if missing == "key" else not cert.exists()


def test_certificate_of_another_key_refused(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    assert run("--create", str(a / "k.key"), str(a / "k.crt")).returncode == 0
    assert run("--create", str(b / "k.key"), str(b / "k.crt")).returncode == 0
    p = run(str(a / "k.key"), str(b / "k.crt"))
    assert p.returncode == 1 and "is not the certificate of" in p.stderr
