"""Summary protos of torch.utils.tensorboard.summary (scalar, histogram, image, text), built from mstorch
tensors or NumPy arrays with tensorboard's proto classes. The layouts are torch's (read in torch's writer):
the same bins, trimming, colour handling and PNG encoding, so TensorBoard shows the same thing."""
import io

import numpy as np
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData

from ..._tensor import Tensor
from ... import _dtype as D

__all__ = ["scalar", "histogram", "histogram_raw", "image", "text", "hparams", "make_np"]


def make_np(x):
    """A NumPy array of a tensor (bfloat16 through float16, as torch), an array, or a Python scalar."""
    if isinstance(x, np.ndarray):
        return x
    if np.isscalar(x):
        return np.array([x])
    if isinstance(x, Tensor):
        if x.is_meta:
            return np.random.randn(1)
        if x.dtype == D.bfloat16:
            x = x.to(D.float16)
        return x.detach().cpu().numpy()
    raise NotImplementedError(f"Got {type(x)}, but numpy array or torch tensor are expected.")


def scalar(name, tensor, collections=None, new_style=False, double_precision=False):
    value = make_np(tensor).squeeze()
    if value.ndim != 0:
        raise AssertionError(f"Tensor should contain one element (0 dimensions). Was given size: {value.size} and "
                             f"{value.ndim} dimensions.")
    value = float(value)
    if not new_style:
        return Summary(value=[Summary.Value(tag=name, simple_value=value)])
    proto = (TensorProto(double_val=[value], dtype="DT_DOUBLE") if double_precision
             else TensorProto(float_val=[value], dtype="DT_FLOAT"))
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
    return Summary(value=[Summary.Value(tag=name, tensor=proto, metadata=meta)])


def _merge_bins(counts, limits, max_bins):
    """Neighbouring bins summed so that at most about ``max_bins`` remain (torch's subsampling)."""
    step = len(counts) // max_bins
    short = len(counts) % step
    if short:
        counts = np.concatenate([counts, np.zeros(step - short, counts.dtype)])
    counts = counts.reshape(-1, step).sum(axis=-1)
    merged = np.empty(counts.size + 1, limits.dtype)
    merged[:-1] = limits[:-1:step]
    merged[-1] = limits[-1]
    return counts, merged


def make_histogram(values, bins, max_bins=None):
    if values.size == 0:
        raise ValueError("The input has no element.")
    values = values.reshape(-1)
    counts, limits = np.histogram(values, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        counts, limits = _merge_bins(counts, limits, max_bins)
    # only the span from the first to the last non-empty bin is kept, with one empty bin before it
    filled = np.flatnonzero(counts)
    if filled.size == 0:
        raise ValueError("The histogram is empty, please file a bug report.")
    first, last = int(filled[0]), int(filled[-1])
    if first > 0:
        counts, limits = counts[first - 1:last + 1], limits[first:last + 2]
    else:
        counts, limits = np.concatenate([[0], counts[:last + 1]]), limits[:last + 2]
    return HistogramProto(min=values.min(), max=values.max(), num=len(values), sum=values.sum(),
                          sum_squares=values.dot(values), bucket_limit=limits.tolist(), bucket=counts.tolist())


def histogram(name, values, bins, max_bins=None):
    hist = make_histogram(make_np(values).astype(float), bins, max_bins)
    return Summary(value=[Summary.Value(tag=name, histo=hist)])


def histogram_raw(name, min, max, num, sum, sum_squares, bucket_limits, bucket_counts):  # noqa: A002 (torch's names)
    hist = HistogramProto(min=min, max=max, num=num, sum=sum, sum_squares=sum_squares, bucket_limit=bucket_limits,
                          bucket=bucket_counts)
    return Summary(value=[Summary.Value(tag=name, histo=hist)])


def _grid(images, ncols=8):
    """N1HW / N3HW images tiled into one 3HW canvas, ``ncols`` per row, row by row."""
    if images.shape[1] == 1:
        images = np.concatenate([images] * 3, 1)
    if images.ndim != 4 or images.shape[1] != 3:
        raise AssertionError("Input should be a 4D numpy array with 3 channels")
    n, _, h, w = images.shape
    ncols = min(n, ncols)
    nrows = -(-n // ncols)
    canvas = np.zeros((3, h * nrows, w * ncols), dtype=images.dtype)
    for i in range(n):
        y, x = divmod(i, ncols)
        canvas[:, y * h:(y + 1) * h, x * w:(x + 1) * w] = images[i]
    return canvas


def convert_to_HWC(tensor, input_format):  # noqa: N802 (torch's name)
    if len(set(input_format)) != len(input_format):
        raise AssertionError(f"You can not use the same dimension shorthand twice. input_format: {input_format}")
    if tensor.ndim != len(input_format):
        raise AssertionError(f"size of input tensor and input format are different. tensor shape: {tensor.shape}, "
                             f"input_format: {input_format}")
    fmt = input_format.upper()
    if len(fmt) == 4:
        return _grid(tensor.transpose([fmt.find(c) for c in "NCHW"])).transpose(1, 2, 0)
    if len(fmt) == 3:
        hwc = tensor.transpose([fmt.find(c) for c in "HWC"])
        return np.concatenate([hwc] * 3, 2) if hwc.shape[2] == 1 else hwc
    if len(fmt) == 2:
        return np.stack([tensor.transpose([fmt.find(c) for c in "HW"])] * 3, 2)
    return tensor


def make_image(tensor, rescale=1):
    from PIL import Image
    height, width, channels = tensor.shape
    picture = Image.fromarray(tensor).resize((int(width * rescale), int(height * rescale)),
                                             Image.Resampling.LANCZOS)
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG")
    return Summary.Image(height=height, width=width, colorspace=channels, encoded_image_string=buffer.getvalue())


def image(tag, tensor, rescale=1, dataformats="NCHW"):
    array = convert_to_HWC(make_np(tensor), dataformats)
    scale = 1 if array.dtype == np.uint8 else 255   # (floats are taken as [0, 1])
    array = (array.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)
    return Summary(value=[Summary.Value(tag=tag, image=make_image(array, rescale=rescale))])


def text(tag, text):
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(
        plugin_name="text", content=TextPluginData(version=0).SerializeToString()))
    proto = TensorProto(dtype="DT_STRING", string_val=[text.encode(encoding="utf_8")],
                        tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]))
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=meta, tensor=proto)])


