"""torch._dynamo.exc: the exception types code catches around torch.compile. mstorch never compiles, so
none is raised by it; they exist so ``except torch._dynamo.exc.Unsupported`` works."""
from .._compile import InvalidBackend  # noqa: F401


class TorchDynamoException(RuntimeError):
    pass


class Unsupported(TorchDynamoException):
    pass


class BackendCompilerFailed(TorchDynamoException):
    pass


class UserError(Unsupported):
    pass


class RestartAnalysis(TorchDynamoException):
    pass


class InternalTorchDynamoError(TorchDynamoException):
    pass
