"""torch.fx.passes.infra.pass_base: ``PassResult`` and ``PassBase``, the shape of a pass over a GraphModule
(mstorch's fx GraphModules run such passes as torch's do)."""
import abc
from collections import namedtuple

__all__ = ["PassResult", "PassBase"]


class PassResult(namedtuple("PassResult", ["graph_module", "modified"])):
    """Mirrors torch.fx.passes.infra.pass_base.PassResult: the graph module a pass returns and whether it changed."""

    __slots__ = ()

    def __new__(cls, graph_module, modified):
        return super().__new__(cls, graph_module, modified)


class PassBase(abc.ABC):
    """Mirrors torch.fx.passes.infra.pass_base.PassBase: ``pass_(gm)`` runs ``requires``, ``call``, ``ensures``."""

    def __call__(self, graph_module):
        self.requires(graph_module)
        res = self.call(graph_module)
        self.ensures(graph_module)
        return res

    @abc.abstractmethod
    def call(self, graph_module):
        """The pass: returns a PassResult."""

    def requires(self, graph_module):  # noqa: B027  (an optional hook, as in torch)
        pass

    def ensures(self, graph_module):  # noqa: B027
        pass
