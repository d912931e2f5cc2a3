"""Regression tests against torch for the differential fuzzer's loud classes (issue 18), second round: another
exception type than torch's, or one side raising where the other returns. Grouped by root cause: torch's
check order (argument and out= checks before the kernel's dtype dispatch), index checks of torch's other
kernel paths, empty inputs torch answers without a kernel, and in-place receivers."""
import pytest

from harness import check
from test_fuzz_regressions5 import _run, _same_error


def _same_value(src, **kw):
    check(_run(src), **kw)


# --- torch's argument (and out=) checks come before its kernel's dtype dispatch --------------------------

CHECKS_BEFORE_DTYPE_DISPATCH = [
    # ctc_loss: the lengths' dtypes
    "F.ctc_loss(T.ones(2, 5, dtype=T.complex64), T.tensor([2.], dtype=T.float16), T.tensor(-2.9, dtype=T.float16),"
    " T.tensor(-0.9, dtype=T.float16), reduction='none')",
    # prelu: the parameter count, then the weight's rank
    "T.zeros((0, 3), dtype=T.bool).t().prelu(T.zeros((3, 0), dtype=T.bool))",
    "T.prelu(T.ones(2, 3, dtype=T.bool), T.ones(2, 2, dtype=T.bool))",
    "T.prelu(T.ones(2, 3, dtype=T.bool), T.ones(3, dtype=T.bool))",
    # complex/polar: out= must be the parts' complex dtype
    "T.polar(T.tensor(0.78, dtype=T.float16), T.tensor(0.70, dtype=T.float16), out=T.zeros(0, dtype=T.float16))",
    "T.polar(T.ones(2), T.ones(2), out=T.zeros(0, dtype=T.complex128))",
    "T.complex(T.ones(2), T.ones(2, dtype=T.float64), out=T.zeros(0, dtype=T.complex64))",
    # cross: the shapes, the input's dtype, then the other's
    "T.cross(T.tensor([[False]]), T.zeros((0, 1), dtype=T.bool), dim=-1)",
    "T.cross(T.ones(2, 3, dtype=T.int64), T.ones(2, 3, dtype=T.bool), dim=-1)",
    "T.cross(T.ones(2, 3, dtype=T.bool), T.ones(2, 3, dtype=T.int64), dim=-1)",
    # histogram: the weight's checks first, except the min/max of int bins without a range
    "T.histogram(T.zeros((0,), dtype=T.complex64), 6, weight=T.ones(40, dtype=T.float64), density=True)",
    "T.histogram(T.zeros((3,), dtype=T.complex64), 6, weight=T.ones(3, dtype=T.float64), density=True)",
    "T.histogram(T.zeros((3,), dtype=T.complex64), 6, range=(0., 1.))",
    "T.histogram(T.zeros((3,), dtype=T.int64), T.zeros(3, dtype=T.int64))",
    "T.histc(T.ones(3, dtype=T.float16), 3, out=T.zeros(0))",
    "T.histc(T.ones(3, dtype=T.int64), 3, out=T.zeros(0))",
    # margin_ranking_loss: torch's own subtraction and negation of bool tensors
    "F.margin_ranking_loss(T.tensor([[False, True], [False, False]]), T.zeros(2, 2, dtype=T.bool),"
    " T.zeros(2, 2, dtype=T.bool), 0.5, reduction='none')",
    "F.margin_ranking_loss(T.ones(3), T.ones(3), T.ones(3, dtype=T.bool))",
    "F.margin_ranking_loss(T.ones(3, dtype=T.bool), T.ones(3), T.ones(3))",
    # multi_margin_loss: the weight's size, the input's dtype, the target's and weight's dtypes, the range
    "F.multi_margin_loss(T.tensor([[2.859375, 6e-08]], dtype=T.float16).expand(5, 2), T.tensor([0, 2, 2, 3, 0]), 1,"
    " 1.0, T.tensor([0.5, 1.0, 2.0, 0.25, 1.5]))",
    "F.multi_margin_loss(T.ones(4, 5), T.tensor([4, 3, 3, 0], dtype=T.uint8), 2)",
    "F.multi_margin_loss(T.ones(4, 5), T.tensor([4, 3, 3, 0]), 2, weight=T.ones(5, dtype=T.float64))",
    "F.multi_margin_loss(T.ones(4, 5, dtype=T.float16), T.tensor([4, 9, 3, 0]))",
    # no half kernel for multilabel_margin_loss
    "F.multilabel_margin_loss(T.ones(4, 5, dtype=T.float16), -T.ones(4, 5, dtype=T.int64), reduction='sum')",
    "T.abs(T.tensor(1j), out=T.zeros(0, dtype=T.complex128))",
    "T.nonzero(T.tensor(-9), as_tuple=True, out=T.zeros(0, dtype=T.int64))",
]


