"""Creation ops beyond the op_db samples: dtype inference, memory sharing with NumPy, bit-exact ranges,
legacy constructors (torch.Tensor(2, 3), torch.FloatTensor) and Tensor.new_* methods, compared with torch."""
import numpy as np
import pytest

from harness import check

NP_DTYPES = [np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64, np.uint16, np.float16, np.float32,
             np.float64, np.complex64, np.complex128]


def exact(fn):
    return check(fn, rtol=0, atol=0)


def test_tensor_keeps_numpy_dtypes():
    def fn(T):
        return [T.tensor(np.arange(4).reshape(2, 2).astype(d)) for d in NP_DTYPES if d is not np.uint16] + \
               [T.tensor(np.array([1, 2], np.uint16)).dtype, T.tensor(np.array(3.5, np.float16))]
    check(fn)


def test_tensor_inference_with_tensors_and_numpy_scalars():
    check(lambda T: [T.tensor([T.tensor(1, dtype=T.int32), 2.5]), T.tensor([T.tensor(1.0, dtype=T.float64), 2]),
                     T.tensor([T.tensor(1, dtype=T.int32), T.tensor(2, dtype=T.int32)]),
                     T.tensor([[T.tensor(1), 2]]), T.tensor([np.float64(1.5)]), T.tensor([np.int32(1), 2]),
                     T.tensor([np.array([1, 2], np.int32)]), T.tensor(np.float32(2.5)), T.tensor([np.bool_(True)]),
                     T.tensor([True, 1.5j]), T.tensor([[1], [2]], dtype=T.complex64), T.tensor([-2 ** 63]),
                     T.tensor([-1], dtype=T.uint8), T.tensor([1e300]), T.tensor(float("nan"))])


def test_tensor_errors():
    check(lambda T: T.tensor([T.ones(2), T.ones(2)]), raises=True)
    check(lambda T: T.tensor([T.tensor([1, 2]), T.tensor([3, 4])]), raises=True)
    check(lambda T: T.tensor([1, [2]]), raises=True)
    check(lambda T: T.tensor([-1.5], dtype=T.uint8), raises=True)
    check(lambda T: T.tensor([1e20], dtype=T.int32), raises=True)
    check(lambda T: T.tensor([1], dtype="float32"), raises=True)


def test_tensor_copies_and_detaches():
    def fn(T):
        a = T.ones(3, requires_grad=True)
        b = T.tensor(a)
        c = T.tensor(a, dtype=T.float64)
        with T.no_grad():
            a.add_(1)
        arr = np.ones(2, np.float32)
        d = T.tensor(arr)
        arr[0] = 5
        return b, b.requires_grad, b.is_leaf, c, d, T.tensor([1.0], requires_grad=True).requires_grad
    check(fn)


def test_tensor_bfloat16_and_complex():
    check(lambda T: [T.tensor([1.00390625, 1.01171875, -3.3e38, 1e-40], dtype=T.bfloat16),
                     T.tensor([[1.5]], dtype=T.bfloat16) * 2, T.tensor(1 + 2j, dtype=T.complex128),
                     T.tensor([1 + 2j, 3]), T.tensor([1.5, 2.5]).to(T.bfloat16),
                     T.tensor(np.array([1.5, 2.25], np.float32), dtype=T.bfloat16)])


def test_from_numpy_shares_memory_both_ways():
    def fn(T):
        arr = np.arange(4, dtype=np.float32)
        t = T.from_numpy(arr)
        arr[0] = 10.0                      # the array changes the tensor
        seen = t.tolist()
        t.add_(1)                          # an in-place op changes the array
        ints = np.zeros(3, np.int64)
        ti = T.from_numpy(ints)
        ti.fill_(7) if hasattr(ti, "fill_") else ti.add_(7)
        return seen, arr.tolist(), ints.tolist(), t.dtype, ti.dtype
    check(fn)


def test_as_tensor_and_asarray_share_with_numpy():
    def fn(T):
        arr = np.ones(3, np.float32)
        a = T.as_tensor(arr)
        b = T.asarray(arr)
        c = T.as_tensor(arr, dtype=T.float64)   # a converted copy
        d = T.asarray(arr, copy=True)
        arr[1] = 4.0
        x = T.ones(2)
        return a, b, c, d, T.as_tensor(x) is x, T.asarray(x) is x, T.asarray(x, copy=True) is x
    check(fn)


