"""torch.fx.passes: the pass infrastructure's types (``infra.pass_base``)."""