# --- torch's other index paths: their exception types and words -------------------------------------------

INDEX_PATHS_AS_TORCH = [
    "T.index_select(T.ones(2, 1, dtype=T.float16), -1, T.tensor([2, -1, 0, -3, 0, 1])[::2])",   # dim 1
    "T.index_select(T.ones(3, 2, 4).permute(2, 0, 1), 1, T.tensor([9]))",
    "T.index_select(T.ones(3, 2, 4), 2, T.tensor([9]))",
    "T.index_select(T.ones(0, 3), 0, T.tensor([9]))",
    "T.index_select(T.ones(3, 0), 0, T.tensor([9]))",                                          # empty self
    "T.index_select(T.ones(0), 0, T.tensor([9]))",
    "F.embedding(T.tensor([2, 2, 5], dtype=T.int32), T.zeros((1, 0)))",
    "F.embedding(T.tensor([2, 2, 5], dtype=T.int32), T.zeros((0, 3)))",
    "F.embedding(T.tensor([2, 2, 5], dtype=T.int32), T.zeros((2, 3)))",
    "T.zeros((2, 0)).kthvalue(3)",
    "T.zeros((0,)).kthvalue(1)",
    "T.repeat_interleave(T.tensor(0.2), T.tensor([2]), 0)",
    "T.repeat_interleave(T.tensor(0.2), 2, -1)",
    "T.repeat_interleave(T.tensor(0.2), 2, -2)",
    "T.group_norm(T.tensor(-0.7), 2, T.tensor(-0.4))",      # torch.group_norm reads size(0), size(1)
    "T.group_norm(T.ones(3), 2)",
    "F.group_norm(T.ones(3), 2)",
    "F.nll_loss(T.tensor([1.774, -0.34, -0.252, 3.211]), T.tensor([-100, -100, -100, -100]))",
]


# --- empty inputs torch answers without the kernel it lacks for their dtype ----------------------------------

EMPTY_WITHOUT_KERNEL = [
    "F.log_softmax(T.zeros(0, 4, dtype=T.int32), 1)",
    "T.log_softmax(T.zeros(0, 4, dtype=T.int32), 1)",
    "F.softmax(T.zeros(0, 4, dtype=T.int32), 1)",
    "T.zeros(0, 4, dtype=T.int32).log_softmax(0)",
    "F.log_softmax(T.zeros(0, dtype=T.bool), 0)",
    "T.normal(1.5, T.zeros(0, dtype=T.int64))",
    "T.normal(T.zeros(0, dtype=T.int64), 1.5)",
    "T.normal(0., 1., (0,), dtype=T.int64)",
    "T.randn(0, dtype=T.int64)",
    "T.zeros(0, dtype=T.int64).normal_()",
    "T.zeros(0, 5, dtype=T.bool).mm(T.zeros(5, 0, dtype=T.bool))",
    "T.zeros(2, 0, dtype=T.bool).mm(T.zeros(0, 3, dtype=T.bool))",
    "T.zeros(2, 0, dtype=T.bool).matmul(T.zeros(0, 3, dtype=T.bool))",
    "T.zeros(1, 2, 0, dtype=T.bool).bmm(T.zeros(1, 0, 3, dtype=T.bool))",
    "T.zeros(1, 0, 2, dtype=T.bool).bmm(T.zeros(1, 2, 3, dtype=T.bool))",
    "T.cdist(T.zeros((3, 0), dtype=T.float16).t(), T.ones(3, 3, dtype=T.float16), p=inf)",
    "T.cdist(T.zeros(2, 0, dtype=T.float16), T.ones(3, 0, dtype=T.float16))",
    "T.cdist(T.zeros(2, 3, dtype=T.float16), T.ones(0, 3, dtype=T.float16))",
    "T.linalg.lu_factor(T.zeros(0, 2, dtype=T.uint8))",
    "T.linalg.lu_factor(T.zeros(0, 2, dtype=T.float16))",
    "T.linalg.lu_factor(T.zeros(2, 0, dtype=T.int64))",
    "T.linalg.lu(T.zeros(0, 2, dtype=T.int64))",
]

