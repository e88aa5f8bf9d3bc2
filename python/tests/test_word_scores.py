"""Word-level and region scores in minicons' words, for both kinds: word_score (whitespace words,
pieces summed, equal to `babyberta score --words`) and conditional_score(prefix, continuation)
(the continuation's pieces in the joined sentence, equal to the matching slice of token_score)."""
import json
import math
import subprocess

import numpy as np
import pytest

import babyberta

SENTENCES = ["the dog sees the toy .", "my mom likes a cup ."]


@pytest.fixture(params=["roberta", "gpt2"])
def model(request, model_dir, gpt2_dir):
    return babyberta.load(model_dir if request.param == "roberta" else gpt2_dir)


def test_word_score_equals_the_cli(model, binary):
    words = model.word_score(SENTENCES)
    args = [binary, "score", "--model", str(model.path), "--words"]
    if model.kind == "roberta":
        args += ["--method", "pll"]  # the module's default for roberta (minicons')
    cli = [json.loads(line) for line in subprocess.run(
        args, input="\n".join(SENTENCES) + "\n", capture_output=True, text=True,
        check=True).stdout.splitlines()]
    for ours, line in zip(words, cli):
        assert [w for w, _ in ours] == line["words"]
        assert [lp for _, lp in ours] == pytest.approx(line["word_logprobs"], abs=1e-12)
    assert [w for w, _ in words[0]] == ["the", "dog", "sees", "the", "toy", "."]


def test_word_score_sums_the_pieces(model):
    tokens = model.token_score(SENTENCES[:1])[0]
    words = model.word_score(SENTENCES[:1])[0]
    pieces = [(p, lp) for p, lp in tokens if p not in ("<s>", "</s>")]
    assert sum(lp for _, lp in words) == pytest.approx(sum(lp for _, lp in pieces), abs=1e-9)
    assert "".join(w for w, _ in words) == "".join(p.lstrip("\u2581") for p, _ in pieces)
    bits = model.word_score(SENTENCES[:1], surprisal=True)[0]
    assert [b[2] for b in bits] == pytest.approx([-lp / math.log(2) for _, lp in words])


def test_conditional_score_is_the_continuation_slice(model):
    prefix, continuation = "the dog", "sees the toy ."
    tokens = model.token_score([prefix + " " + continuation])[0]
    n_prefix = len(model.encode([prefix])[0][0]) - 2  # the prefix's pieces, no <s> </s>
    scored = [(p, lp) for p, lp in tokens if p not in ("<s>", "</s>")]
    region = [lp for _, lp in scored[n_prefix:]]
    assert len(region) == len(model.encode([continuation])[0][0]) - 2
    summed = model.conditional_score(prefix, continuation, reduction="sum")
    assert summed == pytest.approx([sum(region)], abs=1e-9)
    mean = model.conditional_score([prefix], [continuation])
    assert mean == pytest.approx([sum(region) / len(region)], abs=1e-9)
    arrays = model.conditional_score(prefix, continuation, reduction=lambda lp: lp)
    assert isinstance(arrays[0], np.ndarray)
    assert arrays[0] == pytest.approx(region, abs=1e-12)


def test_conditional_score_one_prefix_many_continuations(model):
    good, bad = model.conditional_score("the dog", ["sees the toy .", "see the toy ."],
                                        reduction="sum")
    assert good == pytest.approx(model.conditional_score("the dog", "sees the toy .",
                                                         reduction="sum")[0])
    assert bad == pytest.approx(model.conditional_score("the dog", "see the toy .",
                                                        reduction="sum")[0])


def test_conditional_score_refusals(model):
    with pytest.raises(babyberta.Error, match=r"conditional_score: 2 prefixes for 3 continuations"):
        model.conditional_score(["a", "b"], ["c", "d", "e"])
    with pytest.raises(babyberta.Error, match=r"conditional_score\[0\]: the prefix is empty"):
        model.conditional_score("", "the dog .")
    with pytest.raises(babyberta.Error, match=r"conditional_score\[0\]: the continuation is empty"):
        model.conditional_score("the dog", " ")
    with pytest.raises(TypeError, match="reduction"):
        model.conditional_score("the dog", "sees", reduction=3)


def test_causal_conditional_score_ignores_what_follows(gpt2_dir):
    """A causal LM's region score depends only on the prefix and the region itself: the region
    scored as a continuation equals the same pieces in a longer sentence's token scores."""
    m = babyberta.load(gpt2_dir)
    region = m.conditional_score("the dog", "sees", reduction=lambda lp: lp)[0]
    longer = m.token_score(["the dog sees the toy ."])[0]
    assert region == pytest.approx([lp for _, lp in longer[2:2 + len(region)]], abs=1e-9)
