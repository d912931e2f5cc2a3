"""Kernels behind mstorch.random: torch's CPU distributions over the MT19937 stream, on the host."""
