"""An unmodified torch-style script: imports, argv, __main__, sibling imports, exit codes."""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.modules.linear import Linear

import sibling


def main():
    x = torch.ones(2, 3)
    print("name", __name__)
    print("argv", sys.argv[1:])
    print("sibling", sibling.answer())
    print("same class", nn.Linear is Linear)
    print("sum", (x * 2).sum().item())
    print("device", torch.device("cuda" if torch.cuda.is_available() else "cpu"))
    print("F", F.linear(x, torch.ones(1, 3)).tolist())
    if "--fail" in sys.argv:
        raise ValueError("failing on purpose")
    if "--exit" in sys.argv:
        sys.exit(int(sys.argv[sys.argv.index("--exit") + 1]))


if __name__ == "__main__":
    main()
