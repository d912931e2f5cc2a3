"""torch's layout and memory-format objects (``torch.strided``, ``torch.channels_last``): named singletons
that compare by identity and print as torch's."""


class layout:
    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"torch.{self._name}"


class memory_format:
    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"torch.{self._name}"


strided = layout("strided")
sparse_coo = layout("sparse_coo")
sparse_csr = layout("sparse_csr")

contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
preserve_format = memory_format("preserve_format")
