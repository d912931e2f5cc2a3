"""torch.library and torch.ops: operators defined in Python (custom_op, Library.define/impl), called as
``torch.ops.<ns>.<op>``, with kernels, autograd formulas and schemas as torch has them. Each test defines its
operators under a namespace of its own: the registries of both libraries live for the whole process."""
import itertools
import warnings

import numpy as np
import pytest

from harness import check, check_as_torch, check_grad, check_raises, rand

_ids = itertools.count()


def _ns(stem):
    return f"mst_{stem}_{next(_ids)}"


def _sin_op(T, ns):
    @T.library.custom_op(f"{ns}::mysin", mutates_args=())
    def mysin(x: T.Tensor, k: float = 1.0) -> T.Tensor:
        # a kernel on host memory, as custom ops wrapping NumPy or C code are
        return T.from_numpy(np.sin(x.numpy()) * k)
    return mysin


def test_custom_op_calls_and_schema():
    ns = _ns("sin")

    def fn(T):
        op = _sin_op(T, ns)
        x = T.linspace(-2, 2, 7)
        packet = getattr(getattr(T.ops, ns), "mysin")
        return [op(x), op(x, 2.0), op(x, k=0.5), packet(x, 3.0), packet.default(x), str(packet.default._schema),
                packet.overloads(), packet.default.name(), packet.default.__name__, packet.__name__, str(packet),
                str(packet.default), packet._qualified_op_name, packet.default.namespace, repr(op)]
    check(fn)


def test_custom_op_argument_errors():
    ns = _ns("args")
    for call in (lambda op, x: op(x, 1.0, 2.0), lambda op, x: op(), lambda op, x: op(x, j=1.0)):
        def fn(T):
            return call(_sin_op(T, ns + str(id(call))), T.ones(2))
        check_raises(fn)


def test_custom_op_backward_without_formula_raises():
    ns = _ns("nograd")

    def fn(T):
        op = _sin_op(T, ns)
        x = T.ones(3, requires_grad=True)
        y = op(x)
        try:
            y.sum().backward()
        except RuntimeError as e:
            return [y.requires_grad, y.grad_fn is not None, str(e)]
        return "no error"
    check(fn)


def _setup(ctx, inputs, output):
    x, k = inputs
    ctx.save_for_backward(x)
    ctx.k = k


def _backward(ctx, grad):
    x, = ctx.saved_tensors
    return grad * x.cos() * ctx.k, None


@pytest.mark.parametrize("how", ["method", "function", "string"])
def test_register_autograd(how):
    ns = _ns("grad")

    def fn(T):
        op = _sin_op(T, ns + how)
        if how == "method":
            op.register_autograd(_backward, setup_context=_setup)
        elif how == "function":
            T.library.register_autograd(op, _backward, setup_context=_setup)
        else:
            T.library.register_autograd(f"{ns + how}::mysin", _backward, setup_context=_setup)
        x = T.linspace(-2, 2, 5).requires_grad_()
        y = op(x, k=2.0)
        node = repr(y.grad_fn).split(" object")[0].rpartition(".")[2].lstrip("<")
        (y * T.arange(5.0)).sum().backward()
        with T.no_grad():
            z = op(x)
        return [y, x.grad, z.requires_grad, node]
    check(fn)


def test_custom_op_mutating_and_multiple_returns():
    ns = _ns("mut")

    def fn(T):
        @T.library.custom_op(f"{ns}::add_one_", mutates_args=("x",))
        def add_one_(x: T.Tensor) -> None:
            x.add_(1)

        @T.library.custom_op(f"{ns}::split2", mutates_args=())
        def split2(x: T.Tensor, n: int) -> tuple[T.Tensor, T.Tensor]:
            return x[:n].clone(), x[n:].clone()
        x = T.arange(4.0)
        r = add_one_(x)
        a, b = split2(x, 1)
        return [r, x, a, b, str(getattr(T.ops, ns).add_one_.default._schema),
                str(getattr(T.ops, ns).split2.default._schema)]
    check(fn)


