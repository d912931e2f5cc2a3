"""torch.numa: NUMA binding options for launched workers."""
