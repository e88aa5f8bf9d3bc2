#!/usr/bin/python3
"""Checks the remote code `babyberta export` bundles with a non-softmax gpt2 model, run from the
exported folder itself (its babyberta_gpt2_torch.py and babyberta_torch.py; transformers, which
would call them through modeling_babyberta_gpt2.py, is not a dependency of the tests):
  - modeling_babyberta_gpt2.py compiles and the config's auto_map names its two classes;
  - the parameters the model class would register (parameter_shapes) are model.safetensors'
    tensors: the same names, shapes and order; and add_parameters, which the class's __init__
    calls, builds a module with exactly those parameters;
  - the bundled forward, given `babyberta score --per-token` JSONL on stdin (ids, logprobs),
    reproduces our per-token log-probabilities in float64 within TOL (default 1e-4: float32
    error), the sentences batched with right padding and again with left padding (attention_mask).
Exit 1 on a difference, 77 without PyTorch (the test then skips).
    babyberta score --model RUN --per-token < sentences | check_bundled_gpt2.py HF_DIR [TOL]
"""
import json
import sys

try:
    import torch
except ImportError:
    print("skipped: no PyTorch for /usr/bin/python3 (Debian's python3-torch)")
    sys.exit(77)


def main(folder, tol):
    sys.path.insert(0, folder)
    from babyberta_gpt2_torch import forward, parameter_shapes
    from bundled_folder import check_folder

    config, p = check_folder(folder, "modeling_babyberta_gpt2.py", "babyberta_gpt2", {
        "AutoConfig": "modeling_babyberta_gpt2.BabyBertaGPT2Config",
        "AutoModelForCausalLM": "modeling_babyberta_gpt2.BabyBertaGPT2LMHeadModel"},
        parameter_shapes)

    rows = [json.loads(line) for line in sys.stdin]
    assert rows, "no sentences on stdin"
    T = max(len(r["ids"]) for r in rows)
    pad = config["pad_token_id"]
    worst = 0.0
    for side in ("right", "left"):
        ids = torch.full((len(rows), T), pad, dtype=torch.long)
        mask = torch.zeros(len(rows), T, dtype=torch.long)
        for b, r in enumerate(rows):
            n = len(r["ids"])
            cols = slice(0, n) if side == "right" else slice(T - n, T)
            ids[b, cols] = torch.tensor(r["ids"])
            mask[b, cols] = 1
        with torch.no_grad():
            logp = torch.log_softmax(forward(p, ids, config, attention_mask=mask), dim=-1)
        for b, r in enumerate(rows):
            n = len(r["ids"])
            start = 0 if side == "right" else T - n
            ours = [logp[b, start + t, r["ids"][t + 1]].item() for t in range(n - 1)]
            assert len(ours) == len(r["logprobs"]), (len(ours), len(r["logprobs"]))
            worst = max(worst, max(abs(a - b) for a, b in zip(ours, r["logprobs"])))
    print(f"{config['attention_scoring']}: largest difference in a per-token log-probability "
          f"(right and left padding): {worst:.2e}")
    sys.exit(0 if worst <= tol else 1)


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 1e-4)
