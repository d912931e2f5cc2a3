"""torch.save / torch.load against real torch: files cross both ways, bit for bit."""
import collections
import copy
import io
import os
import pathlib
import pickle
import subprocess
import sys
import zipfile

import numpy as np
import pytest
import torch

import mstorch

DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "bool",
          "complex64", "complex128", "uint16"]
SHAPES = [(), (0,), (2, 3), (3, 0, 2)]


def _random_torch(dtype, shape, seed):
    """Arbitrary bits (NaN payloads, subnormals, infinities included) of ``dtype``."""
    dt = getattr(torch, dtype)
    n = int(np.prod(shape))
    rng = np.random.default_rng(seed)
    if n == 0:
        return torch.empty(shape, dtype=dt)
    if dt is torch.bool:
        return torch.from_numpy(rng.integers(0, 2, n).astype(bool)).reshape(shape)
    raw = rng.integers(0, 256, n * dt.itemsize, dtype=np.uint8)
    return torch.from_numpy(raw).view(dt).reshape(shape)


def _bits(t):
    return t.detach().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()


def _assert_bits(ref, got, path):
    assert isinstance(got, torch.Tensor), path
    assert ref.dtype == got.dtype and ref.shape == got.shape, (
        f"{path}: {ref.dtype}{list(ref.shape)} vs {got.dtype}{list(got.shape)}")
    assert _bits(ref) == _bits(got), path


def _host(t):
    """Host values of a tensor of either library (bfloat16 as float32, exact)."""
    t = t.detach()
    return (t.float() if t.dtype in (torch.bfloat16, mstorch.bfloat16) else t).numpy()


def _assert_same(ref, got, path="obj"):
    """``ref`` from torch, ``got`` from mstorch: same structure, types, dtypes and values."""
    if isinstance(ref, torch.Tensor):
        assert isinstance(got, mstorch.Tensor), f"{path}: {type(got)}"
        assert repr(ref.dtype) == repr(got.dtype) and tuple(ref.shape) == tuple(got.shape), (
            f"{path}: {ref.dtype}{list(ref.shape)} vs {got.dtype}{list(got.shape)}")
        assert ref.requires_grad == got.requires_grad, path
        a, b = _host(ref), _host(got)
        assert a.tobytes() == b.tobytes() if ref.dtype != torch.bfloat16 else np.array_equal(a, b, equal_nan=True), path
        return
    if isinstance(ref, (torch.dtype, torch.device, torch.Size)):
        assert repr(ref) == repr(got), f"{path}: {ref!r} vs {got!r}"
        return
    assert type(ref) is type(got), f"{path}: {type(ref)} vs {type(got)}"
    if isinstance(ref, dict):
        assert list(ref) == list(got), path
        for k in ref:
            _assert_same(ref[k], got[k], f"{path}[{k!r}]")
        assert getattr(ref, "_metadata", None) == getattr(got, "_metadata", None), path
    elif isinstance(ref, (list, tuple)):
        assert len(ref) == len(got), path
        for i, (r, g) in enumerate(zip(ref, got)):
            _assert_same(r, g, f"{path}[{i}]")
    else:
        assert ref == got, f"{path}: {ref!r} vs {got!r}"


def _saved(T, obj, **kw):
    buf = io.BytesIO()
    T.save(obj, buf, **kw)
    return buf.getvalue()


def _to_mstorch(t):
    """The same values as an mstorch tensor (built from NumPy, not through serialization)."""
    if t.dtype == torch.bfloat16:
        return mstorch.tensor(t.float().numpy()).to(mstorch.bfloat16)
    return mstorch.from_numpy(t.numpy().copy())


# --- tensors of every dtype and shape -------------------------------------------------------------------

def _tensor_matrix():
    out = {}
    for i, dt in enumerate(DTYPES):
        for j, shape in enumerate(SHAPES):
            out[f"{dt}{list(shape)}"] = _random_torch(dt, shape, seed=10 * i + j)
    out["large"] = _random_torch("float32", (256, 512), seed=99)
    return out


