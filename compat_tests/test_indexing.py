"""x[index], x[index] = value and view semantics, compared with torch.

Each case is a function of the namespace ``T`` (torch or mstorch), so index tensors are built by the
library under test. Covers ints, slices, None, Ellipsis, bool masks, integer tensors, lists, torch's
placement rule for separated advanced indices, 0-dim tensor indices, assignment with broadcasting and
dtype casts, the errors torch raises, gradients through both, and writes through views reaching their base.
"""
import numpy as np
import pytest

from harness import check, check_grad, rand

X = rand(3, 4, 5)
M = rand(3, 4, seed=1)
XI = rand(3, 4, dtype="int64")
MASK3 = X > 0.5
Z = np.array(1.5, dtype=np.float32)


def _t(data, dtype=None):
    return lambda T: T.tensor(data) if dtype is None else T.tensor(data, dtype=getattr(T, dtype))


_ = slice(None)
GET = {
    "int": lambda T: 1, "neg int": lambda T: -1, "int tuple": lambda T: (1, 2), "int neg tuple": lambda T: (2, -1, -5),
    "slice": lambda T: slice(1, None), "slice step": lambda T: slice(None, None, 2),
    "slice neg": lambda T: slice(-3, -1), "slice beyond": lambda T: slice(1, 10), "slice empty": lambda T: slice(3, 1),
    "slice step 3": lambda T: (_, slice(None, None, 3)), "slices": lambda T: (slice(0, 2), _, slice(1, 5, 2)),
    "int slice": lambda T: (_, 1), "ellipsis int": lambda T: (Ellipsis, 1), "ellipsis only": lambda T: Ellipsis,
    "empty tuple": lambda T: (), "none": lambda T: None, "none int none": lambda T: (None, 1, None),
    "mixed basic": lambda T: (0, Ellipsis, None, 2), "slice none slice": lambda T: (slice(1, 3), None, slice(None, 2)),
    "list": lambda T: [0, 2], "list neg": lambda T: [-1, 0, -1], "lists": lambda T: ([0, 2], [1, 3]),
    "list of lists": lambda T: [[0, 1], [1, 2]], "list bools": lambda T: [True, False, True],
    "tensor": _t([0, 2]), "tensor neg": _t([-1, -3]), "tensor int32": _t([0, 2], "int32"),
    "tensor 2d": _t([[0, 1], [2, 0]]), "tensor empty": lambda T: T.tensor([], dtype=T.int64), "list empty": lambda T: [],
    "mask full": _t(MASK3), "mask lead": _t([True, False, True]), "mask 2d": _t(M > 0),
    "mask mid": lambda T: (_, T.tensor([True, False, True, False])), "mask none": _t([False, False, False]),
    "mask uint8": _t([1, 0, 1], "uint8"), "mask + tensor": lambda T: (T.tensor([True, False, True]), T.tensor([0, 3])),
    "adv separated": lambda T: (T.tensor([0, 1]), _, T.tensor([1, 2])),
    "int + adv separated": lambda T: (0, _, T.tensor([1, 2])),
    "int + list separated": lambda T: (1, _, [4, 0, 2]),
    "adv + int separated": lambda T: ([0, 2], _, 3),
    "int + adv adjacent": lambda T: (_, 0, T.tensor([1, 2])),
    "adv adjacent": lambda T: (_, T.tensor([0, 1]), T.tensor([1, 2])),
    "adv broadcast": lambda T: (T.tensor([[0], [2]]), T.tensor([1, 3])),
    "slice adv slice": lambda T: (slice(1, 3), T.tensor([0, 3]), slice(None, None, 2)),
    "none adv": lambda T: (None, T.tensor([0, 1]), _, T.tensor([0, 1])),
    "adv none adv": lambda T: (T.tensor([0, 1]), None, T.tensor([0, 1])),
    "ellipsis adv": lambda T: (Ellipsis, T.tensor([0, 4])),
    "adv slice step adv": lambda T: (T.tensor([2, 0]), slice(None, None, 2), T.tensor([[1], [4]])),
    "0-d tensor": _t(1), "0-d tensor + slice": lambda T: (_, T.tensor(2)), "0-d neg": _t(-2),
    "0-d + adv": lambda T: (T.tensor(1), _, T.tensor([0, 4])),
    "true": lambda T: True, "false": lambda T: False, "none true": lambda T: (None, True),
    "0-d bool tensor": _t(True), "true + int": lambda T: (True, 1),
    "two ellipses": lambda T: (Ellipsis, 0, Ellipsis),
}

