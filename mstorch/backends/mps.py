"""torch.backends.mps: Apple's Metal backend is never available under MindSpore."""


def is_available():
    return False


def is_built():
    return False


def is_macos_or_newer(major, minor):
    # torch asks its MPS backend, and without one (every non-Apple build) refuses the question
    raise RuntimeError("Cannot execute isOnMacOSorNewer() without MPS backend.")


def is_macos13_or_newer(minor=0):
    return is_macos_or_newer(13, minor)
