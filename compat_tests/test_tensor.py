"""Tensor basics against torch: scalars, host conversions, sizes/strides, dtype/device conversions,
transposes, .data, deepcopy, hashing, torch.device."""
import copy
import operator
import pickle
import warnings

import numpy as np
import pytest

from harness import check, check_raises

ALL_DTYPES = ("float32", "float64", "float16", "bfloat16", "int8", "uint8", "int16", "int32", "int64",
              "bool", "complex64", "complex128")


def _nd(a):
    """An ndarray as comparable data: dtype, values."""
    return str(a.dtype), a.tolist()


def _typed(T, name, values=(0, 1)):
    return T.tensor(list(values), dtype=getattr(T, name))


def _warned(T, fn):
    """Run fn(); return (result, [(category, message without torch's '(Triggered internally' tail)]).
    set_warn_always: torch gives these notices once per process otherwise."""
    T.set_warn_always(True)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = fn()
    finally:
        T.set_warn_always(False)
    return out, [(w.category.__name__, str(w.message).split(" (Triggered internally")[0]) for w in caught]


CASES = {
    # item / tolist / Python scalars
    "item_int": lambda T: T.tensor([5]).item(),
    "item_float": lambda T: T.tensor(2.5).item(),
    "item_bool": lambda T: T.tensor([[True]]).item(),
    "item_bf16": lambda T: T.tensor(1.1, dtype=T.bfloat16).item(),
    "item_f16": lambda T: T.tensor(1.1, dtype=T.float16).item(),
    "item_complex": lambda T: T.tensor(1 - 2j).item(),
    "item_requires_grad": lambda T: T.tensor(1.5, requires_grad=True).item(),
    "item_many": lambda T: T.tensor([1, 2]).item(),
    "item_empty": lambda T: T.tensor([]).item(),
    "tolist_nested": lambda T: T.tensor([[1, 2], [3, 4]]).tolist(),
    "tolist_0d": lambda T: T.tensor(3.5).tolist(),
    "tolist_bf16": lambda T: T.tensor([[1.1, 2.0]], dtype=T.bfloat16).tolist(),
    "tolist_f16": lambda T: T.tensor([1.1], dtype=T.float16).tolist(),
    "tolist_bool": lambda T: T.tensor([True, False]).tolist(),
    "tolist_complex": lambda T: T.tensor([1 + 2j]).tolist(),
    "tolist_empty": lambda T: T.zeros(2, 0).tolist(),
    "tolist_transposed": lambda T: T.tensor([[1, 2, 3], [4, 5, 6]]).t().tolist(),
    "tolist_requires_grad": lambda T: T.tensor([1.0, 2.0], requires_grad=True).tolist(),
    "float": lambda T: float(T.tensor([2.5])),
    "float_int": lambda T: float(T.tensor([[3]])),
    "float_many": lambda T: float(T.tensor([2.5, 1.0])),
    "float_empty": lambda T: float(T.tensor([])),
    "int": lambda T: int(T.tensor([[2.7]])),
    "int_neg": lambda T: int(T.tensor(-2.7)),
    "int_many": lambda T: int(T.tensor([1, 2])),
    "int_nan": lambda T: int(T.tensor(float("nan"))),
    "complex": lambda T: complex(T.tensor(1 + 2j)),
    "bool_zero": lambda T: bool(T.tensor([0.0])),
    "bool_one": lambda T: bool(T.tensor(3)),
    "bool_many": lambda T: bool(T.tensor([1, 2])),
    "bool_empty": lambda T: bool(T.tensor([])),
    "if_tensor": lambda T: "yes" if T.tensor([1]) else "no",
    "is_nonzero": lambda T: (T.is_nonzero(T.tensor([1.0])), T.is_nonzero(T.tensor(0))),
    # __index__
    "index_range": lambda T: list(range(T.tensor(3))),
    "index_list": lambda T: [10, 20, 30][T.tensor(1)],
    "index_slice": lambda T: [10, 20, 30, 40][T.tensor(1):T.tensor([3])],
    "index_bool": lambda T: [10, 20, 30][T.tensor(True)],
    "index_operator": lambda T: operator.index(T.tensor([2])),
    "index_float": lambda T: [10, 20, 30][T.tensor(1.0)],
    "index_many": lambda T: [10, 20, 30][T.tensor([1, 2])],
    "hex": lambda T: hex(T.tensor(255)),
    # len / iter / contains / reversed
    "len": lambda T: len(T.zeros(3, 2)),
    "len_0d": lambda T: len(T.tensor(1.0)),
    "iter": lambda T: list(T.tensor([[1, 2], [3, 4]])),
    "iter_1d": lambda T: [x.item() for x in T.tensor([1.5, 2.5])],
    "iter_0d": lambda T: list(T.tensor(1.0)),
    "iter_empty": lambda T: list(T.zeros(0, 2)),
    "iter_unpack": lambda T: (lambda a, b: (a, b))(*T.tensor([[1, 2], [3, 4]])),
    "contains": lambda T: (2 in T.tensor([1, 2]), 5 in T.tensor([1, 2]), T.tensor(1) in T.tensor([[1, 2]])),
    "contains_bad": lambda T: [1] in T.tensor([1, 2]),
    "reversed": lambda T: reversed(T.tensor([[1, 2], [3, 4]])),
    "reversed_0d": lambda T: reversed(T.tensor(3)),
    # sizes
    "sizes": lambda T: (lambda x: (x.size(), x.size(1), x.size(-1), x.shape, x.ndim, x.dim(), x.numel(),
                                   x.nelement(), x.ndimension(), T.numel(x)))(T.zeros(2, 3)),
    "size_types": lambda T: (type(T.zeros(2).size()).__name__, type(T.zeros(2).shape[0]).__name__),
    "size_out_of_range": lambda T: T.zeros(2, 3).size(2),
    "size_out_of_range_neg": lambda T: T.zeros(2, 3).size(-3),
    "size_0d": lambda T: (T.tensor(1.0).size(), T.tensor(1.0).dim(), T.tensor(1.0).numel()),
    "size_0d_dim": lambda T: T.tensor(1.0).size(0),
    "size_0d_neg": lambda T: T.tensor(1.0).size(-1),
    "stride_0d_dim": lambda T: T.tensor(1.0).stride(0),
    "element_sizes": lambda T: [(_typed(T, d).element_size(), _typed(T, d).itemsize, _typed(T, d).nbytes)
                                for d in ALL_DTYPES],
    "nbytes_2d": lambda T: T.zeros(3, 5, dtype=T.float64).nbytes,
    # strides and contiguity
    "stride": lambda T: (lambda x: (x.stride(), x.stride(1), x.stride(-1)))(T.zeros(2, 3, 4)),
    "stride_0d": lambda T: T.tensor(1.0).stride(),
    "stride_t": lambda T: T.zeros(2, 3).t().stride(),
    "contiguous_t": lambda T: (lambda y: (y.is_contiguous(), y.contiguous().is_contiguous(),
                                          y.contiguous().stride()))(T.zeros(2, 3).t()),
    "contiguous_transpose": lambda T: T.zeros(2, 3, 4).transpose(0, 2).is_contiguous(),
    "contiguous_permute": lambda T: (lambda y: (y.is_contiguous(), y.stride()))(T.zeros(2, 3, 4).permute(2, 0, 1)),
    "contiguous_slice": lambda T: (lambda x: (x[:, 1:3].is_contiguous(), x[:, 1:3].stride(),
                                              x[1:3].is_contiguous(), x[1:3].storage_offset()))(T.zeros(4, 4)),
    "contiguous_same_object": lambda T: (lambda x: x.contiguous() is x)(T.zeros(2)),
    "contiguous_values": lambda T: T.tensor([[1.0, 2, 3], [4, 5, 6]]).t().contiguous(),
    # dtype conversions
    "to_dtype": lambda T: T.tensor([1.5, -2.5]).to(T.int32),
    "to_same_is_self": lambda T: (lambda x: (x.to(T.float32) is x, x.to("cpu") is x, x.to(x) is x,
                                             x.to() is x))(T.tensor([1.0])),
    "to_copy": lambda T: (lambda x: (lambda y: (y is x, y))(x.to(T.float32, copy=True)))(T.tensor([1.0])),
    "to_copy_positional": lambda T: (lambda x: x.to(T.float32, False, True) is x)(T.tensor([1.0])),
    "to_copy_independent": lambda T: (lambda x: (x.to("cpu", copy=True).add_(1), x)[1])(T.tensor([1.0])),
    "to_device_dtype": lambda T: T.tensor([1.5]).to("cpu", T.float64),
    "to_device_object": lambda T: T.tensor([1.5]).to(T.device("cpu"), dtype=T.float16),
    "to_other": lambda T: T.tensor([1.5]).to(T.zeros(1, dtype=T.int64)),
    "to_keywords": lambda T: T.tensor([1.5]).to(dtype=T.float64, device="cpu", non_blocking=True),
    "to_cuda": lambda T: T.tensor([1.0]).to("cuda"),
    "to_cuda_index": lambda T: T.tensor([1.0]).to("cuda:0"),
    "to_int_device": lambda T: T.tensor([1.0]).to(0),
    "to_bad_device": lambda T: T.tensor([1.0]).to("foo"),
    "to_bad_keyword": lambda T: T.tensor([1.0]).to(foo=1),
    "to_requires_grad": lambda T: (lambda y: (y.requires_grad, y.is_leaf, y.dtype))(
        T.tensor([1.0], requires_grad=True).to(T.float64)),
    "to_grad_flows": lambda T: (lambda x: (x.to(T.float64).sum().backward(), x.grad)[1])(
        T.tensor([1.0, 2.0], requires_grad=True)),
    "shortcuts": lambda T: [getattr(T.tensor([1.7, -2.2, 0.0]), m)() for m in
                            ("float", "double", "half", "bfloat16", "long", "int", "short", "char", "bool")],
    "byte": lambda T: T.tensor([1.7, 2.2, 0.0]).byte(),
    "shortcut_same_is_self": lambda T: (lambda x: (x.float() is x, x.double() is x))(T.tensor([1.0])),
    "complex_shortcuts": lambda T: (T.tensor([1.5]).cfloat(), T.tensor([1.5]).cdouble()),
    "type_str": lambda T: [_typed(T, d).type() for d in ALL_DTYPES],
    "type_dtype": lambda T: T.tensor([1.5]).type(T.int32),
    "type_same_is_self": lambda T: (lambda x: x.type(T.float32) is x)(T.tensor([1.0])),
    "type_legacy_str": lambda T: T.tensor([1.5]).type("torch.IntTensor"),
    "type_dtype_str": lambda T: T.tensor([1.5]).type("torch.float64"),
    "type_bad_str": lambda T: T.tensor([1.5]).type("foo"),
    "type_bad": lambda T: T.tensor([1.5]).type(5),
    "type_as": lambda T: T.tensor([1.5]).type_as(T.tensor([1])),
    # devices
    "cpu_is_self": lambda T: (lambda x: x.cpu() is x)(T.tensor([1.0])),
    "cuda": lambda T: T.tensor([1.0]).cuda(),
    "cuda_index": lambda T: T.tensor([1.0]).cuda(0),
    "cuda_str": lambda T: T.tensor([1.0]).cuda("cuda:0"),
    "cuda_cpu_device": lambda T: T.tensor([1.0]).cuda("cpu"),
    "device_props": lambda T: (lambda x: (x.device, str(x.device), x.device.type, x.device.index, x.is_cuda,
                                          x.is_cpu))(T.tensor([1.0])),
    "factory_device": lambda T: (T.zeros(1, device="cpu").device, T.ones(1, device=T.device("cpu")).device),
    "factory_cuda": lambda T: T.zeros(1, device="cuda"),
    # dtype predicates
    "dtype_predicates": lambda T: [(x.is_floating_point(), x.is_complex(), T.is_floating_point(x),
                                    T.is_complex(x)) for x in (_typed(T, d) for d in ALL_DTYPES)],
    "is_floating_point_bad": lambda T: T.is_floating_point(1.0),
    "numel_bad": lambda T: T.numel([1, 2]),
    "is_tensor": lambda T: (T.is_tensor(T.tensor(1.0)), T.is_tensor(1.0), T.is_tensor(np.zeros(1)),
                            T.is_tensor([T.tensor(1)]), isinstance(T.tensor(1.0), T.Tensor),
                            isinstance(T.zeros(2), T.Tensor), isinstance(np.zeros(1), T.Tensor)),
    # transposes
    "T_2d": lambda T: T.tensor([[1.0, 2.0], [3.0, 4.0]]).T,
    "T_1d": lambda T: _warned(T, lambda: T.tensor([1.0, 2.0]).T),
    "T_0d": lambda T: _warned(T, lambda: T.tensor(1.0).T),
    "T_3d": lambda T: _warned(T, lambda: T.tensor(np.arange(24.0).reshape(2, 3, 4)).T),
    "mT_3d": lambda T: T.tensor(np.arange(24.0).reshape(2, 3, 4)).mT,
    "mT_2d": lambda T: T.tensor([[1, 2, 3]]).mT,
    "mT_1d": lambda T: T.tensor([1.0]).mT,
    "mT_0d": lambda T: _warned(T, lambda: T.tensor(1.0).mT),
    "H_2d": lambda T: T.tensor([[1.0, 2.0], [3.0, 4.0]]).H,
    "H_2d_complex": lambda T: T.tensor([[1 + 1j, 2], [3j, 4]]).H.tolist(),
    "H_1d": lambda T: T.tensor([1.0, 2.0]).H,
    "H_3d": lambda T: T.zeros(2, 3, 4).H,
    "H_0d": lambda T: _warned(T, lambda: T.tensor(1 + 1j).H.item()),
    "mH_3d": lambda T: T.tensor(np.arange(12.0).reshape(2, 3, 2) * (1 - 1j)).mH.tolist(),
    "mH_1d": lambda T: T.tensor([1.0]).mH,
    "T_is_view": lambda T: (lambda x: (x.T.add_(1), x)[1])(T.tensor([[1.0, 2.0], [3.0, 4.0]])),
    "T_grad": lambda T: (lambda x: ((x.T * T.tensor([[1.0, 2.0]])).sum().backward(), x.grad)[1])(
        T.tensor([[1.0], [1.0]], requires_grad=True)),
    "H_grad": lambda T: (lambda x: ((x.H * T.tensor([[1.0, 2.0]])).sum().backward(), x.grad)[1])(
        T.tensor([[1.0], [1.0]], requires_grad=True)),
    # .data, requires_grad_, deepcopy, hashing, ==
    "data": lambda T: (lambda y: (y.data.requires_grad, y.data, y.data.is_leaf, y.data.grad_fn))(
        T.tensor([1.0], requires_grad=True) * 2),
    "data_shares": lambda T: (lambda x: (x.data.add_(1), x)[1])(T.tensor([1.0, 2.0], requires_grad=True)),
    "data_set": lambda T: (lambda x: (setattr(x, "data", T.tensor([5.0, 6.0])), x.detach(), x.requires_grad,
                                      x.is_leaf)[1:])(T.tensor([1.0, 2.0], requires_grad=True)),
    "data_set_shape": lambda T: (lambda x: (setattr(x, "data", T.zeros(3)), x.shape)[1])(T.tensor([1.0])),
    "requires_grad_": lambda T: (lambda x: (x.requires_grad_() is x, x.requires_grad, x.is_leaf))(T.tensor([1.0])),
    "requires_grad_false": lambda T: T.tensor([1.0], requires_grad=True).requires_grad_(False).requires_grad,
    "requires_grad_int": lambda T: T.tensor([1]).requires_grad_(),
    "requires_grad_non_leaf": lambda T: (T.tensor([1.0], requires_grad=True) * 2).requires_grad_(False),
    "requires_grad_attr": lambda T: (lambda x: (setattr(x, "requires_grad", True), x.requires_grad)[1])(
        T.tensor([1.0])),
    "deepcopy": lambda T: (lambda x: (lambda y: (y, y is x, y.requires_grad, y.is_leaf, y.grad))(
        copy.deepcopy(x)))(T.tensor([1.0, 2.0], requires_grad=True)),
    "deepcopy_independent": lambda T: (lambda x: (copy.deepcopy(x).add_(1), x)[1])(T.tensor([1.0, 2.0])),
    "deepcopy_non_leaf": lambda T: copy.deepcopy(T.tensor([1.0], requires_grad=True) * 2),
    "deepcopy_no_grad_result": lambda T: copy.deepcopy(T.tensor([1.0]) * 2),
    "deepcopy_attrs": lambda T: (lambda x: (setattr(x, "tag", [1]), copy.deepcopy(x).tag)[1])(T.tensor([1.0])),
    "deepcopy_grad": lambda T: (lambda x: ((x * 3).sum().backward(), copy.deepcopy(x).grad)[1])(
        T.tensor([1.0, 2.0], requires_grad=True)),
    "deepcopy_memo": lambda T: (lambda x: (lambda c: c[0] is c[1])(copy.deepcopy([x, x])))(T.tensor([1.0])),
    "deepcopy_view": lambda T: (lambda x: (lambda v: (v.add_(1), x)[1])(copy.deepcopy(x[1:])))(
        T.tensor([1.0, 2.0, 3.0])),
    "hash_identity": lambda T: (lambda a, b: ({a: 1, b: 2}[a], {a: 1, b: 2}[b], len({a, b, a}),
                                              hash(a) == hash(a)))(T.tensor([1.0]), T.tensor([1.0])),
    "eq_elementwise": lambda T: T.tensor([1, 2, 3]) == T.tensor([1, 0, 3]),
    "eq_scalar": lambda T: (T.tensor([1, 2, 3]) == 2, T.tensor([1.0]) != 1),
    "format_0d": lambda T: (f"{T.tensor(2.5):.2f}", f"{T.tensor(3)}", f"{T.tensor(True)}"),
}


