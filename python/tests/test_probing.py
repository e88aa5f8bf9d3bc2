"""probe, compare and attention from Python: the CLI's results, the same numbers."""
import json
import subprocess

import numpy as np
import pytest

import babyberta


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    """A tiny Zorro-format suite: odd lines ungrammatical, even grammatical."""
    d = tmp_path_factory.mktemp("suite")
    (d / "agreement-subject_verb.txt").write_text(
        "the dog see the toy .\nthe dog sees the toy .\n"
        "the cat want some milk .\nthe cat wants some milk .\n")
    return d


@pytest.fixture(scope="module")
def model(model_dir):
    return babyberta.load(model_dir, threads=2)


def test_probe_is_the_cli_probe(model, model_dir, binary, suite, tmp_path):
    cli_out = tmp_path / "cli.json"
    subprocess.run([binary, "probe", "--model", str(model_dir), "--suite", str(suite), "--method",
                    "pll", "--out", str(cli_out)], check=True, capture_output=True)
    cli = json.loads(cli_out.read_text())
    cli_pairs = [json.loads(line) for line in
                 (tmp_path / "cli.pairs.jsonl").read_text().splitlines()]
    result = babyberta.probe(model, suite, method="pll", out=tmp_path / "py.json")
    assert (tmp_path / "py.json").exists() and (tmp_path / "py.pairs.jsonl").exists()
    assert result["overall"] == cli["overall"]
    assert result["paradigms"] == cli["paradigms"]
    assert [(p["good"], p["bad"], p["outcome"]) for p in result["pairs"]] == \
        [(p["good"], p["bad"], p["outcome"]) for p in cli_pairs]
    in_memory = babyberta.probe(model_dir, [suite], method="pll", threads=1)
    assert in_memory["overall"] == cli["overall"]  # a directory, a list of suites, no files


def test_compare_returns_the_report_records(model, suite, tmp_path):
    files = [tmp_path / f"{m}.json" for m in ("holistic", "pll")]
    for method, f in zip(("holistic", "pll"), files):
        babyberta.probe(model, suite, method=method, out=f)
    records = babyberta.compare(files, out=tmp_path / "report", baseline="ssa")
    assert (tmp_path / "report" / "report.md").exists()
    overall = [r for r in records if r["level"] == "overall"]
    assert len(overall) == 2  # one group per method (strata)
    assert all(isinstance(r["mean"], float) and r["runs"] == 1 for r in overall)
    assert babyberta.compare(tmp_path, baseline="ssa")[0].keys() == records[0].keys()  # a folder
    with pytest.raises(babyberta.Error, match="a pairs file; give its result file"):
        babyberta.compare([tmp_path / "pll.pairs.jsonl"])
    babyberta.compare(files, out=tmp_path / "primary", baseline="ssa", primary="overall")
    assert "## Primary endpoints" in (tmp_path / "primary" / "findings.md").read_text()
    with pytest.raises(babyberta.Error, match="--primary: 'binding' is neither overall"):
        babyberta.compare(files, baseline="ssa", primary=["overall", "binding"])


def test_attention_weights(model):
    weights, pieces = model.attention("the dog sees the toy .")
    layers, heads = model.config["num_hidden_layers"], model.config["num_attention_heads"]
    assert weights.dtype == np.float32
    assert weights.shape == (layers, heads, len(pieces), len(pieces))
    assert pieces == model.encode("the dog sees the toy .")[0][1]
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, rtol=1e-5)  # SSA rows sum to 1
    assert np.all(weights >= 0)


def test_saturation_is_the_cli_analysis(model, model_dir, binary, suite, tmp_path):
    subprocess.run([binary, "saturation", "--model", str(model_dir), "--suite", str(suite),
                    "--sentences", "2", "--scales", "1", "4", "--boosts", "0", "8", "--out",
                    str(tmp_path / "cli")], check=True, capture_output=True)
    records = babyberta.saturation(model, suite, scales=[1, 4], boosts=[0, 8], sentences=2)
    cli = json.loads((tmp_path / "cli" / "saturation.json").read_text())
    assert records["models"][0]["layers"] == cli["models"][0]["layers"]
    analytic = babyberta.saturation(analytic=True, attention=["softmax", "ssa"], sentences=20,
                                    out=tmp_path / "analytic")
    assert (tmp_path / "analytic" / "magnification.svg").exists()
    assert len(analytic["models"]) == 2
    with pytest.raises(babyberta.Error, match="give --suite"):
        babyberta.saturation(model)


def test_probe_refuses_a_header_like_row_and_reads_a_named_one(model, tmp_path):
    """Issue 46, item 1, in Python: the CSV header good_sent,bad_sent is read as a header (two
    pairs, a warning with the CLI's note), sentence_a,sentence_b is refused naming the flags, and
    header=True / False decide."""
    named = tmp_path / "h2.csv"
    named.write_text("good_sent,bad_sent\nthe dog sees the toy .,the dog see the toy .\n"
                     "the cat wants some milk .,the cat want some milk .\n")
    with pytest.warns(UserWarning, match="h2.csv: line 1 is a header"):
        result = babyberta.probe(model, named)
    assert result["paradigms"]["h2"]["pairs"] == 2
    assert any("line 1 is a header (good_sent, bad_sent)" in n for n in result["notes"])
    unnamed = tmp_path / "h3.csv"
    unnamed.write_text("sentence_a,sentence_b\nthe dog sees the toy .,the dog see the toy .\n")
    with pytest.raises(babyberta.Error, match="looks like a header.*--header.*--no-header"):
        babyberta.probe(model, unnamed)
    with pytest.warns(UserWarning, match="columns read by position"):
        assert babyberta.probe(model, unnamed, header=True)["paradigms"]["h3"]["pairs"] == 1
    assert babyberta.probe(model, unnamed, header=False)["paradigms"]["h3"]["pairs"] == 2
    with pytest.raises(TypeError, match="header"):
        babyberta.probe(model, unnamed, header="yes")
