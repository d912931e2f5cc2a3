"""torch._check*/_assert and torch.types against torch."""
import pytest

from harness import check


@pytest.mark.parametrize("fn", ["_check", "_check_index", "_check_value", "_check_type", "_check_not_implemented"])
@pytest.mark.parametrize("cond", [True, False])
def test_check_family(fn, cond):
    check(lambda T: getattr(T, fn)(cond), raises=not cond)
    check(lambda T: getattr(T, fn)(cond, lambda: "custom message"), raises=not cond)


def test_check_details():
    check(lambda T: T._check(T.tensor(True)), raises=True)
    check(lambda T: T._check(1), raises=True)
    check(lambda T: T._check(False, "not callable"), raises=True)
    check(lambda T: T._check_is_size(3, max=5))
    check(lambda T: T._check_is_size(-1), raises=True)
    check(lambda T: T._assert(True, "fine"))
    check(lambda T: T._assert(False, "bad"), raises=True)


def test_types_aliases():
    check(lambda T: [isinstance(3, T.types._Number), isinstance(2.5, T.types._Number), isinstance("3", T.types._Number),
                     all(n in dir(T.types) for n in ("Device", "Number", "_size", "FileLike", "py_sym_types"))])
