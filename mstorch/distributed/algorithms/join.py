"""torch.distributed.algorithms.join: ranks that run out of inputs early keep shadowing the collectives of
the ranks still training (their ``JoinHook.main_hook``) until every rank has joined. Built on mstorch's
all_reduce: each pass, the ranks still training contribute 1 and joined ranks 0."""
import warnings
from abc import ABC, abstractmethod
from typing import NamedTuple

__all__ = ["JoinHook", "Joinable", "Join"]


class JoinHook:
    """Mirrors torch.distributed.algorithms.join.JoinHook: ``main_hook`` runs on a joined rank once per pass
    while others train, ``post_hook(is_last_joiner)`` once all have joined."""

    def main_hook(self):
        pass

    def post_hook(self, is_last_joiner):
        pass


class _JoinConfig(NamedTuple):
    enable: bool
    throw_on_early_termination: bool
    is_first_joinable: bool

    @staticmethod
    def construct_disabled_join_config():
        return _JoinConfig(enable=False, throw_on_early_termination=False, is_first_joinable=False)


class Joinable(ABC):
    """Mirrors torch.distributed.algorithms.join.Joinable."""

    @abstractmethod
    def __init__(self):
        super().__init__()
        self._join_config = _JoinConfig.construct_disabled_join_config()

    @abstractmethod
    def join_hook(self, **kwargs):
        ...

    @property
    @abstractmethod
    def join_device(self):
        ...

    @property
    @abstractmethod
    def join_process_group(self):
        ...


class _CountWork:
    """The work of a count's all-reduce; ``result()`` holds the count, as torch's ``Work.result()``
    (DDP divides by the ranks still training when ``divide_by_initial_world_size=False``)."""

    def __init__(self, work, tensor):
        self._work, self._tensor = work, tensor

    def wait(self, timeout=None):
        return self._work.wait()

    def result(self):
        return [self._tensor]


def _all_reduce_one(value, device, group, async_op=False):
    from ..._functions import full
    from .. import all_reduce
    t = full((1,), float(value), device=device)
    work = all_reduce(t, group=group, async_op=async_op)
    return t, (_CountWork(work, t) if async_op else work)


class Join:
    """Mirrors torch.distributed.algorithms.join.Join."""

    def __init__(self, joinables, enable=True, throw_on_early_termination=False, **kwargs):
        if len(joinables) == 0:
            raise ValueError("The join context manager requires at least one joinable")
        self._joinables = joinables
        self._join_hooks = [j.join_hook(**kwargs) for j in joinables]
        self._enable = enable
        self._throw_on_early_termination = throw_on_early_termination
        for i, joinable in enumerate(joinables):
            joinable._join_config = _JoinConfig(enable, throw_on_early_termination, i == 0)
        groups = [j.join_process_group for j in joinables]
        if any(g != groups[0] for g in groups[1:]):
            raise ValueError("Using join context manager with multiple process groups")
        from .. import get_rank
        self._process_group = groups[0]
        self._rank = get_rank(self._process_group)
        self._device = joinables[0].join_device

    def __enter__(self):
        ...

    def __exit__(self, type, value, traceback):
        if not self._enable or type:
            return None   # an exception inside the block propagates as is
        is_last_joiner = True
        passes = 0
        warnings.simplefilter("once")
        while self._get_num_nonjoined_procs() != 0:
            if passes > 1000:
                warnings.warn(f"Detected uneven input skew of greater than 1000. This means that rank {self._rank} "
                              "has at least 1000 fewer inputs than other currently-active ranks. This level of skew "
                              "could lead to performance degradation during training.", stacklevel=2)
            if self._throw_on_early_termination:
                self._notify_procs_to_terminate()
            for hook in self._join_hooks:
                hook.main_hook()
            is_last_joiner = False
            passes += 1
        for hook in self._join_hooks:
            hook.post_hook(is_last_joiner)
        return None

    def _get_num_nonjoined_procs(self):
        # a joined rank contributes 0; the ranks still training contribute 1 in notify_join_context
        t, _ = _all_reduce_one(0, self._device, self._process_group)
        return t.item()

    def _notify_procs_to_terminate(self):
        _all_reduce_one(1, self._device, self._process_group)
        raise RuntimeError(f"Rank {self._rank} exhausted all inputs.")

    @staticmethod
    def notify_join_context(joinable):
        """Called by a Joinable before its collectives in each iteration: counts this rank as not joined
        (only the first joinable of a context communicates). Returns the all-reduce's work handle, or None."""
        if not hasattr(joinable, "_join_config"):
            raise AssertionError(f"Check that the {type(joinable)} constructor calls the ``Joinable`` constructor")
        config = joinable._join_config
        if not config.is_first_joinable or not config.enable:
            return None
        device, group = joinable.join_device, joinable.join_process_group
        _, work = _all_reduce_one(1, device, group, async_op=True)
        if config.throw_on_early_termination:
            flag, _ = _all_reduce_one(0, device, group)
            if flag.item():
                raise RuntimeError("Detected at least one rank that exhausted inputs. Throwing across all ranks.")
        return work
