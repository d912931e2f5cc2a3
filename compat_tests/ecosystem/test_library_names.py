"""Names the six libraries reach at import and on their common paths (found by tools/ecosystem_report.py), against
torch: the ``_foreach_*`` multi-tensor ops timm's optimizers call, torch.optim.optimizer's helpers, the assert ops
and Sym* types transformers' exporters list, torch.fx.experimental/passes, torch.export's Dim and types,
torch.xpu on a build without XPU, and the types whose making raises (export, ONNX, TorchScript IR)."""
import importlib
import warnings

import numpy as np
import pytest

from harness import check_as_torch as check


def sub(T, name):
    return importlib.import_module(f"{T.__name__}.{name}")


def message(fn):
    """The exception type and message ``fn`` raises (the result compared when both must raise alike)."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the error is the result
        return [type(e).__name__, str(e)]
    return None


def tensors(T, *shapes, seed=0, dtype="float32"):
    rng = np.random.RandomState(seed)
    return [T.tensor(rng.uniform(0.5, 2.0, s).astype(dtype)) for s in shapes]


SHAPES = [(2, 3), (4,), ()]


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "maximum", "minimum", "clamp_min", "clamp_max"])
@pytest.mark.parametrize("form", ["scalar", "list", "scalarlist", "tensor"])
def test_foreach_binary(op, form):
    def fn(T):
        xs, ys = tensors(T, *SHAPES), tensors(T, *SHAPES, seed=1)
        other = {"scalar": 0.75, "list": ys, "scalarlist": [0.5, 1.5, 2.5], "tensor": T.tensor(1.25)}[form]
        out = getattr(T, f"_foreach_{op}")(xs, other)
        ret = getattr(T, f"_foreach_{op}_")(xs, other)
        return [type(out).__name__, list(out), ret is xs, xs]
    check(fn)


def test_foreach_alpha_and_errors():
    def fn(T):
        xs, ys = tensors(T, *SHAPES), tensors(T, *SHAPES, seed=1)
        return [list(T._foreach_add(xs, ys, alpha=-2)), T._foreach_sub_(xs, ys, alpha=0.5),
                T._foreach_add(xs, T.tensor(2.0), alpha=3)]
    check(fn)
    check(lambda T: message(lambda: T._foreach_add(tensors(T, (2,), (3,)), tensors(T, (2,)))))
    check(lambda T: message(lambda: T._foreach_add([], 1)))
    check(lambda T: message(lambda: T._foreach_mul(tensors(T, (2,), (3,)), [1.0])))
    check(lambda T: message(lambda: T._foreach_add_([T.ones(2, dtype=T.int64)], 1.5)))


@pytest.mark.parametrize("op", ["neg", "sqrt", "reciprocal", "abs", "exp", "log", "sign", "sigmoid", "rsqrt", "tanh"])
def test_foreach_unary(op):
    def fn(T):
        xs = tensors(T, *SHAPES)
        out = getattr(T, f"_foreach_{op}")(xs)
        return [type(out).__name__, list(out), getattr(T, f"_foreach_{op}_")(xs) is xs, xs]
    check(fn)


@pytest.mark.parametrize("value", [1, 0.5, [0.5, 1.0, 2.0], "tensor"])
def test_foreach_addcmul_addcdiv(value):
    def fn(T):
        xs, a, b = tensors(T, *SHAPES), tensors(T, *SHAPES, seed=1), tensors(T, *SHAPES, seed=2)
        v = T.tensor([0.5, 1.0, 2.0]) if value == "tensor" else value
        return [list(T._foreach_addcmul(xs, a, b, v)), list(T._foreach_addcdiv(xs, a, b, v)),
                T._foreach_addcmul_(xs, a, b, v), T._foreach_addcdiv_(xs, a, b, v)]
    check(fn)


def test_foreach_lerp_pow_norm_zero_copy():
    def fn(T):
        xs, ys = tensors(T, *SHAPES), tensors(T, *SHAPES, seed=1)
        return [list(T._foreach_lerp(xs, ys, 0.25)), list(T._foreach_lerp(xs, ys, ys)),
                list(T._foreach_pow(xs, 2.0)), list(T._foreach_pow(2.0, ys)), list(T._foreach_pow(xs, ys)),
                list(T._foreach_norm(xs)), list(T._foreach_norm(xs, 1)), list(T._foreach_norm(xs, float("inf"))),
                T._foreach_lerp_(xs, ys, 0.5), T._foreach_pow_(xs, 0.5), T._foreach_copy_(xs, ys) is xs, xs,
                T._foreach_zero_(ys)]
    check(fn)
    check(lambda T: message(lambda: T._foreach_norm([T.ones(2, dtype=T.int64)])))


def test_foreach_through_torch_ops():
    def fn(T):
        xs = tensors(T, *SHAPES)
        packet = T.ops.aten._foreach_add_
        return [callable(packet), isinstance(packet.overloads(), list), T.ops.aten._foreach_mul(xs, 2.0),
                packet(xs, 1.0), xs]
    check(fn)


def test_foreach_adamw_matches_the_loop():
    """timm's multi-tensor AdamW step (as its _helpers write it) on mstorch equals torch's."""
    def fn(T):
        ps, grads = tensors(T, (3, 2), (4,)), tensors(T, (3, 2), (4,), seed=1)
        m, v = [T.zeros_like(p) for p in ps], [T.zeros_like(p) for p in ps]
        steps = [T.tensor(0.0), T.tensor(0.0)]
        for _ in range(2):
            T._foreach_add_(steps, 1)
            T._foreach_mul_(ps, 1 - 1e-3 * 1e-2)
            T._foreach_lerp_(m, grads, 0.1)
            T._foreach_mul_(v, 0.999)
            T._foreach_addcmul_(v, grads, grads, 0.001)
            denom = T._foreach_sqrt(v)
            T._foreach_add_(denom, 1e-8)
            T._foreach_addcdiv_(ps, m, denom, [-1e-3] * len(ps))
        return ps + m + v + steps
    check(fn)


def test_optimizer_helpers():
    def fn(T):
        opt = sub(T, "optim.optimizer")
        p = T.nn.Parameter(T.ones(2))
        group = opt.Optimizer._group_tensors_by_device_and_dtype(
            [[T.ones(1), T.ones(1, dtype=T.float64), T.zeros(1)], []], True)
        return [opt._default_to_fused_or_foreach([p], False), opt._default_to_fused_or_foreach([p], False, True),
                opt._default_to_fused_or_foreach([p], True, True),
                opt._default_to_fused_or_foreach([T.ones(2, dtype=T.int64)], False, True),
                opt._get_capturable_supported_devices(), opt._get_capturable_supported_devices(False),
                sorted((str(k[1]), [len(x) for x in lists], idx) for k, (lists, idx) in group.items()),
                str(opt.ParamsT).replace(T.__name__ + ".", "torch.").count("Tensor")]
    check(fn)

    def differentiable(T):
        opt = sub(T, "optim.optimizer")

        class Probe(T.optim.SGD):
            @opt._use_grad_for_differentiable
            def step(self):
                return T.is_grad_enabled()
        p = T.nn.Parameter(T.ones(2))
        return [Probe([p], lr=0.1).step(), Probe([p], lr=0.1, differentiable=True).step(), T.is_grad_enabled(),
                Probe.step.__name__]
    check(differentiable)


def test_assert_ops():
    check(lambda T: [T._assert_async(T.tensor(1)), T._assert_async(T.tensor([2.0]), "m"), T._assert_scalar(1, "m"),
                     T._assert_tensor_metadata(T.ones(2, 3), size=[2, 3], stride=(3, 1), dtype=T.float32,
                                               device="cpu", layout=T.strided),
                     T.sym_constrain_range_for_size(3), T.sym_constrain_range_for_size(3, min=0, max=3)])
    for bad in (lambda T: T._assert_async(T.tensor(0)), lambda T: T._assert_async(T.tensor(0.0), "boom"),
                lambda T: T._assert_async(T.tensor([1, 1])), lambda T: T._assert_async(T.tensor([])),
                lambda T: T._assert_scalar(False, "scalar failed"),
                lambda T: T._assert_tensor_metadata(T.ones(2), size=(3,)),
                lambda T: T._assert_tensor_metadata(T.ones(2), stride=(2,)),
                lambda T: T._assert_tensor_metadata(T.ones(2, dtype=T.int64), dtype=T.float32),
                lambda T: T._assert_tensor_metadata(T.ones(2, dtype=T.float16), dtype=T.float32),
                lambda T: T._assert_tensor_metadata(T.ones(2), device="meta"),
                lambda T: T._assert_tensor_metadata(T.ones(2), layout=T.sparse_coo),
                lambda T: T.sym_constrain_range_for_size(5, min=0, max=3),
                lambda T: T.sym_constrain_range_for_size(-1)):
        check(lambda T, bad=bad: message(lambda: bad(T)))
    check(lambda T: [T.ops.aten._assert_async.default(T.tensor(True)), T.ops.aten._assert_async.msg(T.tensor(1), "x"),
                     T.ops.aten._assert_scalar.default(True, "x"),
                     T.ops.aten._assert_tensor_metadata.default(T.ones(1), dtype=T.float32),
                     T.ops.aten.sym_constrain_range_for_size.default(2)])


def test_types_libraries_annotate_with():
    def fn(T):
        sym = sub(T, "fx.experimental.symbolic_shapes")
        return [isinstance(3, (T.SymInt, T.SymFloat, T.SymBool)), isinstance(2.0, T.SymFloat),
                isinstance(True, T.SymBool), T.SymInt.__name__, T._C.Graph.__name__, T._C.Value.__name__,
                T.torch is T, T.torch.Tensor is T.Tensor, issubclass(sym.GuardOnDataDependentSymNode, RuntimeError),
                isinstance(T.ones(1), sub(T, "export").ExportedProgram), isinstance({}, T.onnx.ONNXProgram),
                issubclass(sub(T, "export.decomp_utils").CustomDecompTable, dict)]
    check(fn)


def test_symbolic_shape_helpers_on_concrete_values():
    def fn(T):
        sym = sub(T, "fx.experimental.symbolic_shapes")
        pc = sub(T, "_prims_common")
        x = T.ones(2, 3)
        return [sym.guard_or_false(3 > 2), sym.guard_or_true(1 == 2), sym.statically_known_true(4 == 4),
                sym.statically_known_false(True), sym.guard_size_oblivious(False), len(sym.free_symbols(3)),
                len(sym.free_unbacked_symbols(x.shape[0])), sym.has_free_symbols(2), sym.has_free_unbacked_symbols(2),
                sym.is_concrete_int(3), sym.is_concrete_bool(False), pc.is_contiguous_or_false(x),
                pc.is_contiguous_or_false(x.t())]
    check(fn)
    for bad in ("guard_or_false", "guard_or_true", "statically_known_true", "guard_size_oblivious",
                "is_concrete_int", "is_concrete_bool"):
        check(lambda T, bad=bad: message(lambda: getattr(sub(T, "fx.experimental.symbolic_shapes"), bad)(0.5)))


def test_pass_result_and_pass_base():
    def fn(T):
        base = sub(T, "fx.passes.infra.pass_base")

        class Rename(base.PassBase):
            def call(self, gm):
                for node in gm.graph.nodes:
                    if node.op == "call_function":
                        node.name = node.name + "_x"
                return base.PassResult(gm, True)
        gm = T.fx.symbolic_trace(lambda x: T.relu(x) + 1)
        res = Rename()(gm)
        return [res.modified, res.graph_module is gm, type(res).__name__, tuple(base.PassResult(None, False)),
                repr(base.PassResult(None, True)), isinstance(res, tuple)]
    check(fn)


def test_export_dim_specs():
    def fn(T):
        Dim = sub(T, "export").Dim
        return [repr(Dim.AUTO), repr(Dim.STATIC), repr(Dim.DYNAMIC), repr(Dim.DYNAMIC(max=64)),
                repr(Dim.AUTO(min=2, max=8)), repr(Dim("batch")), repr(Dim("b", min=1, max=8)),
                repr(Dim("s", min=2)), repr(Dim("t", max=9)), Dim("b", min=1).__name__, Dim("b", min=3).min,
                Dim.AUTO == Dim.AUTO]
    check(fn)
    check(lambda T: message(lambda: sub(T, "export").Dim("b", min=4, max=2)))
    check(lambda T: message(lambda: sub(T, "export").Dim("1b")))
    check(lambda T: message(lambda: sub(T, "export").Dim.AUTO(min=4, max=2)))


def test_refusing_names_raise_naming_the_api():
    """export, ExportedProgram, ONNXProgram, Sym* and TorchScript IR exist in mstorch and raise when made or
    called (torch builds them; nothing is compared but that mstorch names the API)."""
    import mstorch
    export = importlib.import_module("mstorch.export")
    for make, api in ((lambda: export.export(mstorch.nn.Linear(1, 1), (mstorch.ones(1, 1),)), "torch.export.export"),
                      (lambda: export.ExportedProgram(), "torch.export.ExportedProgram"),
                      (lambda: importlib.import_module("mstorch.export.decomp_utils").CustomDecompTable(),
                       "torch.export.decomp_utils.CustomDecompTable"),
                      (lambda: export.save(None, "f"), "torch.export.save"),
                      (lambda: mstorch.onnx.ONNXProgram(None, None), "torch.onnx.ONNXProgram"),
                      (lambda: mstorch.SymInt(None), "torch.SymInt"), (lambda: mstorch._C.Graph(), "torch._C.Graph")):
        with pytest.raises(NotImplementedError, match=api.replace(".", r"\.")):
            make()


def test_xpu_without_xpu():
    def fn(T):
        x = T.xpu
        return [x.is_available(), x.device_count(), x.is_initialized(), x.empty_cache(), x.memory_allocated(),
                x.max_memory_allocated(), x.memory_reserved(), x.manual_seed(1), x.manual_seed_all(1),
                x.is_bf16_supported()]
    check(fn)
    for name in ("synchronize", "current_device", "get_device_name", "get_device_capability",
                 "get_device_properties", "reset_peak_memory_stats"):
        check(lambda T, name=name: message(getattr(T.xpu, name)))


def test_guard_size_oblivious_is_deprecated():
    def fn(T):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            value = sub(T, "fx.experimental.symbolic_shapes").guard_size_oblivious(True)
        return [value] + [(x.category.__name__, str(x.message)) for x in w]
    check(fn)


def test_cuda_reset_max_memory_allocated_warns():
    def fn(T):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                T.cuda.reset_max_memory_allocated()
            except AttributeError:
                pass   # torch's CPU build fails looking up the CUDA allocator binding after the warning
        return [(x.category.__name__, str(x.message)) for x in w]
    check(fn)


def test_quantized_decomposed_ops():
    def fn(T):
        sub(T, "ao.quantization.fx._decomposed")   # importing it defines the operators
        q = T.ops.quantized_decomposed
        x = T.tensor(np.random.RandomState(0).uniform(-3, 3, (2, 3, 4)).astype(np.float32))
        scales, zps = T.tensor([0.05, 0.1, 0.02]), T.tensor([0, 3, -2])
        qc = q.quantize_per_channel(x, scales, zps, 1, -128, 127, T.int8)
        qt = q.quantize_per_tensor.default(x, 0.03, 5, 0, 255, T.uint8)
        return [qc, q.dequantize_per_channel.default(qc, scales, zps, 1, -128, 127, T.int8),
                q.dequantize_per_channel(qc, scales, None, 1, -128, 127, T.int8, out_dtype=T.float16), qt,
                q.dequantize_per_tensor(qt, 0.03, 5, 0, 255, T.uint8),
                q.quantize_per_tensor(x.half(), 0.1, 0, -128, 127, T.int8)]
    check(fn)
    for bad in (lambda q, T: q.quantize_per_tensor(T.ones(2, dtype=T.float64), 0.1, 0, -128, 127, T.int8),
                lambda q, T: q.quantize_per_tensor(T.ones(2), 0.1, 0, -129, 127, T.int8),
                lambda q, T: q.quantize_per_tensor(T.ones(2), 0.1, 0, 0, 300, T.uint8),
                lambda q, T: q.dequantize_per_tensor(T.ones(2), 0.1, 0, -128, 127, T.int8),
                lambda q, T: q.quantize_per_channel(T.ones(2, 2), T.ones(2), T.zeros(2), 2, -128, 127, T.int8),
                lambda q, T: q.dequantize_per_channel(T.ones(2, dtype=T.int8), T.ones(2), None, 0, 0, 255, T.uint8),
                lambda q, T: q.dequantize_per_channel(T.ones(2, dtype=T.int8), T.ones(2), None, 1, -128, 127,
                                                      T.int8)):
        def call(T, bad=bad):
            sub(T, "ao.quantization.fx._decomposed")
            return message(lambda: bad(T.ops.quantized_decomposed, T))
        check(call)


def test_check_tensor_all_and_check_with():
    check(lambda T: [T._check_tensor_all(T.tensor([True, True])), T._check_tensor_all(T.tensor(True)),
                     T._check_with(IndexError, True, lambda: "m")])
    for bad in (lambda T: T._check_tensor_all(T.tensor([True, False])), lambda T: T._check_tensor_all(T.tensor([1, 1])),
                lambda T: T._check_tensor_all(True),
                lambda T: T._check_tensor_all_with(ValueError, T.tensor([False]), lambda: "bad"),
                lambda T: T._check_with(IndexError, False, lambda: "m"), lambda T: T._check_with(IndexError, 1, None),
                lambda T: T._check_with(ValueError, False)):
        check(lambda T, bad=bad: message(lambda: bad(T)))


def test_sympy_value_range_types_import():
    """transformers' ExecuTorch exporter imports torch.utils._sympy's IntInfinity and ValueRanges at module
    level: both are types on both sides; mstorch's refuse to be made (no symbolic shapes)."""
    import importlib

    def fn(T):
        numbers = importlib.import_module(f"{T.__name__}.utils._sympy.numbers")
        ranges = importlib.import_module(f"{T.__name__}.utils._sympy.value_ranges")
        return (isinstance(numbers.IntInfinity, type), isinstance(ranges.ValueRanges, type),
                numbers.IntInfinity.__name__, ranges.ValueRanges.__name__, isinstance(3, ranges.ValueRanges))
    check(fn)
    with pytest.raises(NotImplementedError, match="ValueRanges is not supported by mstorch"):
        importlib.import_module("mstorch.utils._sympy.value_ranges").ValueRanges(0, 1)
