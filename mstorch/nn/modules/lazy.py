"""Lazy layers (torch.nn.modules.lazy and the Lazy* classes of linear/conv/batchnorm/instancenorm).

A lazy layer holds UninitializedParameter/UninitializedBuffer placeholders; a forward pre-hook reads the
input's feature size on the first call, materialises them with torch's shapes, runs the base layer's
``reset_parameters`` (so the same seed gives torch's values) and turns the module into ``cls_to_become``.
A state dict with real tensors materialises them too, through a load pre-hook.
"""
import itertools

from ... import autograd
from ..parameter import UninitializedParameter, UninitializedBuffer, is_lazy
from .linear import Linear
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .batchnorm import _NormBase, _BatchNorm, BatchNorm1d, BatchNorm2d, BatchNorm3d
from .instancenorm import _InstanceNorm, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from ...ops.creation import tensor as _tensor
from ... import _dtype as D

__all__ = ["LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
           "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d",
           "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


class LazyModuleMixin:
    """Mirrors torch.nn.modules.lazy.LazyModuleMixin."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        # placeholders go into the state dict as they are (torch cannot detach them either)
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if is_lazy(param) or keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if is_lazy(buf) or keep_vars else buf.detach()

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        # an uninitialised entry loaded into a still uninitialised placeholder is nothing to copy (torch copies
        # one empty tensor into another); keep it away from the shape checks of Module's loader
        skipped = [prefix + name for name, p in itertools.chain(self._parameters.items(), self._buffers.items())
                   if p is not None and is_lazy(p) and is_lazy(state_dict.get(prefix + name))]
        if skipped:
            state_dict = {k: v for k, v in state_dict.items() if k not in skipped}
        before = len(missing_keys)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)
        missing_keys[before:] = [k for k in missing_keys[before:] if k not in skipped]

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                        error_msgs):
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None and is_lazy(param):
                value = state_dict[key]
                if not is_lazy(value):
                    with autograd.no_grad():
                        param.materialize(value.shape)

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError(f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self):
        return any(is_lazy(t) for t in itertools.chain(self._parameters.values(), self._buffers.values()))

    def _infer_parameters(self, module, args, kwargs=None):
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with `DataParallel`. Run a dummy "
                           "forward pass to correctly initialize the modules")


# --- linear -------------------------------------------------------------------------------------

class LazyLinear(LazyModuleMixin, Linear):
    """Mirrors torch.nn.LazyLinear: ``in_features`` comes from the first input's last dimension."""

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            with autograd.no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(f"The in_features inferred from input: {input.shape[-1]} is not equal to "
                                     f"in_features from self.weight: {self.weight.shape[-1]}")
            self.in_features = input.shape[-1]


# --- convolutions -------------------------------------------------------------------------------

class _LazyConvXdMixin(LazyModuleMixin):
    _SPATIAL = 0

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if self.transposed:
                shape = (self.in_channels, self.out_channels // self.groups, *self.kernel_size)
            else:
                shape = (self.out_channels, self.in_channels // self.groups, *self.kernel_size)
            self.weight.materialize(shape)
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input):
        no_batch = self._get_num_spatial_dims() + 1
        if input.dim() not in (no_batch, no_batch + 1):
            raise RuntimeError(f"Expected {no_batch}D (unbatched) or {no_batch + 1}D (batched) input to "
                               f"{self.__class__.__name__}, but got input of size: {input.shape}")
        return input.shape[1] if input.dim() == no_batch + 1 else input.shape[0]

    def _get_num_spatial_dims(self):
        return self._SPATIAL


def _lazy_conv(base, spatial):
    class LazyConv(_LazyConvXdMixin, base):
        cls_to_become = base
        _SPATIAL = spatial

        def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                     padding_mode="zeros", device=None, dtype=None):
            super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode,
                             device=device, dtype=dtype)
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            self.out_channels = out_channels
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
    return LazyConv


def _lazy_conv_transpose(base, spatial):
    class LazyConvTranspose(_LazyConvXdMixin, base):
        cls_to_become = base
        _SPATIAL = spatial

        def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                     dilation=1, padding_mode="zeros", device=None, dtype=None):
            super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation,
                             padding_mode, device=device, dtype=dtype)
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            self.out_channels = out_channels
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
    return LazyConvTranspose


def _named(cls, name):
    cls.__name__ = cls.__qualname__ = name
    cls.__doc__ = f"Mirrors torch.nn.{name}."
    return cls


LazyConv1d = _named(_lazy_conv(Conv1d, 1), "LazyConv1d")
LazyConv2d = _named(_lazy_conv(Conv2d, 2), "LazyConv2d")
LazyConv3d = _named(_lazy_conv(Conv3d, 3), "LazyConv3d")
LazyConvTranspose1d = _named(_lazy_conv_transpose(ConvTranspose1d, 1), "LazyConvTranspose1d")
LazyConvTranspose2d = _named(_lazy_conv_transpose(ConvTranspose2d, 2), "LazyConvTranspose2d")
LazyConvTranspose3d = _named(_lazy_conv_transpose(ConvTranspose3d, 3), "LazyConvTranspose3d")


# --- normalisation ------------------------------------------------------------------------------

class _LazyNormBase(LazyModuleMixin, _NormBase):
    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None, *,
                 bias=True):
        super().__init__(0, eps, momentum, False, False, device=device, dtype=dtype, bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if self.track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = _tensor(0, dtype=D.int64)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            if self.affine:
                self.weight.materialize((self.num_features,))
                if self.bias is not None:
                    self.bias.materialize((self.num_features,))
            if self.track_running_stats:
                self.running_mean.materialize((self.num_features,))
                self.running_var.materialize((self.num_features,))
            self.reset_parameters()


def _lazy_norm(base, family, name, dims):
    def _check_input_dim(self, input):
        if input.dim() not in dims:
            raise ValueError(f"expected {' or '.join(f'{d}D' for d in dims)} input (got {input.dim()}D input)")
    ns = {"cls_to_become": base, "_check_input_dim": _check_input_dim, "__doc__": f"Mirrors torch.nn.{name}.",
          "__module__": __name__}
    if family is _InstanceNorm:
        ns["_get_no_batch_dim"] = lambda self: dims[0]
    return type(name, (_LazyNormBase, family), ns)


LazyBatchNorm1d = _lazy_norm(BatchNorm1d, _BatchNorm, "LazyBatchNorm1d", (2, 3))
LazyBatchNorm2d = _lazy_norm(BatchNorm2d, _BatchNorm, "LazyBatchNorm2d", (4,))
LazyBatchNorm3d = _lazy_norm(BatchNorm3d, _BatchNorm, "LazyBatchNorm3d", (5,))
LazyInstanceNorm1d = _lazy_norm(InstanceNorm1d, _InstanceNorm, "LazyInstanceNorm1d", (2, 3))
LazyInstanceNorm2d = _lazy_norm(InstanceNorm2d, _InstanceNorm, "LazyInstanceNorm2d", (3, 4))
LazyInstanceNorm3d = _lazy_norm(InstanceNorm3d, _InstanceNorm, "LazyInstanceNorm3d", (4, 5))
