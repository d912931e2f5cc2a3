"""torch's own documented examples, run on torch and on mstorch and compared statement by statement.

Every public API of ``doc_examples.NAMESPACES`` that the scanner reports present in mstorch is walked;
the ``>>>`` examples of its torch docstring run in two fresh namespaces (``torch``, ``nn``, ``F`` bound
to torch in one and mstorch in the other, both seeded alike) and every statement's results (an
expression's value, the names an assignment binds, what ``print`` receives) are compared with
``harness.assert_same``: shape, dtype, values, exception types. Where the docs show an error, both must
raise alike. Everything that is not run or not compared exactly is data below, with its reason.
"""
import re

import numpy as np
import pytest
import torch

import mstorch
from doc_examples import UNOBSERVABLE, Session, observe, walk
from harness import Raised, assert_same

pytestmark = pytest.mark.filterwarnings("ignore")   # deprecated APIs warn alike in both libraries

# APIs whose examples are not run: not cheap, or not runnable as written (torch fails on them too).
SKIP = {
    "torch.distributions.Multinomial": "torch's own example raises: log_prob of 100-draw counts under total_count=1",
    "torch.distributions.Poisson": "torch's own example (an xdoctest SKIP there) samples a Long rate, which "
                                   "poisson_cpu refuses",
    "torch.utils.data.IterDataPipe": "its example imports the torchdata package (not a dependency; torchdata 0.10 "
                                     "dropped DataPipes); compat_tests/test_datapipes.py covers the DataPipes",
    "torch.utils.data.MapDataPipe": "its example imports the torchdata package (not a dependency; torchdata 0.10 "
                                    "dropped DataPipes); compat_tests/test_datapipes.py covers the DataPipes",
    "torch.narrow_copy": "its example narrows a sparse COO tensor (mstorch's sparse tensors have no narrow)",
    "torch.empty_permuted": "its example compares with torch.empty(memory_format=torch.channels_last), whose strides "
                            "mstorch does not reproduce (docs/known-differences.md: memory formats)",
    "torch.nn.utils.skip_init": "its example shows the uninitialized parameters skip_init leaves "
                                "(compat_tests/test_legacy_api.py covers skip_init)",
    # not cheap: tens of millions of elements, or MindSpore's CPU conv/pool kernels on 3-D volumes
    "torch.nn.CircularPad3d": "not cheap: pads a 16x3x8x320x480 input (59M elements)",
    "torch.nn.ReplicationPad3d": "not cheap: pads a 16x3x8x320x480 input (59M elements)",
    "torch.nn.ConvTranspose3d": "not cheap: 3-D transposed convolution of a 20x16x10x50x100 input",
    "torch.nn.Conv3d": "not cheap: 3-D convolution of a 20x16x10x50x100 input",
    "torch.nn.Transformer": "not cheap: a 6+6-layer transformer of width 512",
    "torch.nn.TransformerDecoder": "not cheap: a 6-layer transformer decoder of width 512",
    "torch.nn.TransformerEncoder": "not cheap: a 6-layer transformer encoder of width 512",
    "torch.nn.BatchNorm3d": "not cheap: a 20x100x35x45x10 input (32M elements)",
    "torch.nn.InstanceNorm3d": "not cheap: a 20x100x35x45x10 input (32M elements)",
    "torch.nn.LPPool3d": "not cheap: 3-D pooling of a 20x16x50x44x31 input",
    "torch.nn.MaxPool3d": "not cheap: 3-D pooling of a 20x16x50x44x31 input",
    "torch.nn.AvgPool3d": "not cheap: 3-D pooling of a 20x16x50x44x31 input",
    "torch.conv3d": "not cheap: 3-D convolution of a 20x16x50x10x20 input",
    "torch.conv_transpose3d": "not cheap: 3-D transposed convolution of a 20x16x50x10x20 input",
    "torch.utils.data.IterableDataset": "not cheap: starts DataLoader worker processes",
    # not runnable here
    "torch.use_deterministic_algorithms": "its examples need CUDA",
    "torch.Tensor.is_leaf": "its examples need CUDA",
    "torch.Tensor.to": "its examples need CUDA",
    "torch.nn.functional.scaled_dot_product_attention": "its examples need CUDA (flash attention)",
    "torch.nn.DataParallel": "needs several CUDA devices",
    "torch.nn.SyncBatchNorm": "needs a process group",
    "torch.utils.data.DistributedSampler": "needs a process group",
    "torch.load": "reads files the example does not write",
    # torch's own example does not run
    "torch.linalg.solve_ex": "torch's example calls solve_ex(A) without B",
    "torch.fft.ihfft2": "torch's example uses t and rfftn before defining them",
    "torch.fft.ihfftn": "torch's example uses t before defining it",
    "torch.nn.TripletMarginWithDistanceLoss": "torch's example calls backward twice through one graph",
    "torch.utils.data.StackDataset": "torch's example uses datasets it does not define",
    "torch.utils.checkpoint.checkpoint_sequential": "torch's example is schematic (nn.Sequential(...))",
    "torch.accelerator.is_available": "torch's example is not valid Python",
    "torch.serialization.add_safe_globals": "the example pickles a class it defines itself (not importable)",
    "torch.serialization.safe_globals": "the example pickles a class it defines itself (not importable)",
    "torch.accelerator.Graph": "its example needs an accelerator device",
    "torch.accelerator.get_device_capability": "torch's example uses `capabilities` before defining it",
    "torch.linalg.ldl_solve": "torch's example has its output `tensor(0.0001)` as a statement (compat_tests/"
                              "test_linalg_ldl.py covers it)",
    "torch.qr": "torch's example checks q.mT @ q against a 5x5 identity for a 5x4 q (its own example fails)",
    # complex Cholesky factors: MindSpore 2.10's CPU Cholesky has no complex kernel (docs/known-differences.md)
    "torch.cholesky_inverse": "its example factors a complex matrix (no complex Cholesky kernel on CPU)",
    "torch.cholesky_solve": "its example factors a complex matrix (no complex Cholesky kernel on CPU)",
    "torch.linalg.householder_product": "its example builds the reflectors with torch.geqrf (not provided)",
}

