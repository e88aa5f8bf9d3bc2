"""The causal LM (kind gpt2) from Python: train(kind="gpt2"), load, its kind and repr, and its
scores equal to `babyberta score`'s causal log-probabilities; a roberta method is refused."""
import json
import subprocess

import pytest

import babyberta


def test_load_kind_and_repr(gpt2_dir):
    m = babyberta.load(gpt2_dir)
    assert m.kind == "gpt2"
    r = repr(m)
    assert "kind='gpt2'" in r and "2 layers, 2 heads, hidden 64" in r, r
    assert set(m.trained_values) == {"b", "n"}


def test_scores_equal_the_cli(gpt2_dir, binary):
    sentences = ["the dog sees the toy .", "the dog see the toy ."]
    m = babyberta.load(gpt2_dir)
    summed = m.sequence_score(sentences, reduction="sum")
    cli = subprocess.run([binary, "score", "--model", str(gpt2_dir), "--per-token"],
                         input="\n".join(sentences) + "\n", capture_output=True, text=True,
                         check=True).stdout.splitlines()
    for s, line in zip(summed, cli):
        assert s == pytest.approx(json.loads(line)["logprob"], abs=1e-9)
    tokens = m.token_score(sentences[:1])[0]
    assert tokens[-1][0] == "</s>"
    bits = m.token_score(sentences[:1], surprisal=True)[0]
    assert [b[2] for b in bits] == pytest.approx(json.loads(cli[0])["surprisal"], abs=1e-12)
    assert [t[1] for t in tokens] == pytest.approx(json.loads(cli[0])["logprobs"], abs=1e-12)
    mean = m.sequence_score(sentences[:1])[0]  # minicons' default reduction: the mean
    assert mean == pytest.approx(summed[0] / len(tokens))


def test_roberta_methods_refused(gpt2_dir, model_dir):
    m = babyberta.load(gpt2_dir)
    with pytest.raises(babyberta.Error, match="a gpt2 model takes causal"):
        m.sequence_score(["the dog ."], method="pll")
    with pytest.raises(babyberta.Error, match="a roberta model takes holistic"):
        babyberta.load(model_dir).sequence_score(["the dog ."], method="causal")


def test_probe_defaults_to_causal(gpt2_dir, repo_root, tmp_path):
    suite = tmp_path / "pairs.tsv"
    suite.write_text("the dog sees the toy .\tthe dog see the toy .\n")
    result = babyberta.probe(gpt2_dir, str(suite))
    assert result["method"] == "causal"


def test_perplexity_on_its_dev_split(gpt2_dir):
    import math
    p = babyberta.perplexity(babyberta.load(gpt2_dir), dev_of=gpt2_dir)
    assert p["measure"] == "perplexity" and p["method"] == "causal"
    last = [json.loads(line) for line in (gpt2_dir / "metrics.jsonl").read_text().splitlines()][-1]
    assert p["inputs"][0]["perplexity_per_token"] == pytest.approx(math.exp(last["dev_loss"]), rel=1e-5)  # the dev loss: float32 batch means
