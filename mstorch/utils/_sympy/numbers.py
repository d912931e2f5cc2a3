"""torch.utils._sympy.numbers: the infinite integers of torch's value ranges, as a type only (see the package
docstring)."""
from . import refusing_type

IntInfinity = refusing_type("numbers.IntInfinity", "Mirrors torch.utils._sympy.numbers.IntInfinity as a type; "
                            "making one raises.")
