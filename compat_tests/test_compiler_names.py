"""torch.compiler / torch._dynamo names libraries call, torch.get_device_module and the dtypes MindSpore
lacks (float8...): answers compared with torch's on CPU."""
import numpy as np
import pytest

import mstorch
from harness import check


def test_nothing_is_compiling():
    check(lambda T: [T.compiler.is_compiling(), T.compiler.is_dynamo_compiling(), T.compiler.is_exporting(),
                     T._dynamo.is_compiling()])


def test_disable_keeps_the_call_and_marks_it():
    def f(T):
        g = T.compiler.disable(lambda x: x * 2)
        h = T._dynamo.disable(recursive=False)(lambda x: x + 1)
        k = T.compiler.disable(g)          # the innermost function is wrapped again, not the wrapper
        return [g(T.ones(2)), h(3), g._torchdynamo_disable, h._torchdynamo_disable,
                k._torchdynamo_orig_callable is g._torchdynamo_orig_callable, h._torchdynamo_disable_recursive]
    check(f)


def test_disable_of_a_module_wraps_it_in_optimized_module():
    def f(T):
        T.manual_seed(0)
        m = T.nn.Linear(2, 2)
        d = T._dynamo.disable(m)
        return [type(d).__name__, d is m, d(T.ones(1, 2)), list(d.state_dict())]
    check(f)


def _substituted(T):
    def poly(o):
        return 0
    r = T.compiler.substitute_in_graph(len, skip_signature_check=True)(poly)
    return [r([1, 2]), r.__name__, r.__torch_dynamo_original__ is len, r.__wrapped__ is poly]


def test_decorators_return_the_function():
    def f(T):
        fn = lambda x: x  # noqa: E731
        return [T.compiler.allow_in_graph(fn) is fn, T._dynamo.allow_in_graph(fn) is fn,
                T.compiler.assume_constant_result(fn) is fn, fn._dynamo_marked_constant,
                _substituted(T)]
    check(f)


def test_marks_on_tensors():
    def f(T):
        x, y = T.zeros(3), T.zeros(2, 2)
        T._dynamo.mark_static_address(x)
        T._dynamo.mark_static_address(y, guard=True)
        T._dynamo.mark_dynamic(y, 0)
        T._dynamo.maybe_mark_dynamic(y, 1)
        return [x._dynamo_static_input_type, y._dynamo_static_input_type, y._dynamo_dynamic_indices,
                y._dynamo_weak_dynamic_indices]
    check(f)
    check(lambda T: T._dynamo.mark_static_address([1]), raises=True)


def test_backends_config_and_stance():
    def f(T):
        seen = [T.compiler.list_backends(), T._dynamo.config.cache_size_limit,
                T._dynamo.config.capture_scalar_outputs, T.compiler.get_default_backend()]
        with T._dynamo.config.patch(cache_size_limit=3):
            seen.append(T._dynamo.config.cache_size_limit)
        seen.append(T._dynamo.config.cache_size_limit)
        with T.compiler.set_stance("force_eager"):
            seen.append(T.compile(lambda x: x + 1)(T.ones(1)))
        T.compiler.reset()
        T.compiler.cudagraph_mark_step_begin()
        return seen
    check(f)
    check(lambda T: T.compiler.set_stance("fail_on_recompile", force_backend="eager"), raises=True)


def test_wrap_numpy_runs_on_the_arrays():
    check(lambda T: T.compiler.wrap_numpy(lambda a, b: (a * b, np.sum(a)))(T.arange(3.), T.ones(3)))


@pytest.mark.parametrize("device", [None, "cpu", "cuda", "cuda:0", "meta", "foo", 3])
def test_get_device_module(device):
    def f(T):
        dev = device if device != "cuda:0" else T.device(device)
        return T.get_device_module(dev).__name__.split(".")[-1]
    check(f, raises=device in ("meta", "foo", 3))


FLOAT8 = ["float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu",
          "float4_e2m1fn_x2", "complex32", "chalf"]


@pytest.mark.parametrize("name", FLOAT8)
def test_dtypes_without_kernels_exist(name):
    check(lambda T: [repr(getattr(T, name)), getattr(T, name).itemsize, getattr(T, name).is_floating_point,
                     getattr(T, name).is_complex, getattr(T, name).is_signed, isinstance(getattr(T, name), T.dtype)])


def test_tensors_of_them_refuse_by_name():
    with pytest.raises(RuntimeError, match="float8_e4m3fn"):
        mstorch.zeros(2, dtype=mstorch.float8_e4m3fn)
    with pytest.raises(RuntimeError, match="float8_e5m2"):
        mstorch.ones(2).to(mstorch.float8_e5m2)


def test_legacy_contiguous_format():
    check(lambda T: [T.legacy_contiguous_format is T.contiguous_format])


def test_dynamo_submodules_libraries_reach():
    check(lambda T: [isinstance(T.compile(T.nn.Linear(2, 2)), T._dynamo.eval_frame.OptimizedModule),
                     issubclass(T._dynamo.exc.Unsupported, RuntimeError)])