# Statements not run (in either library), by a regular expression on their source.
SKIP_STATEMENTS = {
    r"cuda": "needs CUDA",
    r"pivot=False": "torch's CPU build has no LU without pivoting (its example runs it on CUDA)",
    r"fold_params|input_ones|divisor": "schematic: nn.Fold/nn.Unfold's identity with `...` arguments",
    r"DataLoader\(\.\.\.\)": "schematic: a DataLoader of `...`",
    r"default_collate_fn_map|CustomType": "schematic: CustomType is not defined",
}

_LR_CONTEXT = """
from torch.optim.lr_scheduler import *
model = nn.Linear(2, 1)
optimizer = torch.optim.SGD([{"params": [model.weight]}, {"params": [model.bias]}], lr=0.05)
train = validate = train_batch = lambda *args, **kwargs: 0.5
data_loader = range(3)
num_epochs = 10
opt = optimizer
"""

# Names an example uses without defining them: the setup that makes it runnable (same in both runs).
CONTEXT = {
    **{f"torch.optim.lr_scheduler.{name}": _LR_CONTEXT for name in (
        "ChainedScheduler", "ConstantLR", "CosineAnnealingLR", "CosineAnnealingWarmRestarts", "CyclicLR",
        "ExponentialLR", "LambdaLR", "LinearLR", "MultiStepLR", "MultiplicativeLR", "OneCycleLR", "PolynomialLR",
        "ReduceLROnPlateau", "SequentialLR", "StepLR")},
    "torch.optim.SGD": _LR_CONTEXT + "input, target = torch.randn(4, 2), torch.randn(4, 1)\n"
                                     "loss_fn = nn.MSELoss()\n",
    "torch.optim.Muon": _LR_CONTEXT + "input, target = torch.randn(4, 2), torch.randn(4, 1)\n"
                                      "loss_fn = nn.MSELoss()\n",
    "torch.save": "import io",
    "torch.Tensor.get_device": "x = torch.ones(2)",
    "torch.linalg.vecdot": "from torch import linalg",
    "torch.linalg.vander": "from torch import linalg",
    "torch.combinations": "import itertools",
    "torch.nn.utils.remove_spectral_norm": "from torch.nn.utils import spectral_norm",
    "torch.nn.utils.remove_weight_norm": "from torch.nn.utils import weight_norm",
    "torch.nn.MultiheadAttention": "embed_dim, num_heads = 8, 2\nquery = key = value = torch.randn(5, 3, 8)",
    "torch.Tensor.requires_grad_": "preprocess = lambda w: w * 2 - 1",
    "torch.empty_like": "a = torch.zeros((2, 3), dtype=torch.int32)",
    "torch.autograd.Function": "input = torch.randn(3, requires_grad=True)",
    "torch.utils.data.BatchSampler": "from torch.utils.data import SequentialSampler",
    "torch.utils.checkpoint.set_checkpoint_early_stop": "from torch.utils.checkpoint import checkpoint\n"
                                                        "fn = lambda x: x.sin().sum()\n"
                                                        "inputs = torch.randn(3, requires_grad=True)",
    "torch.utils.data.Sampler": "from typing import Iterator, List",
    "torch.utils.data.default_collate": "from collections import namedtuple",
    "torch.utils.data.default_convert": "from collections import namedtuple",
    "torch.distributions.MixtureSameFamily": "import torch.distributions as D",
}

