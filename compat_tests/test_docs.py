"""docs/coverage.md is generated from the op table and must be current."""
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_coverage_doc_is_current():
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_coverage.py"), "--check"],
                         capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stdout + out.stderr