def test_register_kernel_and_fake():
    ns = _ns("kern")

    def fn(T):
        op = _sin_op(T, ns)
        fake = op.register_fake(lambda x, k=1.0: T.empty_like(x))

        @op.register_kernel("cpu")
        def _(x, k=1.0):
            return x * 10 * k
        got = op(T.ones(2), 2.0)
        kept = T.library.register_fake(f"{ns}::mysin")(lambda x, k=1.0: x)
        return [got, callable(fake), callable(kept)]
    check(fn)


@pytest.mark.parametrize("sig", ["basic", "lists", "optional", "kwonly", "scalars", "none"])
def test_infer_schema(sig):
    def fn(T):
        from typing import Optional
        Tensor = T.Tensor

        def basic(x: Tensor, y: Tensor) -> Tensor: ...

        def lists(xs: list[Tensor], sizes: list[int], w: list[float]) -> list[Tensor]: ...

        def optional(x: Tensor, o: Optional[Tensor] = None, n: Optional[int] = None) -> tuple[Tensor, Tensor]: ...

        def kwonly(x: Tensor, *, flag: bool = False, scale: float = 0.5, name: str = "a") -> Tensor: ...

        def scalars(n: int, f: float, b: bool, d: T.dtype, dev: T.device) -> int: ...

        def none(x: Tensor) -> None: ...
        f = locals()[sig]
        return [T.library.infer_schema(f, mutates_args=()), T.library.infer_schema(f, mutates_args=(),
                                                                                     op_name="myop")]
    check(fn)


def test_infer_schema_errors():
    def missing_annotation(T):
        def f(x) -> T.Tensor: ...
        return T.library.infer_schema(f, mutates_args=())
    check_raises(missing_annotation)

    def missing_return(T):
        def f(x: T.Tensor): ...
        return T.library.infer_schema(f, mutates_args=())
    check_raises(missing_return)

    def unknown_mutated(T):
        def f(x: T.Tensor) -> None: ...
        return T.library.infer_schema(f, mutates_args=("y",))
    check_raises(unknown_mutated)


def test_library_define_impl():
    ns = _ns("lib")

    def fn(T):
        lib = T.library.Library(ns, "DEF")
        name = lib.define("scale(Tensor x, float alpha=1.0) -> Tensor")
        lib.impl("scale", lambda x, alpha=1.0: x * alpha, "CPU")
        lib.define("both(Tensor x) -> (Tensor, Tensor)")
        lib.impl("both", lambda x: (x * 2, x + 1), "CompositeExplicitAutograd")
        lib.define("composite(Tensor x) -> Tensor")
        lib.impl("composite", lambda x: (x * 3).sin())   # CompositeImplicitAutograd: autograd runs through it
        ops = getattr(T.ops, ns)
        x = T.linspace(0, 1, 4).requires_grad_()
        y = ops.composite(x)
        y.sum().backward()
        out = [name, ops.scale(T.ones(2), 3.0), ops.scale(T.ones(2), alpha=2), ops.both(T.arange(3.0)), y, x.grad,
               str(ops.scale.default._schema), repr(lib), lib.ns, lib.kind]
        lib._destroy()
        out.append(hasattr(ops, "scale"))
        return out
    check(fn)


def test_library_define_function_and_impl_decorator():
    ns = _ns("deco")

    def fn(T):
        T.library.define(f"{ns}::twice", "(Tensor x) -> Tensor")

        @T.library.impl(f"{ns}::twice", "cpu")
        def _(x):
            return x * 2
        T.library.define(f"{ns}::thrice", "(Tensor x) -> Tensor")
        T.library.impl(f"{ns}::thrice", "default", lambda x: x * 3)
        ops = getattr(T.ops, ns)
        return [ops.twice(T.arange(3.0)), ops.thrice(T.arange(3.0))]
    check(fn)


