"""view_as_real / view_as_complex as views: writes through them reach the base, the base's in-place
changes show through them, and gradients flow through both (values in op_db/complex_views.py)."""
import numpy as np

from harness import check, check_grad, rand


def test_write_through_view_as_complex_reaches_base():
    def f(T):
        a = T.zeros(2, 2)
        c = T.view_as_complex(a)
        c[0] = 1 + 2j
        c.mul_(2)
        return a
    check(f)


def test_view_as_real_follows_base_and_writes_back():
    def f(T):
        c = T.zeros(3, dtype=T.complex64)
        r = T.view_as_real(c)
        r[1, 1] = 5
        seen = [c.clone()]
        c.add_(1)                      # an in-place change of the base shows through the view
        seen.append(r.clone())
        r[2].fill_(7)
        seen.append(c.clone())
        return seen
    check(f)


def test_view_as_real_of_a_strided_complex_tensor():
    c = (rand(4, 3) + 1j * rand(4, 3, seed=2)).astype(np.complex64)
    check(lambda T: T.view_as_real(T.tensor(c).t()))
    check(lambda T: T.view_as_real(T.tensor(c)[::2]))


def test_gradients_through_both_views():
    check_grad(lambda T, x: T.view_as_real(T.view_as_complex(x * 2)), [rand(3, 2)])
    check_grad(lambda T, x: T.view_as_real(T.fft.rfft(x)), [rand(2, 8)])
    check_grad(lambda T, x: T.fft.irfft(T.view_as_complex(x)), [rand(5, 2)])


def test_float16_pairs_refuse_by_name_where_torch_gives_complex32():
    import mstorch
    import pytest
    with pytest.raises(RuntimeError, match="complex32"):
        mstorch.view_as_complex(mstorch.zeros(2, 2, dtype=mstorch.float16))


def test_write_through_tensor_unfold_reaches_base():
    def f(T):
        x = T.arange(10.)
        w = x.unfold(0, 3, 3)
        w[1].fill_(-1)
        w.mul_(2)
        return x, w
    check(f)
