"""nn.Parameter and nn.Buffer against torch: what memory they share with their source tensor and how a
Module registers them. Written once against a namespace ``T``, compared by module_compare.same."""
from module_compare import same, make_net


def test_parameter_shares_storage_with_source():
    def case(T):
        t = T.ones(3)
        p = T.nn.Parameter(t)
        m = make_net(T)
        src = make_net(T).state_dict()
        m.load_state_dict(src, assign=True)
        return p.data_ptr() == t.data_ptr(), m.fc1.weight.data_ptr() == src["fc1.weight"].data_ptr()
    same(case)


def test_parameter_and_source_see_each_others_writes():
    def case(T):
        t = T.zeros(2, 3)
        p = T.nn.Parameter(t)
        with T.no_grad():
            p.add_(1.0)
        after_param_write = t.clone()
        t.copy_(T.full((2, 3), 4.0))
        after_source_write = p.detach().clone()
        (p * T.arange(6.0).reshape(2, 3)).sum().backward()
        T.optim.SGD([p], lr=0.5).step()           # the optimizer's in-place update reaches t too
        return after_param_write, after_source_write, t, p, p.grad, p.is_leaf, t.requires_grad, t.grad
    same(case)


def test_parameter_of_a_view_shares_its_base():
    def case(T):
        base = T.zeros(3, 4)
        p = T.nn.Parameter(base[1])
        q = T.nn.Parameter(base.t())
        with T.no_grad():
            p.fill_(2.0)
            q[0].fill_(5.0)
        return base, p, q
    same(case)


def test_parameter_of_a_view_is_usable():
    # a parameter over a view (see above) must train like torch's
    def case(T):
        base = T.arange(12.0).reshape(3, 4)
        p, q = T.nn.Parameter(base[1]), T.nn.Parameter(base.t())
        (p @ q).sum().backward()
        T.optim.Adam([p, q], lr=0.1).step()
        with T.no_grad():
            p.mul_(2.0)
        return p, q, p.grad, q.grad
    same(case)


def test_buffer_is_a_marked_tensor():
    def case(T):
        t = T.ones(2)
        b = T.nn.Buffer(t, persistent=False)
        g = T.nn.Buffer(T.ones(1, requires_grad=True))
        m = T.nn.Module()
        m.b = b
        m.register_buffer("c", T.zeros(1))
        return (type(b).__name__, b.persistent, b.data_ptr() == t.data_ptr(), isinstance(b, T.nn.Buffer),
                isinstance(t, T.nn.Buffer), issubclass(T.nn.Buffer, T.Tensor), m.b is b, isinstance(m.b, T.nn.Buffer),
                isinstance(m.c, T.nn.Buffer), isinstance(T.nn.Parameter(T.ones(1)), T.nn.Buffer),
                g.requires_grad, g.is_leaf, type(T.nn.Buffer()).__name__, T.nn.Buffer().shape, list(m.state_dict()))
    same(case)
