"""torch's global names in checkpoints <-> mstorch objects.

A checkpoint names classes and functions by their torch paths (``torch._utils._rebuild_tensor_v2``,
``torch.nn.modules.linear.Linear``, ``torch.float32``). mstorch writes those paths, so torch reads
its files, and resolves them to mstorch objects when it reads files torch wrote.
"""
import codecs
import importlib
from collections import Counter, OrderedDict

from .. import _dtype as D
from .._device import device as _device_cls
from .._size import Size
from .._tensor import Tensor
from . import rebuild as R

# torch.nn.modules.<file> that defines each torch.nn module class (torch 2.13)
_NN_FILES = {
    "activation": "CELU ELU GELU GLU Hardshrink Hardsigmoid Hardswish Hardtanh LeakyReLU LogSigmoid "
                  "LogSoftmax Mish MultiheadAttention PReLU RReLU ReLU ReLU6 SELU SiLU Sigmoid "
                  "Softmax Softmax2d Softmin Softplus Softshrink Softsign Tanh Tanhshrink Threshold",
    "adaptive": "AdaptiveLogSoftmaxWithLoss",
    "batchnorm": "BatchNorm1d BatchNorm2d BatchNorm3d LazyBatchNorm1d LazyBatchNorm2d "
                 "LazyBatchNorm3d SyncBatchNorm _BatchNorm _LazyNormBase _NormBase",
    "channelshuffle": "ChannelShuffle",
    "container": "Container ModuleDict ModuleList ParameterDict ParameterList Sequential",
    "conv": "Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d ConvTranspose3d LazyConv1d "
            "LazyConv2d LazyConv3d LazyConvTranspose1d LazyConvTranspose2d "
            "LazyConvTranspose3d _ConvNd _ConvTransposeMixin _ConvTransposeNd",
    "distance": "CosineSimilarity PairwiseDistance",
    "dropout": "AlphaDropout Dropout Dropout1d Dropout2d Dropout3d FeatureAlphaDropout "
               "_DropoutNd",
    "flatten": "Flatten Unflatten",
    "fold": "Fold Unfold",
    "instancenorm": "InstanceNorm1d InstanceNorm2d InstanceNorm3d LazyInstanceNorm1d "
                    "LazyInstanceNorm2d LazyInstanceNorm3d _InstanceNorm",
    "linear": "Bilinear Identity LazyLinear Linear NonDynamicallyQuantizableLinear",
    "loss": "BCELoss BCEWithLogitsLoss CTCLoss CosineEmbeddingLoss CrossEntropyLoss "
            "GaussianNLLLoss HingeEmbeddingLoss HuberLoss KLDivLoss L1Loss "
            "LinearCrossEntropyLoss MSELoss MarginRankingLoss MultiLabelMarginLoss "
            "MultiLabelSoftMarginLoss MultiMarginLoss NLLLoss NLLLoss2d PoissonNLLLoss "
            "SmoothL1Loss SoftMarginLoss TripletMarginLoss TripletMarginWithDistanceLoss "
            "_Loss _WeightedLoss",
    "module": "Module",
    "normalization": "CrossMapLRN2d GroupNorm LayerNorm LocalResponseNorm RMSNorm",
    "padding": "CircularPad1d CircularPad2d CircularPad3d ConstantPad1d ConstantPad2d "
               "ConstantPad3d ReflectionPad1d ReflectionPad2d ReflectionPad3d ReplicationPad1d "
               "ReplicationPad2d ReplicationPad3d ZeroPad1d ZeroPad2d ZeroPad3d _CircularPadNd "
               "_ConstantPadNd _ReflectionPadNd _ReplicationPadNd",
    "pixelshuffle": "PixelShuffle PixelUnshuffle",
    "pooling": "AdaptiveAvgPool1d AdaptiveAvgPool2d AdaptiveAvgPool3d AdaptiveMaxPool1d "
               "AdaptiveMaxPool2d AdaptiveMaxPool3d AvgPool1d AvgPool2d AvgPool3d "
               "FractionalMaxPool2d FractionalMaxPool3d LPPool1d LPPool2d LPPool3d MaxPool1d "
               "MaxPool2d MaxPool3d MaxUnpool1d MaxUnpool2d MaxUnpool3d _AdaptiveAvgPoolNd "
               "_AdaptiveMaxPoolNd _AvgPoolNd _LPPoolNd _MaxPoolNd _MaxUnpoolNd",
    "rnn": "GRU GRUCell LSTM LSTMCell RNN RNNBase RNNCell RNNCellBase",
    "sparse": "Embedding EmbeddingBag",
    "transformer": "Transformer TransformerDecoder TransformerDecoderLayer TransformerEncoder "
                   "TransformerEncoderLayer",
    "upsampling": "Upsample UpsamplingBilinear2d UpsamplingNearest2d",
}
NN_FILE = {cls: f for f, names in _NN_FILES.items() for cls in names.split()}

