"""babyberta.icl_train: `icl train` in-process (the CLI's bits), its flags as keyword arguments from
the command's flag table (the new --ssa-lr-mult, --keep-checkpoints and --extend-to included), a
progress callback, and Ctrl-C saving a checkpoint that the same call continues bit for bit."""
import json
import math
import os
import signal
import struct
import subprocess

import pytest

import babyberta

FLAGS = dict(preset="icl-tiny", batch=4, points_start=3, points_end=5, points_inc=1,
             points_every=2, attention="ssa", seed=3, checkpoint_every=2)


def raw_tensors(run):
    """The float32 tensors of a run's model.safetensors, by name (flat lists)."""
    data = (run / "model.safetensors").read_bytes()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        assert t["dtype"] == "F32"
        a, b = t["data_offsets"]
        out[name] = list(struct.unpack(f"<{(b - a) // 4}f", data[8 + n + a:8 + n + b]))
    return out


def cli(tmp_path, out, *more):
    args = [os.environ["BB_BINARY"], "icl", "train", "--out", str(out), "--quiet"]
    for name, value in FLAGS.items():
        args += ["--" + name.replace("_", "-"), str(value)]
    subprocess.run(args + list(more), check=True, cwd=tmp_path)


def test_icl_train_in_process_is_the_cli_run(tmp_path):
    cli(tmp_path, tmp_path / "cli", "--steps", "8")
    steps = []
    out = babyberta.icl_train(progress=steps.append, out=tmp_path / "py", steps=8, **FLAGS)
    assert (out / "model.safetensors").read_bytes() == \
        (tmp_path / "cli" / "model.safetensors").read_bytes()
    assert [s["step"] for s in steps] == list(range(1, 9))
    assert all(s["steps"] == 8 and s["loss"] > 0 and s["points"] >= 3 for s in steps)


def test_icl_train_extend_keep_and_lr_mult(tmp_path):
    babyberta.icl_train(out=tmp_path / "ext", steps=4, keep_checkpoints=1, **FLAGS)
    assert [p.name for p in (tmp_path / "ext" / "checkpoints").iterdir()] == ["step-4"]
    babyberta.icl_train(out=tmp_path / "ext", steps=4, extend_to=8, keep_checkpoints=1, **FLAGS)
    babyberta.icl_train(out=tmp_path / "full", steps=8, **FLAGS)
    assert (tmp_path / "ext" / "model.safetensors").read_bytes() == \
        (tmp_path / "full" / "model.safetensors").read_bytes()
    assert [p.name for p in (tmp_path / "ext" / "checkpoints").iterdir()] == ["step-8"]
    babyberta.icl_train(out=tmp_path / "mult", steps=8, ssa_lr_mult=10.0, **FLAGS)
    assert json.loads((tmp_path / "mult" / "run.json").read_text())["train"]["ssa_lr_mult"] == 10
    assert "ssa_lr_mult" not in json.loads((tmp_path / "full" / "run.json").read_text())["train"]
    # b and n (their raw tensors) moved further from their initial values with ten times the
    # learning rate (Adam moves a weight by about lr a step whatever its gradient's scale)
    full, mult = raw_tensors(tmp_path / "full"), raw_tensors(tmp_path / "mult")
    values = [k for k in full if k.endswith(("ssa_beta", "ssa_nu"))]
    assert len(values) == 6  # 3 layers x (beta, nu)
    start = {"ssa_beta": 0.0, "ssa_nu": math.log(0.5)}  # b = e^beta = 1, n = 1 + e^nu = 1.5
    moved = {run: sum(abs(x - start[k.rsplit(".", 1)[1]]) for k in values for x in t[k])
             for run, t in (("full", full), ("mult", mult))}
    assert moved["mult"] > 3 * moved["full"] > 0
    with pytest.raises(babyberta.Error, match=r"train.ssa_lr_mult: run.json 10.0, now \(not set\)"):
        babyberta.icl_train(out=tmp_path / "mult", steps=8, **FLAGS)


def test_icl_train_keywords_come_from_the_flag_table(tmp_path):
    with pytest.raises(babyberta.Error, match="unknown keyword argument 'point_every'.*points_every"):
        babyberta.icl_train(out=tmp_path / "x", point_every=2)
    with pytest.raises(TypeError, match="quiet is a switch"):
        babyberta.icl_train(out=tmp_path / "x", quiet="yes")
    with pytest.raises(babyberta.Error, match="--extend-to: .* holds no run to extend"):
        babyberta.icl_train(out=tmp_path / "none", extend_to=8, steps=4, **FLAGS)


def test_ctrl_c_saves_and_the_same_call_resumes_bit_for_bit(tmp_path):
    def interrupt_at_step_3(s):
        if s["step"] == 3:
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(KeyboardInterrupt):
        babyberta.icl_train(progress=interrupt_at_step_3, out=tmp_path / "run", steps=8, **FLAGS)
    assert "step-4" in [p.name for p in (tmp_path / "run" / "checkpoints").iterdir()]
    babyberta.icl_train(out=tmp_path / "run", steps=8, **FLAGS)
    babyberta.icl_train(out=tmp_path / "one", steps=8, **FLAGS)
    assert (tmp_path / "run" / "model.safetensors").read_bytes() == \
        (tmp_path / "one" / "model.safetensors").read_bytes()


def test_a_value_flag_of_another_function_is_refused_as_in_the_cli(tmp_path):
    """ssa_b_init for a softmax run would change nothing: refused (icl_train and train), naming
    the flag and whose value it sets, before any work."""
    flags = dict(FLAGS, attention="softmax")
    with pytest.raises(babyberta.Error, match=r"--ssa-b-init does not apply to --attention softmax"):
        babyberta.icl_train(out=tmp_path / "x", steps=2, ssa_b_init=2.0, **flags)
    assert not (tmp_path / "x").exists()
    with pytest.raises(babyberta.Error, match=r"--temperature does not apply to --attention ssa"):
        babyberta.train(corpus=tmp_path / "none.txt", out=tmp_path / "y", attention="ssa",
                        temperature=2.0)
