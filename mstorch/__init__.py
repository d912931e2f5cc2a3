"""mstorch: the PyTorch API on MindSpore.  ``import mstorch as torch``."""
import warnings as _warnings

_warnings.filterwarnings("ignore", module="mindspore")

from . import _ms_private  # noqa: E402  (checks MindSpore's private names first)
from . import _runtime  # noqa: E402
from . import _device as _device_state  # noqa: E402

_runtime.configure()
_device_state.configure()
_ms_private.enable_recording()

from . import _dtype  # noqa: E402
from ._dtype import (dtype, float32, float64, float16, bfloat16, uint8, uint16, uint32, uint64,  # noqa: E402
                     int8, int16, int32, int64, complex64, complex128, get_default_dtype,
                     set_default_dtype, promote_types)
from ._dtype import bool_ as bool  # noqa: E402,A001
from ._size import Size, broadcast_shapes  # noqa: E402,F401
from ._finfo import finfo, iinfo  # noqa: E402
from ._device import device, get_default_device, set_default_device  # noqa: E402
from ._warnings import set_warn_always, is_warn_always_enabled  # noqa: E402
from ._tensor import Tensor, is_tensor  # noqa: E402

float = float32  # noqa: A001
double = float64
half = float16
long = int64
int = int32  # noqa: A001
short = int16
cfloat = complex64
cdouble = complex128

from .ops.creation import (FloatTensor, DoubleTensor, HalfTensor, BFloat16Tensor, LongTensor, IntTensor,  # noqa: E402,F401,E501
                           ShortTensor, CharTensor, ByteTensor, BoolTensor, set_default_tensor_type)
from ._functions import FUNCTIONS as _FUNCTIONS  # noqa: E402  (the op table's generated functions)

globals().update(_FUNCTIONS)

from . import _install  # noqa: E402
from . import autograd  # noqa: E402
from .autograd import (no_grad, enable_grad, set_grad_enabled, inference_mode,  # noqa: E402
                       is_grad_enabled, is_inference_mode_enabled)
from .autograd.anomaly_mode import (is_anomaly_enabled, is_anomaly_check_nan_enabled,  # noqa: E402
                                    set_anomaly_enabled)
from ._printing import set_printoptions, get_printoptions  # noqa: E402
from . import _tensor_str  # noqa: E402,F401  (torch._tensor_str.printoptions)
from . import return_types  # noqa: E402,F401
from .random import (manual_seed, seed, initial_seed, get_rng_state, set_rng_state, Generator,  # noqa: E402,F401
                     default_generator)
from . import nn  # noqa: E402
from . import serialization  # noqa: E402
from .serialization import save, load  # noqa: E402

_install.install()   # the one step that puts methods and operators on Tensor (see _install.py)

from . import utils  # noqa: E402
from .utils import data as _data, checkpoint as _checkpoint, _pytree, dlpack as _dlpack  # noqa: E402,F401  (torch.utils.*)
from .utils.dlpack import from_dlpack  # noqa: E402,F401
from ._layout import (layout, memory_format, strided, sparse_coo, sparse_csr, contiguous_format,  # noqa: E402,F401
                      channels_last, preserve_format)
from ._sparse_tensor import sparse_coo_tensor, sparse_csr_tensor  # noqa: E402
from . import sparse  # noqa: E402  (torch.sparse)
spmm = _FUNCTIONS["mm"]   # torch.spmm: mm with a sparse first operand


def _tensor_arg(name, input):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return input


def is_floating_point(input):
    return _tensor_arg("is_floating_point", input).dtype.is_floating_point


def is_complex(input):
    return _tensor_arg("is_complex", input).dtype.is_complex


def numel(input):
    return _tensor_arg("numel", input).numel()


def result_type(tensor1, tensor2):
    from .ops._helpers import result_type as _rt
    unwrap = lambda x: x._ms if isinstance(x, Tensor) else x  # noqa: E731
    return _rt(unwrap(tensor1), unwrap(tensor2))


def can_cast(from_, to):
    return _dtype.can_cast(from_, to)


def is_nonzero(input):
    return _tensor_arg("is_nonzero", input).is_nonzero()


def is_signed(input):
    return _tensor_arg("is_signed", input).is_signed()


