"""torch.nn.attention.flex_attention on mstorch: the mask combinators are real; FlexAttention itself raises.

``flex_attention`` and ``create_block_mask`` evaluate user ``score_mod``/``mask_mod`` functions under
``torch.vmap`` and compile them into block-sparse kernels (Triton, or torch's compiled CPU template); mstorch
has neither, so they raise ``NotImplementedError`` naming the API. Use ``attn_implementation="sdpa"`` or
``"eager"`` in libraries that offer it. ``BlockMask`` exists as a type for annotations and ``isinstance``;
``and_masks``/``or_masks``/``noop_mask`` build mask functions as torch's do."""
from typing import NamedTuple

from ...ops._registry import unsupported

__all__ = ["BlockMask", "flex_attention", "AuxOutput", "AuxRequest", "create_block_mask", "create_mask", "or_masks",
           "and_masks", "noop_mask"]

_DEFAULT_SPARSE_BLOCK_SIZE = 128
REASON = ("mstorch has no FlexAttention: it compiles vmapped score/mask functions into block-sparse kernels; "
          "use scaled_dot_product_attention")


def _refuse(api):
    return NotImplementedError(f"torch.nn.attention.flex_attention.{api} is not supported by mstorch: {REASON}")


class AuxRequest(NamedTuple):
    lse: bool = False
    max_scores: bool = False


class AuxOutput(NamedTuple):
    lse: object = None
    max_scores: object = None


class BlockMask:
    """Mirrors torch.nn.attention.flex_attention.BlockMask as a type; building one raises."""

    def __init__(self, *args, **kwargs):
        raise _refuse("BlockMask")

    @classmethod
    def from_kv_blocks(cls, kv_num_blocks, kv_indices, full_kv_num_blocks=None, full_kv_indices=None,
                       BLOCK_SIZE=_DEFAULT_SPARSE_BLOCK_SIZE, mask_mod=None, seq_lengths=None,
                       compute_q_blocks=True):
        raise _refuse("BlockMask.from_kv_blocks")


def flex_attention(query, key, value, score_mod=None, block_mask=None, scale=None, enable_gqa=False,
                   return_lse=False, kernel_options=None, *, return_aux=None):
    raise _refuse("flex_attention")


def create_block_mask(mask_mod, B, H, Q_LEN, KV_LEN, device="cuda", BLOCK_SIZE=_DEFAULT_SPARSE_BLOCK_SIZE,
                      _compile=False):
    raise _refuse("create_block_mask")


def create_mask(mod_fn, B, H, Q_LEN, KV_LEN, device="cuda"):
    raise _refuse("create_mask")


def noop_mask(batch, head, token_q, token_kv):
    """Mirrors torch.nn.attention.flex_attention.noop_mask: every position attends."""
    from ..._dtype import bool_ as _bool
    return batch.new_ones(size=(), dtype=_bool, device=batch.device)


def or_masks(*mask_mods):
    """Mirrors torch.nn.attention.flex_attention.or_masks."""
    if not all(callable(arg) for arg in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def or_mask(b, h, q_idx, kv_idx):
        from ..._dtype import bool_ as _bool
        result = b.new_zeros((), dtype=_bool)
        for mask in mask_mods:
            result = result | mask(b, h, q_idx, kv_idx)
        return result
    return or_mask


def and_masks(*mask_mods):
    """Mirrors torch.nn.attention.flex_attention.and_masks."""
    if not all(callable(arg) for arg in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def and_mask(b, h, q_idx, kv_idx):
        from ..._dtype import bool_ as _bool
        result = b.new_ones((), dtype=_bool)
        for mask in mask_mods:
            result = result & mask(b, h, q_idx, kv_idx)
        return result
    return and_mask


for _name in ("flex_attention", "create_block_mask", "create_mask"):
    unsupported(f"nn.attention.flex_attention.{_name}", REASON)
