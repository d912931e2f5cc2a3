"""The package's structure (issue 19): no import cycle at module level, ``_tensor.py`` a leaf over the base
layer, and ``mstorch/_install.py`` the only code that puts attributes on ``Tensor``. The full layer
contract (function-local imports included) is import-linter's, run by ``make lint`` (see pyproject.toml)."""
import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent / "mstorch"


def _modules():
    mods = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        mods[name] = path
    return mods


def _imports(name, path, mods, module_level):
    """Modules of the package imported by ``name`` (module-level statements only, or every statement)."""
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    if module_level:   # top-level statements, and those under top-level if/try blocks
        nodes = [n for stmt in tree.body
                 for n in ([stmt] if not isinstance(stmt, (ast.If, ast.Try)) else ast.walk(stmt))]
    else:
        nodes = list(ast.walk(tree))
    out = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name in mods)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            for a in node.names:
                full = f"{target}.{a.name}"
                out.add(full if full in mods else target)
    out.discard(name)
    return {m for m in out if m in mods}


def _cycles(graph):
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        found.append(sorted(comp))
    return found


def test_no_import_cycle_at_module_level():
    mods = _modules()
    graph = {name: _imports(name, path, mods, module_level=True) for name, path in mods.items()}
    assert _cycles(graph) == []


def test_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


BASE = {"mstorch._dtype", "mstorch._ms_private", "mstorch._runtime", "mstorch._size", "mstorch._device",
        "mstorch._warnings", "mstorch._finfo", "mstorch._cast", "mstorch._layout", "mstorch.storage"}


def test_tensor_module_imports_only_the_base_layer():
    # every import, function-local ones included
    mods = _modules()
    assert _imports("mstorch._tensor", mods["mstorch._tensor"], mods, module_level=False) <= BASE


def test_only_the_install_step_assigns_to_tensor():
    offenders = []
    for path in ROOT.rglob("*.py"):
        if path.name == "_install.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            targets = node.targets if isinstance(node, ast.Assign) else []
            for t in targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "Tensor":
                    offenders.append(f"{path.name}:{node.lineno}")
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "setattr" and node.args \
                    and isinstance(node.args[0], ast.Name) and node.args[0].id == "Tensor":
                offenders.append(f"{path.name}:{node.lineno}")
    assert offenders == []
