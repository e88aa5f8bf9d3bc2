#!/usr/bin/python3
"""An independent plain-PyTorch reader of an exported gpt2 folder (`babyberta export` of a softmax
causal LM: HF GPT2LMHeadModel's config.json and model.safetensors). It knows only the HF format:
GPT2Config's fields, HF GPT-2's tensor names, Conv1D weights [in, out], the head tied to wte,
causal softmax attention, gelu_new; none of the toolkit's code (nor the fixture twin's).
Given `babyberta score --per-token` JSONL on stdin (ids and logprobs), it recomputes each
sentence's per-token log-probabilities in float64 from the folder and exits 1 if any differs by
more than TOL (default 1e-4: float32 error). Exit 77 without PyTorch (the test then skips).
    babyberta score --model RUN --per-token < sentences | read_gpt2_export.py HF_DIR [TOL]
"""
import json
import math
import os
import struct
import sys

try:
    import torch
except ImportError:
    print("skipped: no PyTorch for /usr/bin/python3 (Debian's python3-torch)")
    sys.exit(77)


def read_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        assert t["dtype"] == "F32", (name, t["dtype"])
        a, b = t["data_offsets"]
        out[name] = torch.frombuffer(bytearray(data[a:b]), dtype=torch.float32).reshape(t["shape"]).double()
    return out


def main(folder, tol):
    with open(os.path.join(folder, "config.json")) as f:
        cfg = json.load(f)
    assert cfg["model_type"] == "gpt2" and cfg["activation_function"] == "gelu_new", cfg
    w = read_safetensors(os.path.join(folder, "model.safetensors"))
    C, H, L, eps = cfg["n_embd"], cfg["n_head"], cfg["n_layer"], cfg["layer_norm_epsilon"]
    d = C // H

    def ln(x, name):
        return torch.nn.functional.layer_norm(x, (C,), w[name + ".weight"], w[name + ".bias"], eps)

    def conv1d(x, name):  # HF Conv1D: y = x W + b, W [in, out]
        return x @ w[name + ".weight"] + w[name + ".bias"]

    worst = 0.0
    for line in sys.stdin:
        j = json.loads(line)
        ids = torch.tensor(j["ids"])
        T = len(ids)
        x = w["transformer.wte.weight"][ids] + w["transformer.wpe.weight"][:T]
        mask = torch.full((T, T), float("-inf"), dtype=torch.float64).triu(1)
        for i in range(L):
            p = f"transformer.h.{i}."
            q, k, v = conv1d(ln(x, p + "ln_1"), p + "attn.c_attn").split(C, dim=-1)
            q, k, v = (t.view(T, H, d).transpose(0, 1) for t in (q, k, v))
            att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d) + mask, dim=-1)
            x = x + conv1d((att @ v).transpose(0, 1).reshape(T, C), p + "attn.c_proj")
            h = conv1d(ln(x, p + "ln_2"), p + "mlp.c_fc")
            x = x + conv1d(torch.nn.functional.gelu(h, approximate="tanh"), p + "mlp.c_proj")
        logp = torch.log_softmax(ln(x, "transformer.ln_f") @ w["transformer.wte.weight"].T, dim=-1)
        ours = [logp[t, ids[t + 1]].item() for t in range(T - 1)]
        worst = max(worst, max(abs(a - b) for a, b in zip(ours, j["logprobs"])))
        assert len(ours) == len(j["logprobs"]), (len(ours), len(j["logprobs"]))
    print(f"largest difference in a per-token log-probability: {worst:.2e}")
    sys.exit(0 if worst <= tol else 1)


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 1e-4)
