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


@pytest.mark.parametrize("method,field", [("pll", "pll"), ("pll-word-l2r", "pll")])
def test_sum_is_the_cli_score_to_the_bit(model, model_dir, binary, method, field):
    expected = [r[field] for r in cli_scores(binary, model_dir, method, "sum")]
    assert model.sequence_score(SENTENCES, method=method, reduction="sum") == expected


@pytest.mark.parametrize("reduction,field", [("sum", "sum_ce"), ("mean", "mean_ce")])
def test_holistic_is_the_cli_cross_entropy_negated(model, model_dir, binary, reduction, field):
    """Issue 46, item 3: the CLI's holistic score is BabyBERTa's cross-entropy (lower is better);
    Python's is its log-probability (higher is better): sum_ce = -sequence_score(reduction="sum"),
    mean_ce = -sequence_score(reduction="mean"), to the bit."""
    cli = [r[field] for r in cli_scores(binary, model_dir, "holistic", reduction)]
    assert model.sequence_score(SENTENCES, method="holistic", reduction=reduction) == \
        [-ce for ce in cli]


@pytest.mark.parametrize("method", ["holistic", "pll", "pll-word-l2r"])
def test_every_reduction_form_has_one_direction(model, method):
    """Issue 46, item 3, the exact input: reduction="sum" and reduction=lambda x: x.sum() agree in
    sign (both log-probabilities, negative), as do "mean" and np.mean."""
    by_name = model.sequence_score(SENTENCES, method=method, reduction="sum")
    by_callable = model.sequence_score(SENTENCES, method=method, reduction=lambda x: x.sum())
    assert by_callable == pytest.approx(by_name, rel=1e-12)
    assert all(v < 0 for v in by_name)
    means = model.sequence_score(SENTENCES, method=method, reduction="mean")
    assert model.sequence_score(SENTENCES, method=method, reduction=np.mean) == \
        pytest.approx(means, rel=1e-12)


@pytest.mark.parametrize("sentences", [[""], ["the dog .", "  "]])
def test_an_empty_sentence_is_refused_as_the_cli_refuses_it(model, model_dir, binary, sentences):
    """Issue 46, item 2: sequence_score([""]) returned 0.0 (the best log-prob); the CLI refuses
    "stdin:1: empty sentence". Same check, same refusal, in every scoring call."""
    at = next(i for i, s in enumerate(sentences) if not s.strip())
    for call in (lambda: model.sequence_score(sentences),
                 lambda: model.sequence_score(sentences, method="holistic", reduction=len),
                 lambda: model.token_score(sentences)):
        with pytest.raises(babyberta.Error, match=rf"^sentences\[{at}\]: empty sentence"):
            call()
    cli = subprocess.run([binary, "score", "--model", str(model_dir)], input="\n".join(sentences)
                         + "\n", text=True, capture_output=True)
    assert cli.returncode != 0
    assert f"stdin:{at + 1}: empty sentence" in cli.stderr


def test_version_is_the_changelog_s_newest(repo_root):
    """Issue 46, item 3: the change of direction bumped the version, and CHANGELOG.md says so."""
    import re
    newest = re.search(r"^## (\d+\.\d+\.\d+)", (repo_root / "CHANGELOG.md").read_text(), re.M)
    assert babyberta.__version__ == newest.group(1)
    assert tuple(int(x) for x in babyberta.__version__.split(".")) >= (0, 2, 0)


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


def test_load_refuses_a_model_of_another_kind(binary, tmp_path):
    """The model-kind table: babyberta.load takes roberta and gpt2 models; an ICL model is refused with the
    CLI's message (its exit 2 there), naming the model's kind, before any work."""
    out = tmp_path / "icl"
    subprocess.run([binary, "icl", "train", "--preset", "icl-tiny", "--batch", "4",
                    "--points-start", "3", "--points-end", "5", "--points-inc", "1",
                    "--points-every", "2", "--steps", "2", "--seed", "1", "--quiet",
                    "--out", str(out)], check=True, capture_output=True)
    with pytest.raises(babyberta.Error, match=r"^babyberta\.load: .*icl is an icl-gpt2 model \("
                       r"the in-context-learning GPT-2 of `icl train`\); babyberta\.load takes "
                       r"roberta or gpt2 models$"):
        babyberta.load(out)
    with pytest.raises(babyberta.Error, match=r"^probe: .* is an icl-gpt2 model"):
        babyberta.probe(str(out), str(tmp_path))


def test_an_exported_folder_is_refused_saying_what_it_is(model_dir, binary, tmp_path):
    subprocess.run([binary, "export", "--model", str(model_dir), "--out", str(tmp_path / "hf")],
                   check=True, capture_output=True)
    with pytest.raises(babyberta.Error, match="an exported HuggingFace folder"):
        babyberta.load(tmp_path / "hf")


def test_the_namespace_repr_and_threads_are_pythonic(model_dir):
    public = {n for n in dir(babyberta) if not n.startswith("_")}
    assert public == {"Error", "Model", "Tokenizer", "blas_info", "compare", "icl_train", "load",
                      "perplexity", "probe", "saturation", "train"}, public  # no csv, difflib, json, os, ...
    assert babyberta.__version__
    m = babyberta.load(model_dir, threads=1)
    r = repr(m)
    assert r.startswith("babyberta.Model(") and "attention='ssa'" in r and "layers" in r, r
    with pytest.raises(babyberta.Error, match=r"threads: expected a whole number in \[1, 1024\]"):
        babyberta.load(model_dir, threads=0)
