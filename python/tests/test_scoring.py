"""The module scores as `babyberta score` does (the same code path, the same bits), in minicons'
words; errors are babyberta.Error with the CLI's one-line messages."""
import json
import subprocess

import numpy as np
import pytest

import babyberta

SENTENCES = ["the dog sees the toy .", "the dog see the toy .", "my mom wants some milk ."]


def cli_scores(binary, model_dir, method, reduction, per_token=False):
    args = [binary, "score", "--model", str(model_dir), "--method", method, "--reduction", reduction]
    if per_token:
        args.append("--per-token")
    out = subprocess.run(args, input="\n".join(SENTENCES) + "\n", text=True, check=True,
                         capture_output=True).stdout
    return [json.loads(line) for line in out.splitlines()]


@pytest.fixture(scope="module")
def model(model_dir):
    return babyberta.load(model_dir, device="cpu", threads=2)


def test_model_description(model, model_dir):
    assert model.config["attention_scoring"] == "ssa"
    assert model.attention_function == "ssa"
    values = model.trained_values
    assert sorted(values) == ["b", "n"]
    layers, heads = model.config["num_hidden_layers"], model.config["num_attention_heads"]
    assert values["b"].shape == (layers, heads)
    assert np.all(values["b"] > 0) and np.all(values["n"] > 1)
    assert str(model.path) == str(model_dir)


@pytest.mark.parametrize("method,field", [("pll", "pll"), ("holistic", "sum_ce"),
                                          ("pll-word-l2r", "pll")])
def test_sum_is_the_cli_score_to_the_bit(model, model_dir, binary, method, field):
    expected = [r[field] for r in cli_scores(binary, model_dir, method, "sum")]
    assert model.sequence_score(SENTENCES, method=method, reduction="sum") == expected


def test_mean_is_the_default_and_minicons_names(model, model_dir, binary):
    expected = [r["mean_pll"] for r in cli_scores(binary, model_dir, "pll", "mean")]
    assert model.sequence_score(SENTENCES) == expected
    assert model.sequence_score(SENTENCES, method="original") == expected
    assert model.sequence_score(SENTENCES, method="within_word_l2r", reduction="sum") == \
        model.sequence_score(SENTENCES, method="pll-word-l2r", reduction="sum")
    assert model.sequence_score(SENTENCES[0]) == expected[:1]  # one sentence as a str


def test_callable_reduction_gets_the_token_log_probs(model):
    sums = model.sequence_score(SENTENCES, method="pll", reduction="sum")
    got = model.sequence_score(SENTENCES, method="pll", reduction=lambda lp: float(np.sum(lp)))
    assert got == pytest.approx(sums, rel=1e-12)
    lengths = model.sequence_score(SENTENCES, method="pll", reduction=len)
    assert lengths == [len(p) - 2 for _, p in model.encode(SENTENCES)]  # all but <s>, </s>


def test_token_score_and_encode_match_the_cli(model, model_dir, binary):
    cli = cli_scores(binary, model_dir, "pll", "sum", per_token=True)
    tokens = model.token_score(SENTENCES, method="pll")
    for row, sentence_tokens in zip(cli, tokens):
        assert [p for p, _ in sentence_tokens] == row["pieces"]
        assert [lp for _, lp in sentence_tokens] == row["logprobs"]
    holistic = model.token_score(SENTENCES[:1], method="holistic")[0]
    ids, pieces = model.encode(SENTENCES[:1])[0]
    assert ids == cli[0]["ids"]
    assert [p for p, _ in holistic] == pieces  # holistic scores <s> and </s> too
    assert pieces[0] == "<s>" and pieces[-1] == "</s>"


def test_blas_info_names_the_kernels():
    info = babyberta.blas_info()
    assert "OpenBLAS" in info["provenance"]
    assert isinstance(info["full_width"], bool) and isinstance(info["unsupported"], str)


def test_the_callers_subnormals_survive_an_engine_call(model):
    model.sequence_score(SENTENCES[:1])
    x = np.array([1e-40], dtype=np.float32)  # subnormal: flushed to 0 under FTZ/DAZ
    assert (x * np.float32(1.0))[0] != 0


def test_errors_carry_the_cli_messages(model, tmp_path):
    with pytest.raises(babyberta.Error, match="missing: no such model directory"):
        babyberta.load(tmp_path / "missing")
    with pytest.raises(babyberta.Error, match="scoring method"):
        model.sequence_score(SENTENCES, method="bogus")
    with pytest.raises(babyberta.Error, match="reduction"):
        model.sequence_score(SENTENCES, reduction="median")
    with pytest.raises(babyberta.Error, match="longer than the model's"):
        model.sequence_score(" ".join(["dog"] * 400))
    with pytest.raises(TypeError):
        model.sequence_score([1, 2])
    with pytest.raises(babyberta.Error, match="cpu or cuda|device"):
        babyberta.load(model.path, device="tpu")
