#!/usr/bin/python3
"""PyTorch baseline for `babyberta bench score`: the same plain PyTorch RoBERTa MLM as
bench/pytorch_train.py (BabyBERTa config, random weights, eval mode, no_grad) scoring Zorro-like
sentences (7 to 14 tokens incl. <s>, </s>, uniform, mean 10.5) the way minicons / UnMasked do:
  holistic: the unmasked sentences, padded batches, logits at every position, log_softmax,
            mean cross-entropy per sentence;
  pll:      every token but <s>, </s> masked once; the masked copies are batched; logits at every
            position of every copy (what minicons computes), log-prob of the masked token.
--sorted sorts sentences by length before batching (less padding; what a careful user does).
Prints one JSON line like the C++ bench.
    /usr/bin/python3 bench/pytorch_score.py --method holistic --threads 2 --seconds 20
"""
import argparse
import json
import time

import torch

from pytorch_train import RobertaMLM


def sentences(gen, n=2000, V=8192):
    out = []
    for _ in range(n):
        L = 7 + int(torch.randint(0, 8, (1,), generator=gen))
        ids = torch.randint(5, V, (L,), generator=gen)
        ids[0], ids[-1] = 3, 4
        out.append(ids)
    return out


def body(model, ids):
    """Final-layer logits (B, T, V) of padded ids (B, T)."""
    mask = ids.ne(1).long()
    pos = torch.cumsum(mask, 1) * mask + 1
    x = model.ln(model.wte(ids) + model.wpe(pos) + model.wtt(torch.zeros_like(ids)))
    ext = (1.0 - mask[:, None, None, :].float()) * torch.finfo(torch.float32).min
    for layer in model.layers:
        x = layer(x, ext)
    # .float(): see pytorch_train.py (1.13's CPU autocast and layer_norm); a no-op in fp32
    h = model.head_ln(torch.nn.functional.gelu(model.head(x)).float())
    return h @ model.wte.weight.T + model.bias


def pad(seqs):
    T = max(len(s) for s in seqs)
    ids = torch.ones(len(seqs), T, dtype=torch.long)
    for b, s in enumerate(seqs):
        ids[b, :len(s)] = s
    return ids


def holistic(model, sents, batch):
    scores = []
    for i in range(0, len(sents), batch):
        group = sents[i:i + batch]
        ids = pad(group)
        logp = torch.log_softmax(body(model, ids), -1).gather(-1, ids[..., None])[..., 0]
        for b, s in enumerate(group):
            scores.append(float(-logp[b, :len(s)].mean()))
    return scores


def pll(model, sents, batch):
    copies, owner, where = [], [], []
    for n, s in enumerate(sents):
        for t in range(1, len(s) - 1):
            c = s.clone()
            c[t] = 0
            copies.append(c)
            owner.append(n)
            where.append(t)
    scores = [0.0] * len(sents)
    for i in range(0, len(copies), batch):
        ids = pad(copies[i:i + batch])
        logp = torch.log_softmax(body(model, ids), -1)
        for b in range(ids.shape[0]):
            n, t = owner[i + b], where[i + b]
            scores[n] += float(logp[b, t, sents[n][t]])
    return scores


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--method", choices=["holistic", "pll"], default="holistic")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--batch", type=int, default=64, help="sequences per forward pass")
    ap.add_argument("--sorted", action="store_true")
    ap.add_argument("--autocast", action="store_true",
                    help="bf16 autocast on the CPU around every forward (torch.autocast)")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    gen = torch.Generator().manual_seed(0)
    model = RobertaMLM().eval()
    sents = sentences(gen)
    if a.sorted:
        sents.sort(key=len)
    score = holistic if a.method == "holistic" else pll
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=a.autocast):
        score(model, sents[:50], a.batch)  # warm-up
        n, tokens, t0 = 0, 0, time.perf_counter()
        while time.perf_counter() - t0 < a.seconds:
            chunk = sents[(n % len(sents)):(n % len(sents)) + 200]
            score(model, chunk, a.batch)
            n += len(chunk)
            tokens += sum(len(s) for s in chunk)
        el = time.perf_counter() - t0
    print(json.dumps({"bench": "score", "impl": "pytorch " + torch.__version__,
                      "method": a.method, "threads": a.threads, "batch": a.batch,
                      "sorted": a.sorted, "sentences": n, "seconds": el,
                      "precision": "bf16 autocast" if a.autocast else "fp32",
                      "sentences_per_s": n / el, "tokens_per_s": tokens / el}))


if __name__ == "__main__":
    main()