# torch dtypes that mstorch cannot hold (torch's weights_only allow-list has them)
_TORCH_ONLY_DTYPES = (
    "float8_e5m2 float8_e4m3fn float8_e5m2fnuz float8_e4m3fnuz float8_e8m0fnu float4_e2m1fn_x2 bits8 bits16 "
    "bits1x8 bits2x4 bits4x2 complex32 qint8 quint8 qint32 quint4x2 quint2x4 uint1 uint2 uint3 uint4 uint5 "
    "uint6 uint7 int1 int2 int3 int4 int5 int6 int7 per_tensor_affine per_tensor_symmetric per_channel_affine "
    "per_channel_symmetric per_channel_affine_float_qparams").split()


def _unsupported_name(path):
    raise RuntimeError(f"mstorch.load: the checkpoint uses {path}, which mstorch does not support")


# --- loading: torch path -> mstorch object ---------------------------------------------------------

_ALLOWED = None


def allowed_globals():
    """torch's weights_only allow-list (torch/_weights_only_unpickler.py), as mstorch objects."""
    global _ALLOWED
    if _ALLOWED is None:
        from ..nn.parameter import Parameter
        from ..ops import creation
        rc = {
            "collections.OrderedDict": OrderedDict,
            "collections.Counter": Counter,
            "torch.nn.parameter.Parameter": Parameter,
            "torch.serialization._get_layout": R._get_layout,
            "torch.Size": Size,
            "torch.Tensor": Tensor,
            "torch.device": _device_cls,
            "_codecs.encode": codecs.encode,  # bytes, in protocol 2
            "builtins.bytearray": bytearray,
            "builtins.set": set,
            "builtins.complex": complex,
            "torch._tensor._rebuild_from_type_v2": R._rebuild_from_type_v2,
            "torch.storage.UntypedStorage": R.UNTYPED,
        }
        rc.update({f"torch.{d._name}": d for d in D.ALL})
        rc.update({f"torch.{cls.__name__}": cls for cls in creation.LEGACY_CLASSES})
        for name, st in R.STORAGE_TYPES.items():
            rc[f"torch.{name}"] = rc[f"torch.cuda.{name}"] = st
        rc.update({f"torch._utils.{name}": fn for name, fn in R.UTILS_FUNCTIONS.items()})
        _ALLOWED = rc
    return _ALLOWED


def check_supported(module, name):
    """Raise a clear error for a global torch allows in checkpoints that mstorch cannot provide."""
    if module == "torch" and name in _TORCH_ONLY_DTYPES:
        _unsupported_name(f"{module}.{name}")
    if module in ("torch", "torch.cuda") and name.endswith("Storage"):
        R.storage_type_named(name)  # raises for quantized storages


def resolve(module, name):
    """The mstorch object for a global a full (weights_only=False) load meets, or None when the path
    is not torch's (then pickle imports it as usual)."""
    if module == "torch.tensor":
        module = "torch._tensor"
    if module != "torch" and not module.startswith("torch."):
        return None
    path = f"{module}.{name}"
    obj = allowed_globals().get(path)
    if obj is not None:
        return obj
    if "Storage" in name:
        st = R.storage_type_named(name)
        if st is not None:
            return st
    check_supported(module, name)
    if module.startswith("torch.nn.modules"):
        obj = _nn_class(module, name)
    elif module.startswith("torch._C") or module == "torch.functional":
        obj = _builtin(module, name)
    else:
        obj = _import_mirror("mstorch" + module[len("torch"):], name)
    if obj is None:
        raise AttributeError(f"mstorch.load: the checkpoint needs {path}, which mstorch does not provide")
    return obj


# torch's C builtins are pickled under the extension module that defines them
# (``torch._C._nn.gelu`` is F.gelu, ``torch._C._special.special_erf`` is torch.special.erf);
# the mstorch modules to look in, and the prefix torch's name carries there
_C_MODULES = {
    "torch._C._nn": (("mstorch.nn.functional", "mstorch"), ""),
    "torch._C._special": (("mstorch.special",), "special_"),
    "torch._C._linalg": (("mstorch.linalg",), "linalg_"),
    "torch._C._fft": (("mstorch.fft",), "fft_"),
    "torch._C._nested": (("mstorch.nested",), "nested_"),
    "torch._C._VariableFunctions": (("mstorch",), ""),
    "torch.functional": (("mstorch.functional", "mstorch"), ""),  # torch/functional.py: einsum, split...
}


