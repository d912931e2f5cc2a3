"""Builds the optional native random kernels; metadata lives in pyproject.toml.

``mstorch/_random/_fastrng.c`` is plain C loaded with ctypes (see ``mstorch/_random/native.py``); when no
compiler is available the build skips it and mstorch uses the NumPy kernels, which give the same bits.
-ffp-contract=off keeps the compiler from fusing multiply-adds the source does not fuse.
"""
from setuptools import Extension, setup

setup(ext_modules=[Extension("mstorch._random._fastrng", ["mstorch/_random/_fastrng.c"], optional=True,
                             extra_compile_args=["-O3", "-ffp-contract=off", "-fno-math-errno"],
                             libraries=["m"])])
