"""torch.compiler.config: settings of the compiler caches (``job_id``, ...), kept as values."""
job_id = None
dynamic_sources = ""
unbacked_sources = ""
force_disable_caches = False