GET_ERRORS = {
    "int out of range": lambda T: 3, "neg out of range": lambda T: -4, "second dim": lambda T: (0, 4),
    "too many": lambda T: (0, 0, 0, 0), "negative step": lambda T: slice(None, None, -1),
    "zero step": lambda T: slice(None, None, 0), "float": lambda T: 1.5, "float tensor": _t([0.5]),
    "tensor out of range": _t([3]), "tensor neg out of range": _t([-4]), "tensor 2nd dim": lambda T: (_, T.tensor([4])),
    "mask shape": _t([True, False]), "string": lambda T: "a",
}


@pytest.mark.parametrize("name", list(GET))
def test_getitem(name):
    check(lambda T: T.tensor(X)[GET[name](T)])


@pytest.mark.parametrize("name", list(GET_ERRORS))
def test_getitem_errors(name):
    ref, _ = check(lambda T: T.tensor(X)[GET_ERRORS[name](T)], raises=True)
    assert type(ref).__name__ == "Raised"


@pytest.mark.parametrize("index", [(), None, Ellipsis, True, (None, None)], ids=str)
def test_getitem_0d(index):
    check(lambda T: T.tensor(Z)[index])
    check(lambda T: T.tensor(Z)[0], raises=True)


def test_getitem_dtypes():
    check(lambda T: T.tensor(XI)[T.tensor([2, 0]), 1:])
    check(lambda T: T.tensor(MASK3)[0, [1, 1]])
    check(lambda T: T.tensor(X, dtype=T.bfloat16)[[0, 2], :, 1])
    check(lambda T: T.tensor(X, dtype=T.float64)[T.tensor(MASK3)])


@pytest.mark.parametrize("name", ["int", "slice step", "list neg", "lists", "mask full", "mask lead",
                                  "adv separated", "int + adv separated", "adv broadcast", "0-d tensor",
                                  "none adv", "slices", "slice empty", "true"])
def test_getitem_grad(name):
    check_grad(lambda T, x: x[GET[name](T)], [X])


def test_getitem_grad_repeated_indices():
    check_grad(lambda T, x: x[[0, 0, 2]] * x[T.tensor([2, 2])].sum(0), [X])


# --- assignment ---------------------------------------------------------------------------------------

def _set(index, value, data=X, dtype=None):
    def fn(T):
        x = T.tensor(data) if dtype is None else T.tensor(data, dtype=getattr(T, dtype))
        x[index(T)] = value(T) if callable(value) else value
        return x
    return fn


SET = {
    "int scalar": (lambda T: 0, 5.0), "neg int": (lambda T: -1, 2.5), "int int": (lambda T: (1, 2), -1),
    "slice tensor": (lambda T: (_, 1), lambda T: T.arange(5.0)),
    "slice broadcast": (lambda T: (0, slice(1, 3)), lambda T: T.ones(1, 5)),
    "step": (lambda T: (_, slice(None, None, 2)), lambda T: T.tensor([[1.0], [2.0]])),
    "ellipsis": (lambda T: (Ellipsis, 0), lambda T: T.zeros(3, 4)),
    "ellipsis all": (lambda T: Ellipsis, lambda T: T.arange(5.0)),
    "leading ones": (lambda T: 0, lambda T: T.ones(1, 1, 4, 5)),
    "none": (lambda T: None, 3.0), "true": (lambda T: True, 3.0), "false": (lambda T: False, 3.0),
    "mask full scalar": (_t(MASK3), 0.0), "mask full 0-d": (_t(MASK3), lambda T: T.tensor(-2)),
    "mask lead": (_t([True, False, True]), lambda T: T.arange(5.0)),
    "mask lead scalar": (_t([True, False, True]), 7.0),
    "mask mid": (lambda T: (_, T.tensor([True, False, True, False])), lambda T: T.zeros(2, 5)),
    "mask values": (_t(MASK3), lambda T: T.arange(float(MASK3.sum()))),
    "list": (lambda T: [0, 2], 1.0), "tensor": (_t([2, 0]), lambda T: T.ones(2, 4, 5)),
    "tensor neg": (_t([-1]), lambda T: T.arange(5.0)),
    "adv separated": (lambda T: (T.tensor([0, 2]), _, T.tensor([1, 3])), lambda T: T.ones(2, 4) * 7),
    "int + adv separated": (lambda T: (0, _, [1, 2]), lambda T: T.arange(8.0).reshape(4, 2)),
    "adv adjacent": (lambda T: (_, T.tensor([0, 3]), T.tensor([1, 2])), lambda T: T.arange(2.0)),
    "adv broadcast": (lambda T: (T.tensor([[0], [2]]), T.tensor([1, 3])), lambda T: T.tensor([[1.0], [2.0]])),
    "0-d tensor": (_t(1), 4.0), "list of lists": (lambda T: [[0, 1], [1, 2]], 5.0),
    "empty list": (lambda T: [], 5.0),
}


