"""Module hooks: forward pre/post hooks (with kwargs, always_call) and full backward (pre-)hooks."""
from ..._tensor import Tensor
from . import module as M


def _pre_hooks(mod):
    return list(M._global_forward_pre_hooks.items()) + list(mod._forward_pre_hooks.items())


def _post_hooks(mod):
    return list(M._global_forward_hooks.items()) + list(mod._forward_hooks.items())


def call_with_hooks(mod, args, kwargs):
    full_backward = bool(mod._backward_hooks or mod._backward_pre_hooks or M._global_backward_hooks
                         or M._global_backward_pre_hooks)
    for hook_id, hook in _pre_hooks(mod):
        if hook_id in mod._forward_pre_hooks_with_kwargs:
            result = hook(mod, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                       f"but got {result}.")
                args, kwargs = result
        else:
            result = hook(mod, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
    bw = None
    if full_backward:
        from .backward_hooks import BackwardHook
        bw = BackwardHook(mod)
        args = bw.setup_input_hook(args)
    called_always = False
    try:
        result = mod.forward(*args, **kwargs)
        for hook_id, hook in _post_hooks(mod):
            if hook_id in mod._forward_hooks_with_kwargs or hook_id in M._global_forward_hooks_with_kwargs:
                out = hook(mod, args, kwargs, result)
            else:
                out = hook(mod, args, result)
            if out is not None:
                result = out
        called_always = True
    finally:
        if not called_always:
            for hook_id, hook in _post_hooks(mod):
                if hook_id in mod._forward_hooks_always_called or hook_id in M._global_forward_hooks_always_called:
                    try:
                        if hook_id in mod._forward_hooks_with_kwargs or hook_id in M._global_forward_hooks_with_kwargs:
                            hook(mod, args, kwargs, None)
                        else:
                            hook(mod, args, None)
                    except Exception:  # noqa: BLE001 - torch swallows these too, with a warning
                        pass
    if bw is not None:
        result = bw.setup_output_hook(result)
    return result


def is_tensor(x):
    return isinstance(x, Tensor)
