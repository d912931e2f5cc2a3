"""torch.fx.subgraph_rewriter: find a traced pattern in a GraphModule's graph and splice a replacement graph in
its place (``replace_pattern``, ``replace_pattern_with_filters``, the ``Match`` / ``ReplacedPatterns`` results).

Matching follows torch's SubgraphMatcher as ``replace_pattern`` configures it: the pattern's output node and
placeholders are wildcards, the search walks use-def edges backwards from the pattern's anchors (its returned
nodes with a single user), a match must be self-contained (only returned nodes may be used outside it) and
must not create a cycle once fused, and of overlapping matches the first in graph order wins."""
import copy
from dataclasses import dataclass, field
from typing import NamedTuple

from ..nn import Module
from .._tensor import Tensor
from ._symbolic_trace import symbolic_trace
from .graph import Graph
from .graph_module import GraphModule
from .node import Node

__all__ = ["Match", "replace_pattern", "replace_pattern_with_filters", "ReplacedPatterns"]


class Match(NamedTuple):
    """torch.fx.subgraph_rewriter.Match."""
    anchor: Node            # the pattern node the match was searched from (its first anchor)
    nodes_map: dict         # pattern node -> graph node


@dataclass
class ReplacedPatterns:
    """torch.fx.subgraph_rewriter.ReplacedPatterns."""
    anchor: Node
    nodes_map: dict
    replacements: list      # the nodes the replacement added to the graph


@dataclass
class InternalMatch:
    """torch.fx.passes.utils.matcher_utils.InternalMatch: what match filters and replacement callbacks get."""
    anchors: list
    nodes_map: dict = field(default_factory=dict)
    placeholder_nodes: list = field(default_factory=list)
    returning_nodes: list = field(default_factory=list)
    name_node_map: dict = field(default_factory=dict)

    def __copy__(self):
        return InternalMatch(anchors=self.anchors, nodes_map=self.nodes_map.copy(),
                             placeholder_nodes=self.placeholder_nodes.copy(),
                             returning_nodes=self.returning_nodes.copy())


def _get_attr(module, target):
    for atom in target.split("."):
        module = getattr(module, atom)
    return module


