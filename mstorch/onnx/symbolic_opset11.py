"""torch.onnx.symbolic_opset11: ONNX symbolic functions, used by custom symbolics that libraries register
(torchvision's nms and roi_align). They build ONNX graphs inside the TorchScript exporter, which mstorch does
not have: importing works, calling one raises."""


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)

    def symbolic(*args, **kwargs):
        raise NotImplementedError(f"torch.onnx.symbolic_opset11.{name}: mstorch has no TorchScript ONNX exporter "
                                  "(torch.onnx.export is not supported)")
    symbolic.__name__ = name
    return symbolic
