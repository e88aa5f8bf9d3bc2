# --precision fp32|bf16 (backend/precision.h): the flag in train, icl train, probe, score and bench;
# run.json and resumes; a CPU without bf16 refused with exit 2 before any work. The bf16 cases run
# where the CPU has AMX-BF16 or AVX512-BF16 and say they skip elsewhere.
fixtures
T=(train --corpus corpus.txt --preset tiny --vocab-size 400 --eval-every 5 --dev-batches 2 --seed 1)
NO_BF16=(env DNNL_MAX_CPU_ISA=AVX512_CORE)

expect_exit2 "--precision fp16 is refused with the names" \
  "--precision: unknown precision 'fp16' \(expected one of fp32, bf16\)" "$BB" "${T[@]}" --steps 5 --out p-bad --precision fp16
expect_exit2 "train --precision bf16 on a CPU without bf16 names what it lacks" \
  "--precision bf16: this CPU has neither AMX-BF16 nor AVX512-BF16 .*use --precision fp32" \
  "${NO_BF16[@]}" "$BB" "${T[@]}" --steps 5 --out p-none --precision bf16
check "... before any work: no run directory" test ! -e p-none/run.json
expect_exit2 "icl train --precision bf16 on a CPU without bf16" "neither AMX-BF16 nor AVX512-BF16" \
  "${NO_BF16[@]}" "$BB" icl train --preset icl-tiny --steps 2 --out icl-none --precision bf16
expect_exit2 "probe --precision bf16 on a CPU without bf16" "neither AMX-BF16 nor AVX512-BF16" \
  "${NO_BF16[@]}" "$BB" probe --model model --suite suite --precision bf16 --out none.json
expect_exit2 "bench train --precision bf16 on a CPU without bf16" "neither AMX-BF16 nor AVX512-BF16" \
  "${NO_BF16[@]}" "$BB" bench train --preset tiny --seconds 0.1 --precision bf16
expect_ok "train fp32 (the default)" "$BB" "${T[@]}" --steps 10 --out p32
check "fp32 runs record no --precision in run.json (older runs keep their settings)" \
  bash -c '! grep -q precision p32/run.json'

if ! grep -qE 'amx_bf16|avx512_bf16' /proc/cpuinfo; then
  echo "skip    bf16 training, scoring and resuming: this CPU has neither AMX-BF16 nor AVX512-BF16"
  return 0
fi
expect_ok "train --precision bf16" "$BB" "${T[@]}" --steps 10 --out p16 --precision bf16
check "bf16: run.json records the precision and the session's kernel" /usr/bin/python3 -c '
import json; r = json.load(open("p16/run.json"))
assert r["settings"]["--precision"] == "bf16", r["settings"]
assert r["sessions"][0]["precision"] == "bf16" and r["sessions"][0]["kernel"].startswith("brg:"), r["sessions"]'
check "bf16: the dev losses are close to fp32's, not equal" /usr/bin/python3 -c '
import json
def dev(d): return [json.loads(l)["dev_loss"] for l in open(d + "/metrics.jsonl")]
a, b = dev("p32"), dev("p16")
assert len(a) == len(b) == 2 and a != b and all(abs(x - y) < 0.01 for x, y in zip(a, b)), (a, b)'
expect_fail "bf16: a resume in fp32 names --precision" \
  "cannot resume with other settings \(--precision: checkpoint bf16, now \(not set\)" \
  "$BB" "${T[@]}" --steps 10 --out p16 --resume
expect_fail "bf16: a resume on another thread count is refused (its bits depend on it)" \
  "a bf16 run resumes only on the kernels and thread count of its last session .* on 1 thread, .* on 2 threads" \
  "$BB" "${T[@]}" --steps 10 --out p16 --resume --precision bf16 --threads 2
expect_ok "probe --precision bf16" "$BB" probe --model model --suite suite --precision bf16 --out p16-probe.json
check "probe bf16: the result says bf16 and its kernel" /usr/bin/python3 -c '
import json; h = json.load(open("p16-probe.json"))
assert h["precision"] == "bf16" and h["provenance"]["bf16_kernel"].startswith("brg:"), h.get("precision")'
check "score --precision bf16: holistic scores within 0.05 of fp32's" bash -c '
  printf "the dog is here .\nthe cats are here .\n" > s.txt
  "$0" score --model model < s.txt > s32.jsonl && "$0" score --model model --precision bf16 < s.txt > s16.jsonl &&
  /usr/bin/python3 -c "
import json
a = [json.loads(l)[\"mean_ce\"] for l in open(\"s32.jsonl\")]
b = [json.loads(l)[\"mean_ce\"] for l in open(\"s16.jsonl\")]
assert a != b and all(abs(x - y) < 0.05 for x, y in zip(a, b)), (a, b)"' "$BB"
expect_ok "icl train --precision bf16" "$BB" icl train --preset icl-tiny --batch 4 --points-start 3 \
  --points-end 5 --steps 4 --checkpoint-every 2 --out icl16 --precision bf16 --quiet
check "icl bf16: run.json's train settings record it" /usr/bin/python3 -c '
import json; assert json.load(open("icl16/run.json"))["train"]["precision"] == "bf16"'
expect_fail "icl bf16: resumed in fp32 names the setting" "train.precision: run.json \"?bf16\"?, now \(not set\)" \
  "$BB" icl train --preset icl-tiny --batch 4 --points-start 3 --points-end 5 --steps 4 \
  --extend-to 6 --checkpoint-every 2 --out icl16 --quiet
