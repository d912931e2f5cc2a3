"""mstorch.interop: torch checkpoints <-> native MindSpore, checked against real torch and MindSpore."""
import pathlib
import re

import mindspore as ms
import numpy as np
import pytest
import torch

import mstorch
from mstorch import interop

ROOT = pathlib.Path(__file__).resolve().parent.parent
DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "uint16",
          "uint32", "uint64", "bool"]
X = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)


def _random_torch(dtype, shape, seed):
    """Arbitrary bits (NaN payloads included) of ``dtype``."""
    dt = getattr(torch, dtype)
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if dt is torch.bool:
        return torch.from_numpy(rng.integers(0, 2, n).astype(bool)).reshape(shape)
    return torch.from_numpy(rng.integers(0, 256, n * dt.itemsize, dtype=np.uint8)).view(dt).reshape(shape)


def _bits(t):
    """The raw bytes of a torch, mstorch or MindSpore tensor."""
    if isinstance(t, torch.Tensor):
        return t.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()
    m = t.to_mindspore() if isinstance(t, mstorch.Tensor) else t
    if m.dtype == ms.bfloat16:
        m = m.view(ms.int16)
    return m.asnumpy().tobytes()


def _torch_mlp(train_stats=True):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.BatchNorm1d(3), torch.nn.Linear(3, 2))
    if train_stats:
        model(torch.randn(16, 4))  # moves BatchNorm's running statistics away from 0 / 1
    return model.eval()


def _ms_mlp():
    return ms.nn.SequentialCell(ms.nn.Dense(4, 3), ms.nn.ReLU(), ms.nn.BatchNorm1d(3), ms.nn.Dense(3, 2))


def _run_cell(net):
    net.set_train(False)
    return net(ms.Tensor(X)).asnumpy()


def test_torch_pth_into_native_cell_gives_torch_outputs(tmp_path):
    model = _torch_mlp()
    torch.save(model.state_dict(), tmp_path / "m.pth")
    ref = model(torch.from_numpy(X)).detach().numpy()
    net = _ms_mlp()
    names = interop.torch_to_mindspore_names(net)
    assert names == interop.torch_to_mindspore_names(model) == {
        "2.weight": "2.gamma", "2.bias": "2.beta", "2.running_mean": "2.moving_mean",
        "2.running_var": "2.moving_variance", "2.num_batches_tracked": None}
    assert interop.load_into_cell(net, tmp_path / "m.pth", name_map=names) == ([], [])
    np.testing.assert_allclose(_run_cell(net), ref, rtol=1e-5, atol=1e-6)
    # through a .ckpt file and MindSpore's own loader
    path = interop.save_mindspore_checkpoint(tmp_path / "m.pth", str(tmp_path / "m"), name_map=names)
    assert path == str(tmp_path / "m.ckpt")
    net2 = _ms_mlp()
    assert ms.load_param_into_net(net2, ms.load_checkpoint(path), strict_load=True) == ([], [])
    np.testing.assert_allclose(_run_cell(net2), ref, rtol=1e-5, atol=1e-6)
    # real torch tensors, a state dict in memory, MindSpore's parameter dict
    net3 = _ms_mlp()
    ms.load_param_into_net(net3, interop.to_mindspore_parameters(model.state_dict(), name_map=names), strict_load=True)
    np.testing.assert_allclose(_run_cell(net3), ref, rtol=1e-5, atol=1e-6)


