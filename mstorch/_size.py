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


def broadcast_shapes(*shapes):
    """torch.broadcast_shapes: the shape tensors of these shapes broadcast to, computed from the shapes alone
    (an int is a 1-d shape; None is skipped), with torch's errors."""
    shapes = [(s,) if isinstance(s, int) else s for s in shapes if s is not None]
    if not shapes:
        return Size([])
    for s in shapes:
        if not isinstance(s, (tuple, list)):
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {s}")
    common = [1] * max(len(s) for s in shapes)
    for arg, shape in enumerate(shapes):
        for i in range(-1, -1 - len(shape), -1):
            if shape[i] == common[i]:
                continue
            if common[i] == 1:
                if shape[i] < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[i] = shape[i]
            elif shape[i] != 1:
                # the message shows the shape built so far, as torch's does
                raise RuntimeError(f"Attempting to broadcast a dimension of length {shape[i]} at {i}! Mismatching "
                                   f"argument at index {arg} had {shape}; but expected shape should be broadcastable "
                                   f"to {common}")
    return Size(common)
