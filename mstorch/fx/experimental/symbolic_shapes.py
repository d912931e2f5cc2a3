"""torch.fx.experimental.symbolic_shapes: the guards libraries call on sizes, for mstorch, where sizes are always
concrete ints (no dynamo or export tracing makes symbolic ones). torch gives the same answers for a concrete
int or bool: ``guard_or_false(x)`` is ``bool(x)``, a concrete value has no free symbols."""
import warnings

from ..._symbolic import SymBool, SymFloat, SymInt

__all__ = ["GuardOnDataDependentSymNode", "guard_or_false", "guard_or_true", "statically_known_true",
           "statically_known_false", "guard_size_oblivious", "is_concrete_int", "is_concrete_bool", "has_free_symbols", "free_symbols", "free_unbacked_symbols",
           "has_free_unbacked_symbols", "SymInt", "SymFloat", "SymBool"]


class GuardOnDataDependentSymNode(RuntimeError):
    """Mirrors the error torch raises when a guard needs a data-dependent size (never raised by mstorch, whose
    sizes are concrete; libraries catch it)."""

    def __init__(self, cond=None, *args):
        super().__init__(*args)
        self.cond = cond


def _concrete(a, types, expected):
    if not isinstance(a, types):
        raise AssertionError(f"Expected {expected}, got {type(a)}")
    return a


def guard_or_false(a):
    return _concrete(a, bool, "bool")


def guard_or_true(a):
    return _concrete(a, bool, "bool")


def statically_known_true(x):
    return _concrete(x, bool, "bool")


def statically_known_false(x):
    return not _concrete(x, bool, "bool")


def guard_size_oblivious(expr):
    warnings.warn("guard_size_oblivious will be removed. Consider using explicit unbacked handling     potentially "
                  "utilizing guard_or_false, guard_or_true, or statically_known_true", FutureWarning, stacklevel=2)
    return _concrete(expr, bool, "bool")


def is_concrete_int(a):
    _concrete(a, int, "SymInt or int")
    return True


def is_concrete_bool(a):
    _concrete(a, bool, "SymBool or bool")
    return True


def free_symbols(val):
    """The sympy symbols a value depends on: none, sizes are concrete."""
    return set()


def free_unbacked_symbols(x):
    return set()


def has_free_symbols(val):
    return False


def has_free_unbacked_symbols(x):
    return False
