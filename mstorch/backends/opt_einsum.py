"""torch.backends.opt_einsum: mstorch's einsum does not use the opt_einsum package to order contractions, so
it reports the backend unavailable, as torch does where opt_einsum is not installed."""
enabled = False
strategy = None


def is_available():
    return False


def get_opt_einsum():
    return None
