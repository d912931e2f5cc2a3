"""Models may use, for their own submodules, parameters, buffers and plain attributes, the names that
mindspore.nn.Cell defines and torch's Module does not (``cells``, ``phase``, ``offload``, ``shard``...)."""
import mindspore as ms
import pytest

import mstorch
from harness import check

CELL_ONLY = sorted(n for n in ("cells", "phase", "offload", "shard", "compiled", "recompute", "set_train",
                               "trainable_params", "parameters_dict", "cells_and_names", "get_parameters",
                               "to_float", "set_grad", "pipeline_stage", "construct", "npu")
                   if hasattr(ms.nn.Cell, n))


def _net(T, name, kind):
    class Net(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = T.nn.Linear(3, 2)
            if kind == "module":
                setattr(self, name, T.nn.ModuleList([T.nn.Linear(2, 2)]))
            elif kind == "parameter":
                setattr(self, name, T.nn.Parameter(T.full((2,), 2.0)))
            elif kind == "buffer":
                self.register_buffer(name, T.full((2,), 3.0))
            else:
                setattr(self, name, 7)

        def forward(self, x):
            y = self.fc(x)
            own = getattr(self, name)
            if kind == "module":
                return own[0](y)
            if kind in ("parameter", "buffer"):
                return y * own
            return y * own
    T.manual_seed(0)
    return Net()


@pytest.mark.parametrize("kind", ["module", "parameter", "buffer", "plain"])
@pytest.mark.parametrize("name", CELL_ONLY)
def test_cell_only_name_is_the_models(name, kind):
    def fn(T):
        net = _net(T, name, kind)
        x = T.ones(4, 3)
        out = net(x)
        out.sum().backward()
        own = getattr(net, name)
        return (out, [n for n, _ in net.named_parameters()], list(net.state_dict()), repr(net),
                type(own).__name__, [p.grad for p in net.parameters()])
    check(fn)


@pytest.mark.parametrize("name", ["cells", "phase", "offload"])
def test_cell_only_name_registration_and_errors(name):
    def fn(T):
        out = [repr(T.nn.ModuleDict({name: T.nn.Linear(1, 1)}))]
        m = T.nn.Module()
        m.add_module(name, T.nn.Linear(1, 1))
        out.append(type(getattr(m, name)).__name__)
        delattr(m, name)
        out.append(name in dict(m.named_children()))
        plain = T.nn.Module()
        setattr(plain, name, "mine")            # a plain attribute now holds the name, as in torch ...
        try:
            plain.register_buffer(name, T.ones(1))
        except KeyError as exc:                 # ... so registering it is refused with torch's message
            out.append(str(exc))
        return out
    check(fn)


def test_native_view_keeps_working():
    """MindSpore's own Cell API still answers on a model that took one of its names."""
    net = _net(mstorch, "cells", "module")
    assert list(net.parameters_dict()) == ["fc.weight", "fc.bias", "cells.0.weight", "cells.0.bias"]
    assert [n for n, _ in net.cells_and_names()][:2] == ["", "fc"]
    assert isinstance(net.phase, str)


def test_torch_module_name_list():
    import torch
    from mstorch.nn.modules._module_utils import TORCH_MODULE_NAMES
    assert TORCH_MODULE_NAMES == {n for n in dir(torch.nn.Module) if not n.startswith("_")}


def _mutated(T):
    class N(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = T.nn.Linear(2, 2)
            self.seq = T.nn.Sequential(T.nn.Linear(2, 2))
            self.ml = T.nn.ModuleList([T.nn.Linear(1, 1)])
            self.pl = T.nn.ParameterList([T.nn.Parameter(T.ones(1))])
    n = N()
    n.fc1.weight = T.nn.Parameter(T.ones(2, 2))
    n.seq[0].register_parameter("extra", T.nn.Parameter(T.ones(1)))
    n.seq.append(T.nn.Linear(2, 3))
    n.seq.insert(0, T.nn.Linear(2, 2))
    n.ml.insert(0, T.nn.Linear(1, 1))
    del n.seq[1]
    n.ml.extend([T.nn.Linear(1, 1)])
    n.seq[0] = T.nn.Linear(2, 2)
    n.pl.append(T.nn.Parameter(T.zeros(2)))
    n.fc1.bias = None
    return n


def test_native_parameter_names_follow_torch_names():
    """mindspore.save_checkpoint writes the torch dotted names, also after parameters and submodules
    are replaced, inserted, deleted and appended below the top level."""
    import torch
    expected = [k for k, _ in _mutated(torch).named_parameters()]
    net = _mutated(mstorch)
    assert [k for k, _ in net.named_parameters()] == expected
    assert [p.name for p in net.get_parameters()] == expected
