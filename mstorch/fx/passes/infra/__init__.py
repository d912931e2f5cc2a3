"""torch.fx.passes.infra."""
