"""torch.nn.utils.prune: masks over a module's parameters, re-applied by a forward pre-hook.

Pruning ``name`` moves the parameter to ``<name>_orig``, registers the mask as buffer ``<name>_mask`` and
sets plain attribute ``<name> = mask * <name>_orig`` before every forward, exactly as torch lays it out
(state_dict keys, hook objects in ``module._forward_pre_hooks``). Random methods draw from mstorch's
generator, which is torch's, so a seeded script prunes the same entries.
"""
import numbers
import sys
from abc import ABC, abstractmethod
from collections.abc import Iterable

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured", "L1Unstructured",
           "RandomStructured", "LnStructured", "CustomFromMask", "identity", "random_unstructured",
           "l1_unstructured", "random_structured", "ln_structured", "global_unstructured", "custom_from_mask",
           "remove", "is_pruned"]


def _mt():
    return sys.modules["mstorch"]


def _pruning_hook(module, name):
    """(hook id, method) of the pruning hook of ``name`` on ``module``, or (None, None)."""
    found = [(k, h) for k, h in module._forward_pre_hooks.items()
             if isinstance(h, BasePruningMethod) and h._tensor_name == name]
    if len(found) > 1:
        raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor {name} of module {module}. "
                             "Use a PruningContainer.")
    return found[0] if found else (None, None)


class BasePruningMethod(ABC):
    """Mirrors torch.nn.utils.prune.BasePruningMethod."""
    _tensor_name: str

    def __call__(self, module, inputs):
        # the forward pre-hook: recompute the pruned tensor from the (possibly updated) original
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """The mask for ``t`` given the mask already in force (``default_mask``)."""

    def apply_mask(self, module):
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        orig = getattr(module, self._tensor_name + "_orig")
        return getattr(module, self._tensor_name + "_mask").to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        key, previous = _pruning_hook(module, name)
        if key is not None:
            del module._forward_pre_hooks[key]
        method = cls(*args, **kwargs)
        method._tensor_name = name
        # a second pruning of the same tensor acts on what the first left: both go in one container
        if isinstance(previous, PruningContainer):
            previous.add_pruning_method(method)
            method = previous
        elif previous is not None:
            container = PruningContainer(previous)
            container.add_pruning_method(method)
            method = container

        orig = getattr(module, name)
        if importance_scores is None:
            importance_scores = orig
        elif importance_scores.shape != orig.shape:
            raise AssertionError(f"importance_scores should have the same shape as parameter {name} of {module}, "
                                 f"got {importance_scores.shape} vs {orig.shape}")
        first = not isinstance(method, PruningContainer)
        if first:
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = _mt().ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone(memory_format=_mt().contiguous_format)
        try:
            module.register_buffer(name + "_mask", method.compute_mask(importance_scores, default_mask=default_mask))
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first:   # leave the module as it was
                module.register_parameter(name, getattr(module, name + "_orig"))
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        if importance_scores is None:
            importance_scores = t
        elif importance_scores.shape != t.shape:
            raise AssertionError(f"importance_scores should have the same shape as tensor t, got "
                                 f"{importance_scores.shape} vs {t.shape}")
        if default_mask is None:
            default_mask = _mt().ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module):
        """Make the pruning permanent: ``name`` becomes a parameter holding the pruned values."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        name = self._tensor_name
        pruned = self.apply_mask(module)
        if hasattr(module, name):
            delattr(module, name)
        orig = module._parameters[name + "_orig"]
        orig.data = pruned.data
        del module._parameters[name + "_orig"]
        del module._buffers[name + "_mask"]
        setattr(module, name, orig)


class PruningContainer(BasePruningMethod):
    """Mirrors torch.nn.utils.prune.PruningContainer: successive pruning of one tensor, each method acting on
    the entries (unstructured) or channels (structured) the previous ones kept."""

    def __init__(self, *args):
        self._pruning_methods = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method):
        if method is not None and not isinstance(method, BasePruningMethod):
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(f"Can only add pruning methods acting on the parameter named '{self._tensor_name}' to "
                             f"PruningContainer {self}." + f" Found '{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        kind = method.PRUNING_TYPE
        if kind == "unstructured":
            region = default_mask == 1                  # the entries still alive
        elif kind == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to have the attribute `dim` '
                                     "defined.")
            ndim = t.dim()
            dim = method.dim + ndim if method.dim < 0 else method.dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {ndim}")
            alive = default_mask.sum(dim=[d for d in range(ndim) if d != dim]) != 0   # the channels still alive
            region = tuple(alive if d == dim else slice(None) for d in range(ndim))
        elif kind == "global":
            region = (slice(None),) * len(t.shape)
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
        new_mask[region] = method.compute_mask(t[region], default_mask=default_mask[region]).to(dtype=new_mask.dtype)
        return new_mask


class Identity(BasePruningMethod):
    """Mirrors torch.nn.utils.prune.Identity: the mask of ones."""
    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


def _check_amount(amount):
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    integral = isinstance(amount, numbers.Integral)
    if (integral and amount < 0) or (not integral and not 0.0 <= float(amount) <= 1.0):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a non-negative integer")


def _count(amount, size):
    """How many of ``size`` entries (or channels) to prune: an int as given, a fraction rounded as torch does."""
    n = amount if isinstance(amount, numbers.Integral) else round(amount * size)
    if isinstance(n, numbers.Integral) and n > size:
        raise ValueError(f"amount={n} should be smaller than the number of parameters to prune={size}")
    return n


def _check_structured(t, dim):
    if len(t.shape) <= 1:
        raise ValueError(f"Structured pruning can only be applied to multidimensional tensors. Found tensor of shape "
                         f"{t.shape} with {len(t.shape)} dims")
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _channels_mask(t, dim, keep):
    """Ones on the channels ``keep`` (indices or a bool mask) along ``dim``, zeros elsewhere."""
    mask = _mt().zeros_like(t)
    mask[tuple(keep if d == dim % t.dim() else slice(None) for d in range(t.dim()))] = 1
    return mask


class _EntryPruning(BasePruningMethod):
    """Unstructured pruning: the ``amount`` entries that ``_chosen`` picks are zeroed in the mask."""
    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        n = _count(self.amount, t.nelement())
        mask = default_mask.clone(memory_format=_mt().contiguous_format)
        if n != 0:
            mask.view(-1)[self._chosen(t, n)] = 0
        return mask


class RandomUnstructured(_EntryPruning):
    """Mirrors torch.nn.utils.prune.RandomUnstructured: prunes the entries with the largest uniform draws."""

    def _chosen(self, t, n):
        return _mt().topk(_mt().rand_like(t).view(-1), k=n).indices

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(_EntryPruning):
    """Mirrors torch.nn.utils.prune.L1Unstructured: prunes the entries of smallest magnitude."""

    def _chosen(self, t, n):
        return _mt().topk(t.abs().view(-1), k=n, largest=False).indices

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class _ChannelPruning(BasePruningMethod):
    """Structured pruning along ``dim``: the mask keeps the channels ``_kept`` picks (of ``size``, ``n`` pruned)."""
    PRUNING_TYPE = "structured"

    def compute_mask(self, t, default_mask):
        _check_structured(t, self.dim)
        size = t.shape[self.dim]
        n = _count(self.amount, size)
        keep = self._kept(t, size, n)
        if n == 0:
            return default_mask
        mask = _channels_mask(t, self.dim, keep)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask


class RandomStructured(_ChannelPruning):
    """Mirrors torch.nn.utils.prune.RandomStructured: prunes whole channels along ``dim`` at random."""

    def __init__(self, amount, dim=-1):
        _check_amount(amount)
        self.amount = amount
        self.dim = dim

    def _kept(self, t, size, n):
        if n == 0:          # torch draws nothing then: the generator does not advance
            return None
        draws = _mt().rand(size)
        # the channels whose draw is above the n-th smallest survive
        return draws > _mt().kthvalue(draws, k=n).values

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(_ChannelPruning):
    """Mirrors torch.nn.utils.prune.LnStructured: prunes the channels along ``dim`` of smallest L``n`` norm."""

    def __init__(self, amount, n, dim=-1):
        _check_amount(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def _kept(self, t, size, n):
        dim = self.dim % t.dim()
        norms = _mt().norm(t, p=self.n, dim=[d for d in range(t.dim()) if d != dim])
        return _mt().topk(norms, k=size - n, largest=True).indices

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Mirrors torch.nn.utils.prune.CustomFromMask: a given mask."""
    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"default_mask shape {default_mask.shape} must match self.mask shape "
                                 f"{self.mask.shape}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


