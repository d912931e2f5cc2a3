"""Regression tests against torch for classes the differential fuzzer found in the nn families (issue 18, tenth
batch, second part): local_response_norm's integer and bfloat16 averages and its view of a permuted input,
embedding's frequency-scaled gradient at an infinite weight, huber_loss's half-type rounding, complex linear
and silu at overflow, silu's gradient at huge inputs, integer loss sums that wrap, and ctc_loss's reading of
a strided 1-D targets tensor."""
import pytest

from harness import check


def _grads(T, r, xs):
    g = r if isinstance(r, T.Tensor) else r[0]
    (g * T.linspace(-1, 2, g.numel()).reshape(g.shape).to(g.dtype)).sum().backward()
    return (r,) + tuple(x.grad for x in xs)


_BIG = 9223372036854775807


# --- local_response_norm ---------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(4, 2, 3), (4, 2, 3, 1)])
def test_local_response_norm_int64_truncating_average(shape):
    check(lambda T: T.nn.functional.local_response_norm(T.tensor(
        [[[-1, 0, 0], [-1, -3, _BIG]], [[3, 0, _BIG], [0, -1, -_BIG - 1]], [[_BIG, -1, 5], [_BIG, -4, 5]],
         [[2, -2, 0], [1, 0, 3]]]).reshape(shape), 5, 0.1))


def test_local_response_norm_bfloat16_steps():
    check(lambda T: T.nn.functional.local_response_norm((T.arange(12) - 5).reshape(2, 3, 2).to(T.bfloat16), 3, 0.5),
          rtol=0, atol=0)


@pytest.mark.parametrize("perm", [(0, 1, 2, 4, 3), (4, 3, 2, 1, 0), (0, 1, 3, 2, 4), (1, 0, 2, 3, 4)])
def test_local_response_norm_permuted_5d(perm):
    # torch views input * input as (N, 1, C, H, -1): a product laid out like a permuted input cannot be
    check(lambda T: T.nn.functional.local_response_norm(T.ones(2, 3, 2, 2, 2).permute(*perm), 2),
          raises=perm != (1, 0, 2, 3, 4))


def test_local_response_norm_permuted_bool_view_error_first():
    check(lambda T: T.nn.functional.local_response_norm(
        T.zeros((2, 2, 2, 6, 1), dtype=T.bool).permute(4, 3, 2, 1, 0), 4), raises=True)


# --- embedding -------------------------------------------------------------------------------------

def test_embedding_scale_grad_by_freq_infinite_weight():
    def f(T):
        x1 = T.tensor([[1.25, 0.643, -1.629, -1.033, -1.117], [3.4028235e+38, -0.1, 1.2, 1.7, -1.8],
                       [1.8, float("inf"), 1.0, 0.4, 0.2], [-0.3, -0.2, -3.4028235e+38, float("nan"), 0.9]],
                      requires_grad=True)
        return _grads(T, T.nn.functional.embedding(T.tensor([0, 1, 1, 0, 0]), x1[1:], 0, scale_grad_by_freq=True),
                      (x1,))
    check(f)


def test_embedding_scale_grad_by_freq_float64_precision():
    def f(T):
        w = T.tensor([[-1.22, 1.68], [0.82, -1.21], [-1.73, 0.22], [0.3, -1.64], [0.67, 1.77], [-1.92, 1.24],
                      [-1.48, 1.31]], dtype=T.float64, requires_grad=True)
        r = T.nn.functional.embedding(T.tensor([4, 3, 4, 6, 4], dtype=T.int32), w, scale_grad_by_freq=True)
        return _grads(T, r, (w,))
    check(f, rtol=1e-12, atol=1e-14)


def test_embedding_scale_grad_by_freq_double_backward():
    def f(T):
        w = T.tensor([[1., 2.], [float("inf"), 3.], [4., 5.]], requires_grad=True)
        r = T.nn.functional.embedding(T.tensor([1, 1, 2, 0]), w, scale_grad_by_freq=True, padding_idx=0)
        (g,) = T.autograd.grad((r * r).sum(), w, create_graph=True)
        (g2,) = T.autograd.grad(g[2].sum(), w)
        return r, g, g2
    check(f)


# --- huber_loss: float16 computed in float32, bfloat16 rounded at every step -----------------------------

