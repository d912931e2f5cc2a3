"""torch.optim.lr_scheduler: learning-rate schedules that rewrite ``optimizer.param_groups[i]["lr"]``."""
from ._base import (  # noqa: F401  (torch's private helpers too: swa_utils-style code imports them)
                    EPOCH_DEPRECATION_WARNING, LRScheduler, _LRScheduler, LambdaLR, MultiplicativeLR, StepLR,
                    MultiStepLR, ConstantLR, LinearLR, ExponentialLR, PolynomialLR, CosineAnnealingLR, inf,
                    _enable_get_lr_call, _format_param, _initial_mode, _param_groups_val_list,
                    _update_param_group_val, _warn_get_lr_called_within_step)
from ._composite import SequentialLR, ChainedScheduler, ReduceLROnPlateau  # noqa: F401
from ._cyclic import CyclicLR, CosineAnnealingWarmRestarts, OneCycleLR  # noqa: F401

__all__ = ["LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR", "ExponentialLR",
           "SequentialLR", "CosineAnnealingLR", "ChainedScheduler", "ReduceLROnPlateau", "CyclicLR",
           "CosineAnnealingWarmRestarts", "OneCycleLR", "PolynomialLR", "LRScheduler"]

# torch's classes all live in torch.optim.lr_scheduler: reprs and pickled class paths name that module
for _cls in (LRScheduler, _LRScheduler, LambdaLR, MultiplicativeLR, StepLR, MultiStepLR, ConstantLR, LinearLR,
             ExponentialLR, PolynomialLR, CosineAnnealingLR, SequentialLR, ChainedScheduler, ReduceLROnPlateau,
             CyclicLR, CosineAnnealingWarmRestarts, OneCycleLR):
    _cls.__module__ = __name__
del _cls
