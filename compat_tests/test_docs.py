"""docs/coverage.md (from the op table) and docs/api-coverage.md (torch's public names) must be current."""
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_coverage_doc_is_current():
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_coverage.py"), "--check"],
                         capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stdout + out.stderr


def test_api_coverage_doc_is_current():
    """docs/api-coverage.md (torch 2.13's public names, provided / refused / absent) matches the code."""
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "api_coverage.py"), "--check"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
