"""Mirrors torch.utils.data.datapipes._decorator.functional_datapipe."""


class functional_datapipe:  # noqa: N801 - torch's name
    """``@functional_datapipe("shuffle")`` on a DataPipe class makes ``dp.shuffle(...)`` build it over ``dp``."""

    name: str

    def __init__(self, name, enable_df_api_tracing=False):
        self.name = name
        self.enable_df_api_tracing = enable_df_api_tracing

    def __call__(self, cls):
        from .datapipe import IterDataPipe, MapDataPipe
        if issubclass(cls, IterDataPipe):
            IterDataPipe.register_datapipe_as_function(self.name, cls)
        elif issubclass(cls, MapDataPipe):
            MapDataPipe.register_datapipe_as_function(self.name, cls)
        else:
            raise TypeError("`functional_datapipe` can only decorate IterDataPipe or MapDataPipe")
        return cls