NOT_EMPTY_STILL_REFUSED = [
    "T.normal(1.5, T.zeros(2, dtype=T.int64))",
    "T.zeros(2, 4, dtype=T.bool).mm(T.zeros(4, 3, dtype=T.bool))",
    "T.cdist(T.zeros(2, 3, dtype=T.float16), T.ones(2, 3, dtype=T.float16))",
    "T.linalg.lu_factor(T.zeros(2, 2, dtype=T.int64))",
    "F.softmax(T.zeros(1, 4, dtype=T.int32), 1)",
]

# weighted regression losses are composed by torch in Python: no loss kernel, the weight promotes
WEIGHTED_LOSSES = [
    "F.mse_loss(T.tensor([[-3], [9], [-3]]).expand(3, 4), T.tensor([[-9, -9, -2, 0], [2, 5, 5, -2], [-3, -5, 2, -9]]),"
    " reduction='sum', weight=T.ones(3, 4))",
    "F.mse_loss(T.tensor([[-3], [9], [-3]]), T.tensor([[-9], [2], [-3]]), reduction='none', weight=T.ones(3, 1))",
    "F.mse_loss(T.tensor([[-3], [9], [-3]]), T.tensor([[-9], [2], [-3]]), weight=T.ones(3, 1))",
    "F.l1_loss(T.tensor([[-3], [9], [-3]]), T.tensor([[-9], [2], [-3]]), weight=T.ones(3, 1))",
]

# complex LU: its triangular parts taken without a complex Tril/Triu kernel
COMPLEX_LU = [
    "T.linalg.lu(T.tensor([[1j, 2, 3], [4, 5j, 6]]))",
    "T.linalg.lu(T.tensor([[1j, 2], [4, 5j], [1, 1 + 1j]], dtype=T.complex128))",
]

# --- torch's own check order for index_put and index_fill_ ---------------------------------------------

INDEX_WRITES_AS_TORCH = [
    # the value's shape is checked before the indices' range
    "T.index_put(T.ones(1, 5), (T.tensor([2, 0]),), T.ones(3, 5))",
    "T.index_put(T.ones(1, 5), (T.tensor([2, 0]),), T.ones(2, 5))",
    "(lambda x: x.__setitem__(T.tensor([2, 0]), T.ones(3, 5)))(T.ones(1, 5))",
    # an empty self viewed as index.numel() rows: torch's storage error, or nothing (no range check)
    "(lambda x: (x.t().index_fill_(0, T.tensor([0, 2]), 2.5), x))(T.zeros((3, 0)))",
    "T.zeros(0, 3).index_fill_(0, T.tensor([0, 2]), 2.5)",
    "T.zeros(3, 0).index_fill_(1, T.tensor([0, 5]), 2.5)",
    "T.zeros(0).index_fill(0, T.tensor([0, 5]), 2.5)",
    "T.zeros(2, 3).index_fill_(0, T.tensor([0, 5]), 2.5)",
]

INDEX_WRITES_RETURN = [
    "T.zeros(3, 0).index_fill_(0, T.tensor([0, 5]), 2.5)",
    "T.zeros(2, 3).index_fill_(0, T.tensor([0, 1]), 2.5)",
    "T.index_put(T.ones(3, 5), (T.tensor([2, 0]),), T.ones(2, 5))",
]

# --- in-place writes torch lets into an expanded receiver; views as another dtype -------------------------

