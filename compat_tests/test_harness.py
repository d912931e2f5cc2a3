"""The harness itself: a check that cannot fail is a defect, so these make sure it does fail where it
must (torch raising undeclared, exception types of another class, values off by more than the
tolerance, module comparisons off in the 6th decimal)."""
import pytest

import module_compare
from harness import Raised, assert_same, check, check_raises, same_exception_type


class _Fake(RuntimeError):
    pass


def test_torch_raising_fails_unless_declared():
    with pytest.raises(AssertionError, match="raises=True"):
        check(lambda T: T.no_such_op(1))
    check(lambda T: T.no_such_op(1), raises=True)
    check_raises(lambda T: T.zeros(2) + T.zeros(3))


def test_declared_error_fails_when_torch_accepts():
    with pytest.raises(AssertionError, match="did not raise"):
        check(lambda T: T.zeros(2), raises=True)


def test_exception_types_compare_exactly():
    assert same_exception_type(RuntimeError("a"), RuntimeError("b"))
    assert not same_exception_type(RuntimeError("a"), NotImplementedError("a"))   # a RuntimeError subclass
    assert not same_exception_type(RuntimeError("a"), _Fake("a"))
    assert not same_exception_type(IndexError("a"), TypeError("a"))
    with pytest.raises(AssertionError, match="torch raised RuntimeError"):
        assert_same(Raised(RuntimeError("x")), Raised(NotImplementedError("x")))


def test_torch_specific_exception_types_match_by_name_and_base():
    import torch
    import mstorch
    ref = torch.linalg.LinAlgError("singular")
    assert same_exception_type(ref, mstorch.linalg.LinAlgError("singular"))
    assert not same_exception_type(ref, RuntimeError("singular"))


def test_values_compare_within_tolerance_only():
    with pytest.raises(AssertionError):
        check(lambda T: T.tensor([1.0]) + (1e-3 if T.__name__ == "mstorch" else 0.0))
    with pytest.raises(AssertionError):
        check(lambda T: T.tensor([1.0]) + (1e-3 if T.__name__ == "mstorch" else 0.0), rtol=0, atol=0)


def test_module_compare_tolerance_and_errors():
    # 5-decimal rounding hid any difference below 5e-6 near 0
    with pytest.raises(AssertionError):
        module_compare.same(lambda T: T.tensor([0.0]) + (3e-6 if T.__name__ == "mstorch" else 0.0))
    with pytest.raises(AssertionError, match="torch raised"):
        module_compare.same(lambda T: T.ones(2) + T.ones(3))
    module_compare.raises(lambda T: T.ones(2) + T.ones(3))
    with pytest.raises(AssertionError, match="did not raise"):
        module_compare.raises(lambda T: T.ones(1))
