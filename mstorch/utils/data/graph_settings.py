"""Mirrors torch.utils.data.graph_settings: settings applied across a graph of DataPipes (a pipe's inputs are
the DataPipes among its attributes, as torch's traversal finds them)."""
import inspect
import warnings

from .datapipes.datapipe import IterDataPipe, MapDataPipe

__all__ = ["apply_shuffle_settings", "get_all_graph_pipes", "traverse_dps"]

_PIPES = (IterDataPipe, MapDataPipe)


def _inputs(dp):
    found, stack = [], list(vars(dp).values())
    while stack:
        v = stack.pop(0)
        if isinstance(v, _PIPES):
            found.append(v)
        elif isinstance(v, (list, tuple, set)):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
    return found


def traverse_dps(datapipe):
    """``{id(dp): (dp, {id(input): (input, {...})})}``: the graph under ``datapipe``."""
    def walk(dp, seen):
        if id(dp) in seen:
            return {}
        seen = seen | {id(dp)}
        return {id(dp): (dp, {k: v for inp in _inputs(dp) for k, v in walk(inp, seen).items()})}
    return walk(datapipe, frozenset())


def get_all_graph_pipes(graph):
    out, seen, stack = [], set(), list(graph.values())
    while stack:
        dp, children = stack.pop(0)
        if id(dp) not in seen:
            seen.add(id(dp))
            out.append(dp)
            stack.extend(children.values())
    return out


def _is_shuffle_datapipe(dp):
    return all(hasattr(dp, m) and inspect.ismethod(getattr(dp, m)) for m in ("set_shuffle", "set_seed"))


def apply_shuffle_settings(datapipe, shuffle=None):
    """Switches every shuffler of the graph on or off; with none and ``shuffle=True``, appends one (warning)."""
    if shuffle is None:
        return datapipe
    shufflers = [p for p in get_all_graph_pipes(traverse_dps(datapipe)) if _is_shuffle_datapipe(p)]
    if not shufflers and shuffle:
        warnings.warn("`shuffle=True` was set, but the datapipe does not contain a `Shuffler`. Adding one at the end. "
                      "Be aware that the default buffer size might not be sufficient for your task.", stacklevel=2)
        datapipe = datapipe.shuffle()
        shufflers = [datapipe]
    for shuffler in shufflers:
        shuffler.set_shuffle(shuffle)
    return datapipe
