#!/usr/bin/python3
"""PyTorch baseline for `babyberta bench train --kind gpt2`: a plain PyTorch GPT-2 causal LM (HF
GPT2LMHeadModel semantics: pre-LN blocks, gelu_new, learned positions from 0, final LayerNorm, LM
head tied to the token embeddings, the vocabulary projected at every position, next-token loss)
of the `babyberta` size (8 layers, 8 heads, 256, FFN 1024, vocabulary 8,192, 128 positions;
dropout 0.1), trained with AdamW + grad clipping on batches of 16 utterances padded to their
longest (the padding's positions take no loss), as a PyTorch user writes it with
scaled_dot_product-style causal masking. Lengths follow the AO-CHILDES word-count distribution of
the C++ benchmark (bench/pytorch_train.py's). Prints one JSON line like the C++ bench.
    /usr/bin/python3 bench/pytorch_gpt2_train.py --threads 1 --seconds 30 [--bucket] [--attention ssa]
--attention ssa: t = sign(s) n log1p(b|s|), b = exp(beta), n = 1 + exp(nu) per head, softmax over
t with the causal and padding mask added after the power.
"""
import argparse
import json
import math

import torch
import torch.nn as nn

from pytorch_train import WORD_COUNTS, bucketed, timed


class Block(nn.Module):
    def __init__(self, C, H, F, p, attention):
        super().__init__()
        self.H = H
        self.ssa = attention == "ssa"
        if self.ssa:
            self.beta = nn.Parameter(torch.zeros(1, H, 1, 1))
            self.nu = nn.Parameter(torch.full((1, H, 1, 1), math.log(0.5)))
        self.ln_1 = nn.LayerNorm(C, eps=1e-5)
        self.c_attn = nn.Linear(C, 3 * C)
        self.c_proj = nn.Linear(C, C)
        self.ln_2 = nn.LayerNorm(C, eps=1e-5)
        self.c_fc = nn.Linear(C, F)
        self.mlp_proj = nn.Linear(F, C)
        self.drop = nn.Dropout(p)

    def forward(self, x, mask):
        B, T, C = x.shape
        d = C // self.H
        q, k, v = self.c_attn(self.ln_1(x)).view(B, T, 3, self.H, d).permute(2, 0, 3, 1, 4)
        s = q @ k.transpose(-1, -2) / math.sqrt(d)
        if self.ssa:
            n = 1 + torch.exp(self.nu)
            s = torch.sign(s) * n * torch.log1p(torch.exp(self.beta) * s.abs())
        att = self.drop(torch.softmax(s + mask, -1))
        x = x + self.drop(self.c_proj((att @ v).transpose(1, 2).reshape(B, T, C)))
        h = nn.functional.gelu(self.c_fc(self.ln_2(x)), approximate="tanh")
        return x + self.drop(self.mlp_proj(h))


class GPT2(nn.Module):
    def __init__(self, V=8192, C=256, L=8, H=8, F=1024, P=128, p=0.1, attention="softmax"):
        super().__init__()
        self.wte = nn.Embedding(V, C)
        self.wpe = nn.Embedding(P, C)
        self.drop = nn.Dropout(p)
        self.h = nn.ModuleList([Block(C, H, F, p, attention) for _ in range(L)])
        self.ln_f = nn.LayerNorm(C, eps=1e-5)

    def forward(self, ids, labels):
        B, T = ids.shape
        x = self.drop(self.wte(ids) + self.wpe(torch.arange(T)))
        causal = torch.full((T, T), torch.finfo(torch.float32).min).triu(1)
        for block in self.h:
            x = block(x, causal)
        # .float(): PyTorch 1.13's CPU autocast leaves layer_norm out (see pytorch_train.py)
        logits = self.ln_f(x.float()) @ self.wte.weight.T
        return nn.functional.cross_entropy(logits.view(-1, logits.shape[-1]), labels.view(-1))


def make_batch(gen, batch=16, V=8192):
    """Utterances <s> ... </s> padded with 1; labels: the next token, -100 after each one's end."""
    weights = torch.tensor(WORD_COUNTS, dtype=torch.float)
    words = torch.multinomial(weights, batch, replacement=True, generator=gen) + 3
    lens = [min(128, int(w) + int(w) // 5 + 2) for w in words]
    T = max(lens)
    ids = torch.ones(batch, T, dtype=torch.long)
    labels = torch.full((batch, T), -100, dtype=torch.long)
    for b, L in enumerate(lens):
        ids[b, :L] = torch.randint(5, V, (L,), generator=gen)
        ids[b, 0], ids[b, L - 1] = 3, 4
        labels[b, :L - 1] = ids[b, 1:L]
    return ids, labels, sum(lens)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--bucket", action="store_true")
    ap.add_argument("--attention", choices=["softmax", "ssa"], default="softmax")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    gen = torch.Generator().manual_seed(0)
    model = GPT2(attention=a.attention)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, eps=1e-6, weight_decay=0.0)
    pool = [make_batch(gen) for _ in range(64)]
    if a.bucket:
        pool = bucketed(pool)
    model.train()

    def step(i):
        ids, labels, n = pool[i % len(pool)]
        opt.zero_grad(set_to_none=True)
        loss = model(ids, labels)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        return n

    tokens, steps, el = timed(step, len(pool), a.seconds)
    print(json.dumps({"bench": "train", "kind": "gpt2", "impl": "pytorch " + torch.__version__,
                      "attention": a.attention, "threads": a.threads, "bucketed": a.bucket,
                      "steps": steps, "seconds": el, "tokens_per_s": tokens / el,
                      "steps_per_s": steps / el}))


if __name__ == "__main__":
    main()
