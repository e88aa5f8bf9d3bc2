"""The seven attention scoring functions and HF RobertaForMaskedLM's forward pass, in plain
PyTorch (no transformers): the one copy used by
  - tests/fixtures/make_reference.py (the PyTorch parity fixtures of the C++ model),
  - modeling_babyberta.py (the transformers classes `babyberta export` bundles), and
  - load_folder() (an exported folder in plain PyTorch).
Each scoring function is written from its published algorithm (docs/internals.md, "Attention functions"):
softmax, ssa (Scaled Signed Averaging), softmax-t, sparsemax (Martins & Astudillo 2016),
entmax15 (Peters et al. 2019, exact sort-based), sa-softmax (Zheng et al. 2025), cosformer
(Qin et al. 2022). Padded keys get weight exactly 0 and no gradient.
"""
import json
import math
import os
import struct

import torch


def gelu(x):
    return torch.nn.functional.gelu(x)  # exact erf form, HF's "gelu"


def linear(x, p, name):
    return torch.nn.functional.linear(x, p[name + ".weight"], p[name + ".bias"])


def layer_norm(x, p, name, eps):
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), p[name + ".weight"], p[name + ".bias"],
                                          eps)


# ---- attention scoring functions -------------------------------------------------------------
# Each takes (p, prefix, q, k, mask): the parameters, "roberta.encoder.layer.{i}.", the per-head
# query and key (B, HEADS, T, d) and the (B, T) padding mask (1 = token); it returns the attention
# weights (B, HEADS, T, T), exactly 0 at padded keys.

SORT_FILL = -1e6  # stands in for padded keys before sorting: sorts last, stays finite


def key_padding(mask):
    return mask.eq(0)[:, None, None, :]  # (B, 1, 1, T)


def scaled_scores(q, k):
    return q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])


def softmax_over_keys(t, mask):
    return torch.softmax(t.masked_fill(key_padding(mask), float("-inf")), dim=-1)


def attn_softmax(p, prefix, q, k, mask):
    extended = (1.0 - mask[:, None, None, :].to(q.dtype)) * torch.finfo(q.dtype).min
    return torch.softmax(scaled_scores(q, k) + extended, dim=-1)


def attn_ssa(p, prefix, q, k, mask):
    scores = scaled_scores(q, k)
    b = p[prefix + "attention.self.ssa_b"].view(1, -1, 1, 1)
    n = p[prefix + "attention.self.ssa_n"].view(1, -1, 1, 1)
    return softmax_over_keys(torch.sign(scores) * n * torch.log1p(b * scores.abs()), mask)


def attn_softmax_t(p, prefix, q, k, mask):
    tau = p[prefix + "attention.self.temperature"].view(1, -1, 1, 1)
    return softmax_over_keys(scaled_scores(q, k) / tau, mask)


def sort_keys(z, key_pad):
    """z sorted descending per row with padded keys last (at SORT_FILL), the prefix sizes
    rho = 1..L, and which prefixes lie within the row's non-padded keys."""
    zs = torch.sort(z.masked_fill(key_pad, SORT_FILL), dim=-1, descending=True)[0]
    L = z.shape[-1]
    rho = torch.arange(1, L + 1, dtype=z.dtype, device=z.device)
    in_row = torch.arange(1, L + 1, device=z.device) <= (~key_pad).sum(-1, keepdim=True)
    return zs, rho, in_row


def support_size(cond, in_row):
    """Number of prefixes meeting cond among the non-padded ones; asserts that the padded ones
    (at SORT_FILL) never meet it, i.e. the fill cannot change the support."""
    K = (cond & in_row).sum(-1, keepdim=True)
    assert torch.equal(K, cond.sum(-1, keepdim=True)), "a padded key entered the support"
    return K


def sparsemax(z, key_pad):
    zs, rho, in_row = sort_keys(z, key_pad)
    cs = zs.cumsum(-1)
    K = support_size(1 + rho * zs > cs, in_row)
    tau = (cs.gather(-1, K - 1) - 1) / K.to(z.dtype)
    return (z - tau).clamp_min(0).masked_fill(key_pad, 0)


