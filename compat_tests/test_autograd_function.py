"""torch.autograd.Function compared with torch: ctx, saved tensors, needs_input_grad,
non-differentiable outputs, setup_context, gradient checks and double backward."""
import pytest

from harness import check, check_raises
from test_autograd import A, B, M, leaf, check_message


def _functions(T):
    class Cube(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale):
            ctx.save_for_backward(x)
            ctx.scale = scale
            return x ** 3 * scale

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x ** 2 * ctx.scale, None

    class MulAdd(T.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            ctx.flags = ctx.needs_input_grad
            return a * b, a + b

        @staticmethod
        def backward(ctx, g_prod, g_sum):
            a, b = ctx.saved_tensors
            ga = g_prod * b + g_sum if ctx.needs_input_grad[0] else None
            gb = g_prod * a + g_sum if ctx.needs_input_grad[1] else None
            return ga, gb

    class ArgSort(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            idx = (x > 0).long()
            ctx.mark_non_differentiable(idx)
            return x * 2, idx

        @staticmethod
        def backward(ctx, g, g_idx):
            return g * 2

    class SetupCtx(T.autograd.Function):
        @staticmethod
        def forward(x, k):
            return x.exp() * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, k = inputs
            ctx.save_for_backward(output)
            ctx.k = k

        @staticmethod
        def backward(ctx, g):
            (out,) = ctx.saved_tensors
            return g * out, None

    return Cube, MulAdd, ArgSort, SetupCtx


def test_function_save_for_backward_and_ctx_attrs():
    def fn(T):
        Cube = _functions(T)[0]
        x = leaf(T)
        y = Cube.apply(x, 2.0)
        y.sum().backward()
        return y, x.grad, y.requires_grad, y.grad_fn is None, y.is_leaf
    check(fn)


def test_function_multiple_inputs_outputs_needs_input_grad():
    def fn(T):
        MulAdd = _functions(T)[1]
        a, b = leaf(T), T.tensor(B)
        p, s = MulAdd.apply(a, b)
        (p * 2 + s).sum().backward()
        return p, s, a.grad, b.grad
    check(fn)


def test_function_needs_input_grad_values():
    def fn(T):
        seen = []

        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, a, b, n):
                seen.append(ctx.needs_input_grad)
                return a * b * n

            @staticmethod
            def backward(ctx, g):
                seen.append(ctx.needs_input_grad)
                return g, g, None
        F.apply(leaf(T), T.tensor(B), 3).sum().backward()
        return seen
    check(fn)


def test_function_mark_non_differentiable():
    def fn(T):
        ArgSort = _functions(T)[2]
        x = leaf(T)
        y, idx = ArgSort.apply(x)
        y.sum().backward()
        return y, idx, idx.requires_grad, y.requires_grad, x.grad
    check(fn)


def test_function_setup_context():
    def fn(T):
        SetupCtx = _functions(T)[3]
        x = leaf(T)
        y = SetupCtx.apply(x, 3.0)
        y.sum().backward()
        return y, x.grad
    check(fn)


def test_function_no_grad_inputs():
    def fn(T):
        Cube = _functions(T)[0]
        y = Cube.apply(T.tensor(A), 1.0)
        return y, y.requires_grad, y.grad_fn is None
    check(fn)


def test_function_in_chain_and_double_call():
    def fn(T):
        Cube, MulAdd = _functions(T)[:2]
        x, w = leaf(T), leaf(T, B)
        h = Cube.apply(x * w, 0.5)
        p, s = MulAdd.apply(h, w)
        loss = (p + s.sin()).sum()
        loss.backward(retain_graph=True)
        loss.backward()
        return x.grad, w.grad
    check(fn)


def test_function_forward_runs_without_grad():
    def fn(T):
        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.inner = (x * 2).requires_grad, T.is_grad_enabled()
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2
        x = leaf(T)
        y = F.apply(x)
        return y.grad_fn is None, y.requires_grad
    check(fn)


def test_function_backward_returns_wrong_count_raises():
    def fn(T):
        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g, g
        F.apply(leaf(T)).sum().backward()
    check_raises(fn)


def test_function_double_backward():
    def fn(T):
        class Square(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 2 * x * g
        x = leaf(T)
        (g,) = T.autograd.grad(Square.apply(x).sum(), x, create_graph=True)
        (gg,) = T.autograd.grad((g * g).sum(), x)
        return g, gg
    check(fn)


def test_function_once_differentiable():
    def fn(T):
        from importlib import import_module
        once = import_module(T.__name__ + ".autograd.function").once_differentiable

        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            @once
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 2 * x * g
        x = leaf(T)
        F.apply(x).sum().backward()
        return x.grad
    check(fn)


def test_function_grad_fn_name_before_and_after_backward():
    def fn(T):
        Cube = _functions(T)[0]
        y = Cube.apply(leaf(T), 1.0)
        before = y.grad_fn.name()
        y.sum().backward()
        return before, y.grad_fn.name(), y.grad_fn is None
    check(fn)


def test_function_materialize_grads_off():
    def fn(T):
        seen = []

        class TwoOut(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(False)
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, g1, g2):
                seen.append((g1 is None, g2 is None))
                return g1 * 2
        x = leaf(T)
        a, b = TwoOut.apply(x)
        a.sum().backward()
        return seen, x.grad
    check(fn)


def test_function_unused_output_grad_is_zeros():
    def fn(T):
        seen = []

        class TwoOut(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, g1, g2):
                seen.append(g2)
                return g1 * 2 + g2 * 3
        x = leaf(T)
        TwoOut.apply(x)[0].sum().backward()
        return seen, x.grad
    check(fn)


def test_function_broadcast_grad_is_reduced():
    def fn(T):
        class Bias(T.autograd.Function):
            @staticmethod
            def forward(ctx, x, b):
                return x + b

            @staticmethod
            def backward(ctx, g):
                return g, g
        x, b = leaf(T, M), leaf(T, A[:1])
        Bias.apply(x, b).sum().backward()
        return x.grad, b.grad
    check(fn)


def test_function_bad_grad_shape_raises():
    def fn(T):
        class Bad(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return T.ones(2)
        Bad.apply(leaf(T)).sum().backward()
    check_message(fn)


def test_function_saved_tensor_modified_raises():
    def fn(T):
        class Keep(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * x
        a = leaf(T)
        h = a * 1
        y = Keep.apply(h)
        h.mul_(2)
        y.sum().backward()
    check_raises(fn)


def test_function_save_non_tensor_raises():
    def fn(T):
        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, 3)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g
        F.apply(leaf(T))
    check_message(fn)


def test_function_instance_call_raises():
    def fn(T):
        class F(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, g):
                return g
        with pytest.warns(DeprecationWarning):
            f = F()
        f(leaf(T))
    check_message(fn)


def test_function_with_vjp_instead_of_backward():
    def fn(T):
        class Twice(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def vjp(ctx, g):
                return g * 2
        x = leaf(T)
        Twice.apply(x).sum().backward()
        return x.grad
    check(fn)


def test_function_mark_dirty_returns_the_input():
    def fn(T):
        class AddOne(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.add_(1)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 2
        a = leaf(T)
        h = a * 1
        y = AddOne.apply(h)
        (h * 3).sum().backward()
        return y is h, h, a.grad, y.grad_fn.name()
    check(fn)


def test_function_applied_inside_another_functions_forward():
    # the inner apply (returning its own input) must not lose the outer apply's record of returned inputs
    def fn(T):
        class Double(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.mark_dirty(x)
                return x.mul_(2)

            @staticmethod
            def backward(ctx, g):
                return g * 2

        class AddInto(T.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                z = Double.apply(y.clone())
                ctx.mark_dirty(x)
                return x.add_(z), z

            @staticmethod
            def backward(ctx, gx, gz):
                return gx, gx + gz
        a, b = leaf(T), leaf(T)
        h = a * 1
        out, z = AddInto.apply(h, b)
        (out * 3 + z).sum().backward()
        return out is h, out, z, a.grad, b.grad
    check(fn)