EXPANDED_RECEIVER_WRITES = [
    "T.threshold_(T.tensor([[-0.3, 3.6, 5.0]]).expand(2, 3), 0.5, -1.0)",
    "F.threshold_(T.tensor([[-0.3, 3.6, 5.0]]).expand(2, 3), 0.5, -1.0)",
    "(lambda b: (F.threshold(b.expand(2, 3), 0.5, -1.0, True), b))(T.tensor([[-0.3, 3.6, 5.0]]))",
    "(lambda b: (b.expand(2, 3).conj_physical_(), b))(T.tensor([[-0.3, 3.6, 5.0]]))",
    "T.conj_physical_(T.tensor([[-0.3, 3.6, 5.0]]).expand(2, 3))",
]

EXPANDED_RECEIVER_REFUSED = [
    "T.tensor([[1j, 2]]).expand(2, 2).conj_physical_()",
    "T.relu_(T.tensor([[-0.3, 3.6, 5.0]]).expand(2, 3))",
    "T.ones(1).expand(2).addmv_(T.ones(2, 0), T.ones(0))",
]

VIEW_DTYPE_LAYOUT = [
    "T.zeros(3, 3, dtype=T.int8).view(T.int32)",
    "T.zeros(3, 4, dtype=T.int8).t().view(T.int32)",
    "T.zeros(3, 8, dtype=T.int8)[:, 1:5].view(T.int32)",
    "T.zeros(3, 8, dtype=T.int8)[:, ::2].view(T.int32)",
    "T.zeros(3, 6, dtype=T.int8)[:, :4].view(T.int32)",
    "T.zeros(3, 2, dtype=T.int32).t().view(T.int8)",
    "T.zeros(3, 1, dtype=T.int32).expand(3, 4).view(T.int8)",
    "T.view_copy(T.tensor([[-2], [-2], [5]], dtype=T.int8).expand(3, 4), T.int32, out=T.zeros(0, dtype=T.int8))",
]

VIEW_DTYPE_RETURNS = [
    "T.zeros(3, 1, dtype=T.int32).expand(3, 4).view(T.float32)",
    "T.ones(3, 8, dtype=T.int8).view(T.int32)",
    "T.ones(3, 2, dtype=T.int32).view(T.int16)",
]

# --- empty inputs of the nn functions: torch's output sizes without a kernel ------------------------------

EMPTY_NN_RETURNS = [
    "T.conv_transpose2d(T.zeros((0, 2, 1, 2)), T.ones(2, 2, 1, 2), None, (2, 1), (1, 2), (1, 0), 1, (2, 3))",
    "T.conv1d(T.zeros((2, 0, 1), dtype=T.float64), T.zeros((2, 0, 2), dtype=T.float64).permute(2, 1, 0),"
    " T.tensor([0.01, 0.702], dtype=T.float64), padding=1)",
    "F.conv2d(T.zeros(2, 0, 3, 3), T.zeros(4, 0, 2, 2), T.ones(4))",      # no channels in: none out
    "F.conv2d(T.zeros(0, 2, 3, 3), T.ones(4, 2, 2, 2))",
    "F.conv2d(T.zeros(2, 0, 3, 3, dtype=T.int64), T.zeros(4, 0, 2, 2, dtype=T.int64))",
    "T.conv_transpose3d(T.zeros((0, 2, 1, 1, 2), dtype=T.float16), T.ones(2, 2, 2, 2, 2, dtype=T.float16), None,"
    " (1, 2, 2), (1, 0, 1), 0, 1, (2, 1, 1))",
    "F.conv_tbc(T.zeros((3, 0, 4), dtype=T.float16)[1:], T.zeros((0, 4, 1), dtype=T.float16),"
    " T.tensor([1.1796875], dtype=T.float16))",
    "F.pad(T.zeros((0, 3), dtype=T.float64), [1, 3], mode='circular')",
    "F.pad(T.zeros(0, 0, 3), [1, 1], mode='circular')",
    "F.pad(T.zeros(0, 2, 3), [1, 1], mode='replicate')",
    "F.unfold(T.ones(0, 2, 3, 3), 2, padding=(0, 1))",
    "F.grid_sample(T.zeros((0, 2, 2, 3), dtype=T.float16), T.zeros((0, 3, 2, 2), dtype=T.float16), 'nearest',"
    " 'reflection', True)",
    "F.grid_sample(T.zeros(0, 2, 2, 3, dtype=T.int64), T.zeros(0, 3, 2, 2, dtype=T.int64), align_corners=True)",
    "F.grid_sample(T.zeros(1, 0, 2, 3), T.zeros(1, 3, 2, 2), align_corners=True)",
    "F.instance_norm(T.zeros(0, 4, 3))",
    # complex and bool im2col/col2im (torch has kernels for them)
    "F.unfold(T.arange(18.).reshape(1, 2, 3, 3) * (1 + 2j), 2)",
    "F.unfold(T.arange(18).reshape(1, 2, 3, 3) > 8, 2)",
    "F.fold(T.arange(32.).reshape(1, 8, 4) * (1 - 1j), 3, 2)",
    "F.fold(T.arange(32).reshape(1, 8, 4) % 3 == 0, 3, 2)",
]