def test_every_dtype_torch_to_mstorch_to_torch_bit_exact():
    ref = _tensor_matrix()
    loaded = mstorch.load(io.BytesIO(_saved(torch, ref)))
    _assert_same(ref, loaded)
    back = torch.load(io.BytesIO(_saved(mstorch, loaded)))  # weights_only=True in torch
    for k in ref:
        _assert_bits(ref[k], back[k], k)


def test_every_dtype_mstorch_to_torch():
    ref = _tensor_matrix()
    ours = {k: _to_mstorch(t) for k, t in ref.items()}
    got = torch.load(io.BytesIO(_saved(mstorch, ours)), weights_only=True)
    for k, t in ref.items():
        if t.dtype == torch.bfloat16:  # built through float32: compare values (NaN payloads may differ)
            assert got[k].dtype == torch.bfloat16 and got[k].shape == t.shape
            assert np.array_equal(got[k].float().numpy(), t.float().numpy(), equal_nan=True), k
        else:
            _assert_bits(t, got[k], k)


def test_file_matches_torch_byte_for_byte():
    def build(T):
        a = T.arange(12, dtype=T.float32).reshape(3, 4)
        sd = collections.OrderedDict(w=a, v=a.t(), r=a[1], e=T.empty(0), h=T.tensor([1.5], dtype=T.float16),
                                     u=T.tensor([7], dtype=T.uint16), c=T.tensor([1 + 2j]), s=T.tensor(3),
                                     p=T.nn.Parameter(T.ones(2)), d=T.float64, z=T.Size([2]))
        sd._metadata = {"": {"version": 1}}
        return sd
    ours, theirs = _saved(mstorch, build(mstorch)), _saved(torch, build(torch))
    za, zb = zipfile.ZipFile(io.BytesIO(ours)), zipfile.ZipFile(io.BytesIO(theirs))
    assert [(i.filename, i.header_offset, i.file_size) for i in za.infolist()] == \
           [(i.filename, i.header_offset, i.file_size) for i in zb.infolist()]
    # everything up to the serialization id (torch's is a hash of its own) is identical
    sid = za.getinfo("archive/.data/serialization_id").header_offset
    assert ours[:sid] == theirs[:sid]


# --- shared and non-contiguous storages --------------------------------------------------------------

def _views(T):
    base = T.arange(24, dtype=T.float32).reshape(4, 6)
    return {"base": base, "again": base, "t": base.t(), "row": base[2], "col": base[:, 1], "step": base[::2, 1::2],
            "flat": base.view(-1), "other": T.arange(5, dtype=T.int64)}


def test_shared_and_strided_torch_to_mstorch():
    ref = _views(torch)
    got = mstorch.load(io.BytesIO(_saved(torch, ref)))
    _assert_same(ref, got)
    assert got["again"] is got["base"]


def test_shared_views_saved_once_and_shared_in_torch():
    data = _saved(mstorch, _views(mstorch))
    records = [n for n in zipfile.ZipFile(io.BytesIO(data)).namelist() if "/data/" in n]
    assert len(records) == 2  # the views' base once, plus "other"
    got = torch.load(io.BytesIO(data))
    ref = _views(torch)
    for k in ref:
        _assert_bits(ref[k], got[k], k)
    ptr = got["base"].untyped_storage().data_ptr()
    assert all(got[k].untyped_storage().data_ptr() == ptr for k in ("t", "row", "col", "step", "flat"))
    assert got["t"].stride() == (1, 6) and got["col"].storage_offset() == 1
    assert got["again"] is got["base"]


# --- containers and Python values ---------------------------------------------------------------------

def _containers(T):
    od = collections.OrderedDict([("b", T.ones(2)), ("a", [1, 2.5, "x"])])
    od._metadata = {"": {"version": 2}, "sub": {"version": 1}}
    return {"od": od, "list": [T.zeros(1, dtype=T.int32), None, True], "tuple": (1, (2, (3,))),
            "nested": {"x": {"y": [T.tensor(2.0), {"z": T.tensor([1, 2], dtype=T.uint8)}]}},
            "ints": [0, -1, 255, 256, 65535, 2**31, -2**31 - 1, 2**70], "floats": [0.5, -0.0, float("inf")],
            "str": "naïve ✓", "none": None, "bytes": b"\x00\xff", "set": {1, 2}, "complex": 1 - 2j,
            "size": T.Size([3, 4]), "dtype": T.bfloat16, "dev": T.device("cpu"), "counter": collections.Counter("aab")}


