"""torch.backends.cuda: matmul precision flags are stored; MindSpore has no TF32 switch on CPU."""


class _MatmulFlags:
    allow_tf32 = False
    allow_fp16_reduced_precision_reduction = True
    allow_bf16_reduced_precision_reduction = True


matmul = _MatmulFlags()


def is_built():
    from .. import cuda
    return cuda.is_available()


def flash_sdp_enabled():
    return False


def enable_flash_sdp(enabled):
    pass


def mem_efficient_sdp_enabled():
    return False


def enable_mem_efficient_sdp(enabled):
    pass


def math_sdp_enabled():
    return True


def enable_math_sdp(enabled):
    pass
