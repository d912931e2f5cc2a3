"""torch.utils.tensorboard.SummaryWriter / FileWriter on tensorboard's ``EventFileWriter``.

The event files are tensorboard's own (its writer, queue and flushing thread); what mstorch adds is the
conversion of its tensors into tensorboard's summary protos (``summary.py``). Methods torch builds on parts of
torch mstorch has no counterpart for raise ``NotImplementedError`` naming the reason (docs/known-differences.md).
"""
import os
import socket
import time
from datetime import datetime

from tensorboard.compat.proto import event_pb2
from tensorboard.compat.proto.event_pb2 import Event, SessionLog
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from .summary import histogram, histogram_raw, hparams, image, scalar, text

__all__ = ["FileWriter", "SummaryWriter"]


class FileWriter:
    """Mirrors torch.utils.tensorboard.writer.FileWriter: events into one event file of ``log_dir``."""

    def __init__(self, log_dir, max_queue=10, flush_secs=120, filename_suffix=""):
        self.event_writer = EventFileWriter(str(log_dir), max_queue, flush_secs, filename_suffix)

    def get_logdir(self):
        return self.event_writer.get_logdir()

    def add_event(self, event, step=None, walltime=None):
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary, global_step=None, walltime=None):
        self.add_event(event_pb2.Event(summary=summary), global_step, walltime)

    def add_graph(self, graph_profile, walltime=None):
        raise NotImplementedError(_NO_GRAPH)

    def add_onnx_graph(self, graph, walltime=None):
        raise NotImplementedError(_NO_GRAPH)

    def flush(self):
        self.event_writer.flush()

    def close(self):
        self.event_writer.close()

    def reopen(self):
        self.event_writer.reopen()


_NO_GRAPH = ("torch.utils.tensorboard graphs are not supported by mstorch: torch records a model's graph with "
             "torch.jit.trace (TorchScript), which mstorch does not have")


def _refuse(method, reason):
    def refuse(self, *args, **kwargs):
        raise NotImplementedError(f"torch.utils.tensorboard.SummaryWriter.{method} is not supported by mstorch: "
                                  f"{reason}")
    refuse.__name__ = method
    return refuse


def _default_bins():
    # torch's 'tensorflow' bins: +-1e-12 growing by 10% up to 1e20, and 0
    edges, v = [], 1e-12
    while v < 1e20:
        edges.append(v)
        v *= 1.1
    return [-e for e in reversed(edges)] + [0] + edges


