"""Views: results that torch says share memory with their input.

MindSpore on CPU returns copies for most view ops (slicing, transpose). mstorch records on each view
its base and a write-back function, so an in-place op on a view (``x[0].zero_()``, ``x.t().add_(1)``,
``x.view(-1).copy_(...)``) also updates the base, as in torch. Reads of a view after the *base* changed
are not refreshed: see docs/known-differences.md.
"""
from .._tensor import wrap


def make_view(base, new_ms, writeback):
    """Wrap ``new_ms`` as a view of the mstorch Tensor ``base``.

    ``writeback(base_ms, view_ms)`` returns the new value of the whole base given the view's new value.
    """
    v = wrap(new_ms)
    v._view = (base, writeback)
    return v


def reshape_back(base_ms, view_ms):
    return view_ms.reshape(base_ms.shape)


def permute_back(perm):
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    inverse = tuple(inverse)

    def writeback(base_ms, view_ms):
        return view_ms.permute(*inverse)
    return writeback


def index_back(index):
    def writeback(base_ms, view_ms):
        out = base_ms.copy()
        out[index] = view_ms
        return out
    return writeback