def is_same_size(input, other):
    _tensor_arg("is_same_size", input)
    if not isinstance(other, Tensor):
        raise TypeError(f"is_same_size(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    return input.is_same_size(other)


def is_inference(input):
    return _tensor_arg("is_inference", input).is_inference()


def is_distributed(input):
    return _tensor_arg("is_distributed", input).is_distributed()


def is_vulkan_available():
    return False


from . import version, torch_version  # noqa: E402
from .torch_version import __version__  # noqa: E402  (a TorchVersion: compares with "2.0" and (2, 1))
from ._symbolic import (pi, e, inf, nan, newaxis, sym_not, sym_float, sym_int, sym_max, sym_min,  # noqa: E402,F401
                        sym_sqrt, sym_ite, sym_sum, typename, is_storage, SymInt, SymFloat, SymBool,
                        sym_constrain_range_for_size, _assert_async, _assert_scalar, _assert_tensor_metadata)

from . import cuda, accelerator, backends, mps, mtia, npu, xpu  # noqa: E402,F401
from ._runtime import (set_num_threads, get_num_threads, set_num_interop_threads,  # noqa: E402,F401
                       get_num_interop_threads, set_float32_matmul_precision, get_float32_matmul_precision,
                       use_deterministic_algorithms, are_deterministic_algorithms_enabled,
                       is_deterministic_algorithms_warn_only_enabled, set_deterministic_debug_mode,
                       get_deterministic_debug_mode)
from ._runtime import OutOfMemoryError, AcceleratorError  # noqa: E402,F401
from . import optim  # noqa: E402,F401
from ._foreach import FOREACH as _FOREACH  # noqa: E402
globals().update(_FOREACH)   # torch._foreach_add, _foreach_mul_, ... (mstorch/_foreach.py)
from . import distributions  # noqa: E402,F401
from . import amp, cpu  # noqa: E402,F401
from .amp import autocast, GradScaler  # noqa: E402,F401
from .amp.autocast_mode import (get_autocast_dtype, set_autocast_dtype, is_autocast_enabled,  # noqa: E402,F401
                                set_autocast_enabled, is_autocast_cache_enabled, set_autocast_cache_enabled,
                                autocast_increment_nesting, autocast_decrement_nesting, clear_autocast_cache,
                                get_autocast_cpu_dtype, get_autocast_gpu_dtype, set_autocast_cpu_dtype,
                                set_autocast_gpu_dtype, is_autocast_cpu_enabled, set_autocast_cpu_enabled)
from ._compile import compile  # noqa: E402,F401,A001
from ._control_flow import cond  # noqa: E402,F401
from . import linalg, special  # noqa: E402,F401  (torch.linalg, torch.special: from the op table)
from . import futures, jit, nested, onnx, testing  # noqa: E402,F401
from ._future import _CFuture as Future  # noqa: E402,F401  (torch.Future: torch._C.Future, the base class)
from ._streams import Stream, Event  # noqa: E402,F401
from ._C import DisableTorchFunction, DisableTorchFunctionSubclass  # noqa: E402,F401
from ._C import has_lapack, has_mkl, has_openmp, has_spectral  # noqa: E402,F401
from . import distributed, multiprocessing  # noqa: E402,F401
from . import hub  # noqa: E402,F401
from . import profiler  # noqa: E402,F401
from . import storage  # noqa: E402,F401
from .storage import UntypedStorage  # noqa: E402,F401
from ._lowrank import svd_lowrank  # noqa: E402,F401
from . import fft  # noqa: E402,F401  (torch.fft: from the op table)
from ._toplevel_nn import (batch_norm, instance_norm, embedding, lstm_cell, gru_cell,  # noqa: E402,F401
                          rnn_tanh_cell, rnn_relu_cell)   # (ATen argument order)
from . import fx  # noqa: E402,F401  (torch.fx: symbolic tracing; hooks into the op wrappers)
from .fx._symbolic_trace import _assert  # noqa: E402,F401  (torch._assert: recorded under fx tracing)
from . import library, _custom_ops, _C, compiler, ao  # noqa: E402,F401  (torch.library, _custom_ops, _C, compiler, ao)
# torch.ops is the operator namespace object (torch.ops.<ns>.<op>, load_library); the package mstorch/ops/
# (the op table) stays internal, reached by import statements, which read sys.modules, not this attribute
from ._library import ops  # noqa: E402,F811

# torch 2.13 dtypes MindSpore cannot hold here: the objects exist, tensors of them refuse by name
from ._dtype import (float8_e4m3fn, float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz, float8_e8m0fnu,  # noqa: E402,F401
                     float4_e2m1fn_x2, complex32)
chalf = complex32
from . import _dynamo  # noqa: E402,F401  (eager answers: nothing is ever compiling)
legacy_contiguous_format = contiguous_format   # torch's alias (the same object)
torch = __import__("sys").modules[__name__]   # torch.torch is torch itself (annotations such as ``torch.torch.Tensor``)


def get_device_module(device=None):  # noqa: F811  (torch names the argument device)
    """torch.get_device_module: the module of a device type (``torch.cuda``, ``torch.cpu``...); with no
    argument, the current accelerator's, which is ``torch.cpu`` where there is none."""
    import sys as _sys
    if device is None:
        acc = accelerator.current_accelerator()
        name = acc.type if acc is not None else "cpu"
    elif isinstance(device, _device_mod.device):
        name = device.type
    elif isinstance(device, str):
        name = _device_mod.device(device).type
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or None")
    module = getattr(_sys.modules[__name__], name, None)
    if module is None:
        raise RuntimeError(f"Device '{name}' does not have a corresponding module registered as 'torch.{name}'.")
    return module


from . import _device as _device_mod  # noqa: E402
from . import func  # noqa: E402,F401  (torch.func)
from .func import vmap  # noqa: E402,F401
from . import masked  # noqa: E402,F401  (torch.masked reductions)
from . import signal  # noqa: E402,F401  (torch.signal.windows)
from . import types  # noqa: E402,F401  (torch.types)
from ._symbolic import (_check, _check_index, _check_value, _check_type,  # noqa: E402,F401
                        _check_not_implemented, _check_is_size, _check_with, _check_tensor_all,
                        _check_tensor_all_with)
