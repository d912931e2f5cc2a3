"""torch.distributed.checkpoint.hf_storage: the Hugging Face storage reader/writer types (constructing raises)."""
from . import HuggingFaceStorageReader, HuggingFaceStorageWriter  # noqa: F401
