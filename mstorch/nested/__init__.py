"""torch.nested: refused by name. torch's nested (jagged) tensors are a tensor subclass whose ops run through
__torch_dispatch__ kernels over packed values and offsets; mstorch's Tensor holds one dense MindSpore tensor and
has no dispatch layer for such a layout. Each name raises an AttributeError with that reason
(docs/known-differences.md)."""
from ..ops._registry import unsupported

_REASON = ("nested (jagged) tensors are a torch tensor subclass over packed values and offsets, run by "
           "__torch_dispatch__ kernels; mstorch's Tensor is one dense MindSpore tensor. Pad the sequences "
           "(torch.nn.utils.rnn.pad_sequence) and pass a mask instead")
for _name in ("nested_tensor", "as_nested_tensor", "nested_tensor_from_jagged", "narrow", "masked_select",
              "to_padded_tensor"):
    unsupported(f"nested.{_name}", _REASON)


def __getattr__(name):
    from .._namespace import missing_getattr
    return missing_getattr(__name__)(name)