def identity(module, name):
    """Mirrors torch.nn.utils.prune.identity."""
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    """Mirrors torch.nn.utils.prune.random_unstructured."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    """Mirrors torch.nn.utils.prune.l1_unstructured."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    """Mirrors torch.nn.utils.prune.random_structured."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    """Mirrors torch.nn.utils.prune.ln_structured."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def custom_from_mask(module, name, mask):
    """Mirrors torch.nn.utils.prune.custom_from_mask."""
    CustomFromMask.apply(module, name, mask)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Mirrors torch.nn.utils.prune.global_unstructured: one unstructured method over all the tensors as one
    vector, then each tensor's slice of the mask applied with custom_from_mask."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    importance_scores = {} if importance_scores is None else importance_scores
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    mt = _mt()
    flat = mt.nn.utils.parameters_to_vector
    scores = flat([importance_scores.get((m, n), getattr(m, n)) for m, n in parameters])
    alive = flat([getattr(m, n + "_mask", mt.ones_like(getattr(m, n))) for m, n in parameters])
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(f'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found method '
                        f"{pruning_method} of type {method.PRUNING_TYPE}")
    container = PruningContainer()
    container._tensor_name = "temp"
    container.add_pruning_method(method)
    final = container.compute_mask(scores, alive)
    start = 0
    for m, n in parameters:
        param = getattr(m, n)
        custom_from_mask(m, n, mask=final[start:start + param.numel()].view_as(param))
        start += param.numel()


def remove(module, name):
    """Mirrors torch.nn.utils.prune.remove: make the pruning of ``name`` permanent and drop its hook."""
    key, method = _pruning_hook(module, name)
    if key is None:
        raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed")
    method.remove(module)
    del module._forward_pre_hooks[key]
    return module


def is_pruned(module):
    """Mirrors torch.nn.utils.prune.is_pruned: whether any submodule carries a pruning hook."""
    return any(isinstance(h, BasePruningMethod)
               for _, sub in module.named_modules() for h in sub._forward_pre_hooks.values())