class _TorchFunctions:
    """torch._C._VariableFunctionsClass, which pickles name torch's builtin functions through
    (``getattr(torch._C._VariableFunctionsClass, 'sigmoid')``): attributes are mstorch's functions."""

    def __getattr__(self, name):
        import mstorch
        obj = getattr(mstorch, name, None) if not name.startswith("__") else None
        if obj is None:
            raise AttributeError(f"mstorch.load: the checkpoint needs torch.{name}, which mstorch does not provide")
        return obj


def _builtin(module, name):
    if name in ("_VariableFunctionsClass", "_VariableFunctions") and module == "torch._C":
        return _TorchFunctions()
    if name in ("TensorBase", "_TensorBase") and module == "torch._C":
        return Tensor  # tensor methods are pickled as getattr(torch._C.TensorBase, 'add')
    targets, prefix = _C_MODULES.get(module, ((), ""))
    short = name[len(prefix):] if prefix and name.startswith(prefix) else name
    for target in targets:
        obj = _import_mirror(target, short)
        if obj is not None:
            return obj
    return None


def _nn_class(module, name):
    from .. import nn
    obj = _import_mirror("mstorch" + module[len("torch"):], name)
    if obj is None:
        obj = getattr(nn, name, None)
    return obj


def _import_mirror(module, qualname):
    try:
        obj = importlib.import_module(module)
    except ImportError:
        return None
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


# --- saving: mstorch object -> torch path ----------------------------------------------------------

_SAVE_NAMES = None


def _save_names():
    global _SAVE_NAMES
    if _SAVE_NAMES is None:
        from ..nn import parameter
        names = {id(obj): tuple(path.rsplit(".", 1)) for path, obj in allowed_globals().items()
                 if path.startswith("torch.") and not path.startswith("torch.cuda.")
                 and type(obj) not in (D.dtype, R.StorageType)}
        names[id(parameter.Buffer)] = ("torch.nn.parameter", "Buffer")
        names[id(parameter.UninitializedParameter)] = ("torch.nn.parameter", "UninitializedParameter")
        _SAVE_NAMES = names
    return _SAVE_NAMES


def torch_path(obj, name=None):
    """(module, qualname) under which a checkpoint names the mstorch global ``obj``; None for objects
    that are not mstorch's (pickled under their own names)."""
    t = type(obj)
    if t is D.dtype:
        return ("torch", obj._name)
    if t is R.StorageType:
        return ("torch.storage", "UntypedStorage") if obj is R.UNTYPED else ("torch", obj._name)
    path = _save_names().get(id(obj))
    if path is not None:
        return path
    module = getattr(obj, "__module__", None)
    if not isinstance(module, str) or not (module == "mstorch" or module.startswith("mstorch.")):
        return None
    qualname = name or getattr(obj, "__qualname__", None) or obj.__name__
    if module.startswith("mstorch.ops"):
        return _public_op_path(obj, qualname)
    if module.startswith("mstorch.nn.modules") and qualname in NN_FILE:
        return ("torch.nn.modules." + NN_FILE[qualname], qualname)
    return ("torch" + module[len("mstorch"):], qualname)


def _public_op_path(obj, name):
    """Functions generated from the op table live in mstorch.ops internals: name them where torch
    has them (``torch.sigmoid``, ``torch.nn.functional.relu``)."""
    import mstorch
    for module, namespace in (("torch", mstorch), ("torch.nn.functional", mstorch.nn.functional)):
        if getattr(namespace, name, None) is obj:
            return (module, name)
    return ("torch" + obj.__module__[len("mstorch"):], name)


def tensor_method_name(obj):
    """The name of the Tensor method ``obj`` is, or None."""
    import mstorch
    name = getattr(obj, "__name__", None)
    if isinstance(name, str) and getattr(Tensor, name, None) is obj and getattr(mstorch, name, None) is not obj:
        return name  # (a function that is also torch.<name> is pickled under that name)
    return None


def user_global_names(obj):
    """The paths a user-allowlisted global matches: its own, and the torch path mstorch writes."""
    names = {f"{obj.__module__}.{obj.__qualname__}"}
    path = torch_path(obj)
    if path is not None:
        names.add(".".join(path))
    return names
