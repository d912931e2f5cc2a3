"""torch.fx.experimental: the symbolic-shape helpers libraries call on sizes (``symbolic_shapes``)."""
