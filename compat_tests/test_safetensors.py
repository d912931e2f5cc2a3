"""mstorch.safetensors (safetensors.torch without the package) against real safetensors + torch."""
import io
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest
import safetensors
import safetensors.numpy as st_np
import safetensors.torch as st
import torch

import mstorch
import mstorch.safetensors as ms_st

DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "uint16",
          "uint32", "uint64", "bool", "complex64"]
SHAPES = [(), (0,), (2, 3), (3, 0, 2)]
SCRIPTS = pathlib.Path(__file__).parent / "scripts"


def _random_torch(dtype, shape, seed):
    """Arbitrary bits (NaN payloads, subnormals, infinities) of ``dtype``."""
    dt = getattr(torch, dtype)
    n = int(np.prod(shape))
    rng = np.random.default_rng(seed)
    if n == 0:
        return torch.empty(shape, dtype=dt)
    if dt is torch.bool:
        return torch.from_numpy(rng.integers(0, 2, n).astype(bool)).reshape(shape)
    raw = rng.integers(0, 256, n * dt.itemsize, dtype=np.uint8)
    return torch.from_numpy(raw).view(dt).reshape(shape)


def _matrix():
    out = {}
    for i, dt in enumerate(DTYPES):
        for j, shape in enumerate(SHAPES):
            out[f"{dt}{list(shape)}"] = _random_torch(dt, shape, 10 * i + j)
    return out


def _as_mstorch(ref):
    """The same tensors in mstorch, bit for bit (through torch.save, tested in test_serialization)."""
    buf = io.BytesIO()
    torch.save(ref, buf)
    return mstorch.load(io.BytesIO(buf.getvalue()))


def _bits(t):
    if isinstance(t, torch.Tensor):
        return t.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()
    import mindspore
    m = t.to_mindspore()
    if t.dtype == mstorch.bfloat16:
        m = m.view(mindspore.int16)
    return m.asnumpy().tobytes()


def _assert_same(ref, got):
    assert list(ref) == list(got) or sorted(ref) == sorted(got)
    for k, r in ref.items():
        g = got[k]
        assert str(r.dtype) == str(g.dtype) and tuple(r.shape) == tuple(g.shape), k
        assert _bits(r) == _bits(g), k


def test_mstorch_files_are_safetensors_files_byte_for_byte(tmp_path):
    ref = _matrix()
    ours = _as_mstorch(ref)
    data = ms_st.save(ours, metadata={"format": "pt"})
    assert data == st.save(ref, metadata={"format": "pt"})
    _assert_same(ref, st.load(data))
    ms_st.save_file(ours, tmp_path / "m.safetensors", metadata={"format": "pt"})
    assert (tmp_path / "m.safetensors").read_bytes() == data
    _assert_same(ref, st.load_file(tmp_path / "m.safetensors"))
    # NumPy has no bfloat16: the rest through safetensors.numpy
    plain = {k: v for k, v in ours.items() if v.dtype != mstorch.bfloat16}
    arrays = st_np.load(ms_st.save(plain))
    for k, v in plain.items():
        assert arrays[k].dtype == ref[k].numpy().dtype and arrays[k].tobytes() == _bits(ref[k]), k


def test_safetensors_files_load_in_mstorch_bit_exact(tmp_path):
    ref = _matrix()
    path = tmp_path / "t.safetensors"
    st.save_file(ref, path)
    loaded = ms_st.load_file(path)
    assert list(loaded) == safetensors.safe_open(path, "pt").offset_keys()
    assert all(type(t) is mstorch.Tensor for t in loaded.values())
    _assert_same(ref, loaded)
    _assert_same(ref, ms_st.load(path.read_bytes()))
    with ms_st.safe_open(path, framework="pt") as f:
        _assert_same(ref, {k: f.get_tensor(k) for k in f.keys()})
    arrays = {k: v.numpy() for k, v in ref.items() if v.dtype != torch.bfloat16}
    st_np.save_file(arrays, tmp_path / "n.safetensors")
    with ms_st.safe_open(tmp_path / "n.safetensors", framework="numpy") as f:
        for k, a in arrays.items():
            assert f.get_tensor(k).tobytes() == a.tobytes() and f.get_tensor(k).dtype == a.dtype


