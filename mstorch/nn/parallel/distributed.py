"""Mirrors ``torch.nn.parallel.DistributedDataParallel`` on ``mstorch.distributed``.

Construction broadcasts rank 0's parameters and buffers. A forward run with grad enabled outside
``no_sync()`` arms gradient averaging for the next backward: a hook on each parameter averages its
gradient over the group, including whatever was accumulated locally under ``no_sync()``, as torch's
buckets do. The hook of the last parameter to get its gradient exchanges all of them at once (one
bucket); with ``find_unused_parameters=True`` each parameter is exchanged as its gradient arrives, and
every rank must then produce gradients for the same parameters (see docs/known-differences.md).
"""
from contextlib import contextmanager

import numpy as np

from ... import distributed as dist
from ...distributed.distributed_c10d import _array, _write
from ...ops.creation import from_numpy
from ..modules.module import Module

__all__ = ["DistributedDataParallel"]


class DistributedDataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=None, init_sync=True,
                 process_group=None, bucket_cap_mb=None, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False, delay_all_reduce_named_params=None,
                 param_to_hook_all_reduce=None, mixed_precision=None, device_mesh=None,
                 skip_all_reduce_unused_params=False, bucket_cap_mb_list=None, batched_grad_copy=False,
                 forward_sync_buffers=None):
        super().__init__()
        if (delay_all_reduce_named_params is not None) != (param_to_hook_all_reduce is not None):
            raise ValueError("delay_all_reduce_named_params and param_to_hook_all_reduce need to be set at the "
                             "same time.")
        if process_group is not None and device_mesh is not None:
            raise RuntimeError("Cannot specify both process_group and device_mesh arguments.")
        if device_mesh is not None:
            raise NotImplementedError("mstorch's DistributedDataParallel does not take a device_mesh")
        self.process_group = dist.distributed_c10d._default_group() if process_group is None else process_group
        self.parameters_to_ignore = set(getattr(module, "_ddp_params_and_buffers_to_ignore", ()))
        params = [p for n, p in module.named_parameters() if n not in self.parameters_to_ignore]
        if not any(p.requires_grad for p in params):
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter "
                               "that requires a gradient.")
        if device_ids is not None and len(device_ids) > 1:
            raise ValueError("device_ids can only be None or contain a single element.")
        types = {p.device.type for p in params}
        if len(types) != 1:
            raise ValueError("DistributedDataParallel's input module must be on the same type of devices, but "
                             f"input module parameters locate in {types}.")
        self.device_type = next(iter(types))
        if device_ids or output_device:     # mstorch runs one device per process, as torch on CPU
            devices = {p.device for p in params}
            raise ValueError("DistributedDataParallel device_ids and output_device arguments only work with "
                             "single-device/multiple-device GPU modules or CPU modules, but got device_ids "
                             f"{device_ids}, output_device {output_device}, and module parameters {devices}.")
        self.device_ids = None
        self.output_device = None
        self.static_graph = static_graph
        self.dim = dim
        self.module = module
        self.device = params[0].device
        if forward_sync_buffers is not None:
            self.forward_sync_buffers, init_sync_buffers = forward_sync_buffers, True
        else:
            self.forward_sync_buffers = init_sync_buffers = True if broadcast_buffers is None else broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.mixed_precision = mixed_precision
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * 1024 * 1024)
        self._id = self.process_group._next()   # the same on every rank: construction is collective
        self._armed = False
        if init_sync:
            self._sync_params_and_buffers(params, init_sync_buffers)
        self._params = [p for p in params if p.requires_grad]
        self._rounds = [0] * len(self._params)
        self._round, self._ready = 0, []
        self._hooks = [p.register_hook(self._make_hook(i, p)) for i, p in enumerate(self._params)]

    # --- synchronisation ---------------------------------------------------------------------
    def _broadcast_tensors(self, tensors):
        pg = self.process_group
        if pg.size() == 1 or not tensors:
            return
        values = pg.one_to_all([_array(t) for t in tensors] if pg.rank() == 0 else None, 0)
        if pg.rank() != 0:
            for t, a in zip(tensors, values):
                _write(t, a)

    def _module_buffers(self):
        return [b for n, b in self.module.named_buffers() if n not in self.parameters_to_ignore]

    def _sync_params_and_buffers(self, params, buffers):
        self._broadcast_tensors(list(params) + (self._module_buffers() if buffers else []))

    def _average(self, arrays_by_rank):
        """Sum over ranks of each rank's (already scaled) arrays, in rank order."""
        total = list(arrays_by_rank[0])
        for arrays in arrays_by_rank[1:]:
            total = [t + a for t, a in zip(total, arrays)]
        return total

    def _scaled(self, t):
        a = _array(t)
        return a * np.asarray(1.0 / self.process_group.size(), dtype=a.dtype)   # torch scales before summing

    def _make_hook(self, index, param):
        def average(grad):
            pg = self.process_group
            if not self._armed or (pg.size() == 1 and self.find_unused_parameters):
                return None
            local = (lambda: grad if param.grad is None else grad + param.grad)  # noqa: E731
            if self.find_unused_parameters:
                # which parameters get a gradient is known only at the end: one exchange per parameter
                self._rounds[index] += 1
                total, = self._average(pg.all_exchange([self._scaled(local())],
                                                       tag=f"ddp{self._id}/{index}/{self._rounds[index]}"))
            else:
                # the last parameter's hook exchanges every gradient at once, in parameter order; the
                # earlier ones have been accumulated into their ``.grad`` by then (MindSpore's engine
                # accumulates a leaf right after its hooks), so they are replaced there
                self._ready.append(index)
                if len(self._ready) < len(self._params):
                    return None
                self._ready = []
                if pg.size() == 1:
                    return None
                self._round += 1
                mine = [self._scaled(local() if i == index else p.grad) for i, p in enumerate(self._params)]
                averaged = self._average(pg.all_exchange(mine, tag=f"ddp{self._id}/{self._round}"))
                for i, (p, a) in enumerate(zip(self._params, averaged)):
                    if i != index:
                        p.grad = from_numpy(np.ascontiguousarray(a)).to(p.dtype)
                total = averaged[index]
            param.grad = None       # the engine then stores the returned tensor itself
            return from_numpy(np.ascontiguousarray(total)).to(grad.dtype)
        return average

    @contextmanager
    def no_sync(self):
        """Mirrors ``DistributedDataParallel.no_sync``: forwards run inside it do not average gradients;
        the next synchronised backward averages the accumulated ones."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    def forward(self, *inputs, **kwargs):
        from ...autograd.grad_mode import is_grad_enabled
        if self._ready:
            missing = " ".join(str(i) for i in range(len(self._params)) if i not in self._ready)
            self._ready = []
            raise RuntimeError(
                "Expected to have finished reduction in the prior iteration before starting a new one. This "
                "error indicates that your module has parameters that were not used in producing loss. You can "
                "enable unused parameter detection by passing the keyword argument `find_unused_parameters=True` "
                "to `torch.nn.parallel.DistributedDataParallel`, and by \nmaking sure all `forward` function "
                "outputs participate in calculating loss. \nIf you already have done the above, then the distributed "
                "data parallel module wasn't able to locate the output tensors in the return value of your module's "
                "`forward` function. Please include the loss function and the structure of the return value of "
                "`forward` of your module when reporting this issue (e.g. list, dict, iterable).\nParameter indices "
                f"which did not receive grad for rank {self.process_group.rank()}: {missing}\n In addition, you can "
                "set the environment variable TORCH_DISTRIBUTED_DEBUG to either INFO or DETAIL to print out "
                "information about which particular parameters did not receive gradient on this rank as part of "
                "this error")
        self._armed = is_grad_enabled() and self.require_backward_grad_sync
        if self.forward_sync_buffers and self.require_forward_param_sync:
            self._broadcast_tensors(self._module_buffers())
        return self.module(*inputs, **kwargs)

    @property
    def broadcast_buffers(self):
        return self.forward_sync_buffers

    @broadcast_buffers.setter
    def broadcast_buffers(self, value):
        self.forward_sync_buffers = value

    def register_comm_hook(self, state, hook):
        raise NotImplementedError("mstorch's DistributedDataParallel averages each gradient itself; "
                                  "communication hooks are not supported")

    @contextmanager
    def join(self, divide_by_initial_world_size=True, enable=True, throw_on_early_termination=False):
        """Accepted for API parity: uneven inputs are not supported (every rank must run the same steps)."""
        yield

    def _set_static_graph(self):
        self.static_graph = True