# the CASES torch rejects (compared by exception type)
CASE_ERRORS = {
    "H_1d", "H_3d", "bool_empty", "bool_many", "contains_bad", "cuda", "cuda_cpu_device", "cuda_index", "cuda_str",
    "deepcopy_non_leaf", "factory_cuda", "float_empty", "float_many", "index_float", "index_many", "int_many",
    "int_nan", "is_floating_point_bad", "item_empty", "item_many", "iter_0d", "len_0d", "mH_1d", "mT_1d",
    "numel_bad", "requires_grad_int", "requires_grad_non_leaf", "size_0d_dim", "size_0d_neg", "size_out_of_range",
    "size_out_of_range_neg", "stride_0d_dim", "to_bad_device", "to_bad_keyword", "to_cuda", "to_cuda_index",
    "to_int_device", "type_bad", "type_bad_str", "type_dtype_str"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_tensor_basics(name):
    check(CASES[name], raises=name in CASE_ERRORS)


# --- NumPy interop ------------------------------------------------------------------------------

NUMPY_CASES = {
    "numpy": lambda T: _nd(T.tensor([1.0, 2.0]).numpy()),
    "numpy_dtypes": lambda T: [_nd(_typed(T, d).numpy()) for d in ALL_DTYPES if d != "bfloat16"],
    "numpy_bf16": lambda T: T.tensor([1.0], dtype=T.bfloat16).numpy(),
    "numpy_0d": lambda T: _nd(T.tensor(2.5).numpy()),
    "numpy_requires_grad": lambda T: T.tensor([1.0], requires_grad=True).numpy(),
    "numpy_force": lambda T: _nd(T.tensor([1.0], requires_grad=True).numpy(force=True)),
    "numpy_detach": lambda T: _nd(T.tensor([1.0], requires_grad=True).detach().numpy()),
    # torch's numpy() shares memory: writing the array writes the tensor, and the other way round
    "numpy_shares": lambda T: (lambda x: (lambda a: (a.__setitem__(0, 9.0), x)[1])(x.numpy()))(
        T.tensor([1.0, 2.0])),
    "numpy_sees_inplace": lambda T: (lambda x: (lambda a: (x.add_(1), _nd(a))[1])(x.numpy()))(
        T.tensor([1.0, 2.0])),
    "numpy_view_shares": lambda T: (lambda x: (lambda a: (a.__setitem__(0, 9.0), x)[1])(x[1:].numpy()))(
        T.tensor([1.0, 2.0, 3.0])),
    "numpy_row_shares": lambda T: (lambda x: (lambda a: (a.__setitem__(0, 9.0), x)[1])(x[1].numpy()))(
        T.tensor([[1.0, 2.0], [3.0, 4.0]])),
    "numpy_transposed": lambda T: (lambda x: (lambda a: (a.strides, _nd(a), a.__setitem__((0, 1), 9.0), x)[::2])(
        x.t().numpy()))(T.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])),
    "asarray": lambda T: _nd(np.asarray(T.tensor([1, 2]))),
    "asarray_dtype": lambda T: _nd(np.asarray(T.tensor([1, 2]), dtype=np.float32)),
    "asarray_shares": lambda T: (lambda x: (np.asarray(x).__setitem__(1, 7), x)[1])(T.tensor([1, 2])),
    "asarray_requires_grad": lambda T: np.asarray(T.tensor([1.0, 2.0], requires_grad=True)),
    "np_array_2d": lambda T: _nd(np.array(T.tensor([[1.5, 2.5]]))),
    "np_ufunc": lambda T: np.sin(T.tensor([0.5, 1.0])),
    "np_ufunc_bool": lambda T: np.greater(T.tensor([0.5, 1.0]), 0.7),
    "np_sum": lambda T: float(np.sum(T.tensor([0.5, 1.0]))),
    "from_numpy_roundtrip": lambda T: (lambda a: (lambda t: (a.__setitem__(0, 5.0), t, _nd(t.numpy())))(
        T.from_numpy(a)))(np.array([1.0, 2.0], dtype=np.float32)),
    # grad mode decides, as in torch: a tensor that requires grad converts under no_grad
    "numpy_requires_grad_no_grad": lambda T: _no_grad_numpy(T),
}


