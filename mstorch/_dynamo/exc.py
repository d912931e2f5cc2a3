"""torch._dynamo.exc: dynamo's exception types (never raised by mstorch, which compiles nothing; present so
that ``except torch._dynamo.exc.Unsupported`` clauses work)."""
from .._compile import InvalidBackend  # noqa: F401


class TorchDynamoException(RuntimeError):
    pass


class InternalTorchDynamoError(TorchDynamoException):
    pass


class Unsupported(TorchDynamoException):
    pass


class UserError(Unsupported):
    pass


class BackendCompilerFailed(TorchDynamoException):
    pass