# (rtol, atol) where a different but equally valid summation order shows (the op tests' float32 sums).
TOLERANCE = {
    "torch.conv1d": (1e-4, 2e-5),
    "torch.conv_transpose1d": (1e-4, 2e-5),
    "torch.nn.TransformerEncoderLayer": (1e-4, 1e-5),
    "torch.nn.TransformerDecoderLayer": (1e-4, 1e-5),   # 512-wide float32 products on OpenBLAS (host linear)
    "torch.nn.Unfold": (1e-4, 1e-5),        # compares a residual |conv2d - unfold matmul| of ~1e-6
    "torch.linalg.svd": (1e-5, 1e-5),       # residuals of ~1e-6
    "torch.svd": (1e-5, 1e-5),              # residuals of ~1e-6

}

# Statements making uninitialized tensors: only shape and dtype are compared, and the tensors they bind
# are zeroed in both runs, so that what follows is defined.
UNINITIALIZED = r"\bempty(_like|_strided)?\(|\bnew_empty(_strided)?\("

# Statements whose values torch leaves unspecified: only shape and dtype are compared.
UNSPECIFIED = {
    UNINITIALIZED: "uninitialized memory",
    r"^x\.sort\(\)$": "the order of equal keys in an unstable sort",
    r"linalg\.eig(vals)?\(": "the order of eigenvalues and the phase of eigenvectors",
    r"linalg\.svd\(": "the signs of singular vectors",
    r"torch\.svd\(": "the signs of singular vectors",
}

# Examples where mstorch differs from torch today: strict expected failures (each with its reason).
XFAIL = {
    "torch.conj": "no lazy conjugate bit: conj() returns a resolved tensor, is_conj() is False "
                  "(docs/known-differences.md)",
    "torch.resolve_conj": "no lazy conjugate bit (docs/known-differences.md)",
    "torch.resolve_neg": "no lazy negative bit: is_neg() is False (docs/known-differences.md)",
    "torch.inference_mode": "tensors made in inference mode are ordinary tensors (docs/known-differences.md)",
    "torch.set_default_dtype": "no complex32: a complex value under a float16 default raises, naming "
                               "torch.complex32 (docs/known-differences.md)",
    "torch.is_storage": "mstorch has no storage objects (untyped_storage / TypedStorage): is_storage is always "
                        "False (docs/known-differences.md)",
    "torch.Tensor.to_sparse_csr": "CSR tensors are 2-D without dense dims; dense_dim=2 raises (docs/known-differences.md)",
    "torch.Tensor.to_sparse": "only the COO sparse layout (sparse work is being done elsewhere, issue 17 item 3)",
    "torch.sparse.mm": "only the COO sparse layout: no to_sparse_csr (being fixed elsewhere, issue 17 item 3)",
    "torch.Tensor.dim_order": "every tensor stays row-major: a channels_last tensor reports contiguous strides, so "
                              "its dim order (docs/known-differences.md)",
    "torch.linalg.lu_factor": "lu_solve's float32 substitution rounds differently from LAPACK's sgetrs (3.6e-7 apart "
                              "on this example): the second residual misses allclose's atol=1e-8 where torch's passes",
    "torch.linalg.lu_solve": "MindSpore's triangular solve rounds differently from the BLAS trsm torch calls: on "
                             "the left=False example the residual is 8.3e-7 (torch 6.0e-7), over allclose's atol=1e-8",
    "torch.linalg.solve_triangular": "MindSpore's triangular solve rounds differently: on the ill-conditioned third "
                                     "example the residual is 1.3e-6 (torch 7.5e-7), over allclose's atol=1e-8",
}

