"""Full backward hooks (register_full_backward_hook / _pre_hook), as torch.utils.hooks.BackwardHook:
identity autograd Functions around a module's tensor inputs and outputs catch grad_output and
grad_input, call the hooks, and substitute what they return."""
from ..._tensor import Tensor
from ...autograd.function import Function
from . import module as M


def _tensors(values):
    return [i for i, v in enumerate(values) if isinstance(v, Tensor)]


class BackwardHook:
    def __init__(self, module):
        self.module = module
        self.grad_outputs = None
        self.n_inputs = 0
        self.input_requires = False

    def _hooks(self):
        return list(M._global_backward_hooks.values()) + list(self.module._backward_hooks.values())

    def _call_hooks(self, grad_inputs):
        for hook in self._hooks():
            res = hook(self.module, grad_inputs, self.grad_outputs)
            if res is not None:
                res = tuple(res) if isinstance(res, (tuple, list)) else (res,)
                if len(res) != len(grad_inputs):
                    raise RuntimeError(
                        f"Backward hook returned an invalid number of grad_input, got {len(res)}, but "
                        f"expected {len(grad_inputs)}")
                grad_inputs = res
        return grad_inputs

    def setup_input_hook(self, args):
        tensor_idx = _tensors(args)
        idx = [i for i in tensor_idx if args[i].requires_grad]
        self.n_inputs = len(tensor_idx)
        if not idx:
            return args
        self.input_requires = True
        hook = self
        # torch hands the hooks one gradient per tensor input, zeros for inputs that need none
        pos = [tensor_idx.index(i) for i in idx]
        others = [(k, args[i]) for k, i in enumerate(tensor_idx) if i not in idx]

        class _InputHook(Function):
            @staticmethod
            def forward(ctx, *xs):
                return tuple(x.clone() for x in xs) if len(xs) > 1 else xs[0].clone()

            @staticmethod
            def backward(ctx, *grads):
                full = [None] * hook.n_inputs
                for k, g in zip(pos, grads):
                    full[k] = g
                for k, t in others:
                    full[k] = t.new_zeros(t.shape)
                res = hook._call_hooks(tuple(full))
                res = tuple(res[k] for k in pos)
                return res if len(res) > 1 else res[0]

        outs = _InputHook.apply(*(args[i] for i in idx))
        outs = outs if isinstance(outs, tuple) else (outs,)
        new = list(args)
        for i, o in zip(idx, outs):
            new[i] = o
        return tuple(new)

    def setup_output_hook(self, result):
        single = isinstance(result, Tensor)
        values = (result,) if single else result
        if not isinstance(values, tuple):
            return result
        idx = [i for i in _tensors(values) if values[i].requires_grad]
        if not idx:
            return result
        hook = self

        class _OutputHook(Function):
            @staticmethod
            def forward(ctx, *xs):
                return tuple(x.clone() for x in xs) if len(xs) > 1 else xs[0].clone()

            @staticmethod
            def backward(ctx, *grads):
                grads = tuple(grads)
                for pre in (*M._global_backward_pre_hooks.values(), *hook.module._backward_pre_hooks.values()):
                    res = pre(hook.module, grads)
                    if res is not None:
                        grads = tuple(res) if isinstance(res, (tuple, list)) else (res,)
                hook.grad_outputs = grads
                if not hook.input_requires:
                    hook._call_hooks((None,) * max(hook.n_inputs, 1))
                return grads if len(grads) > 1 else grads[0]

        outs = _OutputHook.apply(*(values[i] for i in idx))
        outs = outs if isinstance(outs, tuple) else (outs,)
        new = list(values)
        for i, o in zip(idx, outs):
            new[i] = o
        return new[0] if single else tuple(new)
