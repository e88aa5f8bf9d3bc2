"""What check_bundled_roberta.py and check_bundled_gpt2.py both check of an exported folder's
remote code, run from the folder itself: the modeling file compiles, config.json names the model
type and the auto_map classes, and the parameters the model class builds (add_parameters over
parameter_shapes, as its __init__ does) are model.safetensors' tensors: the same names and shapes,
listed in the file's order. Returns (config, the stored tensors in float64)."""
import json
import os
import py_compile
import struct

import torch


def check_folder(folder, modeling_file, model_type, auto_map, parameter_shapes):
    from babyberta_torch import add_parameters, read_safetensors  # the folder's own copy

    py_compile.compile(os.path.join(folder, modeling_file), doraise=True)
    with open(os.path.join(folder, "config.json")) as f:
        config = json.load(f)
    assert config["model_type"] == model_type, config["model_type"]
    assert config["auto_map"] == auto_map, config
    path = os.path.join(folder, "model.safetensors")
    p = read_safetensors(path)
    with open(path, "rb") as f:
        header = json.loads(f.read(struct.unpack("<Q", f.read(8))[0]))
    stored = sorted(p, key=lambda name: header[name]["data_offsets"][0])  # the data's order
    expected = list(parameter_shapes(config))
    assert [n for n, _ in expected] == stored, ("names or order differ", expected, stored)
    built = torch.nn.Module()
    add_parameters(built, expected)
    registered = {n: tuple(t.shape) for n, t in built.named_parameters()}
    assert registered == {n: tuple(p[n].shape) for n in stored}, ("add_parameters", registered)
    return config, p