@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("delta", [1.0, 0.3, 2.7])
def test_huber_loss_half_rounding(dtype, delta):
    def f(T):
        x = T.tensor([0.7001953125, -0.7998046875, 1.4, -2.3, 0.05, 3.1, -0.31, 0.6], dtype=getattr(T, dtype))
        t = T.tensor([-1.615234375, -0.257080078125, -1.05, 0.4, 0.33, -1.9, -0.02, 0.29], dtype=getattr(T, dtype))
        return T.nn.functional.huber_loss(x, t, reduction="none", delta=delta)
    check(f, rtol=0, atol=0)


def test_huber_loss_float16_weighted():
    def f(T):
        x0 = T.tensor([[0.60009765625, -1.7001953125, 1.0, 1.0], [0.7998046875, 0.7001953125, -0.60009765625, -1.0],
                       [0.7001953125, -0.7998046875, -0.7998046875, 1.400390625]], dtype=T.float16, requires_grad=True)
        x1 = T.tensor([[-0.98486328125, 0.5009765625, -0.447021484375, 1.73828125],
                       [1.638671875, -1.615234375, -0.154052734375, 0.7880859375],
                       [-0.45703125, 0.828125, -0.257080078125, -1.0478515625]], dtype=T.float16, requires_grad=True)
        t0 = T.tensor([[1.1068357, 0.092653364, 0.20280583, 1.8175921], [0.5570847, 1.1076763, 0.7549046, 1.3450743],
                       [1.7187005, 1.7640435, 0.25472552, 1.6880306]])
        return _grads(T, T.nn.functional.huber_loss(x0, x1, weight=t0), (x0, x1))
    check(f, rtol=2e-3, atol=2e-3)


# --- complex linear and silu at overflow -------------------------------------------------------------

_LINEAR_X = ("T.tensor([[complex(0.0, 0.89), complex(-0.15, 0.91), complex(3.4028234663852886e+38, 1.0)], "
             "[complex(1.38, -1.33), complex(float('inf'), -0.74), complex(0.78, -1.09)], "
             "[complex(-3.4028234663852886e+38, -0.24), complex(3.4028234663852886e+38, 1.78), complex(0.0, 1.54)], "
             "[complex(-0.95, 0.41), complex(-1.01, -0.09), complex(0.91, -1.95)]])")
_LINEAR_W = ("T.tensor([[complex(-1.037, 0.92), complex(-0.0, -1.65), complex(float('nan'), -1.21)], "
             "[complex(-0.546, 1.5), complex(0.608, 1.41), complex(-1.023, -0.97)], "
             "[complex(0.393, -1.62), complex(-3.4028234663852886e+38, -0.35), complex(-0.599, -1.64)]])")


@pytest.mark.parametrize("form", ["F.linear(x, w)", "F.linear(x.reshape(2, 2, 3), w)",
                                  "F.linear(x, w, T.tensor([1 + 1j, complex(float('inf'), 1), -2j]))",
                                  "F.linear(x.reshape(2, 2, 3).transpose(0, 1), w, T.tensor([1 + 1j, 2, -2j]))"])
def test_linear_complex_overflow(form):
    def f(T):
        env = {"T": T, "F": T.nn.functional}
        env["x"], env["w"] = eval(_LINEAR_X, env), eval(_LINEAR_W, env)  # noqa: S307
        return eval(form, env)  # noqa: S307
    check(f)


def test_silu_complex_overflow():
    check(lambda T: T.nn.functional.silu(T.tensor(
        [complex(-8.171, -61.39), complex(-42.207, 37.85), complex(-100.97, -48.51), complex(27.902, 87.52),
         complex(-139.50185, -19.292847), complex(90, 3), complex(-90, 3), complex(0.5, -0.25)])))


def test_silu_complex_requires_grad_refused():
    check(lambda T: T.nn.functional.silu(T.tensor([1 + 2j], requires_grad=True)), raises=True)


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_silu_grad_at_huge_and_infinite(dtype):
    def f(T):
        big = 1.7976931348623157e+308 if dtype == "float64" else 3e38
        x = T.tensor([[-2.74, -4.53, 5.6], [-3.04, -float("inf"), -4.13], [float("inf"), float("nan"), -5.18],
                      [big, -big, -100.0], [0.5, 17.28, -1000.0]], dtype=getattr(T, dtype), requires_grad=True)
        return _grads(T, T.nn.functional.silu(x), (x,))
    check(f, rtol=1e-2 if dtype == "bfloat16" else 1e-5)


