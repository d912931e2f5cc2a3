"""Mirrors ``torch.nn.parallel.DistributedDataParallel`` on ``mstorch.distributed``'s public collectives.

Construction broadcasts rank 0's parameters and buffers; gradients are averaged during backward by
the bucketed reducer (``mstorch/distributed/_reducer.py``); forward broadcasts rank 0's buffers first
(``broadcast_buffers``); ``no_sync``, ``find_unused_parameters``, ``static_graph``,
``register_comm_hook`` and ``join`` behave as torch's. One device per process, as torch on CPU.
"""
import inspect
import warnings
from contextlib import contextmanager

from ... import distributed as dist
from ..._functions import ones, tensor, zeros
from ..._tensor import Tensor
from ...autograd.grad_mode import is_grad_enabled
from ...futures import Future
from ...distributed._reducer import (_DEFAULT_BUCKET_CAP_MB, _DEFAULT_FIRST_BUCKET_BYTES, _MB, Reducer,
                                     _broadcast_coalesced)
from ...distributed.algorithms.join import Join, Joinable, JoinHook
from ..modules.module import Module
from ..modules.sparse import Embedding

__all__ = ["DistributedDataParallel"]


class _DDPJoinHook(JoinHook):
    """Mirrors torch's DDP join hook: a rank out of inputs shadows the collectives of the ranks still
    training (buffer broadcast, the backward-sync flag, one zero bucket per bucket), then all take the
    model of the last rank to join."""

    def __init__(self, ddp, divide_by_initial_world_size):
        if not isinstance(ddp, DistributedDataParallel):
            raise AssertionError("DDP join hook requires passing in a DistributedDataParallel instance as the state, "
                                 f"got {type(ddp).__name__}")
        self.ddp = ddp
        self.ddp._divide_by_initial_world_size = divide_by_initial_world_size
        super().__init__()

    def main_hook(self):
        ddp = self.ddp
        ddp.reducer._rebuild_buckets()
        ddp._check_and_sync_module_buffers()
        should_sync = ddp._check_global_requires_backward_grad_sync(is_joined_rank=True)
        ddp.require_forward_param_sync = should_sync
        if not should_sync:
            return
        works = [ddp.reducer._run_comm_hook(b) for b in ddp.reducer._get_zeros_like_grad_buckets()]
        for w in works:
            w.wait()
        if ddp.find_unused_parameters:
            dist.all_reduce(ddp.reducer._get_local_used_map(), group=ddp.process_group)

    def post_hook(self, is_last_joiner):
        self.ddp._sync_final_model(is_last_joiner)


