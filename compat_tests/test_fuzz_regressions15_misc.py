"""Regression tests against torch for misc classes the differential fuzzer found (fifteenth batch): put with
duplicate indices (the last write in torch's TensorIterator order over source and index, which follows their
strides), binomial with a subnormal probability (an infinite geometric waiting time, no error), an empty
complex mode (returned before torch's dtype dispatch) and complex unique / unique_consecutive along a dim
(torch's "unique_dim" NotImplementedError before any check of the dim)."""


from harness import FUZZ_BACKWARD, cases_as_torch, messages_as_torch


_BACKWARD = FUZZ_BACKWARD

VALUES = [
    # put: duplicate indices, the last write in the order of the source's strides (transposed) wins
    "T.put(T.tensor(T.tensor([[-1.1120273, 1.4829292], [-1.1731234, 1.6744436], [-0.046355244, 0.44697544]])).t(), "
    "T.tensor([[2, -5, 1, -4], [1, -4, 2, 3]])[:, ::2], T.tensor([[0.7, 0.5], [0.2, 0.3]]).t())",
    "x0 = T.zeros(2, 3, requires_grad=True); x1 = T.tensor([[0.7, 0.5], [0.2, 0.3]], requires_grad=True); "
    "r = T.put(x0 * 1, T.tensor([[2, -5, 1, -4], [1, -4, 2, 3]])[:, ::2], x1.t()); " + _BACKWARD
    + "; out = (r, x0.grad, x1.grad)",
    "x = T.zeros(5); x.put_(T.tensor([[0, 1, 2], [1, 2, 0]]).t(), T.arange(6.).reshape(2, 3).t()); out = x",
    "T.put(T.zeros(4), T.tensor([[[0, 1], [1, 3]], [[3, 0], [2, 2]]]).permute(2, 0, 1), "
    "T.arange(8.).reshape(2, 2, 2).permute(1, 2, 0))",
    "T.put(T.zeros(3), T.tensor([0, 1, 2, 2, 1, 0]).reshape(2, 3), T.tensor([[1.5, 2.5, 3.5]]).expand(2, 3))",
    "T.put(T.zeros(3), T.tensor([[0, 1], [1, 2], [2, 0]]).t(), T.arange(6.).reshape(2, 3), accumulate=True)",
    # binomial: a subnormal probability gives an infinite waiting time (C's ceil of inf), a count of 0
    "T.manual_seed(1234); out = T.binomial(T.tensor([[[[10.5, 165.3, inf], [70.0, 26.5, 34.1], [32.4, 1e+30, 0.0], "
    "[6.7, 156.7, -5e-324]]], [[[1.7976931348623157e+308, 182.6, 151.4], [87.2, 138.2, 65.1], "
    "[1.7976931348623157e+308, 67.5, 145.0], [31.9, 78.5, 82.2]]]], dtype=T.float64), T.tensor([[[[0.221, 0.693, "
    "0.0], [5e-324, 0.397, 0.309], [0.885, 0.278, -inf], [0.394, 0.651, 5e-324]]], [[[0.908, 0.666, 0.536], "
    "[0.813, 0.298, 0.484], [0.53, 0.42, 0.348], [0.229, 0.0, 0.746]]]], dtype=T.float64))",
    "T.manual_seed(7); out = (T.binomial(T.tensor([70.0, 5.0, 3.0]), T.tensor([1e-45, 1e-45, 0.3])), T.rand(2))",
    "T.manual_seed(7); out = (T.binomial(T.tensor([70.0, 5.0], dtype=T.float64), "
    "T.tensor([1.0 - 1e-16, 5e-324], dtype=T.float64)), T.rand(2))",
    # mode of an empty complex input: an empty result before torch's dtype dispatch
    "T.mode(T.zeros((1, 0), dtype=T.complex64).expand(2, 0), 0)",
    "T.mode(T.zeros((0, 3), dtype=T.complex128), 1, keepdim=True)",
    "T.zeros((0, 3), dtype=T.complex64).mode(-1)",
]

RAISES = [
    "T.unique_consecutive(T.zeros((0, 4), dtype=T.complex64), return_counts=True, dim=1)",
    "T.unique_consecutive(T.zeros((0, 0), dtype=T.complex64), dim=0)",
    "T.unique_consecutive(T.zeros((), dtype=T.complex64), dim=0)",
    "T.unique_consecutive(T.zeros((3,), dtype=T.complex128), dim=5)",
    "T.unique_consecutive(T.zeros((3, 2), dtype=T.complex128))",
    "T.unique(T.zeros((0, 4), dtype=T.complex64), dim=1)",
    "T.unique(T.zeros((3, 4), dtype=T.complex128), dim=0)",
    "T.zeros((3, 2), dtype=T.complex64).unique(dim=0)",
    "T.mode(T.zeros((2, 3), dtype=T.complex128), 1)",
    "T.mode(T.zeros((2, 0), dtype=T.complex64), 1)",
    "T.kthvalue(T.zeros((0, 3), dtype=T.complex128), 1, 1)",
]


test_values_as_torch = cases_as_torch(VALUES, rtol=1e-6, atol=1e-7)
test_raises_as_torch = cases_as_torch(RAISES, raises=True)


test_no_complex_kernel_message_as_torch = messages_as_torch([
    lambda T: T.unique_consecutive(T.zeros((0, 4), dtype=T.complex64), return_counts=True, dim=1),
    lambda T: T.unique(T.zeros((0, 0), dtype=T.complex128), dim=0),
    lambda T: T.unique(T.zeros((3,), dtype=T.complex128)),
    lambda T: T.mode(T.zeros((2, 3), dtype=T.complex128), 1),
    lambda T: T.kthvalue(T.zeros((0, 3), dtype=T.complex128), 1, 1),
])
