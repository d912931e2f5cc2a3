"""torch.optim.Optimizer: param_groups, defaults, per-parameter state, state_dict in torch's layout."""
from collections import OrderedDict, defaultdict
from copy import deepcopy
import functools
from typing import Any, Dict, Iterable, Tuple, Union
from itertools import chain

import numpy as np

from .. import _dtype as D
from .. import _ms_private as P
from .._tensor import Tensor
from ..nn.parameter import Parameter
from ..autograd import resume_recording
from ..autograd.grad_mode import no_grad


# torch's annotation of an optimizer's ``params`` argument (libraries import it to annotate their own optimizers)
ParamsT = Union[Iterable[Tensor], Iterable[Dict[str, Any]], Iterable[Tuple[str, Tensor]]]


def _get_capturable_supported_devices(supports_xla=True):
    """torch's list of devices where ``capturable=True`` (CUDA-graph capture) works; none of them is the CPU."""
    return ["cuda", "xpu", "hpu", "privateuseone"] + (["xla"] if supports_xla else [])


# torch.utils._foreach_utils: the device types with fused optimizer kernels, and with multi-tensor (foreach) ones
_FUSED_DEVICES = ("mps", "cuda", "xpu", "hpu", "cpu", "mtia", "privateuseone")
_FOREACH_DEVICES = ("cuda", "xpu", "mtia", "privateuseone")


def _default_to_fused_or_foreach(params, differentiable, use_fused=False):
    """torch's default for ``fused``/``foreach`` given the parameters: fused where asked and every parameter is a
    floating tensor on a device with fused kernels; else foreach where every one is on a device with multi-tensor
    kernels (not the CPU, whose parameters take the per-tensor loop)."""
    if differentiable:
        return False, False
    plain = (Tensor, Parameter)
    fused = use_fused and all(p is None or (type(p) in plain and p.device.type in _FUSED_DEVICES
                                            and p.is_floating_point()) for p in params)
    foreach = not fused and all(p is None or (type(p) in plain and p.device.type in _FOREACH_DEVICES)
                                for p in params)
    return fused, foreach


def _use_grad_for_differentiable(func):
    """torch's decorator of ``Optimizer.step``: runs it with grad mode set to ``self.defaults['differentiable']``."""
    @functools.wraps(func)
    def _use_grad(*args, **kwargs):
        from ..autograd.grad_mode import is_grad_enabled, set_grad_enabled
        prev = is_grad_enabled()
        try:
            set_grad_enabled(args[0].defaults["differentiable"])
            return func(*args, **kwargs)
        finally:
            set_grad_enabled(prev)
    return _use_grad


def _group_tensors_by_device_and_dtype(tensorlistlist, with_indices=False):
    """torch.utils._foreach_utils' grouping: {(device, dtype) of the first list's tensor: (lists, indices)}; an
    empty list stays empty in every group, indices are filled only ``with_indices`` (torch's dict order is
    unspecified)."""
    groups = {}
    for i, first in enumerate(tensorlistlist[0]):
        lists, indices = groups.setdefault((first.device, first.dtype), ([[] for _ in tensorlistlist], []))
        for out, src in zip(lists, tensorlistlist):
            if src:
                out.append(src[i])
        if with_indices:
            indices.append(i)
    return groups


class _RequiredParameter:
    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