class DistributedDataParallel(Module, Joinable):
    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=None, init_sync=True,
                 process_group=None, bucket_cap_mb=None, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False, delay_all_reduce_named_params=None,
                 param_to_hook_all_reduce=None, mixed_precision=None, device_mesh=None,
                 skip_all_reduce_unused_params=False, bucket_cap_mb_list=None, batched_grad_copy=False,
                 forward_sync_buffers=None):
        super().__init__()
        Joinable.__init__(self)
        if (delay_all_reduce_named_params is not None) != (param_to_hook_all_reduce is not None):
            raise ValueError("delay_all_reduce_named_params and param_to_hook_all_reduce need to be set at the "
                             "same time.")
        if process_group is not None and device_mesh is not None:
            raise RuntimeError("Cannot specify both process_group and device_mesh arguments.")
        for name, value in (("device_mesh", device_mesh), ("delay_all_reduce_named_params",
                                                           delay_all_reduce_named_params),
                            ("mixed_precision", mixed_precision), ("bucket_cap_mb_list", bucket_cap_mb_list)):
            if value is not None:
                raise NotImplementedError(f"mstorch's DistributedDataParallel does not take {name} (see "
                                          "docs/known-differences.md)")
        if skip_all_reduce_unused_params:
            raise NotImplementedError("mstorch's DistributedDataParallel does not take "
                                      "skip_all_reduce_unused_params=True (see docs/known-differences.md)")
        self.process_group = dist.distributed_c10d._default_group() if process_group is None else process_group
        self.parameters_to_ignore = set(getattr(module, "_ddp_params_and_buffers_to_ignore", ()))
        self._module_parameters = [p for n, p in module.named_parameters() if n not in self.parameters_to_ignore]
        if not any(p.requires_grad for p in self._module_parameters):
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter "
                               "that requires a gradient.")
        if device_ids is not None and len(device_ids) > 1:
            raise ValueError("device_ids can only be None or contain a single element.")
        types = {p.device.type for p in self._module_parameters}
        if len(types) != 1:
            raise ValueError("DistributedDataParallel's input module must be on the same type of devices, but "
                             f"input module parameters locate in {types}.")
        self.device_type = next(iter(types))
        if device_ids or output_device:     # mstorch runs one device per process, as torch on CPU
            devices = {p.device for p in self._module_parameters}
            raise ValueError("DistributedDataParallel device_ids and output_device arguments only work with "
                             "single-device/multiple-device GPU modules or CPU modules, but got device_ids "
                             f"{device_ids}, output_device {output_device}, and module parameters {devices}.")
        self.device_ids = None
        self.output_device = None
        self.static_graph = False
        self.dim = dim
        self.module = module
        self.device = self._module_parameters[0].device
        if broadcast_buffers is not None:
            warnings.warn(
                "Both `broadcast_buffers` and `forward_sync_buffers` were specified. `broadcast_buffers` is "
                "deprecated and its value is ignored when `forward_sync_buffers` is provided."
                if forward_sync_buffers is not None else
                "`broadcast_buffers` is deprecated. Use `forward_sync_buffers` instead. IMPORTANT: unlike "
                "`broadcast_buffers=False`, `forward_sync_buffers=False` still syncs buffers at init. If you rely on "
                "buffers NOT being synced at init (e.g. rank-local buffers), keep using `broadcast_buffers=False` "
                "until `init_sync_buffers` is available.", FutureWarning, stacklevel=2)
        if forward_sync_buffers is not None:
            self.forward_sync_buffers, init_sync_buffers = forward_sync_buffers, True
        else:
            self.forward_sync_buffers = init_sync_buffers = True if broadcast_buffers is None else broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.mixed_precision = None
        if check_reduction:
            warnings.warn("The `check_reduction` argument in `DistributedDataParallel` module is deprecated. Please "
                          "avoid using it.", FutureWarning, stacklevel=2)
        self.broadcast_bucket_size = 250 * _MB
        self.bucket_bytes_cap_default = bucket_cap_mb is None
        self.bucket_bytes_cap = int((_DEFAULT_BUCKET_CAP_MB if bucket_cap_mb is None else bucket_cap_mb) * _MB)
        first_cap = _DEFAULT_FIRST_BUCKET_BYTES if bucket_cap_mb is None else self.bucket_bytes_cap
        parameters = self._build_params_for_reducer()
        if init_sync:
            _broadcast_coalesced(self.process_group, parameters + (self._ddp_buffers() if init_sync_buffers else []),
                                 self.broadcast_bucket_size)
        # torch's first buckets: one of everything until the gradient order is known (then rebuilt), or
        # with unused-parameter detection the caps over registration order, reduced last bucket first
        if static_graph or not find_unused_parameters:
            limits = [2 ** 63 - 1]
        else:
            limits = [first_cap, self.bucket_bytes_cap] if first_cap < self.bucket_bytes_cap else [first_cap]
        indices, _ = dist._compute_bucket_assignment_by_size(parameters, limits)
        self.reducer = Reducer(parameters, list(reversed(indices)), self.process_group, self.bucket_bytes_cap,
                               first_cap, find_unused_parameters, gradient_as_bucket_view)
        self._comm_hooks = []
        self._has_rebuilt_buckets = False
        self._divide_by_initial_world_size = True
        if static_graph:
            self._set_static_graph()

    def _build_params_for_reducer(self):
        """The parameters to reduce: each one once, in registration order (torch refuses sparse ones here)."""
        seen, params = set(), []
        for module_name, module in self.module.named_modules():
            for name, p in module.named_parameters(recurse=False):
                full = f"{module_name}.{name}" if module_name else name
                if p.requires_grad and full not in self.parameters_to_ignore and id(p) not in seen:
                    seen.add(id(p))
                    params.append(p)
            if isinstance(module, Embedding) and getattr(module, "sparse", False):
                raise NotImplementedError("mstorch's DistributedDataParallel does not reduce sparse gradients "
                                          "(nn.Embedding(sparse=True)); use sparse=False")
        return params

    def _ddp_buffers(self):
        return [b for n, b in self.module.named_buffers() if n not in self.parameters_to_ignore]

    # --- forward -------------------------------------------------------------------------------
    def _pre_forward(self):
        work = Join.notify_join_context(self)
        if work:
            self.reducer._set_forward_pass_work_handle(work, self._divide_by_initial_world_size)
        if is_grad_enabled() and self.reducer._rebuild_buckets():
            self._has_rebuilt_buckets = True
        if self.will_sync_module_buffers():
            self._sync_buffers()
        if self._join_config.enable:
            self._check_global_requires_backward_grad_sync(is_joined_rank=False)

    def _post_forward(self, output):
        if is_grad_enabled() and self.require_backward_grad_sync:
            self.require_forward_param_sync = True
            self.reducer.prepare_for_backward()
        else:
            self.require_forward_param_sync = False
        return output

    def forward(self, *inputs, **kwargs):
        self._pre_forward()
        return self._post_forward(self.module(*inputs, **kwargs))

    @contextmanager
    def no_sync(self):
        """Mirrors ``DistributedDataParallel.no_sync``: backward passes of forwards run inside accumulate
        locally; the first synchronised backward after it averages the accumulated gradients."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    # --- buffers and model sync ---------------------------------------------------------------------
    @property
    def broadcast_buffers(self):
        return self.forward_sync_buffers

    @broadcast_buffers.setter
    def broadcast_buffers(self, value):
        self.forward_sync_buffers = value

    def will_sync_module_buffers(self):
        return self.require_forward_param_sync and self.forward_sync_buffers and len(self._ddp_buffers()) > 0

    def _find_common_rank(self, input_rank, rank_cond):
        rank = tensor([input_rank if rank_cond else -1])
        dist.all_reduce(rank, op=dist.ReduceOp.MAX, group=self.process_group)
        if rank.item() == -1:
            raise ValueError("BUG! Expected rank_cond to be true for at least one process. This indicates a bug in "
                             "PyTorch, please report an issue.")
        return rank.item()

    def _sync_buffers(self):
        # with uneven inputs rank 0 may have joined already, its buffers stale: the ranks agree on one
        authoritative = (self._find_common_rank(dist.get_rank(self.process_group), True)
                         if self._join_config.enable else 0)
        _broadcast_coalesced(self.process_group, self._ddp_buffers(), self.broadcast_bucket_size, authoritative)

    def _check_and_sync_module_buffers(self):
        if self.will_sync_module_buffers():
            authoritative = self._find_common_rank(dist.get_rank(self.process_group), False)
            _broadcast_coalesced(self.process_group, self._ddp_buffers(), self.broadcast_bucket_size, authoritative)

    def _check_global_requires_backward_grad_sync(self, is_joined_rank):
        flag = ones(1) if not is_joined_rank and self.require_backward_grad_sync else zeros(1)
        work = dist.all_reduce(flag, group=self.process_group, async_op=True)
        if is_joined_rank:
            work.wait()
            return flag.item() != 0
        return None

    def _sync_final_model(self, is_last_joiner):
        self._authoritative_rank = self._find_common_rank(dist.get_rank(self.process_group), is_last_joiner)
        tensors = self.reducer._params + (self._ddp_buffers() if self.forward_sync_buffers else [])
        _broadcast_coalesced(self.process_group, tensors, self.broadcast_bucket_size, self._authoritative_rank)

    # --- communication hooks, join, static graph -------------------------------------------------
    def register_comm_hook(self, state, hook):
        """Mirrors ``DistributedDataParallel.register_comm_hook``: ``hook(state, bucket)`` returns a
        ``torch.futures.Future`` of the bucket's reduced buffer; DDP writes that into ``.grad``."""
        self._check_comm_hook(hook)
        self._comm_hooks.append((hook, state))
        self.reducer._register_comm_hook(state, hook)

    def _check_comm_hook(self, hook):
        if not callable(hook):
            raise TypeError("Communication hook must be callable.")
        sig = inspect.signature(hook)
        annotation = sig.parameters["bucket"].annotation
        if annotation is not inspect.Parameter.empty and annotation is not dist.GradBucket:
            raise ValueError("Communication hook: bucket annotation should be dist.GradBucket.")
        returned = sig.return_annotation
        if returned is not inspect.Signature.empty and returned != Future[Tensor]:
            raise ValueError("Communication hook: return annotation should be torch.futures.Future[torch.Tensor].")
        if getattr(hook, "__name__", "") in ("bf16_compress_hook", "bf16_compress_wrapper_hook") and \
                self.device_type == "cpu":
            # torch checks for CUDA and NCCL 2.10+ (or XPU): a CPU-only build refuses the bf16 hooks
            raise TypeError("BF16 all reduce communication hook required CUDA 11+ and NCCL 2.10+ or XPU and XCCL")

    def join(self, divide_by_initial_world_size=True, enable=True, throw_on_early_termination=False):
        """Mirrors ``DistributedDataParallel.join``: uneven inputs across ranks."""
        return Join([self], enable, throw_on_early_termination,
                    divide_by_initial_world_size=divide_by_initial_world_size)

    def join_hook(self, **kwargs):
        return _DDPJoinHook(self, divide_by_initial_world_size=kwargs.get("divide_by_initial_world_size", True))

    @property
    def join_device(self):
        return self.device

    @property
    def join_process_group(self):
        return self.process_group

    def _set_static_graph(self):
        if self.static_graph:
            warnings.warn("You've set static_graph to be True, no need to set it again.", stacklevel=2)
            return
        self.static_graph = True
        self.reducer._set_static_graph()
        if self.find_unused_parameters:
            warnings.warn("You passed find_unused_parameters=true to DistributedDataParallel, `_set_static_graph` "
                          "will detect unused parameters automatically, so you do not need to set "
                          "find_unused_parameters=true, just be sure these unused parameters will not change during "
                          "training loop while calling `_set_static_graph`.", stacklevel=2)

    def _get_ddp_logging_data(self):
        return {"world_size": self.process_group.size(), "bucket_cap_bytes": self.bucket_bytes_cap,
                "find_unused_parameters": self.find_unused_parameters, "static_graph": self.static_graph,
                "num_buckets": len(self.reducer._buckets)}