EMPTY_NN_REFUSED = [
    "F.conv_transpose1d(T.zeros(0, 2, 1), T.zeros(2, 2, 1), stride=1, padding=3)",
    "F.conv_transpose2d(T.zeros(2, 0, 3, 3), T.zeros(0, 4, 2, 2))",
    "F.conv1d(T.zeros(2, 0, 1), T.zeros(2, 0, 2))",
    "F.pad(T.zeros(2, 0, 3), [1, 1], mode='reflect')",
    "F.pad(T.zeros(0, 3), [1, 1], mode='replicate')",
    "F.grid_sample(T.zeros(1, 2, 0, 3), T.zeros(1, 3, 2, 2), align_corners=True)",
    "F.unfold(T.ones(1, 2, 3, 3, dtype=T.int64), 2)",
]


@pytest.mark.parametrize("make", [
    "lambda x, w: T.conv_transpose2d(x, w, None, (2, 1), (1, 2), (1, 0), 1, (2, 3))",
    "lambda x, w: F.conv2d(x, w.permute(1, 0, 2, 3)[:, :0], padding=1)",
])
def test_empty_conv_gradients(make):
    def fn(T):
        F = T.nn.functional
        x = T.zeros((0, 2, 1, 2), requires_grad=True)
        w = T.tensor([[[[-0.7, 0.9]], [[-0.1, -1.0]]], [[[1.4, 0.5]], [[-0.6, -0.1]]]], requires_grad=True)
        r = eval(make, {"T": T, "F": F})(x if "transpose" in make else T.zeros((2, 0, 1, 2), requires_grad=True), w)
        r.sum().backward()
        return r, w.grad
    check(fn)


@pytest.mark.parametrize("src", [
    "lambda x: F.pad(x, [1, 3], mode='circular')",
    "lambda x: F.unfold(x.reshape(0, 3, 1, 1).expand(0, 3, 3, 3), 2, padding=(0, 1))",
    "lambda x: F.instance_norm(x.reshape(0, 3, 1).expand(0, 3, 4))",
])
def test_empty_nn_gradients(src):
    def fn(T):
        x = T.zeros((0, 3), dtype=T.float64, requires_grad=True)
        r = eval(src, {"T": T, "F": T.nn.functional})(x)
        r.sum().backward()
        return r, x.grad
    check(fn)


# --- out= of the *_copy ops, kron's final view, pools and losses of empty inputs ------------------------

