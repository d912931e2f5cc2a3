"""torch.utils._sympy.value_ranges: torch's interval type for symbolic shapes, as a type only (see the package
docstring)."""
from . import refusing_type

ValueRanges = refusing_type("value_ranges.ValueRanges", "Mirrors torch.utils._sympy.value_ranges.ValueRanges "
                            "as a type; making one raises.")
