"""babyberta.train: the CLI's run in-process (the same bits), its flags as keyword arguments, a
progress callback, and Ctrl-C saving a checkpoint that resume=True continues bit for bit."""
import json
import os
import signal

import pytest

import babyberta


def flags(corpus, out, **more):
    """The flags conftest's CLI-trained model was made with."""
    return dict(corpus=corpus, out=out, preset="tiny", steps=20, vocab_size=400, eval_every=10,
                dev_batches=2, seed=1, attention="ssa", **more)


def test_train_in_process_is_the_cli_run(model_dir, tmp_path):
    steps = []
    out = babyberta.train(progress=steps.append, **flags(model_dir.parent / "corpus.txt",
                                                           tmp_path / "py"))
    assert (out / "model.safetensors").read_bytes() == \
        (model_dir / "model.safetensors").read_bytes()
    assert [s["step"] for s in steps] == list(range(1, 21))
    assert all(s["steps"] == 20 and s["loss"] > 0 for s in steps)
    m = babyberta.load(out)
    assert m.attention_function == "ssa"


def test_ctrl_c_saves_a_checkpoint_and_resume_continues_bit_for_bit(model_dir, tmp_path):
    corpus = model_dir.parent / "corpus.txt"

    def interrupt_at_step_7(s):
        if s["step"] == 7:
            os.kill(os.getpid(), signal.SIGINT)  # a real Ctrl-C, taken between two steps

    with pytest.raises(KeyboardInterrupt):
        babyberta.train(progress=interrupt_at_step_7, **flags(corpus, tmp_path / "run"))
    # The signal sent during step 7's callback is taken at step 8's, which saves and stops.
    assert [p.name for p in (tmp_path / "run" / "checkpoints").iterdir()] == ["step-8"]
    babyberta.train(progress=lambda s: None, **flags(corpus, tmp_path / "run", resume=True))
    assert (tmp_path / "run" / "model.safetensors").read_bytes() == \
        (model_dir / "model.safetensors").read_bytes()


def test_an_exception_in_the_callback_stops_with_a_checkpoint(model_dir, tmp_path):
    def fail_at_step_3(s):
        if s["step"] == 3:
            raise ValueError("stop here")

    with pytest.raises(ValueError, match="stop here"):
        babyberta.train(progress=fail_at_step_3,
                        **flags(model_dir.parent / "corpus.txt", tmp_path / "run"))
    assert any((tmp_path / "run" / "checkpoints").iterdir())


def test_bad_flags_raise_the_cli_messages(tmp_path):
    with pytest.raises(babyberta.Error, match="unknown keyword argument 'warmup_step' "
                                              r"\(did you mean warmup_steps\?\)"):
        babyberta.train(corpus="c.txt", out=tmp_path / "o", warmup_step=5)
    with pytest.raises(babyberta.Error, match="--lr"):
        babyberta.train(corpus="c.txt", out=tmp_path / "o", lr=-1.0)
    with pytest.raises(babyberta.Error, match="missing.txt"):
        babyberta.train(corpus=tmp_path / "missing.txt", out=tmp_path / "o", steps=5)
    with pytest.raises(TypeError):
        babyberta.train(corpus="c.txt", out=tmp_path / "o", resume="yes")


def test_a_progress_that_is_not_callable_is_refused_before_any_work(model_dir, tmp_path):
    corpus = model_dir.parent / "corpus.txt"
    for train, more in ((babyberta.train, dict(corpus=corpus, vocab_size=400)),
                        (babyberta.icl_train, dict(preset="icl-tiny"))):
        out = tmp_path / train.__name__
        with pytest.raises(babyberta.Error, match="progress must be None or a callable taking a "
                                                  "dict, got int"):
            train(progress=5, out=out, steps=4, **more)
        assert not out.exists()  # nothing trained, no checkpoint written


def test_an_interrupted_run_says_how_to_continue_from_python(model_dir, tmp_path, capfd):
    corpus = model_dir.parent / "corpus.txt"

    def stop(s):
        if s["step"] == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        babyberta.train(progress=stop, corpus=corpus, out=tmp_path / "r", preset="tiny", steps=6,
                        vocab_size=400, eval_every=3, dev_batches=2)
    err = capfd.readouterr().err
    assert "interrupted: checkpoint saved at step 2 in" in err, err
    assert "to continue, call train(...) again with the same arguments and resume=True" in err, err
    assert "--resume" not in err, err
    with pytest.raises(KeyboardInterrupt):
        babyberta.icl_train(progress=stop, out=tmp_path / "i", preset="icl-tiny", steps=6,
                            checkpoint_every=3, quiet=True)
    err = capfd.readouterr().err
    assert "to continue, call icl_train(...) again with the same arguments" in err, err


def test_the_progress_dict_has_the_dev_loss_and_elapsed_seconds(model_dir, tmp_path):
    corpus = model_dir.parent / "corpus.txt"
    seen = []
    babyberta.train(progress=seen.append, corpus=corpus, out=tmp_path / "p", preset="tiny",
                    steps=6, vocab_size=400, eval_every=3, dev_batches=2)
    assert [s["step"] for s in seen] == list(range(1, 7))
    dev = [s["dev_loss"] for s in seen]
    assert dev[0] is None and dev[1] is None and dev[3] is None and dev[4] is None
    metrics = [json.loads(line) for line in (tmp_path / "p" / "metrics.jsonl").read_text().splitlines()]
    assert [dev[2], dev[5]] == [m["dev_loss"] for m in metrics]  # the metrics lines' values
    assert 0 < seen[0]["elapsed_s"] <= seen[-1]["elapsed_s"]
