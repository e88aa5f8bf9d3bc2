#!/usr/bin/python3
"""Checks the remote code `babyberta export` bundles with a non-softmax roberta model, run from the
exported folder itself (its babyberta_torch.py; transformers, which would call it through
modeling_babyberta.py, is not a dependency of the tests):
  - modeling_babyberta.py compiles and the config's auto_map names its two classes;
  - add_parameters(parameter_shapes(config)), what the model class's __init__ runs, registers
    exactly model.safetensors' tensors (names and shapes), and parameter_shapes keeps its order;
  - the bundled forward on the stored values gives finite logits of shape (B, T, vocabulary), the
    same for a sentence alone and batched beside a longer one with right padding.
(The forward's numbers against ours: tests/fixtures/make_export_fixtures.sh and
test_pytorch_parity.) Exit 1 on a difference, 77 without PyTorch (the test then skips).
    check_bundled_roberta.py HF_DIR
"""
import sys

try:
    import torch
except ImportError:
    print("skipped: no PyTorch for /usr/bin/python3 (Debian's python3-torch)")
    sys.exit(77)


def main(folder):
    sys.path.insert(0, folder)
    from babyberta_torch import forward, parameter_shapes
    from bundled_folder import check_folder

    config, p = check_folder(folder, "modeling_babyberta.py", "babyberta", {
        "AutoConfig": "modeling_babyberta.BabyBertaConfig",
        "AutoModelForMaskedLM": "modeling_babyberta.BabyBertaForMaskedLM"}, parameter_shapes)
    stored = list(p)

    V, pad = config["vocab_size"], config["pad_token_id"]
    short, long = [0, 7, 8, 9, 2], [0, 7, 8, 9, 10, 11, 2]
    alone = forward(p, torch.tensor([short]), config)
    batch = torch.tensor([short + [pad] * (len(long) - len(short)), long])
    both = forward(p, batch, config)
    assert tuple(alone.shape) == (1, len(short), V) and tuple(both.shape) == (2, len(long), V)
    assert torch.isfinite(both).all(), "non-finite logits"
    diff = (both[0, :len(short)] - alone[0]).abs().max().item()
    assert diff < 1e-9, ("padding changed the short sentence's logits", diff)
    print(f"ok: {len(stored)} tensors, padding-invariant logits (largest difference {diff:.1e})")


if __name__ == "__main__":
    main(sys.argv[1])
