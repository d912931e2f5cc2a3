"""MindSpore mode and runtime defaults chosen per device, each overridable by an environment variable.

| setting | CPU default | override |
|---|---|---|
| execution mode | PyNative (eager, as torch) | none: mstorch is eager by design |
| kernel launch | blocking (``mindspore.runtime.launch_blocking()``): the async runtime cost ~1 ms per host sync on a 2-core host | ``MSTORCH_LAUNCH_BLOCKING=0`` keeps MindSpore's asynchronous launch |
| device target | what MindSpore was built for (``CPU`` here) | ``MSTORCH_DEVICE_TARGET=CPU|GPU|Ascend`` |
"""
import os

import mindspore as ms

_state = {"device_target": None}


def _env_flag(name, default):
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() not in ("0", "false", "no", "off", "")


def configure():
    target = os.environ.get("MSTORCH_DEVICE_TARGET")
    if target:
        ms.set_device(target)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    device = ms.get_context("device_target")
    _state["device_target"] = device
    if _env_flag("MSTORCH_LAUNCH_BLOCKING", device == "CPU"):
        ms.runtime.launch_blocking()
    return device


def device_target():
    return _state["device_target"]
