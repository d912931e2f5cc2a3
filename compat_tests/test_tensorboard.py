"""torch.utils.tensorboard.SummaryWriter compared with torch's: the same calls write the same events (summary
protos byte for byte, steps, runs), read back with tensorboard's own event-file reader."""
import glob
import os

import numpy as np
import pytest

pytest.importorskip("tensorboard")
from tensorboard.backend.event_processing.event_file_loader import LegacyEventFileLoader  # noqa: E402
from tensorboard.compat.proto import event_pb2  # noqa: E402

import torch  # noqa: E402
import mstorch  # noqa: E402


def _events(root):
    """{run (relative dir): [(step, file_version, session_log status, summary bytes)]}"""
    runs = {}
    for path in sorted(glob.glob(os.path.join(root, "**", "events.out.tfevents.*"), recursive=True)):
        run = os.path.relpath(os.path.dirname(path), root)
        events = []
        for ev in LegacyEventFileLoader(path).Load():
            events.append((ev.step, ev.file_version, ev.session_log.status if ev.HasField("session_log") else None,
                           ev.summary.SerializeToString()))
        runs.setdefault(run, []).extend(events)
    return runs


def _write(T, root, script):
    tb = __import__(f"{T.__name__}.utils.tensorboard", fromlist=["SummaryWriter"])
    script(T, tb.SummaryWriter, os.path.join(root, T.__name__))
    return _events(os.path.join(root, T.__name__))


def _same(tmp_path, script):
    ref, got = _write(torch, str(tmp_path), script), _write(mstorch, str(tmp_path), script)
    assert sorted(ref) == sorted(got)
    for run in ref:
        assert len(ref[run]) == len(got[run]), run
        for i, (r, g) in enumerate(zip(ref[run], got[run])):
            if r != g:
                a, b = event_pb2.Event(), event_pb2.Event()
                a.summary.ParseFromString(r[3])
                b.summary.ParseFromString(g[3])
                raise AssertionError(f"{run} event {i}:\ntorch:   {r[:3]} {a.summary}\nmstorch: {g[:3]} {b.summary}")
    return ref


def test_scalars(tmp_path):
    def script(T, SummaryWriter, d):
        with SummaryWriter(d) as w:
            for step in range(3):
                w.add_scalar("loss/train", 1.0 / (step + 1), step)
                w.add_scalar("acc", T.tensor(0.25 * step), step, new_style=True)
                w.add_scalar("lr", np.float64(0.1), step, new_style=True, double_precision=True)
            w.add_scalars("run/cmp", {"a": 1.5, "b": T.tensor([2.5])}, 7)
            w.add_scalars("run/cmp", {"a": 3.0}, 8)
    assert len(_same(tmp_path, script)) == 3


def test_histograms(tmp_path):
    def script(T, SummaryWriter, d):
        with SummaryWriter(d, purge_step=4) as w:
            w.add_histogram("w", T.tensor(np.linspace(-3, 5, 101, dtype=np.float32)), 1)
            w.add_histogram("w2", T.tensor([[0.5, 0.5], [2.0, -1e-9]], dtype=T.float64), 2, bins="auto")
            w.add_histogram("w3", np.arange(20.), 3, bins=10, max_bins=3)
            w.add_histogram("int", T.arange(7), 4)
            w.add_histogram("bf16", T.tensor([1.0, 2.0, 3.0]).to(T.bfloat16), 5)
            w.add_histogram_raw("raw", 0.0, 3.0, 4, 6.0, 14.0, [1.0, 2.0, 3.0], [1, 2, 1], 6)
    _same(tmp_path, script)


def test_images_and_text(tmp_path):
    rng = np.random.default_rng(0)
    chw = rng.random((3, 5, 6), dtype=np.float32)
    batch = rng.random((10, 1, 4, 3), dtype=np.float32)

    def script(T, SummaryWriter, d):
        with SummaryWriter(d) as w:
            w.add_image("chw", T.tensor(chw), 0)
            w.add_image("hw", T.tensor(chw[0]), 1, dataformats="HW")
            w.add_image("hwc_u8", T.tensor((chw.transpose(1, 2, 0) * 255).astype(np.uint8)), 2, dataformats="HWC")
            w.add_images("batch", T.tensor(batch), 3)
            w.add_text("note", "hello **world**", 4)
    _same(tmp_path, script)


def test_errors_as_torch():
    for T in (torch, mstorch):
        tb = __import__(f"{T.__name__}.utils.tensorboard.summary", fromlist=["scalar"])
        with pytest.raises(AssertionError):
            tb.scalar("x", T.ones(2))
        with pytest.raises(ValueError):
            tb.histogram("x", T.ones(0), bins=3)


def test_graph_refused_by_name(tmp_path):
    from mstorch.utils.tensorboard import SummaryWriter
    with SummaryWriter(str(tmp_path)) as w:
        with pytest.raises(NotImplementedError, match="add_graph|torch.jit.trace"):
            w.add_graph(mstorch.nn.Linear(2, 2), mstorch.ones(1, 2))


def test_hparams(tmp_path):
    def script(T, SummaryWriter, d):
        with SummaryWriter(d) as w:
            w.add_hparams({"lr": 0.1, "bs": 32, "opt": "adam", "nesterov": True, "wd": T.tensor([0.5]), "skip": None},
                          {"hparam/acc": 0.9, "hparam/loss": T.tensor(0.25)},
                          hparam_domain_discrete={"opt": ["adam", "sgd"], "bs": [16, 32]}, run_name="r1",
                          global_step=3)
    runs = _same(tmp_path, script)
    assert sorted(runs) == [".", "r1"]
    for T in (torch, mstorch):
        tb = __import__(f"{T.__name__}.utils.tensorboard.summary", fromlist=["hparams"])
        with pytest.raises(TypeError):
            tb.hparams({"a": 1}, {"m": 1}, {"a": ["x"]})
        with pytest.raises(ValueError):
            tb.hparams({"a": [1]}, {"m": 1})
