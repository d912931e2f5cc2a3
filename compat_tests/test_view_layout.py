"""View ops report torch's layout: stride(), is_contiguous(), storage_offset() of every result, on
contiguous and non-contiguous inputs, and a write through the view reaches the base as in torch."""
import numpy as np
import pytest

from harness import check

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def _inputs(T):
    """The same values in four layouts: contiguous, transposed, a stepped slice of a padded buffer, and at a
    storage offset (names in the test ids)."""
    base = T.tensor(X)
    padded = T.zeros(2, 3, 9)
    padded[..., 1::2] = base
    flat = T.cat([T.zeros(5), base.reshape(-1)])
    return {
        "contiguous": base,
        "transposed": base.permute(2, 1, 0).contiguous().permute(2, 1, 0),
        "strided": padded[..., 1::2],
        "offset": flat[5:].view(2, 3, 4),
    }


VIEWS = {
    "view": lambda x: x.contiguous().view(6, 4),
    "view_flat": lambda x: x.contiguous().view(-1),
    "view_dtype": lambda x: x.contiguous().view(x.dtype),
    "reshape": lambda x: x.reshape(6, 4),
    "flatten": lambda x: x.flatten(1),
    "unflatten": lambda x: x.unflatten(2, (2, 2)),
    "transpose": lambda x: x.transpose(0, 2),
    "swapaxes": lambda x: x.swapaxes(1, 2),
    "permute": lambda x: x.permute(1, 2, 0),
    "narrow": lambda x: x.narrow(2, 1, 2),
    "select": lambda x: x.select(1, 2),
    "getitem_int": lambda x: x[1],
    "getitem_slice": lambda x: x[:, 1:, ::2],
    "getitem_step_neg_free": lambda x: x[..., 1:3],
    "getitem_none": lambda x: x[:, None, 0],
    "expand": lambda x: x[:, :1].expand(2, 5, 4),
    "expand_new_dim": lambda x: x[0].expand(3, 3, 4),
    "expand_as": lambda x: x[:1].expand_as(x),
    "broadcast_to": lambda x: x[:, :, :1].broadcast_to(2, 3, 4),
    "unsqueeze": lambda x: x.unsqueeze(1),
    "unsqueeze_last": lambda x: x.unsqueeze(-1),
    "squeeze": lambda x: x[:, :1].squeeze(1),
    "squeeze_all": lambda x: x[:1, :, :1].squeeze(),
    "diagonal": lambda x: x.diagonal(),
    "diagonal_offset": lambda x: x.diagonal(1, 1, 2),
    "unfold": lambda x: x.unfold(2, 2, 1),
    "unfold_step": lambda x: x.unfold(2, 2, 2),
    "as_strided": lambda x: x.contiguous().as_strided((3, 2), (1, 3), 2),
    "t": lambda x: x[0].t(),
    "T": lambda x: x[0].T,
    "mT": lambda x: x.mT,
    "movedim": lambda x: x.movedim(0, 2),
    "split": lambda x: x.split(2, dim=2),
    "split_sizes": lambda x: x.split([1, 3], dim=2),
    "chunk": lambda x: x.chunk(2, dim=1),
    "tensor_split": lambda x: x.tensor_split(3, dim=2),
    "unbind": lambda x: x.unbind(1),
    "hsplit": lambda x: x.hsplit(3),
    "detach": lambda x: x.detach(),
    "real": lambda x: x.real,
    "view_as": lambda x: x.contiguous().view_as(x.reshape(-1, 2)),
    "broadcast_to_tuple": lambda x: x[:, :, :1].broadcast_to((2, 3, 4)),
    "contiguous": lambda x: x.contiguous(),
}
LAYOUTS = ("contiguous", "transposed", "strided", "offset")


def _layout(out):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [(o, o.stride(), o.is_contiguous(), o.storage_offset()) for o in outs]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", list(VIEWS))
def test_view_layout(name, layout):
    check(lambda T: _layout(VIEWS[name](_inputs(T)[layout])))


# views of a view, then a write through the innermost one: the base changes where torch's does
CHAINS = {
    "transpose_narrow": lambda x: x.transpose(0, 2).narrow(0, 1, 2),
    "slice_select_unsqueeze": lambda x: x[:, ::2].select(2, 3).unsqueeze(0),
    "permute_diagonal": lambda x: x.permute(2, 0, 1).diagonal(0, 1, 2),
    "unfold_t": lambda x: x[0].unfold(1, 2, 2).mT,
    "movedim_split": lambda x: x.movedim(2, 0).split(3)[1],
    "expand_select": lambda x: x[:, :1].expand(2, 3, 4).select(1, 2),
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", list(CHAINS))
def test_chained_view_layout_and_write_through(name, layout):
    def fn(T):
        x = _inputs(T)[layout]
        v = CHAINS[name](x)
        info = _layout(v)
        if name != "expand_select":
            v.mul_(-1)
        return info, x
    check(fn)


def test_expanded_view_refuses_in_place_write():
    check(lambda T: T.zeros(3, 1).expand(3, 4).add_(1), raises=True)