MORE_RAISES = [
    "T.view_copy(T.ones(2, 4), T.int32, out=T.zeros(0))",
    "T.view_copy(T.ones(2, 4), (8,), out=T.zeros(0, dtype=T.float64))",
    "T.transpose_copy(T.ones(2, 4), 0, 1, out=T.zeros(0, dtype=T.float64))",
    "T.tensor([[[0.34, 1.01], [-0.88, 0.]], [[0.13, -0.69], [1.02, -0.45]]]).permute(2, 1, 0).kron(T.ones(4))",
    "T.kron(T.ones(2, 3).t(), T.ones(2))",
    "T.kron(T.ones(2), T.ones(2, 3).t())",
    "T.kron(T.ones(4, 3, 2).permute(0, 2, 1), T.ones(2, 2))",
    "T.kron(T.ones(4, 3, 2).permute(1, 0, 2), T.ones(2, 2))",
    "T.kron(T.ones(3, 2), T.ones(2, 3).t())",
    "F.adaptive_avg_pool2d(T.zeros((1, 3, 0, 1)), 2)",
    "F.adaptive_max_pool2d(T.zeros((1, 3, 0, 1)), 1)",
]

MORE_ORDER_RAISES = [
    "F.linear(T.zeros(3), T.zeros(2, 2, 3), T.zeros(2))",        # torch transposes the weight first
    "F.linear(T.zeros(2, 3), T.zeros(1, 2, 3))",
    "F.linear(T.zeros(2, 3, dtype=T.float64), T.zeros(2, 2, 3))",
    "T.rms_norm(T.tensor([1.128, -0.499], dtype=T.float64), [3, 5])",
    "F.rms_norm(T.ones(2, 3), [1, 2, 3])",
    "T.rms_norm(T.ones(3), [2, 3], weight=T.ones(3))",
    "T.mvlgamma(T.tensor([[True, False]]), 2)",
    "T.mvlgamma(T.tensor([True]), 0)",
    "T.group_norm(T.ones(3, 2), 4, T.ones(3, 2), T.ones(3, 2), 0.001)",
    "F.group_norm(T.ones(1, 4), 4)",
    "T.std(T.tensor([[32752.0, -6e-08], [-65504.0, -0.0]], dtype=T.float16), False, out=T.zeros(0, dtype=T.float16))",
    "T.var(T.ones(2, 3), False, out=T.zeros(0))",
    "T.linalg.solve_triangular(T.zeros((4, 3, 0), dtype=T.bfloat16), T.zeros((4, 3, 0), dtype=T.bfloat16), upper=True)",
    "T.linalg.solve_triangular(T.zeros(3, 0, dtype=T.int64), T.zeros(3, 0, dtype=T.int64), upper=True)",
    "T.linalg.solve_triangular(T.zeros(3, 3, dtype=T.bfloat16), T.zeros(2, 2, dtype=T.bfloat16), upper=True)",
    "T.linalg.solve_triangular(T.zeros(3, 3, dtype=T.bfloat16), T.zeros(3, 2), upper=True)",
    "F.conv_transpose2d(T.zeros((0, 2, 0, 1)), T.zeros((3, 2, 0, 2))[1:], None, (2, 1), (1, 2), (1, 0), 1, (2, 3))",
    "F.conv_transpose2d(T.zeros(0, 2, 3, 3), T.zeros(2, 0, 2, 2))",
]

LATER_RAISES = [
    # cross_entropy's log_softmax of the input's own dtype (not the one promoted with probability targets)
    "F.cross_entropy(T.tensor([[5, -1, 2], [2, -3, -5]], dtype=T.int8), T.ones(2, 3, dtype=T.float16))",
    "F.cross_entropy(T.tensor([[[5, -1], [2, 0]]], dtype=T.int8), T.ones(1, 2, 2))",
    # lp pools: an integer norm keeps the integer input (no average-pool kernel), a float one does not
    "F.lp_pool1d(T.ones(1, 2, 4, dtype=T.uint8), 2, 2)",
    "F.lp_pool2d(T.ones(1, 2, 4, 4, dtype=T.complex64), 2.0, 2)",
    "F.lp_pool3d(T.ones(1, 2, 4, 4, 4, dtype=T.float16), 2.0, 2)",
    "F.lp_pool3d(T.ones(1, 2, 4, 4, 4, dtype=T.int8), 2, 2)",
    "T.take_along_dim(T.arange(12.).reshape(3, 4), T.tensor([50]))",
]

