"""torch.return_types compared with torch: the types of multi-result ops, by name, and made by hand."""
import pickle

import pytest

from harness import check


@pytest.mark.parametrize("name, call", [
    ("max", lambda T: T.max(T.tensor([[1., 3.], [2., 0.]]), 1)), ("sort", lambda T: T.sort(T.tensor([3., 1.]))),
    ("topk", lambda T: T.topk(T.tensor([3., 1., 2.]), 2)), ("cummax", lambda T: T.cummax(T.tensor([1., 3., 2.]), 0)),
    ("aminmax", lambda T: T.aminmax(T.tensor([1., 3.]))), ("linalg_slogdet", lambda T: T.linalg.slogdet(T.eye(2))),
    ("kthvalue", lambda T: T.kthvalue(T.tensor([3., 1., 2.]), 2)), ("mode", lambda T: T.mode(T.tensor([1., 1., 2.]))),
])
def test_results_are_the_named_types(name, call):
    def fn(T):
        r = call(T)
        kind = getattr(T.return_types, name)
        back = pickle.loads(pickle.dumps(r))
        return (isinstance(r, kind), isinstance(r, tuple), len(r),
                type(r).__name__, tuple(back), isinstance(back, kind))
    check(fn)


def test_made_by_hand():
    def fn(T):
        a, b = T.tensor([1.]), T.tensor([0])
        one = T.return_types.max((a, b))
        values, indices = one
        return (values, indices, one.values, one.indices, repr(T.return_types.topk([a, b]))[:26],
                "max_out" in dir(T.return_types), isinstance(T.return_types.all_return_types, list))
    check(fn)


def test_unknown_name_raises():
    check(lambda T: T.return_types.no_such_op, raises=True)