def test_containers_torch_to_mstorch():
    _assert_same(_containers(torch), mstorch.load(io.BytesIO(_saved(torch, _containers(torch)))))


def test_containers_mstorch_to_torch():
    got = torch.load(io.BytesIO(_saved(mstorch, _containers(mstorch))))
    back = mstorch.load(io.BytesIO(_saved(torch, got)))
    _assert_same(got, back)
    _assert_same(_containers(torch), back)


# --- models ------------------------------------------------------------------------------------------

def _torch_mlp():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Linear(3, 2))


def _mstorch_mlp():
    return mstorch.nn.Sequential(mstorch.nn.Linear(4, 3), mstorch.nn.Linear(3, 2))


X = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)


def test_state_dict_both_ways():
    tm = _torch_mlp()
    mm = _mstorch_mlp()
    sd = mstorch.load(io.BytesIO(_saved(torch, tm.state_dict())))
    _assert_same(tm.state_dict(), sd)
    mm.load_state_dict(sd)
    np.testing.assert_allclose(mm(mstorch.tensor(X)).detach().numpy(), tm(torch.tensor(X)).detach().numpy(),
                               rtol=1e-6)
    mm2 = _mstorch_mlp()
    tm2 = _torch_mlp()
    tm2.load_state_dict(torch.load(io.BytesIO(_saved(mstorch, mm2.state_dict()))))
    # (mm2's weights depend on the RNG state earlier tests left: an output may lie near 0)
    np.testing.assert_allclose(mm2(mstorch.tensor(X)).detach().numpy(), tm2(torch.tensor(X)).detach().numpy(),
                               rtol=1e-6, atol=1e-7)


def test_whole_module_from_torch():
    tm = _torch_mlp()
    data = _saved(torch, tm)
    mm = mstorch.load(io.BytesIO(data), weights_only=False)
    assert type(mm) is mstorch.nn.Sequential and type(mm[0]) is mstorch.nn.Linear
    assert isinstance(mm[0].weight, mstorch.nn.Parameter) and mm.training
    np.testing.assert_allclose(mm(mstorch.tensor(X)).detach().numpy(), tm(torch.tensor(X)).detach().numpy(),
                               rtol=1e-6)


