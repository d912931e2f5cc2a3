"""torch.torch_version.TorchVersion: ``torch.__version__`` is a str that compares as a version against strings,
and tuples (``torch.__version__ >= "2.0"``, ``>= (2, 1)``), as torch's does."""
from collections.abc import Iterable

from packaging.version import InvalidVersion, Version

from .version import __version__ as internal_version

__all__ = ["TorchVersion"]


class TorchVersion(str):
    __slots__ = ()

    def _as_version(self, other):
        # torch compares against its vendored packaging Version only, so a ``packaging.version.Version``
        # operand is neither str nor iterable there and the comparison raises TypeError; we do the same
        if isinstance(other, str):
            return Version(other)
        if isinstance(other, Iterable):  # (2, 1) -> 2.1
            return Version(".".join(str(item) for item in other))
        raise InvalidVersion(other)

    def _compare(self, other, method):
        try:
            return getattr(Version(self), method)(self._as_version(other))
        except InvalidVersion:
            # not a version on either side ("parrot"): compare as plain strings, as torch does
            return getattr(str, method)(self, other)

    def __gt__(self, other):
        return self._compare(other, "__gt__")

    def __lt__(self, other):
        return self._compare(other, "__lt__")

    def __ge__(self, other):
        return self._compare(other, "__ge__")

    def __le__(self, other):
        return self._compare(other, "__le__")

    def __eq__(self, other):
        return self._compare(other, "__eq__")

    __hash__ = str.__hash__


__version__ = TorchVersion(internal_version)