def _no_grad_numpy(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    with T.no_grad():
        return _nd(x.numpy())


NUMPY_ERRORS = {"asarray_requires_grad", "np_sum", "numpy_bf16", "numpy_requires_grad"}


@pytest.mark.parametrize("name", sorted(NUMPY_CASES))
def test_numpy_interop(name):
    check(NUMPY_CASES[name], raises=name in NUMPY_ERRORS)


def test_requires_grad_scalar_conversion_warns():
    check(lambda T: _warned(T, lambda: float(T.tensor([1.0], requires_grad=True))))
    check(lambda T: [_warned(T, lambda: f(T.tensor([1.0], requires_grad=True)))
                     for f in (int, complex, bool, lambda t: t.item(), lambda t: t.tolist())])


def test_as_subclass():
    def fn(T):
        Sub = type("Sub", (T.Tensor,), {})
        x = T.arange(4.0, requires_grad=True)
        y = (x * 2).as_subclass(Sub)
        y.sum().backward()   # the subclass instance keeps the autograd history
        z = T.zeros(3).as_subclass(Sub)
        z.add_(1)            # and shares the data
        return [type(y).__name__, isinstance(y, T.Tensor), y.detach().clone(), x.grad, z.as_subclass(T.Tensor)]
    check(fn)
    check(lambda T: T.zeros(2).as_subclass(int), raises=True)
    check(lambda T: T.zeros(2).as_subclass(3), raises=True)


def test_warn_always_flag():
    def fn(T):
        T.set_warn_always(True)
        on = T.is_warn_always_enabled()
        T.set_warn_always(False)
        return on, T.is_warn_always_enabled()
    check(fn)


# --- torch.device ---------------------------------------------------------------------------------

DEVICE_ARGS = [("cpu",), ("cuda",), ("cuda:0",), ("cuda:1",), ("cuda", 0), ("cuda", 3), ("cpu", 0), ("cpu:0",),
               ("meta",), ("mps",), ("xpu:2",)]
DEVICE_ERRORS = [("cuda:-1",), ("cuda:x",), ("cuda:",), ("cuda:01",),
                 ("cuda:0:1",), (" cpu",), ("CUDA",), ("foo",), ("cuda:0", 1), ("cpu", -1), ("cuda", "x"),
                 ("cuda", True), (1.5,), (), ("cpu", 1, 2), (0,), (None,)]


@pytest.mark.parametrize("args", DEVICE_ARGS + DEVICE_ERRORS, ids=repr)
def test_device_construct(args):
    check(lambda T: (lambda d: (repr(d), str(d), d.type, d.index))(T.device(*args)), raises=args in DEVICE_ERRORS)


def test_device_keywords_and_copies():
    check(lambda T: [repr(d) for d in (T.device(type="cuda", index=2), T.device("cpu", index=None),
                                       T.device(T.device("cuda:1")), copy.deepcopy(T.device("cuda:1")),
                                       pickle.loads(pickle.dumps(T.device("cuda", 1))))])
    check_raises(lambda T: T.device(T.device("cpu"), 0))


def test_device_equality():
    check(lambda T: (T.device("cpu") == T.device("cpu"), T.device("cpu") == "cpu", "cpu" == T.device("cpu"),
                     T.device("cpu") != "cpu", T.device("cuda") == T.device("cuda:0"),
                     T.device("cuda:0") == T.device("cuda", 0), T.device("cpu") == T.device("cuda"),
                     T.device("cpu") == 0, hash(T.device("cuda:1")) == hash(T.device("cuda", 1)),
                     len({T.device("cpu"), T.device("cpu"), T.device("cuda")}),
                     T.tensor(1.0).device == T.device("cpu"), T.tensor(1.0).device.type == "cpu"))
    check_raises(lambda T: T.device("cpu") < T.device("cpu"))


def test_device_context_manager():
    def fn(T):
        with T.device("cpu") as d:
            inside = (repr(d), repr(T.get_default_device()), T.zeros(1).device)
        return inside, repr(T.get_default_device())
    check(fn)


def test_device_context_nested_and_default():
    def fn(T):
        out = []
        with T.device("cpu"):
            with T.device("meta"):
                out.append(repr(T.get_default_device()))
            out.append(repr(T.get_default_device()))
        T.set_default_device("cpu")
        out.append(repr(T.get_default_device()))
        T.set_default_device(None)
        out.append(repr(T.get_default_device()))
        return out
    check(fn)


def test_cuda_default_device_unavailable():
    def fn(T):
        with T.device("cuda"):
            return T.get_default_device()
    check_raises(fn)


# --- Python operators with non-tensor operands -------------------------------------------------

_OPERATORS = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and_", "or_", "xor",
              "lshift", "rshift", "lt", "ge", "eq", "ne", "iadd", "itruediv", "imatmul")
