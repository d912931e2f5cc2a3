"""torch.onnx.symbolic_helper: ``parse_args``, the decorator of ONNX symbolic functions. Symbolic functions run
only inside the TorchScript ONNX exporter, which mstorch does not have (``torch.onnx.export`` raises), so the
decorator records the argument descriptors and keeps the function as written."""
import functools


def parse_args(*arg_descriptors):
    def decorator(fn):
        @functools.wraps(fn)
        def wrapper(g, *args, **kwargs):
            return fn(g, *args, **kwargs)
        wrapper._arg_descriptors = arg_descriptors
        return wrapper
    return decorator
