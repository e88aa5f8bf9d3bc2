#!/usr/bin/python3
"""PyTorch baseline for `babyberta bench train`: a plain PyTorch RoBERTa MLM (HF semantics:
post-LN, exact GELU, tied decoder, logits at every position, loss at masked ones) of the
BabyBERTa config, trained with AdamW + grad clipping on batches of 16 utterances padded to their
longest sequence, as HF does. Lengths follow the same AO-CHILDES word-count distribution as the
C++ benchmark (tokens = words + words // 5 + 2). Prints one JSON line like the C++ bench.
    /usr/bin/python3 bench/pytorch_train.py --threads 1 --seconds 30 [--bucket] [--attention ssa]
--bucket sorts a pool of batches by length first (what a careful PyTorch user does).
--attention ssa scores with SSA as a PyTorch user would write it: t = sign(s) n log1p(b|s|) with
b = exp(beta), n = 1 + exp(nu) trainable per head (init b 1, n 1.5, as ours), softmax over t;
padded keys get a large negative t (the additive mask is added after the power, never inside).
"""
import argparse
import json
import math
import time

import torch
import torch.nn as nn

WORD_COUNTS = [46411, 53042, 48766, 39755, 30837, 22909, 15723, 10605, 7272, 5056, 3662, 2646,
               1986, 1487, 1080, 867, 655, 458, 320, 288, 194, 149, 142, 123, 88, 81, 54, 46, 44,
               41, 29, 19, 12, 19, 8, 11, 12, 60]  # 3..40 words


class Layer(nn.Module):
    def __init__(self, C, H, F, p, attention):
        super().__init__()
        self.H = H
        self.ssa = attention == "ssa"
        if self.ssa:  # per head, broadcast over (B, H, T, T)
            self.beta = nn.Parameter(torch.zeros(1, H, 1, 1))  # b = exp(0) = 1
            self.nu = nn.Parameter(torch.full((1, H, 1, 1), math.log(0.5)))  # n = 1.5
        self.qkv = nn.Linear(C, 3 * C)
        self.out = nn.Linear(C, C)
        self.ln1 = nn.LayerNorm(C, eps=1e-5)
        self.ff1 = nn.Linear(C, F)
        self.ff2 = nn.Linear(F, C)
        self.ln2 = nn.LayerNorm(C, eps=1e-5)
        self.drop = nn.Dropout(p)

    def forward(self, x, ext_mask):
        B, T, C = x.shape
        d = C // self.H
        q, k, v = self.qkv(x).view(B, T, 3, self.H, d).permute(2, 0, 3, 1, 4)
        s = q @ k.transpose(-1, -2) / math.sqrt(d)
        if self.ssa:
            n = 1 + torch.exp(self.nu)
            s = torch.sign(s) * n * torch.log1p(torch.exp(self.beta) * s.abs())
        att = self.drop(torch.softmax(s + ext_mask, -1))
        ctx = (att @ v).transpose(1, 2).reshape(B, T, C)
        x = self.ln1(x + self.drop(self.out(ctx)))
        return self.ln2(x + self.drop(self.ff2(nn.functional.gelu(self.ff1(x)))))


class RobertaMLM(nn.Module):
    def __init__(self, V=8192, C=256, L=8, H=8, F=1024, P=130, p=0.1, attention="softmax"):
        super().__init__()
        self.wte = nn.Embedding(V, C, padding_idx=1)
        self.wpe = nn.Embedding(P, C, padding_idx=1)
        self.wtt = nn.Embedding(1, C)
        self.ln = nn.LayerNorm(C, eps=1e-5)
        self.drop = nn.Dropout(p)
        self.layers = nn.ModuleList([Layer(C, H, F, p, attention) for _ in range(L)])
        self.head = nn.Linear(C, C)
        self.head_ln = nn.LayerNorm(C, eps=1e-5)
        self.bias = nn.Parameter(torch.zeros(V))

    def forward(self, ids, labels):
        mask = ids.ne(1).long()
        pos = torch.cumsum(mask, 1) * mask + 1
        x = self.drop(self.ln(self.wte(ids) + self.wpe(pos) + self.wtt(torch.zeros_like(ids))))
        ext = (1.0 - mask[:, None, None, :].float()) * torch.finfo(torch.float32).min
        for layer in self.layers:
            x = layer(x, ext)
        # .float(): PyTorch 1.13's CPU autocast leaves layer_norm out of its lists, and a bf16 input
        # with fp32 weights fails there ("expected scalar type BFloat16 but found Float"); a no-op in fp32
        logits = self.head_ln(nn.functional.gelu(self.head(x)).float()) @ self.wte.weight.T + self.bias
        return nn.functional.cross_entropy(logits.view(-1, logits.shape[-1]), labels.view(-1))