class _SubgraphMatcher:
    """The matcher behind replace_pattern (match_output=False, match_placeholder=False, overlaps removed)."""

    def __init__(self, pattern, ignore_literals=False):
        if len(pattern.nodes) == 0:
            raise ValueError("SubgraphMatcher cannot be initialized with an empty pattern")
        for node in pattern.nodes:
            if node.op != "output" and not node.is_impure() and len(node.users) == 0:
                raise AssertionError("SubgraphMatcher cannot be initialized with an pattern with dead code")
        self.pattern = pattern
        self.ignore_literals = ignore_literals
        self.placeholders = [n for n in pattern.nodes if n.op == "placeholder"]
        output = next(iter(reversed(pattern.nodes)))
        self.returning = output.all_input_nodes
        self.anchors = [n for n in output.all_input_nodes if len(n.users) == 1]

    def _nodes_are_equal(self, pn, gn):
        if pn.op == "placeholder":
            return True
        if pn.op != gn.op:
            return False
        if pn.op == "output":
            return True
        if pn.op == "get_attr":
            pv = _get_attr(pn.graph.owning_module, pn.target)
            gv = _get_attr(gn.graph.owning_module, gn.target)
            if type(pv) is not type(gv):
                return False
            if isinstance(pv, Tensor):
                return True
            raise RuntimeError(f"Unsupported type {pv} when matching attributes")
        return pn.target == gn.target

    def _match_literal(self, pa, ga, match):
        if isinstance(pa, Node):
            # a pattern placeholder may stand for a literal in the graph
            if pa.op != "placeholder":
                return False
            if pa in match.nodes_map:
                return match.nodes_map[pa] == ga
            match.nodes_map[pa] = ga
            return True
        if isinstance(ga, Node):
            return False
        return type(ga) is type(pa) and ga == pa

    def _match_args(self, pargs, gargs, match):
        if len(pargs) != len(gargs):
            return False
        for pa, ga in zip(pargs, gargs):
            if isinstance(pa, Node) and isinstance(ga, Node):
                ok = self._match_nodes(pa, ga, match)
            elif isinstance(pa, (list, tuple)) and isinstance(ga, (list, tuple)):
                ok = self._match_args(pa, ga, match)
            else:
                ok = self._match_literal(pa, ga, match) or self.ignore_literals
            if not ok:
                return False
        return True

    def _match_nodes(self, pn, gn, match):
        """Walk pn's and gn's inputs together, recording pn -> gn; False (match then stale) on a mismatch."""
        if pn in match.nodes_map:
            return match.nodes_map[pn] == gn
        if gn in match.nodes_map.values() or not self._nodes_are_equal(pn, gn):
            return False
        match.nodes_map[pn] = gn
        if pn.op == "placeholder":
            return True
        if len(pn.args) != len(gn.args) or list(pn.kwargs) != list(gn.kwargs):
            return False
        return self._match_args([*pn.args, *pn.kwargs.values()], [*gn.args, *gn.kwargs.values()], match)

    def _is_contained(self, nodes_map):
        inside = {gn: pn for pn, gn in nodes_map.items() if pn.op != "placeholder"}
        return all(pn in self.returning or all(u in inside for u in gn.users) for gn, pn in inside.items())

    @staticmethod
    def _forms_cycle(partition):
        """Whether a path leaves the matched nodes and comes back (fusing them would make a cycle)."""
        part = set(partition)
        queue = [u for n in part for u in n.users if u not in part]
        seen = set()
        while queue:
            cur = queue.pop()
            if cur in part:
                return True
            seen.add(cur)
            queue.extend(u for u in cur.users if u not in seen)
        return False

    def match(self, graph):
        candidates = [(a, [n for n in graph.nodes if self._nodes_are_equal(a, n)]) for a in self.anchors]
        found = []

        def search(i, match):
            if i == len(candidates):
                match.placeholder_nodes = [match.nodes_map[pn] for pn in self.placeholders]
                match.returning_nodes = [match.nodes_map[pn] for pn in self.returning]
                found.append(match)
                return
            anchor, nodes = candidates[i]
            for node in nodes:
                attempt = copy.copy(match)
                if self._match_nodes(anchor, node, attempt):
                    search(i + 1, attempt)

        if candidates:
            search(0, InternalMatch(anchors=self.anchors))
        found = [m for m in found if self._is_contained(m.nodes_map)]
        found = [m for m in found if not self._forms_cycle(
            [gn for pn, gn in m.nodes_map.items() if pn.op not in ("placeholder", "output")])]
        kept, taken = [], set()
        for m in found:
            computed = [gn for pn, gn in m.nodes_map.items() if pn.op not in ("placeholder", "output")]
            if not any(gn in taken for gn in computed):
                kept.append(m)
                taken.update(computed)
        return kept


def _graph_of(fn):
    if isinstance(fn, GraphModule):
        return fn.graph
    if isinstance(fn, Graph):
        return fn
    return symbolic_trace(fn).graph


def _copy_replacement_attributes(gm, replacement):
    """Copy the submodules / attributes the spliced-in nodes refer to from ``replacement`` (gm's own win)."""
    gm.delete_all_unused_submodules()
    if isinstance(replacement, GraphModule):
        replacement.graph.lint()

    def lookup(mod, target):
        path, _, name = target.rpartition(".")
        try:
            owner = mod.get_submodule(path)
        except AttributeError:
            return None
        return getattr(owner, name, None)

    for node in gm.graph.nodes:
        if node.op not in ("call_module", "get_attr") or lookup(gm, node.target) is not None:
            continue
        attr = lookup(replacement, node.target)
        if attr is None:
            raise RuntimeError('Attempted to create a "', node.op, '" node during subgraph rewriting '
                               f"with target {node.target}, but the referenced attribute does not exist in "
                               "the replacement GraphModule")
        if isinstance(attr, Module):
            gm.add_submodule(node.target, copy.deepcopy(attr))
        else:
            setattr(gm, node.target, copy.deepcopy(attr))
    gm.graph.lint()