def entmax15(z, key_pad):
    """Exact sort-based 1.5-entmax of z (the caller halves the scores)."""
    z = z - z.masked_fill(key_pad, float("-inf")).amax(-1, keepdim=True)
    zs, rho, in_row = sort_keys(z, key_pad)
    mean = zs.cumsum(-1) / rho
    meansq = (zs * zs).cumsum(-1) / rho
    delta = (1 - rho * (meansq - mean * mean)) / rho
    with torch.no_grad():  # the support; sqrt only at the chosen prefix keeps NaN out of backward
        K = support_size(mean - delta.clamp_min(0).sqrt() <= zs, in_row)
    tau = mean.gather(-1, K - 1) - delta.gather(-1, K - 1).clamp_min(0).sqrt()
    return (z - tau).clamp_min(0).square().masked_fill(key_pad, 0)


def attn_sparsemax(p, prefix, q, k, mask):
    return sparsemax(scaled_scores(q, k), key_padding(mask))


def attn_entmax15(p, prefix, q, k, mask):
    return entmax15(scaled_scores(q, k) / 2, key_padding(mask))


def attn_sa_softmax(p, prefix, q, k, mask):
    scores, key_pad = scaled_scores(q, k), key_padding(mask)
    sigma = softmax_over_keys(scores, mask)
    mn = scores.masked_fill(key_pad, float("inf")).amin(-1, keepdim=True)
    mx = scores.masked_fill(key_pad, float("-inf")).amax(-1, keepdim=True)
    lo = torch.where(mn < 0, mn, torch.zeros_like(mn))
    hi = torch.where(mx > 0, mx, torch.zeros_like(mx))
    return (sigma * (scores - lo) / (hi - lo + 1e-6)).masked_fill(key_pad, 0)


def attn_cosformer(p, prefix, q, k, mask):
    T = mask.shape[1]
    pos = torch.arange(T, dtype=q.dtype, device=q.device)
    M = mask.sum(1).to(q.dtype).view(-1, 1, 1, 1)  # each sequence's own length
    reweight = torch.cos(math.pi * (pos[:, None] - pos[None, :]) / (2 * M))  # (B, 1, T, T)
    sim = (torch.relu(q) @ torch.relu(k).transpose(-1, -2) * reweight)
    sim = sim.masked_fill(key_padding(mask), 0)
    return sim / sim.sum(-1, keepdim=True).clamp_min(1e-6)


ATTENTION = {
    "softmax": attn_softmax, "ssa": attn_ssa, "softmax-t": attn_softmax_t,
    "sparsemax": attn_sparsemax, "entmax15": attn_entmax15, "sa-softmax": attn_sa_softmax,
    "cosformer": attn_cosformer,
}


def forward(p, input_ids, config, probs_out=None):
    """HF RobertaForMaskedLM in eval mode (no dropout): the logits (B, T, V) of input_ids (B, T)
    under `config` (config.json's fields: hidden_size, num_attention_heads, num_hidden_layers,
    layer_norm_eps, pad_token_id, attention_scoring); p: HF-named tensors, the trainable scoring
    values effective (ssa_b, ssa_n, temperature). probs_out, if a list, receives each layer's
    attention weights."""
    HIDDEN, HEADS = config["hidden_size"], config["num_attention_heads"]
    LAYERS, EPS, PAD = config["num_hidden_layers"], config["layer_norm_eps"], config["pad_token_id"]
    scoring = config.get("attention_scoring", "softmax")
    B, T = input_ids.shape
    mask = input_ids.ne(PAD).long()
    position_ids = torch.cumsum(mask, dim=1) * mask + PAD  # create_position_ids_from_input_ids
    x = (p["roberta.embeddings.word_embeddings.weight"][input_ids]
         + p["roberta.embeddings.token_type_embeddings.weight"][torch.zeros_like(input_ids)]
         + p["roberta.embeddings.position_embeddings.weight"][position_ids])
    x = layer_norm(x, p, "roberta.embeddings.LayerNorm", EPS)
    d = HIDDEN // HEADS
    for i in range(LAYERS):
        s = f"roberta.encoder.layer.{i}."

        def heads(t):
            return t.view(B, T, HEADS, d).permute(0, 2, 1, 3)

        q = heads(linear(x, p, s + "attention.self.query"))
        k = heads(linear(x, p, s + "attention.self.key"))
        v = heads(linear(x, p, s + "attention.self.value"))
        probs = ATTENTION[scoring](p, s, q, k, mask)
        if probs_out is not None:
            probs_out.append(probs.detach())
        ctx = (probs @ v).permute(0, 2, 1, 3).reshape(B, T, HIDDEN)
        x = layer_norm(linear(ctx, p, s + "attention.output.dense") + x, p,
                       s + "attention.output.LayerNorm", EPS)
        h = gelu(linear(x, p, s + "intermediate.dense"))
        x = layer_norm(linear(h, p, s + "output.dense") + x, p, s + "output.LayerNorm", EPS)
    h = layer_norm(gelu(linear(x, p, "lm_head.dense")), p, "lm_head.layer_norm", EPS)
    return h @ p["roberta.embeddings.word_embeddings.weight"].T + p["lm_head.bias"]


