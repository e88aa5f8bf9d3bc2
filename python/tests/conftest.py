"""Shared fixtures: the CLI binary (BB_BINARY, set by ctest) and a tiny SSA model trained with it."""
import os
import pathlib
import subprocess

import pytest


@pytest.fixture(scope="session")
def binary():
    path = os.environ.get("BB_BINARY")
    if not path:
        pytest.fail("BB_BINARY is not set: run these tests through ctest (or set it to babyberta)")
    return path


@pytest.fixture(scope="session")
def repo_root():
    """The source tree (python/tests/ is two levels below it)."""
    return pathlib.Path(__file__).resolve().parents[2]


def _corpus():
    subjects = ["the dog", "the cat", "a bird", "my mom", "the baby", "your ball"]
    verbs = ["sees", "wants", "likes", "has", "finds", "takes"]
    objects = ["the toy", "a cup", "the book", "that ball", "some milk", "the car"]
    return "".join(f"{s} {v} {o} .\n" for s in subjects for v in verbs for o in objects)


@pytest.fixture(scope="session")
def model_dir(binary, tmp_path_factory):
    """A 20-step tiny SSA model (two trained values per head: b and n)."""
    work = tmp_path_factory.mktemp("model")
    corpus = work / "corpus.txt"
    corpus.write_text(_corpus())
    out = work / "ssa"
    subprocess.run([binary, "train", "--corpus", str(corpus), "--out", str(out), "--preset", "tiny",
                    "--steps", "20", "--vocab-size", "400", "--eval-every", "10", "--dev-batches",
                    "2", "--seed", "1", "--attention", "ssa"], check=True, capture_output=True)
    return pathlib.Path(out)


@pytest.fixture(scope="session")
def gpt2_dir(tmp_path_factory):
    """A 30-step tiny SSA causal LM (kind gpt2), trained through the module."""
    import babyberta
    work = tmp_path_factory.mktemp("gpt2")
    corpus = work / "corpus.txt"
    corpus.write_text(_corpus())
    return babyberta.train(progress=lambda p: None, kind="gpt2", corpus=str(corpus),
                           out=str(work / "gpt2"), preset="tiny", steps=30, vocab_size=400,
                           eval_every=10, dev_batches=2, dev_fraction=0.05, seed=1,
                           attention="ssa")
