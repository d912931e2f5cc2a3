"""``torch.utils.data._utils``: the module paths user code imports collate extensions from
(``from torch.utils.data._utils.collate import default_collate_fn_map``)."""
import sys

from .. import _collate as collate
from .. import _worker as worker
from .. import dataloader as fetch

MP_STATUS_CHECK_INTERVAL = worker.MP_STATUS_CHECK_INTERVAL

for _name, _module in (("collate", collate), ("worker", worker), ("fetch", fetch)):
    sys.modules[f"{__name__}.{_name}"] = _module