# of those, the ones whose outcome depends on the host's CPU (torch's residuals come from MKL, whose code path
# differs between AMD EPYC and Intel hosts: on some the example passes allclose, on others it does not)
HOST_DEPENDENT = {"torch.linalg.lu_solve", "torch.linalg.solve_triangular"}


def _cases():
    for api, exs in walk():
        if not exs:
            continue
        marks = []
        if api in XFAIL:
            marks.append(pytest.mark.xfail(reason=XFAIL[api], strict=api not in HOST_DEPENDENT))
        yield pytest.param(api, exs, id=api, marks=marks)


CASES = list(_cases())


def _compare(ref, got, where, tol, shape_only):
    if isinstance(ref, Raised) or isinstance(got, Raised):
        assert_same(ref, got, path=where)
        return
    assert [w for w, _ in ref] == [w for w, _ in got], where
    for (what, r), (_, g) in zip(ref, got):
        r, g = observe(r, torch), observe(g, mstorch)
        if r is UNOBSERVABLE:
            continue
        if shape_only:
            r, g = _layout(r), _layout(g)
        assert_same(r, g, *tol, path=f"{where} -> {what}")


def _layout(x):
    """A result with every tensor replaced by its shape and dtype."""
    if hasattr(x, "shape") and hasattr(x, "dtype") and not isinstance(x, np.ndarray):
        return tuple(x.shape), repr(x.dtype)
    if isinstance(x, (tuple, list)):
        return [_layout(v) for v in x]
    return x


@pytest.mark.parametrize("api,exs", CASES)
def test_doc_example(api, exs, tmp_path, monkeypatch):
    if api in SKIP:
        pytest.skip(SKIP[api])
    monkeypatch.chdir(tmp_path)     # examples that save files write them here
    tol = TOLERANCE.get(api, (1e-5, 1e-6))
    ref_s, got_s = Session(torch, api), Session(mstorch, api)
    unspecified_names = set()
    try:
        if api in CONTEXT:
            ref_s.step(CONTEXT[api])
            got_s.step(CONTEXT[api])
        for i, ex in enumerate(exs):
            if any(re.search(p, ex.source) for p in SKIP_STATEMENTS):
                continue
            where = f"{api} example line {i}: {ex.source}"
            try:
                ref = ref_s.step(ex.source)
            except Exception as exc:  # noqa: BLE001 - torch's exception is the expected result
                assert ex.raises, f"torch itself fails on {where}: {exc!r} (give it a CONTEXT or a SKIP reason)"
                ref = Raised(exc)
            try:
                got = got_s.step(ex.source)
            except Exception as exc:  # noqa: BLE001
                got = Raised(exc)
            unspecified = any(re.search(p, ex.source) for p in UNSPECIFIED) or ex.source.strip() in unspecified_names
            _compare(ref, got, where, tol, unspecified)
            if re.search(UNINITIALIZED, ex.source):
                for results in (ref, got):
                    _zero_fill(results)
            elif not isinstance(ref, Raised):
                names = {what for what, _ in ref if what not in ("value", "print")}
                unspecified_names = unspecified_names | names if unspecified else unspecified_names - names
        # the state the examples leave behind (after loops, in-place updates, optimizer steps)
        final_ref, final_got = ref_s.bound(), got_s.bound()
        assert sorted(final_ref) == sorted(final_got), f"{api}: names bound at the end"
        names = [k for k in final_ref if k not in unspecified_names]
        _compare([(k, final_ref[k]) for k in names], [(k, final_got[k]) for k in names], f"{api} at the end", tol,
                 False)
    finally:
        ref_s.close()
        got_s.close()


def _zero_fill(results):
    for _, value in results:
        if hasattr(value, "zero_") and getattr(value, "layout", None) in (torch.strided, mstorch.strided) \
                and not value.requires_grad:
            value.zero_()


def test_tables_name_walked_apis():
    """Stale entries show up: every table key is an API the walk finds with examples."""
    walked = {c.values[0] for c in CASES}
    assert not set(SKIP) & set(XFAIL)
    for table in (SKIP, CONTEXT, TOLERANCE, XFAIL):
        stale = sorted(set(table) - walked)
        assert not stale, f"not walked (renamed, gone from mstorch, or without examples): {stale}"
