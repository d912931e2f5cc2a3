"""repr/str of tensors, Size, device and dtype: character for character against torch."""
import copy
import pickle
import re

import numpy as np
import pytest

from harness import check

nan, inf = float("nan"), float("inf")


def _grid(*shape, scale=1.0, offset=0.0):
    n = int(np.prod(shape))
    return ((np.arange(n, dtype=np.float64) - n // 2) * scale + offset).reshape(shape)


def _randn(*shape, seed=0):
    return np.random.RandomState(seed).standard_normal(shape).astype(np.float32)


# name -> builder of a tensor from namespace T
CASES = {
    "scalar_float": lambda T: T.tensor(1.5),
    "scalar_int_valued": lambda T: T.tensor(3.0),
    "scalar_neg": lambda T: T.tensor(-0.25),
    "scalar_small": lambda T: T.tensor(1e-5),
    "scalar_large": lambda T: T.tensor(1e9),
    "scalar_int": lambda T: T.tensor(7),
    "scalar_bool": lambda T: T.tensor(False),
    "scalar_nan": lambda T: T.tensor(nan),
    "scalar_complex": lambda T: T.tensor(1 - 2j),
    "scalar_bf16": lambda T: T.tensor(2.5, dtype=T.bfloat16),
    "vec_int_valued": lambda T: T.tensor([1.0, 2.0, 3.0]),
    "vec_mixed": lambda T: T.tensor([1.0, 1.5, -2.25]),
    "vec_zero": lambda T: T.tensor([0.0, -0.0, 0.0]),
    "vec_small": lambda T: T.tensor([1e-5, 2e-5]),
    "vec_ratio_sci": lambda T: T.tensor([0.5, 1000.0]),
    "vec_ratio_no_sci": lambda T: T.tensor([1.0, 1000.0]),
    "vec_large_int": lambda T: T.tensor([1e9, 2e9]),
    "vec_precision_round": lambda T: T.tensor([0.1, 0.123456, 12.5]),
    "vec_neg_align": lambda T: T.tensor([-1.0, 10.5, -100.25]),
    "vec_nan_inf": lambda T: T.tensor([1.5, nan, -inf, inf]),
    "vec_nan_zero": lambda T: T.tensor([0.0, nan]),
    "vec_int_nan": lambda T: T.tensor([1.0, nan, 3.0]),
    "vec_sci_nan": lambda T: T.tensor([1e-6, nan, 1.0]),
    "vec_wrap": lambda T: T.tensor(_randn(30)),
    "vec_wrap_int": lambda T: T.arange(40),
    "randn_2d": lambda T: T.tensor(_randn(3, 4)),
    "mat_int_valued": lambda T: T.tensor(_grid(2, 3)),
    "mat_neg": lambda T: T.tensor(_grid(3, 3, scale=0.5)),
    "tensor_3d": lambda T: T.tensor(_grid(2, 2, 3, scale=0.25)),
    "tensor_4d": lambda T: T.tensor(_grid(2, 2, 2, 2)),
    "long_1d": lambda T: T.arange(2000.0),
    "long_1d_float": lambda T: T.tensor(_randn(1500)),
    "long_2d": lambda T: T.tensor(_grid(40, 40, scale=0.5)),
    "long_3d": lambda T: T.tensor(_grid(10, 10, 11)),
    "long_2d_wide_rows": lambda T: T.tensor(_randn(2, 600)),
    "int64": lambda T: T.tensor([[1, -20], [300, 4]]),
    "int32": lambda T: T.tensor([1, 2, 3], dtype=T.int32),
    "int8": lambda T: T.tensor([-1, 2], dtype=T.int8),
    "uint8": lambda T: T.tensor([0, 255], dtype=T.uint8),
    "int16_long": lambda T: T.arange(1200, dtype=T.int16),
    "bool": lambda T: T.tensor([True, False, True]),
    "bool_2d": lambda T: T.tensor([[True], [False]]),
    "float64": lambda T: T.tensor([1.0, 2.5], dtype=T.float64),
    "float16": lambda T: T.tensor([1.0, 2.5, 1e-3], dtype=T.float16),
    "bfloat16": lambda T: T.tensor([1.0, 2.5, 3.0], dtype=T.bfloat16),
    "empty": lambda T: T.tensor([]),
    "empty_2d": lambda T: T.zeros(0, 3),
    "empty_int": lambda T: T.tensor([], dtype=T.int64),
    "empty_f64": lambda T: T.zeros(2, 0, dtype=T.float64),
    "complex": lambda T: T.tensor([1 + 2j, -1.5 - 0.5j, 0j]),
    "complex_sci": lambda T: T.tensor([1e-5 + 1j, 2 + 0j]),
    "complex_2d": lambda T: T.tensor([[1 + 1j, 2 - 2j], [0.5j, -3 + 0j]]),
    "complex128": lambda T: T.tensor([1 + 2j], dtype=T.complex128),
    "requires_grad": lambda T: T.tensor([1.0, 2.0], requires_grad=True),
    "requires_grad_scalar": lambda T: T.tensor(1.5, requires_grad=True),
    "transposed": lambda T: T.tensor(_grid(2, 3)).t(),
    "suffix_wrap": lambda T: T.tensor(_randn(9), dtype=T.float64, requires_grad=True),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_repr(name):
    build = CASES[name]
    check(lambda T: (repr(build(T)), str(build(T))))


_GRAD_FN = re.compile(r"grad_fn=<\w+>")


def _strip_grad_fn(s):
    assert "grad_fn=<" in s
    return _GRAD_FN.sub("grad_fn=<?>", s)


@pytest.mark.parametrize("shape", [(2,), (), (3, 30)])
def test_repr_non_leaf(shape):
    # the backward node's name is MindSpore's, so only its presence and position are compared
    def fn(T):
        x = T.tensor(_randn(*shape) if shape else 1.25, requires_grad=True)
        return _strip_grad_fn(repr(x * 2)), _strip_grad_fn(str(x - 0.5))
    check(fn)


PRINT_OPTIONS = [
    dict(precision=2),
    dict(precision=6),
    dict(sci_mode=False),
    dict(sci_mode=True),
    dict(profile="full"),
    dict(profile="short"),
    dict(linewidth=40),
    dict(threshold=5),
    dict(threshold=5, edgeitems=1),
    dict(threshold=5, edgeitems=0),
]


@pytest.mark.parametrize("opts", PRINT_OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_set_printoptions(opts):
    def fn(T):
        samples = [T.tensor([1.123456, 1e-5, 123.0]), T.tensor([0.5, 100.0]), T.tensor(_randn(4, 5)),
                   T.arange(12.0), T.arange(1200).reshape(2, 600), T.tensor([1.0, 2.0]),
                   T.tensor(_grid(3, 4, 5)), T.tensor([1 + 1j, 2 - 0.5j])]
        T.set_printoptions(**opts)
        try:
            return [repr(s) for s in samples]
        finally:
            T.set_printoptions(profile="default")
    check(fn)


def test_printoptions_restore():
    def fn(T):
        x = T.tensor([1.123456, 2.0])
        T.set_printoptions(precision=1, sci_mode=True)
        changed = repr(x)
        T.set_printoptions(profile="default")
        return changed, repr(x), repr(T.tensor([1e-5, 1.0]))
    check(fn)


def test_set_printoptions_keeps_other_options():
    def fn(T):
        x = T.arange(30.0) / 7
        T.set_printoptions(precision=2)
        T.set_printoptions(linewidth=50)
        try:
            return repr(x)
        finally:
            T.set_printoptions(profile="default")
    check(fn)


def test_tensor_str_printoptions():
    # sentence-transformers formats its model cards under torch._tensor_str.printoptions
    def fn(T):
        x = T.tensor([1.123456, 2e-5, 3.0])
        with T._tensor_str.printoptions(precision=2, sci_mode=False):
            inside = repr(x), T._tensor_str.PRINT_OPTS.precision, T._tensor_str.PRINT_OPTS.sci_mode
        opts = T._tensor_str.get_printoptions()
        return inside, repr(x), opts["precision"], opts["sci_mode"], T._tensor_str.PRINT_OPTS.threshold
    check(fn)


def test_format_spec():
    check(lambda T: (f"{T.tensor(1.5):.3f}", f"{T.tensor(7):>4}", f"{T.tensor([1.0])}",
                     "{}".format(T.tensor([1, 2]))))
    check(lambda T: f"{T.tensor([1.0, 2.0]):.2f}", raises=True)


def test_size_repr():
    check(lambda T: (repr(T.Size([2, 3])), str(T.Size([])), repr(T.zeros(2, 0, 4).shape),
                     repr(T.zeros(3, 4).size()), repr(T.Size([2, 3])[1:]), T.Size([2, 3]).numel(),
                     repr(T.Size([2]) + T.Size([3])), repr(T.Size([2]) + (3,)),
                     T.Size([2, 3]) == (2, 3), isinstance(T.Size([1]), tuple)))


SIZE_CASES = {
    "radd": lambda T: repr((2,) + T.Size([1])),
    "add_list": lambda T: T.Size([1]) + [2],
    "mul": lambda T: (repr(T.Size([1, 2]) * 2), repr(2 * T.Size([1, 2]))),
    "slice": lambda T: (repr(T.Size([1, 2, 3])[::2]), T.Size([1, 2, 3])[-1]),
    "pickle_copy": lambda T: (repr(pickle.loads(pickle.dumps(T.Size([1, 2])))), repr(copy.deepcopy(T.Size([3])))),
    "from_bools_and_index": lambda T: (repr(T.Size([True, 2])), repr(T.Size([np.int64(3), T.tensor(4)]))),
    "float_item": lambda T: T.Size([1, 1.5]),
    "str_item": lambda T: T.Size(["a"]),
    "float_tensor_item": lambda T: T.Size([T.tensor(2.0)]),
    "not_iterable": lambda T: T.Size(3),
    "tuple_api": lambda T: (T.Size([1, 2, 2]).count(2), T.Size([1, 2]).index(2), hash(T.Size([1, 2])) == hash((1, 2)),
                            len(T.Size([1, 2])), f"{T.Size([1, 2])}", T.Size([]).numel(), repr(T.Size())),
}


SIZE_ERRORS = {"add_list", "float_item", "float_tensor_item", "not_iterable", "str_item"}


@pytest.mark.parametrize("name", sorted(SIZE_CASES))
def test_size_behaviour(name):
    check(SIZE_CASES[name], raises=name in SIZE_ERRORS)


def test_device_repr():
    check(lambda T: (repr(T.device("cpu")), str(T.device("cpu")), repr(T.device("cuda:1")),
                     str(T.device("cuda", 0)), repr(T.device("cuda")), str(T.device("cpu:0")),
                     repr(T.tensor([1.0]).device)))


def test_dtype_repr():
    check(lambda T: [repr(d) for d in (T.float32, T.float, T.float64, T.double, T.half, T.bfloat16,
                                       T.int64, T.long, T.int32, T.int, T.int16, T.int8, T.uint8,
                                       T.bool, T.complex64, T.cfloat, T.complex128)])
    check(lambda T: str(T.float32))


def test_parameter_repr():
    check(lambda T: (repr(T.nn.Parameter(T.tensor([[1.5, 2.0]]))),
                     repr(T.nn.Parameter(T.tensor([1, 2]), requires_grad=False)),
                     str(T.nn.Parameter(T.tensor(2.0)))))


def test_suffix_line_wrapping():
    # suffixes move to their own line when the last line would pass linewidth
    check(lambda T: [repr(T.tensor(_grid(n, scale=0.5), dtype=T.float64)) for n in (6, 7, 8, 9, 10)])
    check(lambda T: [repr(T.tensor(_grid(n), dtype=T.int32)) for n in (13, 14, 15, 16)])
