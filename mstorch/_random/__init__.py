"""Kernels behind mstorch.random: torch's CPU distributions over the MT19937 stream, on the host (NumPy, or
the same computations in C where the optional ``_fastrng`` library is built: see native.py)."""
