"""torch.distributed.elastic: the error-reporting part (``multiprocessing.errors``) that launch scripts and
libraries import; mstorch's launcher is ``mstorch.distributed.run`` (torchrun on msrun)."""
