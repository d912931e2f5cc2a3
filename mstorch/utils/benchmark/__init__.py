"""torch.utils.benchmark: Timer, Measurement, Compare and their helpers, in pure Python over
``timeit.default_timer`` as torch's are. Not provided: the Callgrind instruction counts (``collect_callgrind``,
``CallgrindStats``, ``FunctionCount(s)``, ``CopyIfCallgrind``: valgrind instrumenting torch's C++ build) and the
fuzzers (compat_tests/api_absent.txt gives the reasons)."""
from .utils.common import *  # noqa: F401,F403
from .utils.timer import *  # noqa: F401,F403
from .utils.compare import *  # noqa: F401,F403
