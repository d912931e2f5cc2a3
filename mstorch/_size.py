"""torch.Size: a tuple subclass printed as ``torch.Size([2, 3])``."""

_tuple_new = tuple.__new__


class Size(tuple):
    __slots__ = ()

    def __new__(cls, sizes=()):
        items = []
        for i, s in enumerate(sizes):
            if type(s) is not int:
                if isinstance(s, (float, complex, str, bytes)) or not hasattr(s, "__index__") or (
                        hasattr(s, "_ms") and (s.dtype.is_floating_point or s._ms.size != 1)):
                    raise TypeError(
                        f"torch.Size() takes an iterable of 'int' (item {i} is '{type(s).__name__}')")
                s = s.__index__()
            items.append(s)
        return _tuple_new(cls, items)

    def __repr__(self):
        return f"torch.Size({list(self)})"

    __str__ = __repr__

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, item):
        r = tuple.__getitem__(self, item)
        return _tuple_new(Size, r) if isinstance(item, slice) else r

    def __add__(self, other):
        if not isinstance(other, tuple):
            raise TypeError(f"can only concatenate tuple (not {type(other).__name__}) to torch.Size")
        return _tuple_new(Size, tuple.__add__(self, other))

    def __radd__(self, other):
        return _tuple_new(Size, tuple(other) + tuple(self))

    def __mul__(self, n):
        return _tuple_new(Size, tuple.__mul__(self, n))

    __rmul__ = __mul__

    def __reduce__(self):
        return (Size, (tuple(self),))


def from_shape(shape):
    """A Size from a tuple of Python ints (a MindSpore shape), without re-checking the items."""
    return _tuple_new(Size, shape)
