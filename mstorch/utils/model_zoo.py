"""torch.utils.model_zoo: the old home of ``load_url`` (torch.hub.load_state_dict_from_url); torchvision imports
``tqdm`` from here."""
from ..hub import tqdm, load_state_dict_from_url as load_url  # noqa: F401