@pytest.mark.parametrize("case", ["kind", "second_def", "duplicate", "no_kernel", "no_op", "too_many", "define_qualname",
                                  "define_schema", "impl_not_callable"])
def test_library_errors(case):
    ns = _ns("err" + case)

    def fn(T):
        if case == "kind":
            return T.library.Library(ns, "XYZ")
        lib = T.library.Library(ns, "DEF")
        lib.define("f(Tensor x) -> Tensor")
        ops = getattr(T.ops, ns)
        try:
            if case == "second_def":
                return T.library.Library(ns, "DEF")
            if case == "duplicate":
                return lib.define("f(Tensor x) -> Tensor")
            if case == "no_kernel":
                return ops.f(T.ones(1))
            if case == "no_op":
                return ops.g
            if case == "too_many":
                lib.impl("f", lambda x: x, "CPU")
                return ops.f(T.ones(1), T.ones(1))
            if case == "define_qualname":
                return T.library.define("noname", "(Tensor x) -> Tensor")
            if case == "define_schema":
                return T.library.define(f"{ns}::h", "h(Tensor x) -> Tensor")
            if case == "impl_not_callable":
                return lib.impl("f", 3, "CPU")
        finally:
            lib._destroy()
    check_raises(fn)


def test_ops_namespace_and_load_library(tmp_path):
    not_a_library = tmp_path / "not_a_library.so"
    not_a_library.write_bytes(b"\0" * 16)

    def fn(T):
        out = [type(T.ops).__name__, T.ops.__name__, type(T.ops.some_namespace).__name__,
               T.ops.some_namespace.__name__, T.ops.aten.add(T.ones(2), T.ones(2)),
               T.ops.aten.mul.Tensor(T.ones(2), 3), T.ops.aten.relu.default(T.tensor([-1.0, 2.0]))]
        for path in (str(not_a_library), str(tmp_path / "missing.so")):
            try:
                T.ops.load_library(path)
            except OSError as e:
                out.append(type(e).__name__)
        return out
    check(fn)
    check_raises(lambda T: T.ops.some_namespace.missing_op)
    check_raises(lambda T: T.ops.aten.no_such_aten_op)


def test_import_torch_ops_is_the_namespace():
    # ``import torch.ops`` (and ``from torch import ops``) reach the operator namespace, never the op table
    check(lambda T: [hasattr(T.ops, "load_library"), callable(T.ops.load_library),
                     "pointwise" in vars(T.ops)])


def test_impl_abstract_warns():
    ns = _ns("abs")

    def fn(T):
        _sin_op(T, ns)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            T.library.impl_abstract(f"{ns}::mysin")(lambda x, k=1.0: x)
        return [str(m.category.__name__) for m in w]
    check(fn)


def test_autocast_kernel_and_exclude_guard():
    ns = _ns("cast")

    def fn(T):
        lib = T.library.Library(ns, "DEF")
        lib.define("mm(Tensor a, Tensor b) -> Tensor")
        lib.impl("mm", lambda a, b: a @ b, "CPU")
        keys = T._C.DispatchKeySet(T._C.DispatchKey.AutocastCPU)
        ops = getattr(T.ops, ns)

        def autocast_mm(a, b):
            with T._C._ExcludeDispatchKeyGuard(keys):
                return ops.mm(a.double(), b.double())
        autocast_lib = T.library.Library(ns, "IMPL")   # kept alive: a collected Library unregisters its kernels
        autocast_lib.impl("mm", autocast_mm, "AutocastCPU")
        a = T.ones(2, 2)
        plain = ops.mm(a, a)
        with T.autocast("cpu"):
            cast = ops.mm(a, a)
        autocast_lib._destroy()
        with T.autocast("cpu"):
            after = ops.mm(a, a)
        lib._destroy()
        return [plain, cast, after]
    check(fn)


def test_check_as_torch_on_bad_register():
    check_as_torch(lambda T: T.library.register_autograd(3, lambda ctx, g: g))