LATER_RETURNS = [
    "F.lp_pool1d(T.ones(1, 2, 4, dtype=T.uint8), 2.0, 2)",
    "F.lp_pool2d(T.ones(1, 2, 4, 4, dtype=T.uint8), 2.0, (3, 2), ceil_mode=True)",
    "F.lp_pool2d(T.ones(1, 2, 4, 4, dtype=T.int16), 2.0, 2)",
    "F.lp_pool3d(T.ones(1, 2, 4, 4, 4, dtype=T.int8), 2.0, 2)",
    # take_along_dim wraps its indices along dim (Python's modulo), unchecked
    "T.take_along_dim(T.arange(12.).reshape(3, 4), T.tensor([[-9223372036854775808, 9223372036854775807, 7, -7]]), 0)",
    "T.take_along_dim(T.arange(12.).reshape(3, 4), T.tensor([[-1, 0, 0, 0]]), 1)",
]


def test_take_along_dim_wrapped_gradient():
    def fn(T):
        x = T.arange(12.).reshape(3, 4).requires_grad_()
        r = T.take_along_dim(x, T.tensor([[5, -1, 7, -7]]), 0)
        r.sum().backward()
        return r, x.grad
    check(fn)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_block_diag_of_no_rows_gradient(dtype):
    def fn(T):
        x = T.tensor([[0.0, 0.0]], dtype=getattr(T, dtype), requires_grad=True)
        r = T.block_diag(x.expand(0, 2))
        r.sum().backward()
        return r, x.grad
    check(fn)


EMPTY_LSTSQ = [
    "T.linalg.lstsq(T.zeros(1, 0, 3, 3), T.zeros(1, 0, 3, 3), driver='gels')",
    "T.linalg.lstsq(T.zeros(2, 0), T.zeros(2, 0), driver='gels')",
    "T.linalg.lstsq(T.zeros(0, 2), T.zeros(0, 3))",
    "T.linalg.lstsq(T.zeros(2, 3), T.zeros(2, 0))",
    "T.linalg.lstsq(T.zeros(3, 0), T.zeros(3, 2), driver='gelsd')",
    "T.linalg.lstsq(T.zeros(3, 0), T.zeros(3, 2), driver='gels')",
    "T.linalg.lstsq(T.zeros(0, 2), T.zeros(0), driver='gelss')",
]


@pytest.mark.parametrize("shapes", [((2, 0), (2, 0)), ((0, 2), (0, 3))])
def test_empty_lstsq_gradients(shapes):
    def fn(T):
        a = T.zeros(shapes[0], requires_grad=True)
        b = T.zeros(shapes[1], requires_grad=True)
        r = T.linalg.lstsq(a, b)
        r[0].sum().backward()
        return r[0], a.grad, b.grad
    check(fn)


MORE_RETURNS = [
    "T.group_norm(T.ones(1, 4), 4)",
    "T.std(T.ones(2, 3), 1, out=T.zeros(0))",
    "T.view_copy(T.ones(2, 4), (8,), out=T.zeros(0))",
    "T.kron(T.ones(2, 3), T.ones(2, 2))",
    "T.kron(T.ones(2, 3)[:, ::2], T.ones(2, 2))",
    "T.kron(T.ones(2, 3).t(), T.ones(2, 3).t())",
    "T.kron(T.ones(2, 3).t(), T.ones(1, 1))",
    "T.kron(T.ones(2, 1).expand(2, 3), T.ones(2, 2))",
    "F.adaptive_avg_pool2d(T.zeros((1, 3, 0, 1)), 1)",
    "F.adaptive_avg_pool1d(T.zeros((1, 3, 0)), 1)",
    "F.adaptive_avg_pool3d(T.zeros((1, 3, 0, 1, 1)), 1)",
    "F.multi_margin_loss(T.zeros(0, 1), T.zeros(0, dtype=T.int16), reduction='sum').shape",   # (torch: garbage)
    "F.multi_margin_loss(T.zeros(0, 1), T.zeros(0, dtype=T.int16), reduction='none')",
]

RETURNS_AS_TORCH = [
    "T.histogram(T.ones(3), 3, weight=T.ones(3))",
    "T.abs(T.tensor(1j), out=T.zeros(0, dtype=T.complex64))",
    "T.abs(T.tensor(1j), out=T.zeros(0, dtype=T.float64))",
    "T.repeat_interleave(T.tensor(0.2), 2)",
    "T.group_norm(T.ones(2, 4, 3), 2)",
]


