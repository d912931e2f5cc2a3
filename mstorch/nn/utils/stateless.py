"""torch.nn.utils.stateless: ``functional_call`` (deprecated by torch for torch.func.functional_call, which is
the same function: its implementation lives here, as in torch)."""
import warnings


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """Mirrors torch.nn.utils.stateless.functional_call (deprecated by torch)."""
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be removed in "
                  "a future version of PyTorch. Please use `torch.func.functional_call` instead which is a drop-in "
                  "replacement.", FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict)


def _merge_dicts(dicts):
    if isinstance(dicts, dict):
        return dict(dicts)
    merged, seen = {}, {}
    for d in dicts:
        for k in d:
            seen[k] = seen.get(k, 0) + 1
    repeated = [k for k, n in seen.items() if n > 1]
    if repeated:
        raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous")
    for d in dicts:
        merged.update(d)
    return merged


def _owner(module, name):
    *path, attr = name.split(".")
    for p in path:
        module = getattr(module, p)
    return module, attr


def _tied_names(module):
    """name -> every name of the same parameter or buffer object (torch's tie_weights)."""
    by_id = {}
    for n, p in module.named_parameters(remove_duplicate=False):
        by_id.setdefault(id(p), []).append(n)
    for n, b in module.named_buffers(remove_duplicate=False):
        by_id.setdefault(id(b), []).append(n)
    return {n: names for names in by_id.values() for n in names}


def _swap(module, name, value):
    """Set ``name`` to ``value`` where the module keeps it; returns how to undo it."""
    owner, attr = _owner(module, name)
    for store in ("_parameters", "_buffers"):
        d = owner.__dict__.get(store)
        if d is not None and attr in d:
            old = d[attr]
            d[attr] = value
            return lambda d=d, attr=attr, old=old: d.__setitem__(attr, old)
    had = attr in owner.__dict__
    old = owner.__dict__.get(attr)
    object.__setattr__(owner, attr, value)
    return (lambda: object.__setattr__(owner, attr, old)) if had else (lambda: object.__delattr__(owner, attr))


def _functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """torch.func.functional_call: ``module`` called with the given tensors in place of its parameters and
    buffers (restored afterwards, also when the call raises)."""
    values = _merge_dicts(parameter_and_buffer_dicts)
    kwargs = {} if kwargs is None else kwargs
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    if tie_weights:
        tied = _tied_names(module)
        for name in list(values):
            for other in tied.get(name, ()):
                if other != name and other in values and values[other] is not values[name]:
                    raise ValueError(f"functional_call got multiple values for keys ['{name}', '{other}'], which "
                                     "are tied. Consider using tie_weights=False")
                values.setdefault(other, values[name])
    if strict:
        own = {n for n, _ in module.named_parameters(remove_duplicate=False)} | \
              {n for n, _ in module.named_buffers(remove_duplicate=False)}
        missing = sorted(own - set(values))
        unexpected = sorted(set(values) - own)
        msgs = []
        if unexpected:
            msgs.append("Unexpected key(s): " + ", ".join(repr(k) for k in unexpected) + ".")
        if missing:
            msgs.append("Missing key(s): " + ", ".join(repr(k) for k in missing) + ".")
        if msgs:
            raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n\t" + "\n\t".join(msgs))
    undo = []
    try:
        for name, value in values.items():
            undo.append(_swap(module, name, value))
        return module(*args, **kwargs)
    finally:
        for u in reversed(undo):
            u()