def _same_error(fn):
    """Both libraries raise the same type with the same first line of message."""
    ref, got = check_raises(fn)
    assert str(got.exc).split("\n")[0] == str(ref.exc).split("\n")[0], (str(ref.exc), str(got.exc))


def test_aten_only_overloads():
    """torch.ops.aten operators without a torch.* form (what exported graphs call; transformers' ExecuTorch
    exporter): _to_copy, slice.Tensor, sym_size.int, alias, _unsafe_view, _local_scalar_dense, _is_all_true,
    _fft_c2c; values, dtypes, gradients, memory sharing and torch's errors."""
    x = rand(2, 3)

    def views(T):
        a = T.tensor(x)
        A = T.ops.aten
        s, al, u = A.slice.Tensor(a, 1, 1), A.alias.default(a), A._unsafe_view.default(a, [3, 2])
        c = A._to_copy.default(a)
        return [s, al, u, c, A.slice.Tensor(a, 1, -2, None, 1), A.slice.Tensor(a, 1, 0, 100, 2),
                A.slice.Tensor(a, 1, 2, 1), A.slice.Tensor(a, -1, -100, 2), A.slice.Tensor(a),
                s.data_ptr() - a.data_ptr(), al.data_ptr() == a.data_ptr(), u.data_ptr() == a.data_ptr(),
                c.data_ptr() == a.data_ptr(), A._unsafe_view.default(a, [-1]),
                A._to_copy.default(a, dtype=T.int32), A._to_copy.default(a, dtype=T.float64)]
    check(views)
    check(lambda T: [T.ops.aten.sym_size.int(T.ones(2, 3), -1), T.ops.aten._local_scalar_dense.default(T.tensor([3])),
                     T.ops.aten._local_scalar_dense.default(T.tensor([2.5, 4.0])),
                     T.ops.aten._local_scalar_dense.default(T.tensor(True)),
                     T.ops.aten._is_all_true.default(T.ones(2, 2, dtype=T.bool)),
                     T.ops.aten._is_all_true.default(T.tensor([True, False])),
                     T.ops.aten._is_all_true.default(T.ones(0, dtype=T.bool))])
    z = np.arange(4.0, dtype=np.float32) + 1j * np.array([0, 1, -1, 2], dtype=np.float32)
    check(lambda T: [T.ops.aten._fft_c2c.default(T.tensor(z), [0], n, f) for n in (0, 1, 2) for f in (True, False)]
          + [T.ops.aten._fft_c2c.default(T.tensor(z.reshape(2, 2)), [0, 1], 1, True),
             T.ops.aten._fft_c2c.default(T.tensor(z), [], 0, True)], rtol=1e-5, atol=1e-5)
    check_grad(lambda T, a: [T.ops.aten._to_copy.default(a, dtype=T.float64), T.ops.aten.slice.Tensor(a, 1, 0, 3, 2),
                             T.ops.aten._unsafe_view.default(a, [6]), T.ops.aten.alias.default(a) * 2], [x])
    for fn in (lambda T: T.ops.aten.slice.Tensor(T.ones(2, 3), 1, 0, 3, 0),
               lambda T: T.ops.aten.slice.Tensor(T.ones(2, 3), 2),
               lambda T: T.ops.aten.sym_size.int(T.ones(2, 3), 2),
               lambda T: T.ops.aten._unsafe_view.default(T.ones(2, 3).t(), [6]),
               lambda T: T.ops.aten._unsafe_view.default(T.ones(2, 3), [5]),
               lambda T: T.ops.aten._local_scalar_dense.default(T.ones(0)),
               lambda T: T.ops.aten._is_all_true.default(T.tensor([1, 1])),
               lambda T: T.ops.aten._fft_c2c.default(T.ones(4), [0], 0, True),
               lambda T: T.ops.aten._fft_c2c.default(T.ones(4, dtype=T.complex64), 0, 0, True)):
        _same_error(fn)
