"""Python that feels like Python (a new user, round two, item 10): the model's tokenizer as an
object, fill_mask and attention over lists, and probe(pairs=...) over minimal pairs in memory."""
import pytest

import babyberta


@pytest.fixture(scope="module")
def model(model_dir):
    return babyberta.load(model_dir)


def test_the_tokenizer_object(model):
    tok = model.tokenizer
    assert repr(tok) == f"babyberta.Tokenizer(vocab_size={tok.vocab_size})"
    ids = tok.encode("the dog sees the toy .")
    assert ids == model.encode(["the dog sees the toy ."])[0][0]
    assert tok.tokenize("the dog sees the toy .") == model.encode(["the dog sees the toy ."])[0][1]
    assert tok.encode(["the dog .", "a cup ."]) == [ids for ids, _ in model.encode(["the dog .", "a cup ."])]
    assert tok.decode(ids) == "the dog sees the toy ."
    assert [tok.id_to_piece(i) for i in ids] == tok.tokenize("the dog sees the toy .")
    assert [tok.piece_to_id(p) for p in tok.tokenize("the dog sees the toy .")] == ids
    vocab = tok.vocab
    assert len(vocab) == tok.vocab_size == model.config["vocab_size"]
    assert vocab["<s>"] == ids[0] and vocab["</s>"] == ids[-1]
    assert tok.piece_to_id("no-such-piece-here") == vocab["<unk>"]
    with pytest.raises(babyberta.Error, match=r"id_to_piece: -1 is not an id \(expected 0 to \d+\)"):
        tok.id_to_piece(-1)
    with pytest.raises(babyberta.Error, match=r"decode: ids\[1\] is 99999, expected 0 to \d+"):
        tok.decode([ids[0], 99999])


def test_fill_mask_and_attention_take_lists(model):
    texts = ["the dog <mask> the toy .", "my mom <mask> a cup ."]
    batched = model.fill_mask(texts, k=3)
    assert batched == [model.fill_mask(t, k=3) for t in texts]
    assert len(batched) == 2 and len(batched[0]) == 3
    maps = model.attention(["the dog .", "a cup ."])
    for (w, pieces), s in zip(maps, ["the dog .", "a cup ."]):
        one_w, one_pieces = model.attention(s)
        assert pieces == one_pieces and (w == one_w).all()


def test_probe_pairs_in_memory(model, model_dir, tmp_path):
    pairs = [("the dog is here .", "the dog are here ."),
             ("the cats are here .", "the cats is here .", "agreement-subject_verb")]
    result = babyberta.probe(model, pairs=pairs)
    rows = result["pairs"]
    assert len(rows) == 2
    # the same as a suite file holding them
    suite = tmp_path / "pairs.tsv"
    suite.write_text("the dog is here .\tthe dog are here .\tpairs\n"
                     "the cats are here .\tthe cats is here .\tagreement-subject_verb\n")
    from_file = babyberta.probe(model, str(suite), header=False)
    assert [r["good_sentence"] for r in rows] == [p[0] for p in pairs]  # in the order given
    by_sentence = {r["good_sentence"]: r for r in from_file["pairs"]}
    for r in rows:
        assert (r["good"], r["bad"], r["outcome"]) == tuple(
            by_sentence[r["good_sentence"]][k] for k in ("good", "bad", "outcome"))
    assert result["notes"] == []
    with pytest.raises(TypeError, match="give a suite or pairs"):
        babyberta.probe(model)
    with pytest.raises(TypeError, match=r"pairs\[0\]: expected \(good, bad\)"):
        babyberta.probe(model, pairs=[("only one",)])
    with pytest.raises(babyberta.Error, match=r"pairs\[0\]: a tab or a line break"):
        babyberta.probe(model, pairs=[("a\tb", "c")])
