"""Making ``import torch`` resolve to mstorch: the launcher and the opt-in environment alias."""
