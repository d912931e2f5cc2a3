"""torch.distributed._composable: the composable APIs (``fully_shard``, ``replicate``) that shard or
replicate a module in place; only the FSDP names are provided, and they raise (see ``torch.distributed.fsdp``)."""
