from harness import rand
from .common import ModuleInfo, M, BadArgs

MODULES = [
    ModuleInfo("Conv1d", [
        M(4, 512, 2, inputs=(rand(1, 4, 3),)),                                # wide: initial statistics
        M(4, 6, 3, stride=2, padding=1, groups=2, inputs=(rand(2, 4, 7),)),
        M(2, 3, 2, padding="same", dilation=2, bias=False, inputs=(rand(2, 6),)),
        M(2, 3, 3, padding=2, padding_mode="circular", inputs=(rand(1, 2, 5),)),
        M(2, 3, 3, padding="valid", inputs=(rand(1, 2, 5),)),
        BadArgs(4, 6, 3, groups=4), BadArgs(4, 6, 3, groups=0), BadArgs(3, 6, 3, groups=3, padding="full"),
        BadArgs(2, 4, 3, stride=2, padding="same"),
        # padding_mode="zero": the message prints a set whose order depends on the hash seed of whoever compiled
        # the .pyc, so it is compared by exception type in op_db/nn_conv.py
    ]),
    ModuleInfo("Conv2d", [
        M(2, 512, 2, inputs=(rand(1, 2, 2, 2),)),
        M(3, 4, 3, inputs=(rand(2, 3, 6, 5),)),                               # torch default padding=0
        M(4, 6, (3, 2), stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2, inputs=(rand(1, 4, 7, 6),)),
        M(2, 3, 4, padding="same", padding_mode="reflect", inputs=(rand(1, 2, 6, 5),)),
        M(2, 3, 3, padding=1, padding_mode="replicate", bias=False, inputs=(rand(2, 5, 4),)),
        M(2, 2, 3, padding=(2, 1), padding_mode="circular", inputs=(rand(1, 2, 4, 4),)),
        BadArgs(4, 5, 3, groups=2),
    ], rtol=1e-5, atol=1e-5),
    ModuleInfo("Conv3d", [
        M(2, 512, 1, inputs=(rand(1, 2, 2, 1, 1),)),
        M(2, 4, 3, padding=1, inputs=(rand(1, 2, 4, 4, 3),)),
        M(4, 2, (2, 3, 1), stride=(1, 2, 1), groups=2, padding_mode="reflect", padding=(1, 1, 0),
          inputs=(rand(4, 3, 5, 2),)),
        BadArgs(2, 4, 3, groups=3),
    ], rtol=1e-5, atol=1e-5),
    ModuleInfo("ConvTranspose1d", [
        M(4, 512, 2, inputs=(rand(1, 4, 2),)),
        M(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2, inputs=(rand(2, 4, 5),)),
        M(2, 3, 2, stride=3, dilation=2, bias=False, inputs=(rand(2, 4),)),
        M(2, 3, 3, stride=2, inputs=(rand(1, 2, 4),), forward_kwargs={"output_size": [10]}),
        BadArgs(2, 3, 3, padding_mode="reflect"),
    ]),
    ModuleInfo("ConvTranspose2d", [
        M(4, 512, 1, inputs=(rand(1, 4, 1, 1),)),
        M(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2, inputs=(rand(2, 4, 4, 3),)),
        M(2, 3, (3, 2), stride=(2, 1), padding=(1, 0), dilation=(1, 2), inputs=(rand(1, 2, 3, 4),)),
        M(2, 2, 3, stride=2, padding=1, inputs=(rand(1, 2, 3, 3),), forward_kwargs={"output_size": (1, 2, 6, 6)}),
        M(2, 2, 3, stride=2, padding=1, inputs=(rand(2, 3, 3),), forward_kwargs={"output_size": (6, 5)}),
        BadArgs(2, 3, 3, padding_mode="circular"), BadArgs(2, 3, 3, groups=2),
    ], rtol=1e-5, atol=1e-5),
    ModuleInfo("ConvTranspose3d", [
        M(4, 512, 1, inputs=(rand(1, 4, 1, 1, 1),)),
        M(2, 4, 3, stride=2, padding=1, output_padding=1, inputs=(rand(1, 2, 2, 3, 2),)),
        M(2, 2, 2, dilation=(2, 1, 1), groups=2, bias=False, inputs=(rand(2, 2, 3, 2),)),
    ], rtol=1e-5, atol=1e-5),
]
