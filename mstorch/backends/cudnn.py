"""torch.backends.cudnn: flags accepted and stored; MindSpore chooses its GPU kernels itself."""
from .. import _runtime

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True
benchmark_limit = 10


def is_available():
    return _runtime.device_target() == "GPU"   # torch.cuda.is_available()'s answer


def version():
    return None if not is_available() else 90100


class flags:
    def __init__(self, enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True):
        self.values = dict(enabled=enabled, benchmark=benchmark, benchmark_limit=benchmark_limit,
                           deterministic=deterministic, allow_tf32=allow_tf32)

    def __enter__(self):
        import sys
        mod = sys.modules[__name__]
        self.prev = {k: getattr(mod, k) for k in self.values}
        for k, v in self.values.items():
            setattr(mod, k, v)

    def __exit__(self, *exc):
        import sys
        mod = sys.modules[__name__]
        for k, v in self.prev.items():
            setattr(mod, k, v)
        return False
