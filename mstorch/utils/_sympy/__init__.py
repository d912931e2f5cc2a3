"""torch.utils._sympy: the sympy value ranges torch.export's symbolic shapes are reasoned about with. Only
exporters read them (transformers' ExecuTorch exporter imports them beside torch.export); mstorch has no
symbolic shapes, so each name refuses with the reason, by the op table's ``unsupported`` list."""
from ..._namespace import missing_getattr
from ...ops._registry import unsupported

REASON = ("mstorch has no symbolic shapes: the sympy value ranges of torch.export's shape reasoning exist only "
          "for an exporter, and torch.export is not supported (see torch.export)")
for _name in ("utils._sympy.numbers.IntInfinity", "utils._sympy.value_ranges.ValueRanges"):
    unsupported(_name, REASON)

__getattr__ = missing_getattr(__name__)