def test_whole_module_mstorch_round_trip_and_into_torch():
    mm = _mstorch_mlp()
    data = _saved(mstorch, mm)
    back = mstorch.load(io.BytesIO(data), weights_only=False)
    assert type(back) is mstorch.nn.Sequential
    np.testing.assert_allclose(back(mstorch.tensor(X)).detach().numpy(), mm(mstorch.tensor(X)).detach().numpy())
    tm = torch.load(io.BytesIO(data), weights_only=False)
    assert type(tm) is torch.nn.Sequential and type(tm[1]) is torch.nn.Linear
    # the weights cross bit-exactly; forward outputs differ only by the two libraries' kernels
    for (k, a), (k2, b) in zip(tm.state_dict().items(), mm.state_dict().items()):
        assert k == k2
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    np.testing.assert_allclose(tm(torch.tensor(X)).detach().numpy(), mm(mstorch.tensor(X)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)


def test_whole_module_refused_by_default_with_torch_message():
    data = _saved(torch, _torch_mlp())
    with pytest.raises(pickle.UnpicklingError) as ref:
        torch.load(io.BytesIO(data))
    with pytest.raises(pickle.UnpicklingError) as got:
        mstorch.load(io.BytesIO(data))
    assert str(got.value) == str(ref.value)
    assert "GLOBAL torch.nn.modules.container.Sequential was not an allowed global" in str(got.value)


def test_parameters_and_tensor_attributes():
    p = torch.nn.Parameter(torch.arange(3.0))
    frozen = torch.nn.Parameter(torch.ones(1), requires_grad=False)
    t = torch.ones(2)
    t.note = "hi"
    ref = {"p": p, "frozen": frozen, "t": t, "grad": torch.ones(2, requires_grad=True)}
    got = mstorch.load(io.BytesIO(_saved(torch, ref)))
    assert isinstance(got["p"], mstorch.nn.Parameter) and got["p"].requires_grad
    assert isinstance(got["frozen"], mstorch.nn.Parameter) and not got["frozen"].requires_grad
    assert got["t"].note == "hi" and got["grad"].requires_grad
    back = torch.load(io.BytesIO(_saved(mstorch, got)))
    assert isinstance(back["p"], torch.nn.Parameter) and back["t"].note == "hi"
    assert back["grad"].requires_grad and not back["frozen"].requires_grad


# --- the weights_only unpickler -----------------------------------------------------------------------

class _Exploit:
    def __init__(self, func, *args):
        self.func, self.args = func, args

    def __reduce__(self):
        return (self.func, self.args)


@pytest.mark.parametrize("kind", ["os.system", "subprocess", "eval"])
@pytest.mark.parametrize("fmt", ["zip", "legacy", "raw pickle"])
def test_malicious_pickle_refused_and_nothing_runs(tmp_path, kind, fmt):
    marker = tmp_path / "pwned"
    payload = {"os.system": _Exploit(os.system, f"touch {marker}"),
               "subprocess": _Exploit(subprocess.call, ["touch", str(marker)]),
               "eval": _Exploit(eval, f"open({str(marker)!r}, 'w').close()")}[kind]
    if fmt == "raw pickle":
        data = pickle.dumps({"w": payload}, protocol=2)
    else:
        data = _saved(torch, {"w": torch.ones(1), "x": payload}, _use_new_zipfile_serialization=fmt == "zip")
    with pytest.raises(pickle.UnpicklingError) as got:
        mstorch.load(io.BytesIO(data))
    assert not marker.exists()
    with pytest.raises(pickle.UnpicklingError) as ref:
        torch.load(io.BytesIO(data))
    assert not marker.exists()
    assert str(got.value) == str(ref.value)
    # the payload is real: an unrestricted load runs it
    if fmt == "zip" and kind == "subprocess":
        mstorch.load(io.BytesIO(data), weights_only=False)
        assert marker.exists()


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y


def test_safe_globals_and_unsafe_globals_listing(tmp_path):
    path = tmp_path / "p.pt"
    mstorch.save({"pt": Point(1, 2), "t": mstorch.ones(1)}, path)
    assert mstorch.serialization.get_unsafe_globals_in_checkpoint(path) == \
        torch.serialization.get_unsafe_globals_in_checkpoint(path) == [f"{__name__}.Point"]
    with pytest.raises(pickle.UnpicklingError) as ref:
        torch.load(path)
    with pytest.raises(pickle.UnpicklingError) as got:
        mstorch.load(path)
    assert str(got.value) == str(ref.value)
    with mstorch.serialization.safe_globals([Point]):
        assert mstorch.serialization.get_safe_globals() == [Point]
        assert mstorch.load(path)["pt"].y == 2
    assert mstorch.serialization.get_safe_globals() == []
    mstorch.serialization.add_safe_globals([(Point, f"{__name__}.Point")])
    try:
        assert mstorch.load(path)["pt"].x == 1
        assert mstorch.serialization.get_unsafe_globals_in_checkpoint(path) == []
    finally:
        mstorch.serialization.clear_safe_globals()
    assert mstorch.serialization.get_safe_globals() == []


def test_load_argument_errors(tmp_path):
    data = _saved(torch, {"a": torch.ones(1)})
    for T in (torch, mstorch):
        with pytest.raises(RuntimeError, match="Can not safely load weights when explicit pickle_module"):
            T.load(io.BytesIO(data), pickle_module=pickle, weights_only=True)
        with pytest.raises(ValueError, match="f must be a file path in order to use the mmap argument"):
            T.load(io.BytesIO(data), mmap=True)
    legacy = tmp_path / "legacy.pt"
    torch.save({"a": torch.ones(1)}, legacy, _use_new_zipfile_serialization=False)
    with pytest.raises(RuntimeError) as ref:
        torch.load(legacy, mmap=True)
    with pytest.raises(RuntimeError) as got:
        mstorch.load(legacy, mmap=True)
    assert str(got.value) == str(ref.value)
    for T in (torch, mstorch):
        with pytest.raises(AttributeError, match="expected 'f' to be string, path, or a file-like"):
            T.save({}, 123)


# --- legacy format, files, locations --------------------------------------------------------------------

def test_legacy_format_both_ways():
    ref = dict(_views(torch), half=torch.tensor([1.5, -2], dtype=torch.float16),
               bf=torch.tensor([3.0], dtype=torch.bfloat16), flag=torch.tensor(True))
    data = _saved(torch, ref, _use_new_zipfile_serialization=False)
    _assert_same(ref, mstorch.load(io.BytesIO(data)))
    _assert_same(ref, mstorch.load(io.BytesIO(data), weights_only=False))
    module = _torch_mlp()
    mm = mstorch.load(io.BytesIO(_saved(torch, module, _use_new_zipfile_serialization=False)), weights_only=False)
    np.testing.assert_allclose(mm(mstorch.tensor(X)).detach().numpy(), module(torch.tensor(X)).detach().numpy(),
                               rtol=1e-6)
    back = torch.load(io.BytesIO(_saved(mstorch, _views(mstorch), _use_new_zipfile_serialization=False)))
    for k, t in _views(torch).items():
        _assert_bits(t, back[k], k)


def test_paths_file_objects_and_archive_name(tmp_path):
    obj = {"a": mstorch.arange(3)}
    for target in (str(tmp_path / "m.model.pt"), tmp_path / "p.pt"):
        mstorch.save(obj, target)
        assert torch.load(target)["a"].tolist() == [0, 1, 2]
        assert mstorch.load(pathlib.Path(target))["a"].tolist() == [0, 1, 2]
    names = zipfile.ZipFile(tmp_path / "m.model.pt").namelist()
    torch.save({"a": torch.arange(3)}, tmp_path / "t.model.pt")
    assert [n.replace("m.model/", "") for n in names] == \
           [n.replace("t.model/", "") for n in zipfile.ZipFile(tmp_path / "t.model.pt").namelist()]
    with open(tmp_path / "f.pt", "wb") as f:
        mstorch.save(obj, f)
    with open(tmp_path / "f.pt", "rb") as f:
        assert mstorch.load(f)["a"].tolist() == [0, 1, 2]


def test_mmap(tmp_path):
    path = tmp_path / "m.pt"
    ref = {"a": torch.arange(10.0), "b": torch.arange(6).reshape(2, 3).t(), "h": torch.ones(3, dtype=torch.bfloat16)}
    torch.save(ref, path)
    got = mstorch.load(path, mmap=True)
    _assert_same(ref, got)
    got["a"].add_(1)  # copy-on-write: the file keeps its values
    assert torch.load(path)["a"].tolist() == list(range(10))
    assert got["a"].tolist() == [float(i + 1) for i in range(10)]


def _with_location(data, location):
    """A copy of a checkpoint whose storages claim to live on ``location``."""
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            payload = src.read(info)
            if info.filename.endswith("data.pkl"):
                loc = location.encode()
                payload = payload.replace(b"X\x03\x00\x00\x00cpu", b"X" + len(loc).to_bytes(4, "little") + loc)
            dst.writestr(info.filename, payload)
    return out.getvalue()


def test_map_location():
    data = _with_location(_saved(torch, {"a": torch.arange(3.0)}), "cuda:0")
    with pytest.raises(RuntimeError) as ref:
        torch.load(io.BytesIO(data))
    with pytest.raises(RuntimeError) as got:
        mstorch.load(io.BytesIO(data))
    assert str(got.value) == str(ref.value)
    seen = []
    for loc in ("cpu", mstorch.device("cpu"), {"cuda:0": "cpu"}, lambda s, l: seen.append(l) or s,
                lambda s, l: None if l == "x" else s.cpu()):
        assert mstorch.load(io.BytesIO(data), map_location=loc)["a"].tolist() == [0.0, 1.0, 2.0]
    assert seen == ["cuda:0"]
    for T in (torch, mstorch):
        with pytest.raises(RuntimeError, match="Attempting to deserialize object on a CUDA device"):
            T.load(io.BytesIO(_saved(torch, {"a": torch.ones(1)})), map_location="cuda")


def test_plain_pickle_and_copy():
    t = mstorch.arange(6.0).reshape(2, 3)
    for obj in (t, t.t(), t[1], mstorch.tensor([1.5], dtype=mstorch.bfloat16), mstorch.ones(2, requires_grad=True)):
        for got in (pickle.loads(pickle.dumps(obj)), copy.copy(obj)):
            assert got.dtype == obj.dtype and got.tolist() == obj.tolist()
            assert got.requires_grad == obj.requires_grad
    p = pickle.loads(pickle.dumps(mstorch.nn.Parameter(mstorch.ones(2))))
    assert isinstance(p, mstorch.nn.Parameter) and p.requires_grad


def test_zip64_fields_readable_by_torch(monkeypatch, tmp_path):
    from mstorch._serialization import zipformat
    monkeypatch.setattr(zipformat, "ZIP64_AT", 300)  # as if the file were past 4 GiB
    path = tmp_path / "z.pt"
    mstorch.save({"a": mstorch.arange(100.0), "b": mstorch.arange(3)}, path)
    assert zipfile.ZipFile(path).testzip() is None
    for mmap in (False, True):
        got = torch.load(path, mmap=mmap)
        assert got["a"].tolist() == [float(i) for i in range(100)] and got["b"].tolist() == [0, 1, 2]
    assert mstorch.load(path, mmap=True)["b"].tolist() == [0, 1, 2]


def test_unsupported_dtype_and_non_checkpoint_errors():
    data = _saved(torch, {"f8": torch.zeros(2, dtype=torch.float8_e4m3fn)})
    with pytest.raises(RuntimeError, match="torch.float8_e4m3fn, which mstorch does not support"):
        mstorch.load(io.BytesIO(data))
    for T in (torch, mstorch):
        with pytest.raises(ValueError, match="Expected input to be a checkpoint returned by torch.save"):
            T.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(pickle.dumps([1])))


