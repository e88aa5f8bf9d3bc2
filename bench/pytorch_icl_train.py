#!/usr/bin/python3
"""PyTorch baseline for `babyberta bench train --kind icl`: the authors' model (omyokun/SSA
scratch/src/models.py: a linear read-in, HF GPT2Model's pre-LN blocks with tanh GELU and a final
LayerNorm, a linear read-out, predictions at the x positions) written in plain PyTorch as a
PyTorch user would (nn.Linear, a causal mask added to the scores), trained as the authors train
it: Adam lr 1e-4, no weight decay, no clipping, batch 64, 41 points (82 tokens) of the `every`
task with BCE. Prints one JSON line like the C++ bench.
    /usr/bin/python3 bench/pytorch_icl_train.py --preset icl-tiny --threads 1 --seconds 20
--attention ssa: t = sign(s) n log1p(b|s|), b = exp(beta), n = 1 + exp(nu) per head, masked keys
-inf after the power, softmax over t.
--arch attention-only-residual: blocks x += attn(x) without LayerNorm or MLP.
"""
import argparse
import json
import math
import time

import torch
import torch.nn as nn

PRESETS = {"icl-tiny": (3, 2, 64), "icl-small": (6, 4, 128), "icl-standard": (12, 8, 256)}


class Block(nn.Module):
    def __init__(self, C, H, attention, arch):
        super().__init__()
        self.H, self.arch, self.ssa = H, arch, attention == "ssa"
        self.c_attn, self.c_proj = nn.Linear(C, 3 * C), nn.Linear(C, C)
        if arch == "full":
            self.ln_1, self.ln_2 = nn.LayerNorm(C), nn.LayerNorm(C)
            self.c_fc, self.mlp_proj = nn.Linear(C, 4 * C), nn.Linear(4 * C, C)
        if self.ssa:
            self.beta = nn.Parameter(torch.zeros(H))
            self.nu = nn.Parameter(torch.full((H,), math.log(0.5)))

    def attn(self, x, causal):
        B, T, C = x.shape
        q, k, v = self.c_attn(x).split(C, dim=-1)
        heads = lambda t: t.view(B, T, self.H, C // self.H).transpose(1, 2)  # noqa: E731
        q, k, v = heads(q), heads(k), heads(v)
        s = q @ k.transpose(-1, -2) / math.sqrt(C // self.H)
        if self.ssa:
            b = self.beta.exp().view(1, -1, 1, 1)
            n = (1 + self.nu.exp()).view(1, -1, 1, 1)
            s = torch.sign(s) * n * torch.log1p(b * s.abs())
        p = torch.softmax(s.masked_fill(causal, float("-inf")), dim=-1)
        return self.c_proj((p @ v).transpose(1, 2).reshape(B, T, C))

    def forward(self, x, causal):
        if self.arch == "full":
            x = x + self.attn(self.ln_1(x), causal)
            h = nn.functional.gelu(self.c_fc(self.ln_2(x)), approximate="tanh")
            return x + self.mlp_proj(h)
        if self.arch == "attention-only":
            return self.attn(x, causal)
        return x + self.attn(x, causal)


class Model(nn.Module):
    def __init__(self, preset, attention, arch):
        super().__init__()
        layers, H, C = PRESETS[preset]
        self.read_in, self.wpe = nn.Linear(1, C), nn.Embedding(512, C)
        self.blocks = nn.ModuleList(Block(C, H, attention, arch) for _ in range(layers))
        self.ln_f, self.read_out = nn.LayerNorm(C), nn.Linear(C, 1)

    def forward(self, z):
        T = z.shape[1]
        causal = torch.ones(T, T, dtype=torch.bool).triu(1)
        x = self.read_in(z) + self.wpe.weight[:T]
        for blk in self.blocks:
            x = blk(x, causal)
        return self.read_out(self.ln_f(x))[:, ::2, 0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--preset", default="icl-tiny", choices=list(PRESETS))
    ap.add_argument("--attention", default="softmax", choices=["softmax", "ssa"])
    ap.add_argument("--arch", default="full",
                    choices=["full", "attention-only", "attention-only-residual"])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--batch", type=int, default=64)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    model = Model(a.preset, a.attention, a.arch)
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    k = 41

    def step():
        xs = torch.randn(a.batch, k)
        ys = (xs > 0).float().cumprod(dim=1) * 2 - 1
        z = torch.stack((xs, ys), dim=2).reshape(a.batch, 2 * k, 1)
        loss = nn.functional.binary_cross_entropy_with_logits(model(z), (ys + 1) / 2)
        opt.zero_grad()
        loss.backward()
        opt.step()

    for _ in range(3):
        step()
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < a.seconds:
        step()
        steps += 1
    dt = time.perf_counter() - t0
    print(json.dumps({"bench": "pytorch_icl_train", "preset": a.preset, "attention": a.attention,
                      "arch": a.arch, "threads": a.threads, "batch": a.batch,
                      "torch": torch.__version__, "steps": steps, "seconds": dt,
                      "tokens_per_s": steps * a.batch * 2 * k / dt,
                      "sequences_per_s": steps * a.batch / dt}))


if __name__ == "__main__":
    main()