class SummaryWriter:
    """Mirrors torch.utils.tensorboard.SummaryWriter."""

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120, filename_suffix=""):
        if not log_dir:
            log_dir = os.path.join("runs", datetime.now().strftime("%b%d_%H-%M-%S") + "_" + socket.gethostname()
                                   + comment)
        self.log_dir = log_dir
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer = self.all_writers = None
        self._get_file_writer()
        self.default_bins = _default_bins()

    def _get_file_writer(self):
        """The main FileWriter, made again after ``close``."""
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = FileWriter(self.log_dir, self.max_queue, self.flush_secs, self.filename_suffix)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                # TensorBoard hides the events of a crashed run from this step on
                self.file_writer.add_event(Event(step=self.purge_step, file_version="brain.Event:2"))
                self.file_writer.add_event(Event(step=self.purge_step,
                                                 session_log=SessionLog(status=SessionLog.START)))
                self.purge_step = None
        return self.file_writer

    def get_logdir(self):
        return self.log_dir

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        summary = scalar(tag, scalar_value, new_style=new_style, double_precision=double_precision)
        self._get_file_writer().add_summary(summary, global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """One run per key (``<log_dir>/<main_tag>_<key>``), each with the scalar under ``main_tag``."""
        walltime = time.time() if walltime is None else walltime
        root = self._get_file_writer().get_logdir()
        for tag, value in tag_scalar_dict.items():
            run = root + "/" + main_tag.replace("/", "_") + "_" + tag
            writer = self.all_writers.get(run)
            if writer is None:
                writer = self.all_writers[run] = FileWriter(run, self.max_queue, self.flush_secs,
                                                            self.filename_suffix)
            writer.add_summary(scalar(main_tag, value), global_step, walltime)

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None, max_bins=None):
        if isinstance(bins, str) and bins == "tensorflow":
            bins = self.default_bins
        self._get_file_writer().add_summary(histogram(tag, values, bins, max_bins=max_bins), global_step, walltime)

    def add_histogram_raw(self, tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts,  # noqa: A002
                          global_step=None, walltime=None):
        if len(bucket_limits) != len(bucket_counts):
            raise ValueError("len(bucket_limits) != len(bucket_counts), see the document.")
        summary = histogram_raw(tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts)
        self._get_file_writer().add_summary(summary, global_step, walltime)

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"):
        self._get_file_writer().add_summary(image(tag, img_tensor, dataformats=dataformats), global_step, walltime)

    def add_images(self, tag, img_tensor, global_step=None, walltime=None, dataformats="NCHW"):
        self._get_file_writer().add_summary(image(tag, img_tensor, dataformats=dataformats), global_step, walltime)

    def add_figure(self, tag, figure, global_step=None, close=True, walltime=None):
        """A matplotlib figure (or a list of them) rendered to an image, as torch does (needs matplotlib)."""
        if isinstance(figure, list):
            self.add_image(tag, _figure_to_image(figure, close), global_step, walltime, dataformats="NCHW")
        else:
            self.add_image(tag, _figure_to_image(figure, close), global_step, walltime, dataformats="CHW")

    def add_hparams(self, hparam_dict, metric_dict, hparam_domain_discrete=None, run_name=None, global_step=None):
        """The hyperparameters and metrics of one run, in a sub-run ``run_name`` (default: the time now)."""
        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        summaries = hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        logdir = os.path.join(self._get_file_writer().get_logdir(), run_name or str(time.time()))
        with SummaryWriter(log_dir=logdir) as run:
            for summary in summaries:
                run.file_writer.add_summary(summary, global_step)
            for k, v in metric_dict.items():
                run.add_scalar(k, v, global_step)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        self._get_file_writer().add_summary(text(tag, text_string), global_step, walltime)

    def add_graph(self, model, input_to_model=None, verbose=False, use_strict_trace=True):
        raise NotImplementedError(_NO_GRAPH)

    add_onnx_graph = _refuse("add_onnx_graph", "it reads ONNX graphs with torch's ONNX protobuf bindings")
    add_tensor = _refuse("add_tensor", "not implemented yet (issue 16)")
    add_image_with_boxes = _refuse("add_image_with_boxes", "not implemented yet (issue 16)")
    add_video = _refuse("add_video", "not implemented yet (issue 16; torch needs moviepy)")
    add_audio = _refuse("add_audio", "not implemented yet (issue 16)")
    add_embedding = _refuse("add_embedding", "not implemented yet (issue 16)")
    add_pr_curve = _refuse("add_pr_curve", "not implemented yet (issue 16)")
    add_pr_curve_raw = _refuse("add_pr_curve_raw", "not implemented yet (issue 16)")
    add_custom_scalars = _refuse("add_custom_scalars", "not implemented yet (issue 16)")
    add_custom_scalars_multilinechart = _refuse("add_custom_scalars_multilinechart", "not implemented yet (issue 16)")
    add_custom_scalars_marginchart = _refuse("add_custom_scalars_marginchart", "not implemented yet (issue 16)")
    add_mesh = _refuse("add_mesh", "not implemented yet (issue 16)")

    def flush(self):
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()

    def close(self):
        if self.all_writers is None:
            return   # (a second close does nothing)
        for writer in self.all_writers.values():
            writer.flush()
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.close()


def _figure_to_image(figures, close=True):
    """matplotlib figure(s) as CHW (or NCHW) uint8 RGB arrays."""
    import numpy as np
    import matplotlib.backends.backend_agg as plt_backend_agg
    import matplotlib.pyplot as plt

    def render(figure):
        canvas = plt_backend_agg.FigureCanvasAgg(figure)
        canvas.draw()
        rgba = np.frombuffer(canvas.buffer_rgba(), dtype=np.uint8)
        w, h = figure.canvas.get_width_height()
        chw = np.moveaxis(rgba.reshape([h, w, 4])[:, :, 0:3], source=2, destination=0)
        if close:
            plt.close(figure)
        return chw

    if isinstance(figures, list):
        return np.stack([render(f) for f in figures])
    return render(figures)