def test_silu_double_backward():
    def f(T):
        x = T.tensor([0.5, -2.0, 3.0], dtype=T.float64, requires_grad=True)
        (g,) = T.autograd.grad(T.nn.functional.silu(x).sum(), x, create_graph=True)
        return g, T.autograd.grad(g.sum(), x)[0]
    check(f, rtol=1e-12, atol=1e-14)


# --- integer losses: torch's sums wrap ---------------------------------------------------------------

def test_cosine_embedding_loss_int64_wraps():
    check(lambda T: T.nn.functional.cosine_embedding_loss(T.tensor([-5, _BIG, 2, 4]), T.tensor([1, -1, -2, 0]),
                                                          T.tensor(-1.0), margin=0.1))


@pytest.mark.parametrize("loss", ["l1_loss", "hinge_embedding_loss"])
def test_integer_loss_sum_wraps(loss):
    check(lambda T: getattr(T.nn.functional, loss)(
        T.tensor([_BIG, _BIG, 5]), T.tensor([0, 0, 0]) if loss == "l1_loss" else T.tensor([1, 1, 1]),
        reduction="sum"))


# --- ctc_loss: torch reads a strided 1-D targets tensor at unscaled offsets ---------------------------------

def test_ctc_loss_strided_targets():
    def f(T):
        lp = T.tensor([[[-3.57, -1.34, -4.32, -3.92], [-1.38, -2.47, -2.79, -4.13]],
                       [[-1.93, -2.7, -4.29, -2.58], [-2.77, -1.5, -1.19, -1.58]],
                       [[-4.37, -4.88, -3.61, -2.61], [-4.79, -1.73, -0.66, -1.23]],
                       [[-3.38, -3.19, -5.05, -2.72], [-4.01, -4.54, -0.47, -0.2]],
                       [[-4.39, -1.89, -0.66, -4.49], [-3.29, -1.44, -4.24, -0.48]],
                       [[-1.24, -1.93, -0.54, -1.67], [-1.49, -5.06, -3.92, -2.94]]], dtype=T.float64)
        return T.ctc_loss(lp, T.tensor([1, 4, 2, -2, 3, -1, 1, 2])[::2], [6, 5], [2, 2], 3, 0)
    check(f)


def test_ctc_loss_expanded_targets_refused():
    # torch reads past the storage of an expanded targets tensor (garbage, or a corrupted heap): refused
    import mstorch as T
    with pytest.raises(RuntimeError, match="unscaled offsets"):
        T.ctc_loss(T.zeros(6, 2, 4).log_softmax(2), T.tensor([1]).expand(4), (6, 5), (2, 2), 0, 1)


@pytest.mark.parametrize("src", [
    "F.embedding(T.tensor(-2), T.tensor(1.5))",
    "F.embedding(T.tensor(0.0999755859375, dtype=T.float16), T.tensor(complex(-1.3, 0.8)))",
    "F.embedding(T.tensor([1]), T.tensor(1.5), 0)",
    "F.embedding(T.tensor([1]), T.tensor(1.5), -1)",
    "F.embedding(T.tensor(5), T.ones(3))",
])
def test_embedding_weight_not_2d_checked_first(src):
    check(lambda T: eval(src, {"T": T, "F": T.nn.functional}), raises=True)


@pytest.mark.parametrize("xd,pd", [("float64", "float32"), ("float32", "float64"), ("float16", "float32"),
                                   ("bfloat16", "float32"), ("float16", "float64"), ("bfloat16", "float16")])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("which", [("w",), ("rm", "rv"), ("b",)])
def test_batch_norm_mixed_parameter_dtypes(xd, pd, training, which):
    # torch's CPU kernel: parameters of the input's dtype, or float32 ones beside a half input
    from harness import check_as_torch

    def fn(T):
        x = T.ones(3, 2, 4, dtype=getattr(T, xd)).cumsum(0)
        p = {k: (T.ones(2, dtype=getattr(T, pd)) if k in which else None) for k in ("w", "b", "rm", "rv")}
        rm = p["rm"] if p["rm"] is not None else (None if training else T.zeros(2, dtype=getattr(T, xd)))
        rv = p["rv"] if p["rv"] is not None else (None if training else T.ones(2, dtype=getattr(T, xd)))
        return T.nn.functional.batch_norm(x, rm, rv, p["w"], p["b"], training)
    check_as_torch(fn, rtol=1e-2, atol=1e-2)