def test_asarray_requires_grad_aliases():
    def fn(T):
        x = T.ones(2)
        y = T.asarray(x, requires_grad=True)
        return y is x, x.requires_grad, T.asarray([1.0, 2.0], requires_grad=True).requires_grad
    check(fn)


@pytest.mark.parametrize("args", [(0, 1, 0.1), (-1, 1, 0.3), (0, 10, 0.1), (0, 100, 0.37), (1.5, 77.7, 0.013),
                                  (10, -3, -0.17)])
def test_arange_bit_exact(args):
    exact(lambda T: [T.arange(*args), T.arange(*args, dtype=T.float64), T.arange(*args, dtype=T.float16)])


@pytest.mark.parametrize("args", [(0, 1, 10), (-1, 1, 7), (3.3, -7.1, 33), (0, 1, 100), (1e-3, 7.77, 257),
                                  (-5.5, 2.2, 1000)])
def test_linspace_bit_exact(args):
    exact(lambda T: [T.linspace(*args), T.linspace(*args, dtype=T.float64), T.linspace(*args, dtype=T.bfloat16),
                     T.logspace(*args, dtype=T.float64)])


def test_linspace_complex():
    check(lambda T: [T.linspace(0, 1j, 3), T.linspace(1 + 1j, -2, 5, dtype=T.complex128)])


def test_size_forms():
    check(lambda T: [f(*s).shape for f in (T.zeros, T.ones, T.empty)
                     for s in ((2, 3), ((2, 3),), ([2, 3],), (T.Size([2, 3]),), (np.int64(2),), (T.tensor(2),))])


def test_full_infers_dtype_from_fill():
    check(lambda T: [T.full((2,), 1).dtype, T.full((2,), 1.5).dtype, T.full((2,), True).dtype,
                     T.full((2,), 1j).dtype, T.full((1,), T.tensor(2.5, dtype=T.float64)).dtype,
                     T.full_like(T.ones(2, dtype=T.int32), 2.7)])


def test_creation_out():
    def fn(T):
        o = T.empty(0)
        T.zeros(2, 3, out=o)
        p = T.empty(0, dtype=T.int64)
        T.arange(5, out=p)
        q = T.empty(0)
        T.linspace(0, 1, 4, out=q)
        return o, p, q
    check(fn)


def test_legacy_constructors():
    def fn(T):
        return [T.Tensor(2, 3).shape, T.Tensor(2, 3).dtype, T.Tensor([1, 2]), T.Tensor((2, 3)),
                T.Tensor(np.array([1, 2])), T.Tensor([True]), T.Tensor().shape, T.Tensor(T.Size([2])).shape,
                T.Tensor(T.tensor([1, 2])), T.FloatTensor([1]), T.FloatTensor(2, 3).shape, T.LongTensor([1.5, 2]),
                T.DoubleTensor(2).dtype, T.IntTensor([1]).type(), T.BoolTensor([1, 0]), T.ByteTensor([1, 0]),
                T.HalfTensor([1, 0]), T.ShortTensor([1]).dtype, T.CharTensor([1]).dtype,
                T.BFloat16Tensor([1.5]).dtype, type(T.FloatTensor([1])) is T.Tensor]
    check(fn)
    for bad in (lambda T: T.Tensor(2.5), lambda T: T.Tensor("a"), lambda T: T.Tensor(-1),
                lambda T: T.Tensor(2, 3, dtype=T.int64), lambda T: T.FloatTensor(T.tensor([1, 2])),
                lambda T: T.Tensor([[1, 2], [3]])):
        check(bad, raises=True)


def test_legacy_classes_isinstance_and_type():
    def fn(T):
        f, i = T.zeros(2), T.zeros(2, dtype=T.int64)
        return [isinstance(f, T.FloatTensor), isinstance(i, T.FloatTensor), isinstance(i, T.LongTensor),
                isinstance(f, T.Tensor), isinstance(T.FloatTensor, type), repr(T.FloatTensor), T.FloatTensor.dtype,
                T.LongTensor.dtype, T.FloatTensor.is_cuda, issubclass(T.FloatTensor, T.Tensor),
                isinstance(T.ones(1, dtype=T.bool), T.BoolTensor), isinstance(3, T.FloatTensor),
                f.type(), i.type(), T.zeros(1, dtype=T.bfloat16).type(), T.zeros(1, dtype=T.complex64).type(),
                f.type(T.LongTensor), f.type("torch.IntTensor"), i.type(T.float64), i.type(T.DoubleTensor)]
    check(fn)


