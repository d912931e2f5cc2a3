"""Issue 16 (API breadth), one batch: F.linear_cross_entropy with nn.LinearCrossEntropyLoss and
nn.LinearCrossEntropyOptions (reference and chunked paths)."""
import io
import struct
import warnings
import zipfile

import numpy as np
import pytest

from harness import check, check_raises, rand


def _t(T, a, grad=False, dtype=None):
    return T.tensor(a, requires_grad=grad, dtype=dtype)


def _targets(T, n, c, seed=0, ignore=()):
    t = np.random.default_rng(seed).integers(0, c, size=n)
    for i in ignore:
        t[i] = -100
    return T.tensor(t)


def _lce_case(T, n=10, c=7, f=4, *, bias=False, cls_weight=False, ignore=(), dtype=None, **kw):
    x = _t(T, rand(n, f, seed=1), grad=True, dtype=dtype)
    w = _t(T, rand(c, f, seed=2), grad=True, dtype=dtype)
    b = _t(T, rand(c, seed=3), grad=True, dtype=dtype) if bias else None
    cw = _t(T, np.linspace(0.5, 2.0, c, dtype=np.float32), dtype=dtype) if cls_weight else None
    tgt = _targets(T, n, c, ignore=ignore)
    loss = T.nn.functional.linear_cross_entropy(x, w, tgt, linear_bias=b, weight=cw, **kw)
    loss.backward(T.ones_like(loss) if loss.dim() == 0 else T.linspace(0.5, 1.5, loss.numel()).to(loss.dtype))
    return loss, x.grad, w.grad, None if b is None else b.grad


# --- reference path (options=None) ---------------------------------------------------------------------

@pytest.mark.parametrize("kw", [
    {}, {"reduction": "sum"}, {"reduction": "none"}, {"bias": True}, {"cls_weight": True, "ignore": (1, 4)},
    {"label_smoothing": 0.2}, {"ignore_index": 3}, {"cls_weight": True, "reduction": "none", "bias": True},
])
def test_linear_cross_entropy_reference(kw):
    check(lambda T: _lce_case(T, **kw))


def test_linear_cross_entropy_reference_shapes():
    def fn(T):
        f = T.nn.functional.linear_cross_entropy
        x1 = _t(T, rand(4, seed=1), grad=True)
        w = _t(T, rand(5, 3, 4, seed=2), grad=True)     # K-dimensional: (C, d1, in_features)
        b = _t(T, rand(5, 3, seed=3), grad=True)
        x2 = _t(T, rand(2, 4, seed=4), grad=True)
        probs = T.tensor(rand(2, 5, 3, seed=5)).softmax(1)
        out = [f(x1, w[:, 0], T.tensor(2)),                       # unbatched
               f(x2, w, T.tensor([[0, 1, 4], [2, 3, 3]]), linear_bias=b, reduction="none"),
               f(x2, w, probs, linear_bias=b)]                    # class probabilities
        sum(o.sum() for o in out).backward()
        return out, x1.grad, x2.grad, w.grad, b.grad
    check(fn)


@pytest.mark.parametrize("case", ["input_3d", "input_0d", "weight_1d", "in_features", "bias_shape", "unbatched_kdim",
                                  "probs_ignore", "bad_reduction"])
def test_linear_cross_entropy_errors(case):
    def fn(T):
        f = T.nn.functional.linear_cross_entropy
        x, w, t = T.ones(3, 4), T.ones(5, 4), T.tensor([0, 1, 2])
        return {"input_3d": lambda: f(T.ones(2, 3, 4), w, t), "input_0d": lambda: f(T.tensor(1.0), w, t),
                "weight_1d": lambda: f(x, T.ones(4), t), "in_features": lambda: f(x, T.ones(5, 3), t),
                "bias_shape": lambda: f(x, w, t, linear_bias=T.ones(4)),
                "unbatched_kdim": lambda: f(T.ones(4), T.ones(5, 2, 4), T.tensor([0, 1])),
                "probs_ignore": lambda: f(x, w, T.ones(3, 5) / 5, ignore_index=1),
                "bad_reduction": lambda: f(x, w, t, reduction="avg")}[case]()
    check_raises(fn)


# --- chunked path (options given) ----------------------------------------------------------------------

