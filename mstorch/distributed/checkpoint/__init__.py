"""torch.distributed.checkpoint (DCP) on mstorch: the names exist, saving and loading raise.

DCP writes each rank's shards of DTensor/FSDP state with a planner that negotiates the layout across ranks;
mstorch has neither sharded tensors nor that planner, so ``save``/``load`` and the storage readers/writers
raise ``NotImplementedError`` naming the API. A whole model saves with ``torch.save(model.state_dict())``
or safetensors."""
from ...ops._registry import unsupported

__all__ = ["save", "load", "async_save", "save_state_dict", "load_state_dict", "CheckpointException",
           "DefaultLoadPlanner", "DefaultSavePlanner", "FileSystemReader", "FileSystemWriter",
           "HuggingFaceStorageReader", "HuggingFaceStorageWriter", "StorageReader", "StorageWriter"]

REASON = ("mstorch has no distributed checkpointing (DCP): it saves DTensor/FSDP shards through a cross-rank "
          "planner; save the full state_dict with torch.save or safetensors instead")


def refuse(api):
    return NotImplementedError(f"torch.{api} is not supported by mstorch: {REASON}")


class CheckpointException(BaseException):
    """Mirrors torch.distributed.checkpoint.CheckpointException."""


def _refusing_class(name, module):
    def __init__(self, *args, **kwargs):
        raise refuse(f"{module}.{name}")
    return type(name, (), {"__init__": __init__, "__module__": "mstorch." + module,
                           "__doc__": f"Mirrors torch.{module}.{name} as a type; constructing one raises "
                                      "(see torch.distributed.checkpoint)."})


StorageReader = _refusing_class("StorageReader", "distributed.checkpoint.storage")
StorageWriter = _refusing_class("StorageWriter", "distributed.checkpoint.storage")
FileSystemReader = _refusing_class("FileSystemReader", "distributed.checkpoint.filesystem")
FileSystemWriter = _refusing_class("FileSystemWriter", "distributed.checkpoint.filesystem")
DefaultLoadPlanner = _refusing_class("DefaultLoadPlanner", "distributed.checkpoint.default_planner")
DefaultSavePlanner = _refusing_class("DefaultSavePlanner", "distributed.checkpoint.default_planner")
HuggingFaceStorageReader = _refusing_class("HuggingFaceStorageReader", "distributed.checkpoint.hf_storage")
HuggingFaceStorageWriter = _refusing_class("HuggingFaceStorageWriter", "distributed.checkpoint.hf_storage")


def save(state_dict, *, checkpoint_id=None, storage_writer=None, planner=None, process_group=None,
         no_dist=False, use_cached=False):
    raise refuse("distributed.checkpoint.save")


def load(state_dict, *, checkpoint_id=None, storage_reader=None, planner=None, process_group=None, no_dist=False):
    raise refuse("distributed.checkpoint.load")


def async_save(state_dict, *, checkpoint_id=None, storage_writer=None, planner=None, process_group=None,
               async_checkpointer_type=None, async_stager=None, no_dist=False, use_cached=False):
    raise refuse("distributed.checkpoint.async_save")


def save_state_dict(state_dict, storage_writer, process_group=None, coordinator_rank=0, no_dist=False,
                    planner=None):
    raise refuse("distributed.checkpoint.save_state_dict")


def load_state_dict(state_dict, storage_reader, process_group=None, coordinator_rank=0, no_dist=False,
                    planner=None):
    raise refuse("distributed.checkpoint.load_state_dict")


for _name in ("save", "load", "async_save", "save_state_dict", "load_state_dict"):
    unsupported(f"distributed.checkpoint.{_name}", REASON)
