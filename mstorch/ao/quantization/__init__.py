"""torch.ao.quantization: the stubs a float model carries (``QuantStub``/``DeQuantStub``, identities until a
model is converted) work as in torch; preparing, calibrating and converting a model raise, since mstorch has no
quantized tensors or quantized kernels (MindSpore's quantization is a separate toolkit, mindspore_gs)."""
from ...nn.modules.module import Module

__all__ = ["QuantStub", "DeQuantStub", "QConfig", "prepare", "prepare_qat", "convert", "quantize",
           "quantize_dynamic", "fuse_modules", "fuse_modules_qat", "get_default_qconfig", "get_default_qat_qconfig",
           "default_observer", "default_weight_observer", "default_per_channel_weight_observer"]


class _Stub(Module):
    """The identity a float model carries where a converted model (de)quantizes."""

    def __init__(self, qconfig=None):
        super().__init__()
        if qconfig:
            self.qconfig = qconfig

    def forward(self, x):
        return x


class QuantStub(_Stub):
    """Mirrors torch.ao.quantization.QuantStub: marks where a converted model quantizes; the identity before."""


class DeQuantStub(_Stub):
    """Mirrors torch.ao.quantization.DeQuantStub: where a converted model dequantizes; the identity before."""


def _refuse(name):
    def refuse(*args, **kwargs):
        raise NotImplementedError(f"torch.ao.quantization.{name}: mstorch has no quantized tensors or quantized "
                                  "kernels")
    refuse.__name__ = refuse.__qualname__ = name
    return refuse


QConfig = _refuse("QConfig")
prepare = _refuse("prepare")
prepare_qat = _refuse("prepare_qat")
convert = _refuse("convert")
quantize = _refuse("quantize")
quantize_dynamic = _refuse("quantize_dynamic")
fuse_modules = _refuse("fuse_modules")
fuse_modules_qat = _refuse("fuse_modules_qat")
get_default_qconfig = _refuse("get_default_qconfig")
get_default_qat_qconfig = _refuse("get_default_qat_qconfig")
default_observer = _refuse("default_observer")
default_weight_observer = _refuse("default_weight_observer")
default_per_channel_weight_observer = _refuse("default_per_channel_weight_observer")
