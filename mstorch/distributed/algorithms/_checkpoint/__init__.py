"""torch.distributed.algorithms._checkpoint: module wrappers for activation checkpointing and offloading."""
