"""torch._dynamo.utils: ``is_compile_supported``, which libraries ask before wrapping a function in
``torch.compile`` (torchvision's pure-Python roi_align)."""


def is_compile_supported(device_type):
    """As torch answers on a host without Triton: ``torch.compile`` works on CPU (in mstorch it runs the function
    eagerly), and GPU compilation needs Triton."""
    from .._device import device
    return device(device_type).type == "cpu"
