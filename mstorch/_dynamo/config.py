"""torch._dynamo.config: the settings libraries read and set. They configure graph capture, which mstorch
never does; they are kept as values so reading and setting them (and ``patch``) behave as torch's."""
import contextlib
import sys

cache_size_limit = 8
recompile_limit = 8
accumulated_cache_size_limit = 256
accumulated_recompile_limit = 256
suppress_errors = False
verbose = False
capture_scalar_outputs = False
capture_dynamic_output_shape_ops = False
automatic_dynamic_shapes = True
assume_static_by_default = True
force_parameter_static_shapes = True
inline_inbuilt_nn_modules = True
optimize_ddp = True
allow_unspec_int_on_nn_module = False
specialize_int = False
specialize_float = False
error_on_recompile = False
skip_fwd_side_effects_in_bwd_under_checkpoint = False
guard_nn_modules = False
use_graph_deduplication = False
dynamic_shapes = True
cache_size_limit_warning = True


def _module():
    return sys.modules[__name__]


@contextlib.contextmanager
def _patch_ctx(changes):
    mod = _module()
    missing = [k for k in changes if not hasattr(mod, k) or k.startswith("_")]
    if missing:
        raise AttributeError(f"{__name__}.{missing[0]} does not exist")
    old = {k: getattr(mod, k) for k in changes}
    for k, v in changes.items():
        setattr(mod, k, v)
    try:
        yield
    finally:
        for k, v in old.items():
            setattr(mod, k, v)


class _Patch(contextlib.ContextDecorator):
    def __init__(self, changes):
        self._changes = changes
        self._ctx = None

    def __enter__(self):
        self._ctx = _patch_ctx(self._changes)
        return self._ctx.__enter__()

    def __exit__(self, *exc):
        return self._ctx.__exit__(*exc)


def patch(arg1=None, arg2=None, **kwargs):
    """config.patch("name", value) / config.patch(name=value) / config.patch({"name": value}): a context
    manager and decorator that sets the values for its extent."""
    if isinstance(arg1, str):
        changes = {arg1: arg2}
    elif isinstance(arg1, dict):
        changes = dict(arg1)
    else:
        changes = {}
    changes.update(kwargs)
    return _Patch(changes)


def get_config_copy():
    mod = _module()
    return {k: v for k, v in vars(mod).items() if not k.startswith("_") and not callable(v)
            and not isinstance(v, type(sys))}
