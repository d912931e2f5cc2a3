"""Older torch APIs still found in scripts, compared with torch: Tensor.new, set_default_tensor_type,
nn.utils.skip_init / stateless.functional_call, Module.to_empty and modules built with device='meta'."""
import warnings

import pytest
import torch

import mstorch
from harness import check, run, Raised


def _both_raise(fn):
    ref, got = run(fn, torch), run(fn, mstorch)
    assert isinstance(ref, Raised) and isinstance(got, Raised), (ref, got)
    assert type(got.exc) is type(ref.exc), (ref, got)
    return ref, got


@pytest.mark.parametrize("src", [
    "x.new()", "x.new(2, 3).shape", "x.new((2, 3))", "x.new([1, 2])", "x.new([[1.5, 2], [3, 4]])",
    "x.new(T.Size([2])).shape", "x.new(x[0])", "x.new(x).data_ptr() == x.data_ptr()", "x.new(2, device='cpu').shape",
    "T.ones(2, requires_grad=True).new(2).requires_grad", "T.ones(2, dtype=T.int32).new([1.7, 2])",
])
def test_tensor_new(src):
    check(lambda T: eval(src, {"T": T, "x": T.ones(2, 3, dtype=T.float64)}))


@pytest.mark.parametrize("src", ["x.new(T.tensor([1, 2]))", "x.new(2, dtype=T.int32)", "x.new(2.5)", "x.new(-1)",
                                 "x.new((1, 2), (3, 4))", "x.new(3, requires_grad=True)"])
def test_tensor_new_errors(src):
    ref, got = _both_raise(lambda T: eval(src, {"T": T, "x": T.ones(2, 3)}))
    if "dtype=" in src or "requires_grad" in src:
        assert str(got.exc).split(", but")[0] == str(ref.exc).split(", but")[0]


def test_set_default_tensor_type():
    def fn(T):
        seen = []
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            for a in ["torch.DoubleTensor", T.FloatTensor, T.LongTensor, "torch.cuda.FloatTensor", T.cuda.FloatTensor,
                      "float", T.float64, "torch.HalfTensor", "torch.Nope", "torch.FloatTensor"]:
                try:
                    T.set_default_tensor_type(a)
                    seen.append((T.get_default_dtype(), T.tensor([1.]).dtype, T.Tensor(2).dtype))
                except Exception as exc:  # noqa: BLE001 - the error is what is compared
                    seen.append(f"{type(exc).__name__}: {exc}")
        T.set_default_dtype(T.float32)
        return seen, sorted({(x.category.__name__, str(x.message).split(" (Triggered")[0]) for x in w})
    check(fn)


def test_skip_init_draws_nothing_and_lands_on_the_device():
    def fn(T):
        T.manual_seed(0)
        m = T.nn.utils.skip_init(T.nn.Linear, 3, 2)
        after = T.randn(2)   # (no draw happened: the same stream position as right after the seed)
        m2 = T.nn.utils.skip_init(T.nn.Conv2d, in_channels=2, out_channels=1, kernel_size=1, bias=False)
        return (after, type(m.weight).__name__, m.weight.shape, m.weight.device, m.weight.requires_grad,
                m.bias.device, m2.weight.shape, m2.bias, m(T.ones(1, 3)).shape)
    check(fn)

    _both_raise(lambda T: T.nn.utils.skip_init(int))
    _both_raise(lambda T: T.nn.utils.skip_init(type("M", (T.nn.Module,), {})))


