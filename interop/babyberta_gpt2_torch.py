"""HF GPT2LMHeadModel's forward pass with a switchable causal attention function, in plain PyTorch
(no transformers): the one copy used by
  - tests/fixtures/make_gpt2_parity.py (the PyTorch parity fixtures of the C++ causal LM), and
  - modeling_babyberta_gpt2.py (the transformers classes `babyberta export` bundles with a gpt2
    model whose function is not softmax).
Written from HF transformers' modeling_gpt2.py (eval mode, no dropout): token + learned position
embeddings, pre-LN blocks x += c_proj(attn(ln_1(x))); x += mlp.c_proj(gelu_new(mlp.c_fc(ln_2(x)))),
the final ln_f and the LM head tied to wte without bias; HF's Conv1D layers (weights [in, out],
y = x W + b). Causal attention: query i sees the real keys among 0..i, its row being the last row
of the function (babyberta_torch.ATTENTION) over those keys (cosformer: M = their number). The
function's values are effective, under transformer.h.{i}.attn.ssa_b / ssa_n / temperature.
"""
import torch

try:  # a plain import (the fixture script); transformers' remote code skips try blocks
    from babyberta_torch import ATTENTION
except ImportError:  # in an exported folder, loaded by transformers as a package
    from .babyberta_torch import ATTENTION

# The function's values: our name (under transformer.h.{i}.attn.) -> babyberta_torch's name
VALUES = {"ssa": {"ssa_b": "attention.self.ssa_b", "ssa_n": "attention.self.ssa_n"},
          "softmax-t": {"temperature": "attention.self.temperature"}}


def conv1d(x, p, name):
    return x @ p[name + ".weight"] + p[name + ".bias"]


def layer_norm(x, p, name, eps):
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), p[name + ".weight"],
                                          p[name + ".bias"], eps)


def causal_weights(fn, p, prefix, q, k, mask):
    """(B, H, T, T) weights: row i is the last row of the function over keys 0..i, the padded
    ones among them (mask 0) at weight 0. A padded query sees itself too (finite garbage at a
    position nobody reads)."""
    _, _, T, _ = q.shape
    twin = dict(p)
    for ours, theirs in VALUES.get(fn, {}).items():
        twin[prefix + theirs] = p[prefix + "attn." + ours]
    rows = []
    for i in range(T):
        visible = mask[:, :i + 1].clone()
        visible[:, i] = 1
        w = ATTENTION[fn](twin, prefix, q[:, :, :i + 1], k[:, :, :i + 1], visible)
        rows.append(torch.nn.functional.pad(w[:, :, i], (0, T - i - 1)))
    return torch.stack(rows, dim=2)


def forward(p, input_ids, config, attention_mask=None, probs_out=None):
    """The logits (B, T, V) of input_ids (B, T) under `config` (config.json's fields: n_embd,
    n_head, n_layer, layer_norm_epsilon, attention_scoring); p: HF GPT-2-named tensors.
    attention_mask (B, T), 1 = token, defaults to all tokens; positions count the real tokens
    from 0, so left and right padding give the same logits at the real positions. probs_out, if
    a list, receives each layer's attention weights."""
    C, HEADS, LAYERS = config["n_embd"], config["n_head"], config["n_layer"]
    EPS, fn = config["layer_norm_epsilon"], config.get("attention_scoring", "softmax")
    B, T = input_ids.shape
    mask = torch.ones_like(input_ids) if attention_mask is None else attention_mask.long()
    positions = (mask.cumsum(1) - 1).clamp_min(0)
    x = p["transformer.wte.weight"][input_ids] + p["transformer.wpe.weight"][positions]
    d = C // HEADS
    for layer in range(LAYERS):
        s = f"transformer.h.{layer}."
        q, k, v = conv1d(layer_norm(x, p, s + "ln_1", EPS), p, s + "attn.c_attn").split(C, dim=-1)

        def heads(t):
            return t.view(B, T, HEADS, d).transpose(1, 2)

        w = causal_weights(fn, p, s, heads(q), heads(k), mask)
        if probs_out is not None:
            probs_out.append(w.detach())
        ctx = (w @ heads(v)).transpose(1, 2).reshape(B, T, C)
        x = x + conv1d(ctx, p, s + "attn.c_proj")
        h = conv1d(layer_norm(x, p, s + "ln_2", EPS), p, s + "mlp.c_fc")
        x = x + conv1d(torch.nn.functional.gelu(h, approximate="tanh"), p, s + "mlp.c_proj")
    return layer_norm(x, p, "transformer.ln_f", EPS) @ p["transformer.wte.weight"].T


def parameter_shapes(config):
    """(HF name, shape) of every parameter of a gpt2 model of `config` (config.json as a dict),
    in model.safetensors' order; the head is tied to wte and has no tensor of its own."""
    C, V, H = config["n_embd"], config["vocab_size"], config["n_head"]
    F = config.get("n_inner") or 4 * C
    yield "transformer.wte.weight", (V, C)
    yield "transformer.wpe.weight", (config["n_positions"], C)
    per_layer = [("ln_1.weight", (C,)), ("ln_1.bias", (C,)),
                 ("attn.c_attn.weight", (C, 3 * C)), ("attn.c_attn.bias", (3 * C,)),
                 ("attn.c_proj.weight", (C, C)), ("attn.c_proj.bias", (C,)),
                 ("ln_2.weight", (C,)), ("ln_2.bias", (C,)),
                 ("mlp.c_fc.weight", (C, F)), ("mlp.c_fc.bias", (F,)),
                 ("mlp.c_proj.weight", (F, C)), ("mlp.c_proj.bias", (C,))]
    for i in range(config["n_layer"]):
        s = f"transformer.h.{i}."
        for name, shape in per_layer:
            yield s + name, shape
        for name in VALUES.get(config.get("attention_scoring", "softmax"), {}):
            yield s + "attn." + name, (H,)
    yield "transformer.ln_f.weight", (C,)
    yield "transformer.ln_f.bias", (C,)
