"""torch.backends.mps: Apple's Metal backend is never available under MindSpore."""


def is_available():
    return False


def is_built():
    return False