class _BlockTorch:
    """A meta-path finder that makes ``import torch`` fail, standing in for an environment without it."""

    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            raise ImportError("torch is blocked")


def test_save_and_load_without_torch_installed(tmp_path):
    path = tmp_path / "t.pt"
    torch.save({"w": torch.arange(4.0).reshape(2, 2).t(), "n": 3, "m": _torch_mlp()}, path)
    hidden = {k: sys.modules.pop(k) for k in list(sys.modules) if k == "torch" or k.startswith("torch.")}
    sys.meta_path.insert(0, _BlockTorch())
    try:
        d = mstorch.load(path, weights_only=False)
        e = mstorch.load(io.BytesIO(_saved(mstorch, d)), weights_only=False)
        f = mstorch.load(io.BytesIO(_saved(mstorch, {"w": d["w"]})))
        assert not any(k == "torch" or k.startswith("torch.") for k in sys.modules)
    finally:
        sys.meta_path.pop(0)
        sys.modules.update(hidden)
    assert e["w"].tolist() == f["w"].tolist() == [[0.0, 2.0], [1.0, 3.0]] and e["n"] == 3
    assert type(e["m"]) is mstorch.nn.Sequential


def _adam_checkpoint(T):
    """What Adam's and StepLR's state_dicts hold (torch.optim itself is slow to import)."""
    state = {i: {"step": T.tensor(3.0), "exp_avg": T.full((2, 3), 0.25 * i), "exp_avg_sq": T.full((2, 3), 1e-8)}
             for i in range(2)}
    group = {"lr": 1e-3, "betas": (0.9, 0.99), "eps": 1e-08, "weight_decay": 0, "amsgrad": False, "foreach": None,
             "capturable": False, "differentiable": False, "fused": None, "initial_lr": 1e-3, "params": [0, 1]}
    sched = {"step_size": 3, "gamma": 0.1, "base_lrs": [1e-3], "last_epoch": 2, "_step_count": 3,
             "_last_lr": [1e-3]}
    return {"opt": {"state": state, "param_groups": [group]}, "sched": sched, "epoch": 3}