@pytest.mark.parametrize("kw", [
    {}, {"reduction": "sum"}, {"reduction": "none"}, {"bias": True}, {"cls_weight": True, "ignore": (1, 4)},
    {"ignore_index": 3}, {"bias": True, "cls_weight": True, "reduction": "none", "ignore": (0,)},
    {"bias": True, "reduction": "sum", "dtype": "float64"},
])
@pytest.mark.parametrize("chunk", [None, 3, 10])
def test_linear_cross_entropy_chunked(kw, chunk):
    def fn(T):
        kw2 = {k: getattr(T, v) if k == "dtype" else v for k, v in kw.items()}
        opts = T.nn.LinearCrossEntropyOptions(batch_chunk_size=chunk)
        return _lce_case(T, options=opts, **kw2)
    check(fn)


def test_linear_cross_entropy_chunked_edge_rows():
    def fn(T):
        f, opts = T.nn.functional.linear_cross_entropy, T.nn.LinearCrossEntropyOptions(batch_chunk_size=2)
        x, w = _t(T, rand(5, seed=1), grad=True), _t(T, rand(6, 5, seed=2), grad=True)
        one = f(x, w, T.tensor(4), options=opts)          # unbatched
        every_ignored = f(x.unsqueeze(0).repeat(3, 1), w, T.tensor([-100, -100, -100]), options=opts)
        empty = f(T.ones(0, 5), w, T.zeros(0, dtype=T.long), options=opts)
        empty_sum = f(T.ones(0, 5), w, T.zeros(0, dtype=T.long), reduction="sum", options=opts)
        one.backward()
        return one, every_ignored, empty, empty_sum, x.grad, w.grad
    check(fn)


def test_linear_cross_entropy_chunked_half_input():
    def fn(T):
        return _lce_case(T, bias=True, dtype=T.bfloat16, options=T.nn.LinearCrossEntropyOptions(batch_chunk_size=4))
    check(fn, rtol=2e-2, atol=2e-2)


def test_linear_cross_entropy_chunked_backward_twice():
    def fn(T):
        x, w = _t(T, rand(6, 3, seed=1), grad=True), _t(T, rand(4, 3, seed=2), grad=True)
        t = _targets(T, 6, 4)
        loss = T.nn.functional.linear_cross_entropy(x, w, t, options=T.nn.LinearCrossEntropyOptions())
        loss.backward(retain_graph=True)
        loss.backward()
    check_raises(fn)

    def allowed(T):
        x, w = _t(T, rand(6, 3, seed=1), grad=True), _t(T, rand(4, 3, seed=2), grad=True)
        t = _targets(T, 6, 4)
        opts = T.nn.LinearCrossEntropyOptions(allow_retain_graph=True, batch_chunk_size=4)
        loss = T.nn.functional.linear_cross_entropy(x, w, t, options=opts)
        loss.backward(retain_graph=True)
        (loss * 3).backward()
        per_row = T.nn.functional.linear_cross_entropy(x, w, t, reduction="none", options=opts)
        per_row.sum().backward(retain_graph=True)
        per_row.sum().backward()
        return x.grad, w.grad
    check(allowed)


def test_linear_cross_entropy_chunked_falls_back_with_a_warning():
    def fn(T):
        x, w = _t(T, rand(4, 3, seed=1), grad=True), _t(T, rand(5, 3, seed=2))
        opts = T.nn.LinearCrossEntropyOptions()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = [T.nn.functional.linear_cross_entropy(x, w, _targets(T, 4, 5), label_smoothing=0.1, options=opts),
                   T.nn.functional.linear_cross_entropy(x, w, T.ones(4, 5) / 5, options=opts)]
        return out, [(c.category.__name__, str(c.message)) for c in caught]
    check(fn)


@pytest.mark.parametrize("kw", [{"acc_policy": "fast"}, {"chunking_method": "square"}, {"chunking_method": "aspect_ratio:0"},
                                {"batch_chunk_size": 0}, {"batch_chunk_size": 2.0}, {"acc_dtype": "int32"}])
def test_linear_cross_entropy_options_checks(kw):
    check_raises(lambda T: T.nn.LinearCrossEntropyOptions(
        **{k: getattr(T, v) if k == "acc_dtype" else v for k, v in kw.items()}))


@pytest.mark.parametrize("kw", [{"acc_dtype": "float64"}, {"batch_chunk_size": 3, "chunking_method": "aspect_ratio"}])
def test_linear_cross_entropy_options_refused_at_call(kw):
    def fn(T):
        opts = T.nn.LinearCrossEntropyOptions(**{k: getattr(T, v) if k == "acc_dtype" else v for k, v in kw.items()})
        return T.nn.functional.linear_cross_entropy(T.ones(16, 2), T.ones(64, 2), T.zeros(16, dtype=T.long),
                                                    options=opts)
    check_raises(fn)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("kw", [{}, {"batch_chunk_size": 5}, {"chunking_method": "aspect_ratio:4"},
                                {"chunking_method": None, "acc_policy": "balanced"}])
