"""Twenty Ctrl-Cs at arbitrary moments of training, from another thread (as a terminal's would
arrive): each stops the run with a checkpoint and raises KeyboardInterrupt, compute threads never
take the signal, and resuming each time ends with the uninterrupted run's weights, bit for bit.
Run under AddressSanitizer by `make sanitize-test` (test_python_interrupts)."""
import os
import signal
import threading
import time

import babyberta

STEPS = 120


def flags(corpus, out, **more):
    return dict(corpus=corpus, out=out, preset="tiny", steps=STEPS, vocab_size=400, eval_every=40,
                dev_batches=2, seed=3, attention="ssa", **more)


def test_twenty_interrupts_resume_to_the_uninterrupted_weights(model_dir, tmp_path):
    corpus = model_dir.parent / "corpus.txt"
    start = time.monotonic()
    babyberta.train(progress=lambda s: None, **flags(corpus, tmp_path / "whole"))
    seconds = time.monotonic() - start
    out, interrupted, last_step = tmp_path / "run", 0, [0]
    for i in range(20):
        # 2-10% of a whole run's time into each call (its start included), so that most of the
        # twenty land in training; one after the end is taken by the sleep below.
        delay = seconds * (0.02 + 0.02 * (i % 5))
        timer = threading.Timer(delay, os.kill, (os.getpid(), signal.SIGINT))
        try:
            timer.start()
            babyberta.train(progress=lambda s: last_step.__setitem__(0, s["step"]),
                            **flags(corpus, out, resume=(out / "checkpoints").exists()))
            time.sleep(delay + 0.05)
        except KeyboardInterrupt:
            interrupted += last_step[0] < STEPS
        finally:
            timer.cancel()
            timer.join()
    babyberta.train(progress=lambda s: None, **flags(corpus, out, resume=True))
    print(f"{interrupted} of the 20 interrupts stopped a run")
    assert interrupted >= 8  # most of them stopped a run (timing: not all)
    assert (out / "model.safetensors").read_bytes() == \
        (tmp_path / "whole" / "model.safetensors").read_bytes()
