"""torch.distributed._functional_collectives: the collectives that return their result as a new tensor.

mstorch's synchronous collectives complete before they return (``distributed_c10d``), so a
functional collective's result never waits on pending work: ``wait_tensor`` returns its input, as torch's
does for a tensor no collective is still writing. The autograd-aware all-to-all is not provided."""
from ..ops._registry import unsupported

_A2A_REASON = "mstorch's all_to_all has no autograd formula (expert parallelism is not supported)"


def wait_tensor(tensor):
    """Mirrors torch.distributed._functional_collectives.wait_tensor (nothing is ever pending in mstorch)."""
    return tensor


def all_to_all_single_autograd(self, output_split_sizes=None, input_split_sizes=None, group=None, tag=""):
    raise NotImplementedError(
        f"torch.distributed._functional_collectives.all_to_all_single_autograd is not supported by mstorch: "
        f"{_A2A_REASON}")


unsupported("distributed._functional_collectives.all_to_all_single_autograd", _A2A_REASON)