def test_linear_cross_entropy_options_resolve(kw, dtype):
    def fn(T):
        o = T.nn.LinearCrossEntropyOptions(**kw)._adjust(num_batches=100, in_features=8, num_classes=50,
                                                         dtype=getattr(T, dtype), device=T.device("cpu"))
        return repr(o), o.batch_chunk_size, repr(T.nn.LinearCrossEntropyOptions(**kw))
    check(fn)


# --- nn.LinearCrossEntropyLoss -------------------------------------------------------------------------

@pytest.mark.parametrize("kw", [{}, {"bias": True, "reduction": "sum"}, {"out_features": (2, 3), "bias": True},
                                {"ignore_index": 1, "label_smoothing": 0.1},
                                {"bias": True, "options": "chunked", "reduction": "none"}])
def test_linear_cross_entropy_loss_module(kw):
    def fn(T):
        T.manual_seed(0)
        kw2 = dict(kw, options=T.nn.LinearCrossEntropyOptions(batch_chunk_size=2)) if "options" in kw else kw
        m = T.nn.LinearCrossEntropyLoss(4, 5, weight=T.linspace(0.5, 1.5, 5), **kw2)
        with T.no_grad():
            m.linear.weight.copy_(T.tensor(rand(*m.linear.weight.shape, seed=2)))
        x = _t(T, rand(3, 4, seed=1), grad=True)
        shape = (3, *kw.get("out_features", ()))
        t = T.tensor(np.random.default_rng(0).integers(0, 5, size=shape))
        out = m(x, t)
        out.sum().backward()
        return repr(m), list(m.state_dict()), out, x.grad, m.linear.weight.grad
    check(fn)


@pytest.mark.parametrize("kw", [{"weight": "bad"}, {"label_smoothing": 1.5}])
def test_linear_cross_entropy_loss_checks(kw):
    def fn(T):
        kw2 = {"weight": T.ones(4)} if "weight" in kw else kw
        return T.nn.LinearCrossEntropyLoss(3, 5, **kw2)
    check_raises(fn)


# --- torch.serialization: endianness, CRC-32, skip_data, the package registry ---------------------------

def _saved(T, obj, **kw):
    buf = io.BytesIO()
    T.save(obj, buf, **kw)
    return buf.getvalue()


def _records(data):
    """(name, CRC, size, header offset) of each record but the serialization id (mstorch's hash is its own)."""
    z = zipfile.ZipFile(io.BytesIO(data))
    return [(i.filename, i.CRC, i.file_size, i.header_offset) for i in z.infolist()
            if not i.filename.endswith("serialization_id")]


def _without_byteorder(data):
    """The checkpoint rewritten without its byteorder record (as files of torch before 2.1)."""
    src, out = zipfile.ZipFile(io.BytesIO(data)), io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as dst:
        for info in src.infolist():
            if not info.filename.endswith("/byteorder"):
                dst.writestr(info.filename, src.read(info))
    return out.getvalue()


def test_disable_byteorder_record_moves_it():
    check(lambda T: _records(_saved(T, T.ones(3), _disable_byteorder_record=True)))


@pytest.mark.parametrize("endianness", [None, "LITTLE", "BIG", "NATIVE"])
def test_load_endianness_without_byteorder_record(endianness):
    def fn(T):
        S = T.serialization
        data = _without_byteorder(_saved(T, T.tensor([1.5, -2.0, 3.25], dtype=T.float64)))
        before = S.get_default_load_endianness()
        S.set_default_load_endianness(None if endianness is None else getattr(S.LoadEndianness, endianness))
        try:
            return before, repr(S.get_default_load_endianness()), T.load(io.BytesIO(data))
        finally:
            S.set_default_load_endianness(before)
    check(fn)


def test_load_endianness_checks():
    check_raises(lambda T: T.serialization.set_default_load_endianness("big"))
    check(lambda T: [(e.name, e.value) for e in T.serialization.LoadEndianness])


@pytest.mark.parametrize("crc", [True, False])
def test_crc32_options(crc):
    def fn(T):
        S = T.serialization
        before = S.get_crc32_options()
        S.set_crc32_options(crc)
        try:
            data = _saved(T, {"w": T.arange(6.0).reshape(2, 3), "b": T.ones(2, dtype=T.int64)})
        finally:
            S.set_crc32_options(before)
        return before, _records(data), T.load(io.BytesIO(data))
    check(fn)


