"""torch's argument-parser errors: ``f() received an invalid combination of arguments - got (...)``."""
import mindspore as ms

BINARY = ("Tensor input, Tensor other, *, Tensor out = None", "Tensor input, Number other, *, Tensor out = None")
BINARY_SCALAR_SELF = ("Tensor input, Tensor other, *, Tensor out = None", "Number self, Tensor other, *, Tensor out = None",
                      "Tensor input, Number other, *, Tensor out = None")


def type_name(value):
    """An argument's type as torch's parser prints it."""
    if isinstance(value, ms.Tensor) or type(value).__name__ == "Tensor":
        return "Tensor"
    return type(value).__name__


def invalid_args(name, args, kwargs=None, signatures=()):
    """The TypeError torch raises when no signature of ``name`` matches ``args`` / ``kwargs``."""
    got = [type_name(a) for a in args] + [f"{k}={type_name(v)}" for k, v in (kwargs or {}).items()]
    text = f"{name}() received an invalid combination of arguments - got ({', '.join(got)}), but expected one of:\n"
    return TypeError(text + "".join(f" * ({s})\n" for s in signatures))
