"""precision="bf16" in Python as --precision bf16 in the CLI: the same bits as `score --precision
bf16`, close to fp32 but not equal, and babyberta.Error for an unknown precision (and, on a CPU
without bf16, for bf16)."""
import json
import subprocess

import pytest

import babyberta

SENTENCES = ["the dog sees the toy .", "my mom wants some milk ."]
needs_bf16 = pytest.mark.skipif(babyberta.blas_info()["bf16_isa"] == "",
                                reason="this CPU has neither AMX-BF16 nor AVX512-BF16")


def cli_scores(binary, model_dir, precision):
    out = subprocess.run([binary, "score", "--model", str(model_dir), "--precision", precision],
                         input="\n".join(SENTENCES) + "\n", text=True, check=True,
                         capture_output=True).stdout
    return [json.loads(line)["mean_ce"] for line in out.splitlines()]


def test_unknown_precision_is_refused(model_dir):
    with pytest.raises(babyberta.Error, match="unknown precision 'fp16'"):
        babyberta.load(model_dir, precision="fp16")


@needs_bf16
def test_bf16_scores_are_the_cli_bits_and_close_to_fp32(model_dir, binary):
    m16 = babyberta.load(model_dir, threads=1, precision="bf16")
    ce16 = [-s for s in m16.sequence_score(SENTENCES, method="holistic", reduction="mean")]
    assert ce16 == cli_scores(binary, model_dir, "bf16")
    ce32 = cli_scores(binary, model_dir, "fp32")
    assert ce16 != ce32 and all(abs(a - b) < 0.05 for a, b in zip(ce16, ce32))


@needs_bf16
def test_bf16_probe_records_its_precision(model_dir, tmp_path):
    suite = tmp_path / "agreement-subject_verb.txt"
    suite.write_text("the dog are here .\nthe dog is here .\n")
    r = babyberta.probe(model_dir, suite, precision="bf16")
    assert r["precision"] == "bf16" and r["provenance"]["bf16_kernel"]
