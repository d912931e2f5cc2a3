"""out= of another shape: torch resizes it and warns when it held elements (compared with torch)."""
import warnings

import pytest

from harness import check


@pytest.mark.parametrize("make", ["T.zeros(2, 3)", "T.zeros(0)", "T.zeros(4)", "T.zeros(1)"])
def test_resized_out_warns_as_torch(make):
    def fn(T):
        out = eval(make, {"T": T})
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = T.add(T.ones(4), 1, out=out)
        return r, r is out, [(x.category.__name__, str(x.message).split(" (Triggered")[0]) for x in w]
    check(fn)
