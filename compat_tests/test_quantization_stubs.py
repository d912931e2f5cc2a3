"""torch.ao.quantization's stubs in a float model (torchvision's quantizable models carry them): identities with
torch's repr and no parameters. Preparing or converting a model raises in mstorch (docs/known-differences.md)."""
from harness import check


def test_quant_stubs_are_identities_in_a_float_model():
    def fn(T):
        q, d = T.ao.quantization.QuantStub(), T.ao.quantization.DeQuantStub()
        x = T.arange(3.0, requires_grad=True)
        y = d(q(x) * 2)
        y.sum().backward()
        return [repr(q), repr(d), y, x.grad, list(q.state_dict()), isinstance(q, T.nn.Module)]
    check(fn)
