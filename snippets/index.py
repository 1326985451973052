"""Home: the versions every output on this site was made with, read when the site is built."""

# --8<-- [start:versions]
import os
import platform

import torch

import thunder
from thunder.executors.nvfuserex import nvfuser_version

device = os.environ.get("THUNDER_DOCS_DEVICE", "cpu")
if device == "cuda":
    device = f"cuda ({torch.cuda.get_device_name()})"

print("python: ", platform.python_version())
print("torch:  ", torch.__version__)
print("thunder:", thunder.__version__)
print("nvFuser:", nvfuser_version() or "not installed")
print("device: ", device)
# --8<-- [end:versions]
