"""torch.ao.quantization.fx: the decomposed quantize/dequantize operators (``_decomposed``), which exporters
import to register ``torch.ops.quantized_decomposed``. FX graph-mode quantization (``prepare_fx``/``convert_fx``)
is not provided (see torch.ao.quantization)."""