def _plugin_summary(tag, plugin_name, content):
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name=plugin_name,
                                                                  content=content.SerializeToString()))
    return Summary(value=[Summary.Value(tag=tag, metadata=meta)])


def hparams(hparam_dict=None, metric_dict=None, hparam_domain_discrete=None):
    """The hparams plugin's three summaries (experiment, session start, session end), laid out as torch's:
    numbers (bools among them, as torch tests int first) and 0-d tensors as float64, strings as strings."""
    from google.protobuf import struct_pb2
    from tensorboard.plugins.hparams.api_pb2 import DataType, Experiment, HParamInfo, MetricInfo, MetricName, Status
    from tensorboard.plugins.hparams.metadata import (EXPERIMENT_TAG, PLUGIN_DATA_VERSION, PLUGIN_NAME,
                                                      SESSION_END_INFO_TAG, SESSION_START_INFO_TAG)
    from tensorboard.plugins.hparams.plugin_data_pb2 import HParamsPluginData, SessionEndInfo, SessionStartInfo

    if not isinstance(hparam_dict, dict):
        raise TypeError("parameter: hparam_dict should be a dictionary, nothing logged.")
    if not isinstance(metric_dict, dict):
        raise TypeError("parameter: metric_dict should be a dictionary, nothing logged.")
    domains = hparam_domain_discrete or {}
    if not isinstance(domains, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing logged.")
    for k, v in domains.items():
        if k not in hparam_dict or not isinstance(v, list) or not all(isinstance(d, type(hparam_dict[k])) for d in v):
            raise TypeError(f"parameter: hparam_domain_discrete[{k}] should be a list of same type as "
                            f"hparam_dict[{k}].")
    infos, start = [], SessionStartInfo()
    for k, v in hparam_dict.items():
        if v is None:
            continue
        if isinstance(v, (int, float)):
            field, kind = "number_value", "DATA_TYPE_FLOAT64"
        elif isinstance(v, str):
            field, kind = "string_value", "DATA_TYPE_STRING"
        elif isinstance(v, Tensor):
            v, field, kind = make_np(v)[0], "number_value", "DATA_TYPE_FLOAT64"
            domains = {n: d for n, d in domains.items() if n != k}   # (torch gives a tensor no domain)
        else:
            raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")
        setattr(start.hparams[k], field, v)
        domain = (struct_pb2.ListValue(values=[struct_pb2.Value(**{field: d}) for d in domains[k]])
                  if k in domains else None)
        infos.append(HParamInfo(name=k, type=DataType.Value(kind), domain_discrete=domain))
    experiment = Experiment(hparam_infos=infos, metric_infos=[MetricInfo(name=MetricName(tag=k)) for k in metric_dict])
    end = SessionEndInfo(status=Status.Value("STATUS_SUCCESS"))
    return (_plugin_summary(EXPERIMENT_TAG, PLUGIN_NAME,
                            HParamsPluginData(experiment=experiment, version=PLUGIN_DATA_VERSION)),
            _plugin_summary(SESSION_START_INFO_TAG, PLUGIN_NAME,
                            HParamsPluginData(session_start_info=start, version=PLUGIN_DATA_VERSION)),
            _plugin_summary(SESSION_END_INFO_TAG, PLUGIN_NAME,
                            HParamsPluginData(session_end_info=end, version=PLUGIN_DATA_VERSION)))