@pytest.mark.parametrize("name, args, kw", [
    ("Linear", (3, 2), {}), ("Bilinear", (2, 3, 4), {}), ("Conv2d", (2, 3, 3), {}), ("ConvTranspose1d", (2, 3, 3), {}),
    ("BatchNorm1d", (3,), {}), ("LayerNorm", (4,), {}), ("GroupNorm", (2, 4), {}), ("RMSNorm", (4,), {}),
    ("Embedding", (5, 3), {}), ("EmbeddingBag", (5, 3), {}), ("LSTM", (3, 4), {}), ("GRU", (3, 4, 2), {}),
    ("RNNCell", (3, 4), {}), ("LSTMCell", (3, 4), {}), ("GRUCell", (3, 4), {}), ("MultiheadAttention", (4, 2), {}),
    ("TransformerEncoderLayer", (4, 2, 8), {}), ("TransformerDecoderLayer", (4, 2, 8), {}),
    ("Transformer", (4, 2, 1, 1, 8), {}), ("PReLU", (), {}), ("InstanceNorm1d", (3,), {"affine": True}),
    ("AdaptiveLogSoftmaxWithLoss", (8, 10, [4]), {}),
])
def test_module_on_meta_device(name, args, kw):
    def fn(T):
        T.manual_seed(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = getattr(T.nn, name)(*args, device="meta", **kw)
        state = [(n, t.device, t.shape, t.dtype) for n, t in m.state_dict().items()]
        moved = m.to_empty(device="cpu")
        return state, moved is m, sorted({str(t.device) for t in m.state_dict().values()}), T.randn(2)
    check(fn)


def test_to_empty_keeps_the_parameter_objects():
    def fn(T):
        lin = T.nn.Linear(2, 2)
        w = lin.weight
        lin.to_empty(device="meta")
        meta = (lin.weight is w, lin.weight.is_meta, lin.weight.device)
        lin.to_empty(device="cpu", recurse=False)
        return meta, lin.weight.is_meta, lin.weight.requires_grad, lin.weight.shape

    check(fn)


def test_stateless_functional_call():
    def fn(T):
        lin = T.nn.Linear(2, 1)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            out = T.nn.utils.stateless.functional_call(lin, {"weight": T.ones(1, 2), "bias": T.zeros(1)},
                                                       (T.tensor([[1., 2.]]),))
        return out, [(x.category.__name__, str(x.message)) for x in w]
    check(fn)


@pytest.mark.parametrize("src", [
    "x.clone().map_(T.tensor([1., 2, 3]), lambda a, b: a + b)", "x.clone().map_(T.tensor([1, 2, 3]), lambda a, b: a + b)",
    "x.clone().map_(T.ones(2, 1), lambda a, b: a * b + 1)", "x.clone().map_(T.ones(4), lambda a, b: a)",
    "x.clone().map2_(T.ones(3), T.ones(2, 1) * 2, lambda a, b, c: a + b * c)",
    "T.tensor([True, False]).apply_(lambda v: not v)", "T.ones(2, requires_grad=True).map_(T.ones(2), lambda a, b: a)",
    "x.clone().apply_(lambda v: None)", "x.clone().apply_(lambda v: 2 ** 70)", "T.arange(3).apply_(lambda v: 2 ** 70)",
    "x.clone().map_(x, lambda a, b: 'z')", "T.tensor([1 + 2j]).apply_(lambda v: v * 2)", "T.zeros(0).apply_(lambda v: v)",
    "x.clone().t().apply_(lambda v: v + 1)", "(lambda y: (y.t().apply_(lambda v: v + 10), y)[1])(x.clone())",
    "x.clone().apply_(lambda v: 1.0 if type(v) is float else 0.0)", "T.arange(3).apply_(lambda v: 1 if type(v) is int else 0)",
    "T.arange(3).apply_(lambda v: v * 1.7)", "(lambda y: y.apply_(lambda v: v) is y)(x.clone())",
])
def test_python_callables_per_element(src):
    raises = any(k in src for k in ("requires_grad", "None", "'z'", "ones(4)", "arange(3).apply_(lambda v: 2",
                                    "tensor([1, 2, 3])"))
    check(lambda T: eval(src, {"T": T, "x": T.arange(6.).reshape(2, 3)}), raises=raises)


def test_module_load_new_empty_strided_const_data_ptr():
    def fn(T):
        x = T.arange(6.).reshape(2, 3)
        out = [x.const_data_ptr() == x.data_ptr(), x.new_empty_strided((2, 2), (1, 2)).stride(),
               x.new_empty_strided((2, 2), (1, 2), dtype=T.int32).dtype, x.new_empty_strided((2, 2), (1, 2)).dtype]
        y = T.zeros(2, 3)
        r = y.module_load(x)
        out += [r is y, r.data_ptr() == y.data_ptr(), y, r.requires_grad]
        p = T.nn.Parameter(T.zeros(2, 3))
        with T.no_grad():
            r = p.module_load(x)
        out += [type(r).__name__, r.requires_grad]
        r = p.module_load(x, assign=True)
        out += [type(r).__name__, r is x, r.data_ptr() == x.data_ptr()]
        return out
    check(fn)
    check(lambda T: T.nn.Parameter(T.zeros(2)).module_load(T.ones(2)), raises=True)


def test_grad_scaler_at_top_level():
    check(lambda T: (T.GradScaler is T.amp.GradScaler, T.GradScaler("cpu").get_scale()))
