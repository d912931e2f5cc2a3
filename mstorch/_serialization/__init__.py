"""Internals of ``mstorch.serialization`` (torch.save / torch.load): see that module."""