_ODD_OPERANDS = {"str": "x", "None": None, "list": [1, 2], "tuple": (1, 2), "object": object(),
                 "ndarray": np.array([3, 2]), "float": 2.5, "complex": 2 + 1j, "bool": True}


def _operator_outcome(T, op, other, reflected):
    import operator
    t = T.tensor([3.0, 7.0])
    a, b = (other, t) if reflected else (t, other)
    try:
        r = getattr(operator, op)(a, b)
    except Exception as exc:  # noqa: BLE001 - the exception is the outcome
        # the text is Python's own ("unsupported operand type(s) for +: 'Tensor' and 'str'") when the
        # operator returned NotImplemented, so it must match torch's word for word
        return type(exc).__name__ if isinstance(exc, NotImplementedError) else f"{type(exc).__name__}: {exc}"
    return (type(r).__name__, r.tolist() if hasattr(r, "tolist") else r, str(getattr(r, "dtype", "")))


@pytest.mark.parametrize("op", _OPERATORS)
def test_operator_odd_operands(op):
    import torch
    import mstorch
    for name, other in _ODD_OPERANDS.items():
        for reflected in (False, True):
            ref = _operator_outcome(torch, op, other, reflected)
            got = _operator_outcome(mstorch, op, other, reflected)
            assert got == ref, f"{op} with {name} (reflected={reflected}): torch {ref}, mstorch {got}"


def test_rtruediv_is_reciprocal_times_number():
    # torch evaluates number / tensor as reciprocal(tensor) * number: one more rounding than a division
    def fn(T):
        out = []
        for dt in (T.float16, T.bfloat16, T.float32, T.float64):
            t = T.tensor([3.0, 7.0, 0.1, 11.0, 13.0, 1e-3], dtype=dt)
            out.append(2.5 / t)
            out.append(3 / t)
        out.append(2 / T.tensor([3, 7]))
        out.append(1.5 / T.tensor([True]))
        x = T.tensor([3.0, 7.0], requires_grad=True)
        (2.5 / x).sum().backward()
        return out, x.grad
    check(fn, rtol=0, atol=0)