def test_optimizer_and_scheduler_checkpoint_round_trip():
    ref = _adam_checkpoint(torch)
    got = mstorch.load(io.BytesIO(_saved(torch, ref)))
    _assert_same(ref, got)
    _assert_same(ref, mstorch.load(io.BytesIO(_saved(torch, torch.load(io.BytesIO(_saved(mstorch, got)))))))
    back = torch.load(io.BytesIO(_saved(mstorch, _adam_checkpoint(mstorch))))
    assert back["opt"]["param_groups"] == ref["opt"]["param_groups"] and back["sched"] == ref["sched"]
    for i in range(2):
        for k, t in ref["opt"]["state"][i].items():
            _assert_bits(t, back["opt"]["state"][i][k], k)


# --- whole models holding functions (torch pickles C builtins under their extension-module names) ----------

def _function_models():
    import functools
    F = torch.nn.functional
    torch.manual_seed(0)
    layer = dict(d_model=8, nhead=2, dim_feedforward=16, batch_first=True)
    return {
        "gelu_fn": torch.nn.TransformerEncoderLayer(**layer, activation=F.gelu),  # torch._C._nn.gelu
        "gelu_str_norm_first": torch.nn.TransformerEncoderLayer(**layer, activation="gelu", norm_first=True),
        "partial": torch.nn.TransformerEncoderLayer(**layer, activation=functools.partial(F.gelu, approximate="tanh")),
        "torch_fn": torch.nn.TransformerEncoderLayer(**layer, activation=torch.sigmoid),  # _VariableFunctionsClass
        "method": torch.nn.TransformerEncoderLayer(**layer, activation=torch.Tensor.tanh),  # TensorBase
        "gelu_module": torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.GELU(approximate="tanh"),
                                           torch.nn.Linear(8, 2)),
    }


