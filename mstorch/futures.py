"""Mirrors ``torch.futures``: ``Future``, ``collect_all``, ``wait_all`` (the classes live in
``mstorch/_future.py``, below the layers that hand futures out)."""
from ._future import Future, _CFuture, collect_all, wait_all  # noqa: F401

__all__ = ["Future", "collect_all", "wait_all"]