def test_cross_of_empty_backward():
    def fn(T):
        x0 = T.zeros((3, 0), requires_grad=True)
        x1 = T.zeros((4, 0), requires_grad=True)
        r = T.cross(x0, x1[1:])
        r.sum().backward()
        return r, x0.grad, x1.grad
    check(fn)


@pytest.mark.parametrize("src", CHECKS_BEFORE_DTYPE_DISPATCH + INDEX_PATHS_AS_TORCH + NOT_EMPTY_STILL_REFUSED
                         + INDEX_WRITES_AS_TORCH + EXPANDED_RECEIVER_REFUSED + VIEW_DTYPE_LAYOUT + EMPTY_NN_REFUSED
                         + MORE_RAISES + MORE_ORDER_RAISES + LATER_RAISES)
def test_raises_as_torch(src):
    _same_error(src)


@pytest.mark.parametrize("src", RETURNS_AS_TORCH + EMPTY_WITHOUT_KERNEL + WEIGHTED_LOSSES + COMPLEX_LU
                         + INDEX_WRITES_RETURN + EXPANDED_RECEIVER_WRITES + VIEW_DTYPE_RETURNS + EMPTY_NN_RETURNS
                         + MORE_RETURNS + LATER_RETURNS + EMPTY_LSTSQ)
def test_returns_as_torch(src):
    _same_value(src)


# --- backward-only errors and nodes: half gammainc's missing derivative, bfloat16 nextafter ---------------

def test_half_gammainc_input_derivative_refused():
    def fn(T):
        x = T.tensor([[3.0625, 3.0], [3.8, 3.0]], dtype=T.float16, requires_grad=True)
        y = T.tensor([[2.2, 1.8]], dtype=T.float16, requires_grad=True)
        T.special.gammainc(x, y.expand(2, 2)).sum().backward()
    check(fn, raises=True)


def test_half_gammainc_other_derivative():
    def fn(T):
        y = T.tensor([[2.2, 1.8]], dtype=T.float16, requires_grad=True)
        r = T.special.gammainc(T.tensor([[3.0625, 3.0]], dtype=T.float16), y)
        r.sum().backward()
        return r, y.grad
    check(fn, rtol=2e-2, atol=1e-3)


@pytest.mark.parametrize("dtype", ["bfloat16", "float32"])
def test_nextafter_backward_and_node_name(dtype):
    def fn(T):
        dt = getattr(T, dtype)
        a = T.tensor([-0.5, 1.5, 2.0], dtype=dt, requires_grad=True)
        b = T.tensor([1., -1., 2.0], dtype=dt, requires_grad=True)
        r = T.nextafter(a, b)
        r.sum().backward()
        return r, a.grad, b.grad, r.grad_fn.name()
    check(fn)


# --- the kernel's dtype refused after the shape checks (conv, lp pools) -----------------------------------

@pytest.mark.parametrize("src", [
    "F.lp_pool1d(T.tensor(complex(0.757, -0.11)), 2, 3, 2, True)",
    "F.conv_transpose3d(T.ones(1, 3, 1, 1, 3, dtype=T.complex64), T.zeros((3, 0, 3, 3, 1), dtype=T.complex64)"
    ".expand(3, 0, 3, 3, 3), stride=3, output_padding=(2, 1, 0))",
    "F.conv_transpose2d(T.zeros(1, 2, 3, 3), T.zeros(2, 0, 2, 2))",
    "F.conv_transpose1d(T.zeros(1, 2, 3), T.zeros(2, 0, 2))",
    "F.conv2d(T.ones(1, 2, 3, 3, dtype=T.bool), T.ones(2, 2, 4, 4, dtype=T.bool))",
    "F.conv2d(T.ones(1, 2, 3, 3, dtype=T.bool), T.ones(2, 2, 2, 2, dtype=T.bool))",
])
def test_kernel_dtype_after_shape_checks(src):
    _same_error(src)
