"""logits and fill_mask: the model's output distribution, consistent with the scores."""
import numpy as np
import pytest

import babyberta


@pytest.fixture(scope="module")
def model(model_dir):
    return babyberta.load(model_dir, threads=2)


def log_softmax(z):
    z = z.astype(np.float64)
    z = z - z.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def test_logits_give_the_holistic_and_pll_log_probs(model):
    sentence = "the dog sees the toy ."
    (z,) = model.logits([sentence])
    ids, pieces = model.encode(sentence)[0]
    assert z.dtype == np.float32 and z.shape == (len(ids), model.config["vocab_size"])
    holistic = [lp for _, lp in model.token_score(sentence, method="holistic")[0]]
    lp = log_softmax(z)
    np.testing.assert_allclose([lp[t, i] for t, i in enumerate(ids)], holistic, atol=1e-5)
    # pll's first token: the sentence with that token masked
    masked = sentence.replace("dog", "<mask>", 1)
    (zm,) = model.logits(masked)
    assert zm.shape[0] == len(ids)  # "<mask>" is the mask token, not the pieces of its text
    t = pieces.index("▁dog")
    pll = dict(zip(range(1, len(ids) - 1), [lp for _, lp in model.token_score(sentence)[0]]))
    assert log_softmax(zm)[t, ids[t]] == pytest.approx(pll[t], abs=1e-5)


def test_fill_mask(model):
    best = model.fill_mask("the dog <mask> the toy .", k=5)
    assert len(best) == 5
    probs = [b["probability"] for b in best]
    assert probs == sorted(probs, reverse=True) and 0 < sum(probs) <= 1 + 1e-12
    (z,) = model.logits("the dog <mask> the toy .")
    row = z[3].astype(np.float64)
    p = np.exp(row - row.max()) / np.exp(row - row.max()).sum()
    assert best[0]["id"] == int(np.argmax(row))
    assert best[0]["probability"] == pytest.approx(p.max(), rel=1e-9)
    assert isinstance(best[0]["token"], str)
    two = model.fill_mask("<mask> dog sees <mask> toy .", k=3)
    assert len(two) == 2 and all(len(b) == 3 for b in two)
    with pytest.raises(babyberta.Error, match="has no <mask>"):
        model.fill_mask("the dog sees the toy .")