class Optimizer:
    """Mirrors torch.optim.Optimizer."""

    _group_tensors_by_device_and_dtype = staticmethod(_group_tensors_by_device_and_dtype)

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            f"but got {type(params).__name__}")
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    # flags a param_group pickled by an older torch may lack: filled in on unpickling (torch's
    # optimizers each do this in their own __setstate__)
    _group_flags = {}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.__dict__.setdefault("_optimizer_step_pre_hooks", OrderedDict())
        self.__dict__.setdefault("_optimizer_step_post_hooks", OrderedDict())
        for group in self.__dict__.get("param_groups", ()):
            for name, default in self._group_flags.items():
                group.setdefault(name, default)

    def __repr__(self):
        format_string = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            format_string += "\n"
            format_string += f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    format_string += f"    {key}: {group[key]}\n"
        format_string += ")"
        return format_string

    def add_param_group(self, param_group):
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + type(param).__name__)
            if not self.defaults.get("differentiable", None) and not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        params = param_group["params"]
        if len(params) != len(set(map(id, params))):
            import warnings
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will cause "
                          "an error; see github.com/pytorch/pytorch/issues/40967 for more information", stacklevel=3)
        param_set = set()
        for group in self.param_groups:
            param_set.update(set(map(id, group["params"])))
        if not param_set.isdisjoint(set(map(id, param_group["params"]))):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=True):
        for group in self.param_groups:
            for p in group["params"]:
                pm = p._ms
                g = P.grad(pm)
                if g is None:
                    continue
                if set_to_none:
                    P.set_grad(pm, None)
                    continue
                if P.grad_node(g) is not None:   # torch detaches a grad that has history
                    P.set_grad(pm, P.detach(g))
                grad = p.grad
                grad.requires_grad_(False)
                with no_grad():
                    grad.zero_()

    def _check_differentiable(self, group):
        """torch's ``differentiable=True`` records the update for autograd; mstorch's updates write
        memory directly (optim/_fast.py), so it is refused where torch would run it."""
        if not group.get("differentiable"):
            return
        with_grad = [p for p in group["params"] if P.grad(p._ms) is not None]
        if not with_grad:
            return
        if any(p.requires_grad and p.is_leaf for p in with_grad):
            # what torch raises too: its update runs in place on a leaf with grad mode on
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        raise NotImplementedError(
            f"torch.optim.{type(self).__name__}(differentiable=True) is not supported by mstorch: its "
            "parameter updates are not recorded by autograd")

    def register_step_pre_hook(self, hook):
        from ..nn.modules.module import RemovableHandle
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook):
        from ..nn.modules.module import RemovableHandle
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    def _run_step(self, closure):
        if self._optimizer_step_pre_hooks or self._optimizer_step_post_hooks:
            return self._run_step_with_hooks(closure)
        return self._closure_and_update(closure)

    def _run_step_with_hooks(self, closure):
        # torch's hooks see step's own arguments, self first; a pre-hook may replace them
        args, kwargs = ((self,) if closure is None else (self, closure)), {}
        for hook in list(self._optimizer_step_pre_hooks.values()):
            result = hook(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(f"{type(self).step} must return None or a tuple of (new_args, new_kwargs), "
                                       f"but got {result}.")
        closure = args[1] if len(args) > 1 else kwargs.get("closure")
        loss = self._closure_and_update(closure)
        for hook in list(self._optimizer_step_post_hooks.values()):
            hook(self, args, kwargs)
        return loss

    def _closure_and_update(self, closure):
        loss = None
        if closure is not None:
            from ..autograd.grad_mode import enable_grad
            with enable_grad():
                loss = closure()
        with no_grad(), np.errstate(all="ignore"):   # torch's tensor math does not warn on inf/nan
            self._update()
        resume_recording()
        return loss

    def step(self, closure=None):
        return self._run_step(closure)

    def _update(self):
        raise NotImplementedError

    # --- state dict (torch's layout: params replaced by integer ids in group order) ----------------

    def state_dict(self):
        param_mappings = {}
        start_index = 0

        def pack_group(group):
            nonlocal start_index
            packed = {k: v for k, v in group.items() if k != "params"}
            param_mappings.update({id(p): i for i, p in enumerate(group["params"], start_index)
                                   if id(p) not in param_mappings})
            packed["params"] = [param_mappings[id(p)] for p in group["params"]]
            start_index += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {(param_mappings[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        return {"state": packed_state, "param_groups": param_groups}

    def load_state_dict(self, state_dict):
        state_dict = state_dict.copy()
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        param_lens = (len(g["params"]) for g in groups)
        saved_lens = (len(g["params"]) for g in saved_groups)
        if any(p_len != s_len for p_len, s_len in zip(param_lens, saved_lens)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))

        def cast(param, value, group=None, key=None):
            # as torch: tensors are cast, not copied (a tensor of the right dtype is shared with the dict)
            if isinstance(value, Tensor):
                if key == "step":
                    if group is not None and (group.get("capturable") or group.get("fused")):
                        return value.to(D.float32)
                    return value
                if param.is_floating_point():
                    return value.to(param.dtype)
                return value
            if _is_foreign_tensor(value):
                from ..nn.modules.module import _as_mstorch
                return cast(param, _as_mstorch(value), group, key)
            if isinstance(value, dict):
                return {k: cast(param, v, group, key=k) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return type(value)(cast(param, v, group) for v in value)
            return value

        saved_group_of = {i: g for g in state_dict["param_groups"] for i in g["params"]}
        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = cast(param, v, saved_group_of.get(k))
            else:
                state[k] = v

        def update_group(group, new_group):
            new_group["params"] = group["params"]
            return new_group

        self.__setstate__({"state": state, "param_groups": [update_group(g, ng) for g, ng in zip(groups, saved_groups)]})


def _is_foreign_tensor(value):
    return type(value).__name__ == "Tensor" and hasattr(value, "detach") and not isinstance(value, Tensor)