@pytest.mark.parametrize("name", list(SET))
def test_setitem(name):
    index, value = SET[name]
    check(_set(index, value))


def test_setitem_dtype_casts():
    check(_set(lambda T: 0, 2.7, XI, "int64"))
    check(_set(lambda T: 0, -2.7, XI, "int64"))
    check(_set(lambda T: 0, lambda T: T.tensor(2.7), XI, "int64"))
    check(_set(lambda T: T.tensor([True, False, True]), lambda T: T.tensor([1.5]), XI, "int64"))
    check(_set(lambda T: 1, lambda T: T.tensor([1, 2, 3, 4, 5]), X))
    check(_set(lambda T: 0, lambda T: T.tensor(True), XI, "int64"))
    check(_set(lambda T: 0, 1, MASK3, "bool"))
    check(_set(lambda T: [0], 2.7, XI, "int64"))
    check(_set(lambda T: (0, 1), float("nan"), X))
    check(_set(lambda T: 1, 2.5, X, "bfloat16"))
    check(_set(lambda T: [0, 2], 2.5, X, "float16"))
    check(_set(lambda T: T.tensor(MASK3), 1.0, X, "bfloat16"))


SET_ERRORS = {
    "out of range": (lambda T: 5, 1.0), "negative step": (lambda T: slice(None, None, -1), 1.0),
    "float index": (lambda T: 1.0, 1.0), "shape": (lambda T: 0, lambda T: T.ones(2)),
    "adv shape": (lambda T: [0, 1], lambda T: T.ones(3, 4, 5)),
    "too many leading": (lambda T: 0, lambda T: T.ones(2, 4, 5)),
    "adv dtype": (lambda T: [0], lambda T: T.ones(1, 4, 5, dtype=T.float64)),
    "list value": (lambda T: 0, [1.0, 2.0]), "str value": (lambda T: 0, "a"),
    "tensor out of range": (_t([3]), 1.0), "complex into float": (lambda T: 0, 1j),
}


@pytest.mark.parametrize("name", list(SET_ERRORS))
def test_setitem_errors(name):
    index, value = SET_ERRORS[name]
    ref, _ = check(_set(index, value), raises=True)
    assert type(ref).__name__ == "Raised"


def test_setitem_leaf_requires_grad():
    def fn(T):
        a = T.ones(3, requires_grad=True)
        a[0] = 2.0
    check(fn, raises=True)

    def fn_view(T):
        a = T.ones(3, 2, requires_grad=True)
        a[0].zero_()
    check(fn_view, raises=True)

    def fn_no_grad(T):
        a = T.ones(3, requires_grad=True)
        with T.no_grad():
            a[0] = 2.0
            a[1:].mul_(3)
        return a
    check(fn_no_grad)


def test_setitem_grad_non_leaf():
    def basic(T, a):
        x = a * 1
        x[0] = 0
        return x
    check_grad(basic, [X])

    def with_value(T, a, b):
        x = a * 2
        x[:, 1] = b[0] * 3
        x[T.tensor(MASK3)] = b.sum()
        return x
    check_grad(with_value, [X, rand(4, 5, seed=7)])

    def advanced(T, a, b):
        x = a.clone()
        x[[0, 2], :, [1, 3]] = b
        return x.sum(0)
    check_grad(advanced, [X, rand(2, 4, seed=8)])

    def mask_scalar(T, a):
        x = a.exp() * 1   # not exp's own output, which its backward needs unmodified
        x[x > 1.5] = 0.0
        return x
    check_grad(mask_scalar, [X])


# --- views: writes through them reach the base ----------------------------------------------------

def _view_case(body):
    def fn(T):
        x = T.tensor(M)
        out = body(T, x)
        return x, out
    return fn