def _raw_record(data, info):
    """A record's bytes read in place (zipfile checks the CRC, which skip_data leaves at 0)."""
    n, e = struct.unpack("<HH", data[info.header_offset + 26:info.header_offset + 30])
    start = info.header_offset + 30 + n + e
    return data[start:start + info.file_size]


def test_skip_data_save_writes_no_bytes():
    def fn(T):
        with T.serialization.skip_data():
            data = _saved(T, [T.arange(6.0).reshape(2, 3), T.full((3,), 7, dtype=T.int32)])
        z = zipfile.ZipFile(io.BytesIO(data))
        storage_bytes = [_raw_record(data, i) for i in z.infolist() if "/data/" in i.filename]
        loaded = T.load(io.BytesIO(data))
        return _records(data), storage_bytes, loaded
    check(fn)


def test_skip_data_load_and_legacy_refusal():
    def fn(T):
        data = _saved(T, T.arange(4.0))
        with T.serialization.skip_data(materialize_fake_tensors=False):
            t = T.load(io.BytesIO(data))
        return t.shape, t.dtype, T.load(io.BytesIO(data))
    check(fn)

    def legacy(T):
        with T.serialization.skip_data():
            T.save(T.ones(2), io.BytesIO(), _use_new_zipfile_serialization=False)
    check_raises(legacy)


def test_register_package_and_location_tag():
    def fn(T):
        S, calls = T.serialization, []

        def tagger(storage):
            calls.append(("tag", storage.device.type))

        def deserializer(storage, location):
            calls.append(("restore", location))
            return storage if location == "elsewhere" else None

        entry = (-1, tagger, deserializer)
        S.register_package(*entry)
        try:
            data = _saved(T, T.arange(3.0))
            out = [T.load(io.BytesIO(data)), T.load(io.BytesIO(data), map_location={"cpu": "elsewhere"}),
                   S.location_tag(T.ones(2).untyped_storage())]
        finally:
            S._package_registry.remove(entry)
        return out, calls
    check(fn)


@pytest.mark.parametrize("case", ["tag_not_a_storage", "unknown_location", "cuda_device", "cuda_index"])
def test_registry_errors(case):
    def fn(T):
        S = T.serialization
        if case == "tag_not_a_storage":
            return S.location_tag(3)
        if case == "unknown_location":
            return S.default_restore_location(T.ones(2).untyped_storage(), "ipu:0")
        return S.validate_cuda_device("cuda:0" if case == "cuda_device" else "cuda:7")
    check_raises(fn)


def test_storage_type_helpers():
    check(lambda T: T.serialization.normalize_storage_type(T.UntypedStorage).__name__)
    check_raises(lambda T: T.serialization.storage_to_tensor_type(T.ones(2).untyped_storage()))


# --- torch.has_*, Tensor.output_nr / name, autograd.graph.GradientEdge ---------------------------------

def test_build_flags():
    check(lambda T: [T.has_lapack, T.has_spectral, T.has_mkl == T.backends.mkl.is_available(),
                     T.has_openmp == T.backends.openmp.is_available()])


def test_output_nr_and_name():
    def fn(T):
        x = _t(T, rand(4, 3), grad=True)
        y = x.exp() * 2
        _, idx = x.max(1)
        return [x.output_nr, y.output_nr, x.detach().output_nr, T.ones(2).output_nr, idx.output_nr,
                x.name, y.name, T.ones(2).name]
    check(fn)
    check_raises(lambda T: setattr(T.ones(2), "name", "w"))


def test_gradient_edge_in_grad_and_backward():
    def fn(T):
        G = T.autograd.graph
        x = _t(T, rand(4, 3), grad=True)
        h = x.sin() * 3
        loss = (h * h).sum() + x.sum()
        ex, eh = G.get_gradient_edge(x), G.get_gradient_edge(h)
        by_edge = T.autograd.grad(loss, (eh, ex), retain_graph=True)
        by_tensor = T.autograd.grad(loss, (h, x), retain_graph=True)
        from_edge_out = T.autograd.grad(eh, x, grad_outputs=T.ones(4, 3), retain_graph=True)
        loss.backward(inputs=[ex])
        return (isinstance(eh, G.GradientEdge), eh.output_nr, ex.output_nr, eh.node is not None,
                by_edge, by_tensor, from_edge_out, x.grad)
    check(fn)


def test_gradient_edge_checks():
    check_raises(lambda T: T.autograd.graph.get_gradient_edge(T.ones(2)))
    check(lambda T: T.autograd.graph.GradientEdge._fields)