def read_safetensors(path, dtype=torch.float64):
    """{name: tensor} of a safetensors file (F32/F64/I32/I64), as `dtype` for floats."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    kinds = {"F32": torch.float32, "F64": torch.float64, "I32": torch.int32, "I64": torch.int64}
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        begin, end = t["data_offsets"]
        x = torch.frombuffer(bytearray(data[begin:end]), dtype=kinds[t["dtype"]]).reshape(t["shape"])
        out[name] = x.to(dtype) if x.is_floating_point() else x
    return out


def load_folder(folder, dtype=torch.float64):
    """(config, parameters) of a model folder (`babyberta export`'s, or a model directory):
    config.json as a dict and model.safetensors' HF-named tensors."""
    with open(os.path.join(folder, "config.json")) as f:
        config = json.load(f)
    return config, read_safetensors(os.path.join(folder, "model.safetensors"), dtype)


def add_parameters(module, shapes):
    """Registers a zero parameter on `module` for each (dotted HF name, shape) in `shapes`, making
    the submodules on the way, in the order given (model.safetensors' order); the remote-code
    classes of both kinds build themselves with it and then load the file's values."""
    for name, shape in shapes:
        owner = module
        *path, leaf = name.split(".")
        for part in path:
            if not hasattr(owner, part):
                owner.add_module(part, torch.nn.Module())
            owner = getattr(owner, part)
        owner.register_parameter(leaf, torch.nn.Parameter(torch.zeros(shape)))


def parameter_shapes(config):
    """(HF name, shape) of every parameter of a model of `config` (config.json as a dict), in
    model.safetensors' order; the decoder is tied to the word embeddings."""
    C, F, V = config["hidden_size"], config["intermediate_size"], config["vocab_size"]
    H = config["num_attention_heads"]
    yield "roberta.embeddings.word_embeddings.weight", (V, C)
    yield "roberta.embeddings.position_embeddings.weight", (config["max_position_embeddings"], C)
    yield "roberta.embeddings.token_type_embeddings.weight", (config.get("type_vocab_size", 1), C)
    yield "roberta.embeddings.LayerNorm.weight", (C,)
    yield "roberta.embeddings.LayerNorm.bias", (C,)
    qkv = ["attention.self.query", "attention.self.key", "attention.self.value"]
    # after the three projections (weights, then biases), each (name, weight's shape) with its bias
    rest = [("attention.output.dense", (C, C)), ("attention.output.LayerNorm", (C,)),
            ("intermediate.dense", (F, C)), ("output.dense", (C, F)), ("output.LayerNorm", (C,))]
    values = {"ssa": ["ssa_b", "ssa_n"], "softmax-t": ["temperature"]}
    for i in range(config["num_hidden_layers"]):
        s = f"roberta.encoder.layer.{i}."
        for name in qkv:
            yield s + name + ".weight", (C, C)
        for name in qkv:
            yield s + name + ".bias", (C,)
        for name, shape in rest:
            yield s + name + ".weight", shape
            yield s + name + ".bias", (shape[0],)
        for name in values.get(config.get("attention_scoring", "softmax"), []):
            yield s + "attention.self." + name, (H,)
    yield "lm_head.dense.weight", (C, C)
    yield "lm_head.dense.bias", (C,)
    yield "lm_head.layer_norm.weight", (C,)
    yield "lm_head.layer_norm.bias", (C,)
    yield "lm_head.bias", (V,)