VIEWS = {
    "row zero_": lambda T, x: x[0].zero_(),
    "column add_": lambda T, x: x[:, 1].add_(1),
    "t mul_": lambda T, x: x.t().mul_(2),
    "T setitem": lambda T, x: x.T.__setitem__(0, 1.0),
    "view setitem": lambda T, x: x.view(-1).__setitem__(3, 5.0),
    "reshape setitem": lambda T, x: x.reshape(12).__setitem__(slice(0, 2), -1.0),
    "flatten setitem": lambda T, x: x.flatten().__setitem__(2, 4.0),
    "narrow copy_": lambda T, x: x.narrow(1, 1, 2).copy_(T.ones(3, 2)),
    "select fill_": lambda T, x: x.select(0, 1).fill_(7),
    "diagonal zero_": lambda T, x: x.diagonal().zero_(),
    "diagonal offset": lambda T, x: x.diagonal(1).add_(10),
    "unsqueeze setitem": lambda T, x: x.unsqueeze(0).__setitem__((0, 1), 9.0),
    "squeeze": lambda T, x: x[None].squeeze(0)[2].neg_(),
    "split piece": lambda T, x: x.split(1)[1].add_(10),
    "chunk piece": lambda T, x: x.chunk(2, 1)[0].mul_(0),
    "unbind piece": lambda T, x: x.unbind(0)[2].sub_(1),
    "tensor_split piece": lambda T, x: x.tensor_split(3, 1)[1].clamp_(min=0),
    "movedim": lambda T, x: x.movedim(0, 1)[0].zero_(),
    "permute setitem": lambda T, x: x.permute(1, 0).__setitem__((0, 1), 8.0),
    "unflatten": lambda T, x: x.unflatten(1, (2, 2))[:, 1, 0].fill_(3),
    "strided slice": lambda T, x: x[::2].zero_(),
    "strided setitem": lambda T, x: x.__setitem__((slice(1, None), slice(None, None, 2)), 3.0),
    "chained views": lambda T, x: x[0][1:].zero_(),
    "chained t row": lambda T, x: x.t()[1].__setitem__(0, 5.0),
    "view of view mask": lambda T, x: x[:, 1].__setitem__(T.tensor([True, False, True]), 3.0),
    "view advanced setitem": lambda T, x: x[1:].__setitem__((T.tensor([0, 1]), T.tensor([3, 0])), -5.0),
    "swapaxes": lambda T, x: x.swapaxes(0, 1)[3].copy_(T.arange(3.0)),
    "view_as": lambda T, x: x.view_as(T.zeros(2, 6))[1].zero_(),
    "expand same": lambda T, x: x.expand(3, 4).add_(1),
    "atleast_3d": lambda T, x: T.atleast_3d(x)[0, 0, 0].add_(100),
    "ellipsis view": lambda T, x: x[...].mul_(-1),
    "hsplit piece": lambda T, x: x.hsplit(2)[1].zero_(),
}


@pytest.mark.parametrize("name", list(VIEWS))
def test_write_through_view(name):
    check(_view_case(VIEWS[name]))


def test_view_reads_base_changes():
    def fn(T):
        x = T.tensor(M)
        views = [x[0], x.t(), x.view(-1), x[:, 1:3], x.narrow(0, 1, 1), x.unsqueeze(0)]
        x.add_(1)
        x[2] = 0.0
        return views
    check(fn)


def test_copies_do_not_alias():
    def fn(T):
        x = T.tensor(M)
        outs = [x.clone(), T.cat([x]), x.flip(0), x.roll(1), x.repeat(1, 1), x.tril(), x.t().contiguous(),
                x[[0, 1]], x[T.tensor(M > 0)], x.t().reshape(-1), x.diag(), T.stack([x])]
        for o in outs:
            o.add_(100)
        return x
    check(fn)


def test_expanded_write_errors():
    def fn(T):
        x = T.zeros(3)
        x.expand(2, 3).add_(1)
    check(fn, raises=True)


def test_view_grad():
    def fn(T, a):
        x = a * 2
        x[0].mul_(3)
        x.t()[1].add_(x[2, 0])
        x.view(-1)[5] = 0
        return x
    check_grad(fn, [M])

    def tensor_split_grad(T, a):
        x = a.clone()
        p = x.tensor_split(2, 1)
        p[0].add_(p[1] * 2)
        return x
    check_grad(tensor_split_grad, [M])

    def diagonal_grad(T, a):
        x = a.exp() * 1
        x.diagonal(1).mul_(x[0, 0].clone())
        return x
    check_grad(diagonal_grad, [M])


@pytest.mark.parametrize("fn", ["split", "chunk", "unbind"])
def test_multi_output_views_refuse_inplace_under_grad(fn):
    def run(T):
        x = T.tensor(M, requires_grad=True) * 1
        getattr(x, fn)(*(() if fn == "unbind" else (2,)))[0].mul_(2)
    check(run, raises=True)

    def run_no_grad(T):
        x = T.tensor(M)
        getattr(x, fn)(2 if fn == "chunk" else 1)[1].mul_(2)
        return x
    check(run_no_grad)