class _MsNet(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.emb = ms.nn.Embedding(6, 4)
        self.norm = ms.nn.LayerNorm((4,), epsilon=1e-5)
        self.fc = ms.nn.Dense(4, 3)
        self.bn = ms.nn.BatchNorm1d(3)

    def construct(self, ids):
        return self.bn(self.fc(self.norm(self.emb(ids).mean(1))))


class _TorchNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(6, 4)
        self.norm = torch.nn.LayerNorm(4)
        self.fc = torch.nn.Linear(4, 3)
        self.bn = torch.nn.BatchNorm1d(3)

    def forward(self, ids):
        return self.bn(self.fc(self.norm(self.emb(ids).mean(1))))


def test_mindspore_ckpt_to_pth_loads_in_real_torch(tmp_path):
    net = _MsNet()
    rng = np.random.default_rng(1)
    for _, p in net.parameters_and_names():  # every parameter away from its default
        p.set_data(ms.Tensor(rng.uniform(0.5, 1.5, p.shape).astype(np.float32)))
    ms.save_checkpoint(net, str(tmp_path / "n.ckpt"))
    names = interop.mindspore_to_torch_names(net)
    assert names == interop.mindspore_to_torch_names(_TorchNet())
    state = interop.convert_to_torch(tmp_path / "n.ckpt", tmp_path / "n.pth", name_map=names)
    loaded = torch.load(tmp_path / "n.pth")  # weights_only=True
    assert list(loaded) == list(state)
    ms_params = dict(net.parameters_and_names())
    for k, v in loaded.items():
        ms_name = {t: m for m, t in names.items()}.get(k, k)
        assert _bits(v) == _bits(ms_params[ms_name]), k
    model = _TorchNet().eval()
    model.load_state_dict(loaded)
    ids = np.array([[0, 5, 2], [3, 3, 1]], dtype=np.int32)
    net.set_train(False)
    np.testing.assert_allclose(model(torch.from_numpy(ids).long()).detach().numpy(),
                               net(ms.Tensor(ids)).asnumpy(), rtol=1e-5, atol=1e-6)
    # the same state dict in mstorch, for an mstorch model
    mine = interop.load_mindspore_checkpoint(tmp_path / "n.ckpt", name_map=names)
    assert all(type(v) is mstorch.Tensor for v in mine.values()) and list(mine) == list(state)
    mm = mstorch.nn.Sequential()
    mm.emb, mm.norm, mm.fc, mm.bn = (mstorch.nn.Embedding(6, 4), mstorch.nn.LayerNorm(4), mstorch.nn.Linear(4, 3),
                                     mstorch.nn.BatchNorm1d(3))
    assert mm.load_state_dict(mine) == ([], [])


def test_every_dtype_crosses_bit_for_bit(tmp_path):
    ref = {dt: _random_torch(dt, (2, 3), i) for i, dt in enumerate(DTYPES)}
    ref["scalar"] = torch.tensor(2.5, dtype=torch.bfloat16)
    torch.save(ref, tmp_path / "r.pth")
    path = interop.save_mindspore_checkpoint(tmp_path / "r.pth", tmp_path / "r.ckpt")
    native = ms.load_checkpoint(path)
    for k, t in ref.items():
        assert str(native[k].dtype).lower() == str(t.dtype)[len("torch."):], k
        assert tuple(native[k].shape) == tuple(t.shape) and _bits(native[k]) == _bits(t), k
    mine = interop.load_mindspore_checkpoint(path)
    for k, t in ref.items():
        assert repr(mine[k].dtype) == repr(t.dtype) and _bits(mine[k]) == _bits(t), k
    interop.convert_to_torch(path, tmp_path / "back.pth")
    back = torch.load(tmp_path / "back.pth")
    for k, t in ref.items():
        assert back[k].dtype == t.dtype and back[k].shape == t.shape and _bits(back[k]) == _bits(t), k


def test_name_maps_dicts_callables_and_collisions(tmp_path):
    sd = {"fc1.weight": torch.ones(2, 2), "fc1.bias": torch.zeros(2), "step": torch.tensor(3)}
    path = interop.save_mindspore_checkpoint(sd, tmp_path / "a.ckpt",
                                             name_map=lambda k: None if k == "step" else k.replace("fc1.", "dense1."))
    assert list(ms.load_checkpoint(path)) == ["dense1.weight", "dense1.bias"]
    got = interop.load_mindspore_checkpoint(path, name_map={"dense1.weight": "fc1.weight"})
    assert list(got) == ["fc1.weight", "dense1.bias"]
    with pytest.raises(ValueError, match="gives both 'fc1.weight' and 'fc1.bias' the name 'w'"):
        interop.save_mindspore_checkpoint(sd, tmp_path / "b.ckpt", name_map=lambda k: "w")
    with pytest.raises(TypeError, match="name_map must be a dict or a callable"):
        interop.load_mindspore_checkpoint(path, name_map=["x"])
    emb = torch.nn.Sequential(torch.nn.Embedding(3, 2), torch.nn.GroupNorm(1, 2))
    assert interop.torch_to_mindspore_names(emb) == {"0.weight": "0.embedding_table", "1.weight": "1.gamma",
                                                     "1.bias": "1.beta"}
    # mindspore.mint.nn layers name their parameters as torch does: nothing to rename
    assert interop.torch_to_mindspore_names(ms.nn.SequentialCell(ms.mint.nn.BatchNorm2d(2), ms.mint.nn.LayerNorm(2),
                                                                 ms.nn.GroupNorm(1, 2))) == {
        "2.weight": "2.gamma", "2.bias": "2.beta"}


def test_unsupported_values_raise_clear_errors(tmp_path):
    with pytest.raises(TypeError, match="'z' is torch.complex64; mindspore.load_checkpoint cannot read complex"):
        interop.save_mindspore_checkpoint({"z": mstorch.ones(2, dtype=mstorch.complex64)}, tmp_path / "c.ckpt")
    with pytest.raises(ValueError, match=re.escape("'e' has no elements (shape (0, 3))")):
        interop.save_mindspore_checkpoint({"e": torch.zeros(0, 3)}, tmp_path / "e.ckpt")
    with pytest.raises(TypeError, match="'model' holds a dict, not a tensor"):
        interop.save_mindspore_checkpoint({"model": {"w": torch.ones(1)}}, tmp_path / "d.ckpt")
    with pytest.raises(TypeError, match="'n' is a int, not a tensor"):
        interop.to_mindspore_parameters({"n": 3})


def test_load_into_cell_errors_and_keys_as_torch():
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Linear(3, 2))
    net = ms.nn.SequentialCell(ms.nn.Dense(4, 3), ms.nn.Dense(3, 2))
    sd = dict(model.state_dict())
    del sd["1.bias"]
    sd["extra"] = torch.ones(1)

    def message(fn):
        with pytest.raises(RuntimeError) as e:
            fn()
        return str(e.value).split("\n", 1)[1]
    assert message(lambda: interop.load_into_cell(net, sd)) == message(lambda: model.load_state_dict(sd))
    before = net[0].weight.asnumpy().copy()
    bad = dict(model.state_dict(), **{"0.weight": torch.ones(3, 5)})
    assert message(lambda: interop.load_into_cell(net, bad)) == message(lambda: model.load_state_dict(bad))
    np.testing.assert_array_equal(net[0].weight.asnumpy(), before)  # nothing copied
    keys = interop.load_into_cell(net, sd, strict=False)
    assert keys == model.load_state_dict(sd, strict=False) == (["1.bias"], ["extra"])
    # values are cast to the parameter's dtype, as torch's copy_ does
    interop.load_into_cell(net, {k: v.double() for k, v in model.state_dict().items()})
    assert net[1].bias.dtype == ms.float32
    np.testing.assert_array_equal(net[1].bias.asnumpy(), model[1].bias.detach().numpy())
    # cell_state_dict: the parameters as mstorch tensors
    cs = interop.cell_state_dict(net)
    assert list(cs) == list(model.state_dict()) and cs["0.weight"].tolist() == model[0].weight.tolist()


def test_migration_doc_example_runs(tmp_path, monkeypatch):
    doc = (ROOT / "docs" / "migration.md").read_text()
    section = doc.split("### Example: a torch checkpoint in a native MindSpore network", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "migration.md", "exec"), {"__name__": "doc_example"})  # noqa: S102 - our own docs
    assert (tmp_path / "model.ckpt").exists() and torch.load(tmp_path / "back.pth")["2.running_var"].shape == (8,)


def test_safetensors_source(tmp_path):
    from safetensors.torch import save_file
    save_file({"w": torch.arange(4.0, dtype=torch.bfloat16)}, tmp_path / "w.safetensors")
    path = interop.save_mindspore_checkpoint(tmp_path / "w.safetensors", tmp_path / "w.ckpt")
    got = ms.load_checkpoint(path)["w"]
    assert got.dtype == ms.bfloat16 and got.astype(ms.float32).asnumpy().tolist() == [0.0, 1.0, 2.0, 3.0]