def test_new_methods():
    def fn(T):
        f, i = T.zeros(2), T.zeros(2, dtype=T.int32)
        return [f.new_tensor([1, 2]), i.new_tensor([1.5, 2]), f.new_tensor(T.ones(2, dtype=T.int64)),
                f.new_tensor(3), i.new_zeros(2, 3), i.new_zeros((2, 3), dtype=T.float64), i.new_ones([2]),
                f.new_ones(()), f.new_full((2,), 3), T.zeros(2, dtype=T.bool).new_full((2,), 2),
                f.new_empty(3).shape, f.new_empty((2, 1), dtype=T.int64).dtype,
                f.new_zeros(2, requires_grad=True).requires_grad, f.new_tensor([1.0], requires_grad=True).requires_grad]
    check(fn)
    check(lambda T: T.zeros(2).new_full(2, 3), raises=True)
    check(lambda T: T.zeros(2).new_zeros(), raises=True)
    check(lambda T: T.zeros(2).new_tensor([1, 2], T.float64), raises=True)
    check(lambda T: T.zeros(2, dtype=T.int32).new_zeros(2, requires_grad=True), raises=True)


def test_default_dtype_creation():
    def fn(T):
        old = T.get_default_dtype()
        T.set_default_dtype(T.float64)
        try:
            return [T.zeros(2), T.Tensor([1]), T.FloatTensor([1]).dtype, T.eye(2), T.full((1,), 2.0),
                    T.arange(0, 1, 0.1), T.linspace(0, 1, 5), T.tensor([1, 2j]).dtype, T.scalar_tensor(1)]
        finally:
            T.set_default_dtype(old)
    exact(fn)


def _frombuffer_cases(T):
    import array
    b = bytearray(b"\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00")
    t = T.frombuffer(b, dtype=T.int32)
    b[0] = 9            # the tensor shares the buffer's memory, both ways
    seen = t.clone()
    t[1] = 7
    return (seen, list(b), T.frombuffer(b, dtype=T.int16, count=2, offset=2), T.frombuffer(bytes(b), dtype=T.uint8),
            T.frombuffer(b, dtype=T.bfloat16).float(), T.frombuffer(b, dtype=T.bool, count=3),
            T.frombuffer(array.array("f", [1.5, 2.5]), dtype=T.float32),
            T.frombuffer(b, dtype=T.float32, requires_grad=True).requires_grad)


def test_frombuffer():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # (torch warns once that bytes are not writable)
        check(_frombuffer_cases)


@pytest.mark.parametrize("args", [dict(dtype="int32", count=5), dict(dtype="int32", offset=13),
                                  dict(dtype="int64", offset=1), dict(dtype="int32", count=0)],
                         ids=["count", "offset", "multiple", "zero_count"])
def test_frombuffer_errors(args):
    def fn(T):
        kw = dict(args, dtype=getattr(T, args["dtype"]))
        return T.frombuffer(bytearray(12), **kw)
    check(fn, raises=True)


def test_frombuffer_error_messages():
    from test_autograd import check_message
    for call in (lambda T: T.frombuffer(bytearray(12), dtype=T.int64, offset=1),
                 lambda T: T.frombuffer(bytearray(), dtype=T.int32), lambda T: T.frombuffer([1, 2], dtype=T.int32)):
        check_message(call)


def test_empty_strided():
    def fn(T):
        a = T.empty_strided((2, 3), (1, 2))
        a.fill_(2.0)
        b = T.empty_strided((2, 3), (3, 1), dtype=T.float64, requires_grad=True)
        c = T.empty_strided((0, 3), (3, 1))
        d = T.empty_strided((), ())
        e = T.empty_strided((2, 2), (0, 1))
        return (a.stride(), a.is_contiguous(), a, a.t().is_contiguous(), b.stride(), b.dtype, b.requires_grad,
                b.is_contiguous(), c.stride(), tuple(c.shape), tuple(d.shape), e.stride(), e.fill_(1.0).sum())
    check(fn)
    for args in (((2, 3), (1,)), ((2, -3), (1, 2)), ((2, 3), (1, -2))):
        check(lambda T: T.empty_strided(*args), raises=True)
