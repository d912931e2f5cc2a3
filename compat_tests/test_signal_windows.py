"""torch.signal.windows against torch: every window, symmetric and periodic, both float dtypes, errors."""
import pytest

from harness import check, AS_TORCH

NAMES = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "hamming", "hann", "kaiser", "nuttall",
         "general_hamming"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("M", [0, 1, 2, 7, 10])
@pytest.mark.parametrize("sym", [True, False])
def test_window(name, M, sym):
    check(lambda T: getattr(T.signal.windows, name)(M, sym=sym), rtol=1e-5, atol=1e-6)
    check(lambda T: getattr(T.signal.windows, name)(M, sym=sym, dtype=T.float64), rtol=1e-12, atol=1e-12)


def test_window_parameters_and_errors():
    W = "signal.windows"
    cases = [
        lambda T: T.signal.windows.exponential(9, tau=2.5), lambda T: T.signal.windows.exponential(9, center=2., sym=False),
        lambda T: T.signal.windows.gaussian(9, std=0.7), lambda T: T.signal.windows.kaiser(9, beta=3.),
        lambda T: T.signal.windows.general_cosine(8, a=[0.5, 0.3, 0.2]),
        lambda T: T.signal.windows.general_hamming(8, alpha=0.6, sym=False),
        lambda T: T.signal.windows.hann(-1), lambda T: T.signal.windows.hann(4, dtype=T.float16),
        lambda T: T.signal.windows.exponential(4, tau=0), lambda T: T.signal.windows.exponential(4, center=1.),
        lambda T: T.signal.windows.gaussian(4, std=-1.), lambda T: T.signal.windows.kaiser(4, beta=-1.),
        lambda T: T.signal.windows.general_cosine(4, a=3), lambda T: T.signal.windows.general_cosine(4, a=[]),
        lambda T: T.signal.windows.hann(4, requires_grad=True),
    ]
    assert W
    for c in cases:
        check(c, raises=AS_TORCH)
