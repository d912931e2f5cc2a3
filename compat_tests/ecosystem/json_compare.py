"""Compare what a case printed as JSON under torch (``ref``) and under mstorch (``got``): same structure,
keys, strings, bools and ints; floats within ``rtol``/``atol``."""
import math


def assert_close(ref, got, rtol=1e-5, atol=1e-6, path="out"):
    if isinstance(ref, dict):
        assert isinstance(got, dict) and list(ref) == list(got), f"{path}: keys {list(ref)} vs {got!r:.300}"
        for k in ref:
            assert_close(ref[k], got[k], rtol, atol, f"{path}[{k!r}]")
    elif isinstance(ref, list):
        assert isinstance(got, list) and len(ref) == len(got), f"{path}: {ref!r:.200} vs {got!r:.200}"
        for i, (r, g) in enumerate(zip(ref, got)):
            assert_close(r, g, rtol, atol, f"{path}[{i}]")
    elif isinstance(ref, float) and not isinstance(got, bool) and isinstance(got, (int, float)):
        assert math.isclose(ref, got, rel_tol=rtol, abs_tol=atol), f"{path}: torch {ref!r}, mstorch {got!r}"
    else:
        assert type(ref) is type(got) and ref == got, f"{path}: torch {ref!r}, mstorch {got!r}"
