def is_available():
    return True