def test_metadata_round_trip(tmp_path):
    meta = {"format": "pt", "note": 'naïve "quoted" \\ \n\t ✓ \x01'}
    x = {"w": mstorch.arange(4.0)}
    ms_st.save_file(x, tmp_path / "a.safetensors", metadata=meta)
    with safetensors.safe_open(tmp_path / "a.safetensors", "pt") as f:
        assert f.metadata() == meta
    st.save_file({"w": torch.arange(4.0)}, tmp_path / "b.safetensors", metadata=meta)
    with ms_st.safe_open(tmp_path / "b.safetensors", "pt") as f:
        assert f.metadata() == meta
    one = {"format": "pt"}  # with one key the header is byte-identical (the Rust library orders keys by hash)
    assert ms_st.save(x, metadata=one) == st.save({"w": torch.arange(4.0)}, metadata=one)
    assert ms_st.save(x, metadata={}) == st.save({"w": torch.arange(4.0)}, metadata={})
    ms_st.save_file(x, tmp_path / "c.safetensors")
    for opener in (safetensors.safe_open, ms_st.safe_open):
        with opener(tmp_path / "c.safetensors", "pt") as f:
            assert f.metadata() is None


def _errors(fn_torch, fn_ms):
    with pytest.raises(Exception) as ref:
        fn_torch()
    with pytest.raises(Exception) as got:
        fn_ms()
    assert type(got.value).__name__ == type(ref.value).__name__
    assert str(got.value) == str(ref.value)


def _views(T):
    x = T.arange(6.0).reshape(2, 3)
    return x, [{"a": x, "b": x}, {"a": x, "b": x[0]}, {"a": x.t()}, {"a": x[:, 1]}, [x], {"a": 1}, {1: x}]


def test_shared_non_contiguous_and_bad_input_errors_as_safetensors():
    _, ref_cases = _views(torch)
    _, our_cases = _views(mstorch)
    for r, o in zip(ref_cases, our_cases):
        _errors(lambda: st.save(r), lambda: ms_st.save(o))
    for meta in ({"a": 1}, {1: "a"}):
        _errors(lambda: st.save({"a": torch.ones(1)}, metadata=meta), lambda: ms_st.save({"a": mstorch.ones(1)},
                                                                                        metadata=meta))
    # views of one storage that do not overlap are saved, each on its own
    xr, xm = _views(torch)[0], _views(mstorch)[0]
    assert ms_st.save({"a": xm[0], "b": xm[1]}) == st.save({"a": xr[0], "b": xr[1]})
    with pytest.raises(KeyError, match="complex128"):
        ms_st.save({"a": mstorch.ones(1, dtype=mstorch.complex128)})


def _header(h, pad=b""):
    return len(h).to_bytes(8, "little") + h + pad


CORRUPT = [b"abc", (2**20).to_bytes(8, "little") + b"{}", (100_000_001).to_bytes(8, "little"),
           _header(b'{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}', b"\0" * 4),
           _header(b'{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}', b"\0" * 12),
           _header(b'{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}', b"\0" * 8),
           _header(b'{"a":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}', b"\0" * 12)]


def test_corrupt_files_refused_as_safetensors(tmp_path):
    for data in CORRUPT:
        _errors(lambda: st.load(data), lambda: ms_st.load(data))
    # a header that is not JSON: the same error (serde's detail differs from Python's json module)
    with pytest.raises(ms_st.SafetensorError, match="Error while deserializing: invalid JSON in header"):
        ms_st.load(_header(b"{1}    "))
    _errors(lambda: st.load_file(tmp_path / "none.safetensors"), lambda: ms_st.load_file(tmp_path / "none.safetensors"))


