"""torch.utils._sympy: the sympy value ranges torch.export's symbolic shapes are reasoned about with. Only
exporters read them (transformers' ExecuTorch exporter imports ``IntInfinity`` and ``ValueRanges`` at module
level beside torch.export); mstorch has no symbolic shapes, so the types exist (imports, annotations,
``isinstance``) and making one raises with the reason, as ``torch.export.ExportedProgram`` does."""

REASON = ("mstorch has no symbolic shapes: the sympy value ranges of torch.export's shape reasoning exist only "
          "for an exporter, and torch.export is not supported (see torch.export)")


def refusing_type(qualname, doc):
    """A class standing for ``torch.utils._sympy.<qualname>`` whose construction raises with REASON."""
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(f"torch.utils._sympy.{qualname} is not supported by mstorch: {REASON}")

    module, name = qualname.rsplit(".", 1)
    return type(name, (), {"__init__": __init__, "__doc__": doc, "__module__": f"torch.utils._sympy.{module}",
                           "mstorch_difference": "the type exists for imports and isinstance checks; making one "
                                                 "raises (no symbolic shapes)"})
