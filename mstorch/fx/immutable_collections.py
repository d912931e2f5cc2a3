"""torch.fx.immutable_collections: the list and dict types that hold a Node's ``args`` and ``kwargs``.

A graph edit must go through ``Node.args = ...`` (which updates the users of every input node), so the
stored containers refuse in-place mutation with torch's message."""

_HELP = ("If you are attempting to modify the kwargs or args of a torch.fx.Node object,\n"
         "instead create a new copy of it and assign the copy to the node:\n\n"
         "    new_args = ...  # copy and mutate args\n"
         "    node.args = new_args")


def _no_mutation(self, *args, **kwargs):
    raise TypeError(f"{type(self).__name__!r} object does not support mutation. {_HELP}")


class immutable_list(list):
    __delitem__ = __iadd__ = __imul__ = __setitem__ = _no_mutation
    append = clear = extend = insert = pop = remove = reverse = sort = _no_mutation

    def __hash__(self):
        return hash(tuple(self))

    def __reduce__(self):
        return (immutable_list, (tuple(iter(self)),))


class immutable_dict(dict):
    __delitem__ = __ior__ = __setitem__ = _no_mutation
    clear = pop = popitem = setdefault = update = _no_mutation

    def __hash__(self):
        return hash(tuple(self.items()))

    def __reduce__(self):
        return (immutable_dict, (tuple(self.items()),))