def test_safe_open_keys_slices_and_closed_handle(tmp_path):
    path = tmp_path / "s.safetensors"
    st.save_file({"m": torch.arange(24.0).reshape(2, 3, 4), "b": torch.ones(3, dtype=torch.bfloat16),
                  "a": torch.arange(5)}, path)
    real, ours = safetensors.safe_open(path, "pt"), ms_st.safe_open(path, "torch")
    assert ours.keys() == real.keys() and ours.offset_keys() == real.offset_keys()
    for name in ("m", "b"):
        rs, os_ = real.get_slice(name), ours.get_slice(name)
        assert os_.get_shape() == rs.get_shape() and os_.get_dtype() == rs.get_dtype()
    rs, os_ = real.get_slice("m"), ours.get_slice("m")
    for index in (0, -1, slice(None), (slice(None), 1), (Ellipsis, slice(1, 3)), (1, slice(0, 3, 2), [0, 3]), None):
        r, o = rs[index], os_[index]
        assert r.tolist() == o.tolist() and tuple(r.shape) == tuple(o.shape), index
    for index in (5, (slice(None, None, -1),)):
        _errors(lambda: rs[index], lambda: os_[index])
    assert ours.get_slice("b")[1:].tolist() == [1.0, 1.0] and ours.get_slice("b")[1:].dtype == mstorch.bfloat16
    _errors(lambda: real.get_tensor("zz"), lambda: ours.get_tensor("zz"))
    for handle in (real, ours):
        with handle:
            pass
    _errors(lambda: real.get_tensor("a"), lambda: ours.get_tensor("a"))
    _errors(lambda: safetensors.safe_open(path, "foo"), lambda: ms_st.safe_open(path, "foo"))


def _tied(T):
    T.manual_seed(0)
    m = T.nn.Sequential(T.nn.Embedding(5, 3), T.nn.Linear(3, 5, bias=False))
    m[1].weight = m[0].weight
    return m


def test_save_model_and_load_model_with_tied_weights(tmp_path):
    ours, ref = _tied(mstorch), _tied(torch)
    for T, lib, model in ((mstorch, ms_st, ours), (torch, st, ref)):
        with pytest.raises(RuntimeError, match="Some tensors share memory"):
            lib.save_file(model.state_dict(), tmp_path / "x.safetensors")
    ms_st.save_model(ours, tmp_path / "m.safetensors")
    st.save_model(ref, tmp_path / "t.safetensors")
    assert (tmp_path / "m.safetensors").read_bytes() == (tmp_path / "t.safetensors").read_bytes()
    fresh = _tied(torch)
    assert st.load_model(fresh, tmp_path / "m.safetensors") == (set(), [])
    back = _tied(mstorch)
    with mstorch.no_grad():
        back[0].weight.zero_()
    assert ms_st.load_model(back, tmp_path / "t.safetensors") == (set(), [])
    assert back[1].weight.tolist() == ref[1].weight.tolist()
    _errors(lambda: st.load_model(torch.nn.Linear(3, 5), tmp_path / "t.safetensors"),
            lambda: ms_st.load_model(mstorch.nn.Linear(3, 5), tmp_path / "t.safetensors"))


def test_script_using_safetensors_torch_runs_under_the_launcher(tmp_path):
    other = tmp_path / "other.safetensors"
    st.save_file({"h": torch.tensor([1.5, -2.0], dtype=torch.bfloat16), "i": torch.arange(3, dtype=torch.int32)},
                 other)
    out_path = tmp_path / "mine.safetensors"
    out = subprocess.run([sys.executable, "-m", "mstorch", "run", str(SCRIPTS / "safetensors_io.py"), str(other),
                          str(out_path)], capture_output=True, text=True, timeout=180,
                         env=dict(os.environ, MSTORCH_DISABLE_ALIAS="1"))
    assert out.returncode == 0, out.stderr
    lines = [ln for ln in out.stdout.splitlines() if not ln.startswith("[WARNING]")]
    assert lines == ["back ['bias', 'weight'] [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] [0.5, 0.5]",
                     "other {'h': ('torch.bfloat16', [1.5, -2.0]), 'i': ('torch.int32', [0.0, 1.0, 2.0])}",
                     "meta {'format': 'pt'} [0.5, 0.5]"]
    got = st.load_file(out_path)
    assert got["weight"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and got["bias"].dtype == torch.float32
