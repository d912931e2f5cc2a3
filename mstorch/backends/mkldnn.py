enabled = True


def is_available():
    return False