def test_whole_models_holding_functions_from_torch():
    x = torch.randn(2, 5, 8)
    for name, model in _function_models().items():
        model.eval()
        mm = mstorch.load(io.BytesIO(_saved(torch, model)), weights_only=False)
        assert type(mm).__name__ == type(model).__name__, name
        mm.eval()
        with torch.no_grad():
            ref = model(x).numpy()
        np.testing.assert_allclose(mm(mstorch.tensor(x.numpy())).detach().numpy(), ref, rtol=1e-5, atol=2e-6,
                                   err_msg=name)
    F = torch.nn.functional
    funcs = {"gelu": F.gelu, "softplus": F.softplus, "relu": F.relu, "sigmoid": torch.sigmoid, "add": torch.Tensor.add}
    got = mstorch.load(io.BytesIO(_saved(torch, funcs)), weights_only=False)
    t = torch.tensor([-1.0, 0.5, 2.0])
    for k, f in funcs.items():
        args = (t, t) if k == "add" else (t,)
        np.testing.assert_allclose(got[k](*(mstorch.tensor(a.numpy()) for a in args)).numpy(), f(*args).numpy(),
                                   rtol=1e-5, err_msg=k)


def test_whole_models_holding_functions_into_torch():
    M = mstorch.nn.functional
    # each mstorch function, and the torch object its pickle must name
    cases = [(M.gelu, torch.nn.functional.gelu), (mstorch.sigmoid, torch.sigmoid),
             (mstorch.Tensor.view_as, torch.Tensor.view_as), (mstorch.Tensor.float, torch.Tensor.float)]
    for ours, theirs in cases:
        layer = mstorch.nn.TransformerEncoderLayer(8, 2, 16, activation=M.gelu if ours is M.gelu else mstorch.sigmoid,
                                                   batch_first=True)
        data = _saved(mstorch, {"layer": layer, "f": ours})
        loaded = torch.load(io.BytesIO(data), weights_only=False)
        assert type(loaded["layer"]) is torch.nn.TransformerEncoderLayer
        assert loaded["f"] is theirs and loaded["layer"].activation in (torch.nn.functional.gelu, torch.sigmoid)
        assert mstorch.load(io.BytesIO(data), weights_only=False)["f"] is ours
