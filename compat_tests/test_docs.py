"""docs/coverage.md (from the op table) and docs/api-coverage.md (torch's public names) must be current."""
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_coverage_doc_is_current():
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_coverage.py"), "--check"],
                         capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stdout + out.stderr


def test_api_coverage_doc_is_current():
    """docs/api-coverage.md (torch 2.13's public names, provided / refused / absent) matches the code, and
    every absent name has its reason in compat_tests/api_absent.txt (no stale lines there)."""
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "api_coverage.py"), "--check"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr


def test_api_absent_entries_are_required_and_kept_current(tmp_path):
    """The rule the check above enforces: an absent torch name without a line in api_absent.txt is reported,
    and so is a line that matches no absent name (it must be removed once the name is provided)."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import api_coverage
    finally:
        sys.path.pop(0)
    listing = tmp_path / "absent.txt"
    listing.write_text("# comment\ntorch.cudnn_* | a cuDNN kernel\ntorch.nn.gone | stale reason\n")
    entries = api_coverage.absent_reasons(listing)
    table = {"": {"cudnn_rnn": ("absent", ""), "mystery": ("absent", ""), "add": ("provided", "")},
             "nn": {"gone": ("provided", "")}}
    unlisted, stale = api_coverage.attach_reasons(table, entries)
    assert unlisted == ["torch.mystery"]
    assert stale == ["torch.nn.gone"]
    assert table[""]["cudnn_rnn"] == ("absent", "a cuDNN kernel")
    listing.write_text("torch.foo\n")
    with pytest.raises(ValueError, match="expected '<name> | <reason>'"):
        api_coverage.absent_reasons(listing)
    # the committed listing parses, and every line has a reason
    assert all(reason for _, reason in api_coverage.absent_reasons())