def make_batch(gen, batch=16, V=8192):
    weights = torch.tensor(WORD_COUNTS, dtype=torch.float)
    words = torch.multinomial(weights, batch, replacement=True, generator=gen) + 3
    lens = [int(w) + int(w) // 5 + 2 for w in words]
    T = max(lens)
    ids = torch.ones(batch, T, dtype=torch.long)
    labels = torch.full((batch, T), -100, dtype=torch.long)
    for b, L in enumerate(lens):
        ids[b, :L] = torch.randint(5, V, (L,), generator=gen)
        ids[b, 0], ids[b, L - 1] = 3, 4
        m = torch.rand(L - 2, generator=gen) < 0.15
        if not m.any():
            m[0] = True
        pos = torch.nonzero(m).view(-1) + 1
        labels[b, pos] = ids[b, pos]
        ids[b, pos] = 0
    return ids, labels, sum(lens)


def bucketed(pool):
    """The pool's sequences (ids padded with 1, labels -100) regrouped by length into batches of
    16, each padded to its longest: what a careful PyTorch user does."""
    seqs = []
    for ids, labels, _ in pool:
        for b in range(ids.shape[0]):
            L = int(ids[b].ne(1).sum())
            seqs.append((L, ids[b, :L], labels[b, :L]))
    seqs.sort(key=lambda s: s[0])
    out = []
    for i in range(0, len(seqs), 16):
        group = seqs[i:i + 16]
        T = max(s[0] for s in group)
        ids = torch.ones(len(group), T, dtype=torch.long)
        labels = torch.full((len(group), T), -100, dtype=torch.long)
        for b, (L, s_ids, s_labels) in enumerate(group):
            ids[b, :L], labels[b, :L] = s_ids, s_labels
        out.append((ids, labels, sum(s[0] for s in group)))
    return out


def timed(step, warmup, seconds):
    """(tokens, steps, seconds): step(i) (returning its tokens) for every i < warmup untimed
    (every batch shape once, autocast's kernels too), then as many steps as `seconds` holds."""
    for i in range(warmup):
        step(i)
    tokens, steps, t0 = 0, 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        tokens += step(steps)
        steps += 1
    return tokens, steps, time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--bucket", action="store_true")
    ap.add_argument("--attention", choices=["softmax", "ssa"], default="softmax")
    ap.add_argument("--autocast", action="store_true",
                    help="bf16 autocast on the CPU (torch.autocast('cpu', dtype=torch.bfloat16)) "
                         "around the forward and the loss, as a PyTorch user gets bf16")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    gen = torch.Generator().manual_seed(0)
    model = RobertaMLM(attention=a.attention)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, eps=1e-6, weight_decay=0.0)
    pool = [make_batch(gen) for _ in range(64)]
    if a.bucket:
        pool = bucketed(pool)
    model.train()

    def step(i):
        ids, labels, n = pool[i % len(pool)]
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=a.autocast):
            loss = model(ids, labels)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        return n

    tokens, steps, el = timed(step, len(pool), a.seconds)  # every batch shape once first
    print(json.dumps({"bench": "train", "impl": "pytorch " + torch.__version__,
                      "attention": a.attention, "threads": a.threads, "bucketed": a.bucket,
                      "precision": "bf16 autocast" if a.autocast else "fp32",
                      "steps": steps, "seconds": el, "tokens_per_s": tokens / el,
                      "steps_per_s": steps / el}))


if __name__ == "__main__":
    main()