def _insert_point(graph, match):
    """Before the first user of a returned node, else right after the last returned node."""
    users = set()
    for n in match.returning_nodes:
        users.update(n.users)
    if users:
        return next(n for n in graph.nodes if n in users)
    after = None
    for n in reversed(graph.nodes):
        if n in match.returning_nodes:
            break
        after = n
    if after is None:
        raise AssertionError("The insert point can't be None")
    return after


def _replace_pattern(gm, pattern, replacement=None, match_filters=None, ignore_literals=False,
                     replacement_callback=None, node_name_match=""):
    if node_name_match:
        raise NotImplementedError("replace_pattern_with_filters: node_name_match is not supported by mstorch")
    graph = gm.graph
    pattern_graph = _graph_of(pattern)
    matches = _SubgraphMatcher(pattern_graph, ignore_literals).match(graph)
    matches = [m for m in matches if all(f(m, graph, pattern_graph) for f in match_filters or [])]
    if replacement is None or not (isinstance(replacement, Graph) or callable(replacement)):
        if replacement_callback is None:
            raise AssertionError("Must provide either a replacement GraphModule or a replacement callback")
        common = None
    else:
        common = _graph_of(replacement)

    replaced_by = {}    # a returned node of an earlier match -> the node that took its place
    results = []
    for match in matches:
        rgraph = replacement_callback(match, graph, pattern_graph) if replacement_callback else common
        rplaceholders = [n for n in rgraph.nodes if n.op == "placeholder"]
        if len(match.placeholder_nodes) != len(rplaceholders):
            raise AssertionError(f"Placeholder count mismatch: {len(match.placeholder_nodes)} vs "
                                 f"{len(rplaceholders)}")
        val_map = {}
        for rn, gn in zip(rplaceholders, match.placeholder_nodes):
            if isinstance(gn, Node) and gn in replaced_by:
                new = replaced_by[gn]
                match.placeholder_nodes[match.placeholder_nodes.index(gn)] = new
                key = next(pn for pn, v in match.nodes_map.items() if v is gn)
                match.nodes_map[key] = new
                gn = new
            val_map[rn] = gn
        with graph.inserting_before(_insert_point(graph, match)):
            copied = graph.graph_copy(rgraph, val_map)
        if isinstance(copied, Node):
            copied = (copied,)
        added = [v for v in val_map.values() if v not in match.placeholder_nodes]
        if len(match.returning_nodes) != len(copied):
            raise AssertionError(f"Returning nodes count mismatch: {len(match.returning_nodes)} vs {len(copied)}")
        for gn, new in zip(match.returning_nodes, copied):
            gn.replace_all_uses_with(new)
            replaced_by[gn] = new
        for pn in reversed(pattern_graph.nodes):
            if pn.op not in ("placeholder", "output"):
                graph.erase_node(match.nodes_map[pn])
        results.append(ReplacedPatterns(anchor=match.anchors[0], nodes_map=match.nodes_map, replacements=added))
    gm.recompile()
    if isinstance(replacement, Module):
        _copy_replacement_attributes(gm, replacement)
    return results


def replace_pattern(gm, pattern, replacement):
    """torch.fx.replace_pattern: rewrite ``gm`` in place; returns one Match per replaced occurrence."""
    return [Match(anchor=m.anchor, nodes_map=m.nodes_map) for m in _replace_pattern(gm, pattern, replacement)]


def replace_pattern_with_filters(gm, pattern, replacement=None, match_filters=None, ignore_literals=False,
                                 replacement_callback=None, node_name_match=""):
    """torch.fx.subgraph_rewriter.replace_pattern_with_filters: replace_pattern with match filters
    ``f(match, original_graph, pattern_graph) -> bool`` and an optional per-match replacement callback."""
    return _replace_pattern(gm, pattern, replacement, match_filters, ignore_literals, replacement_callback,
                            node_name_match)
