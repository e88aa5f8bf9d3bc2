# icl report on a folder of evaluations per checkpoint (icl/training_length_report.h; issue 47
# part 3): the primary endpoint (mean error over sigma at the last checkpoint, SSA - softmax paired
# by seed), a row per checkpoint, sigma_50, a group per --ssa-lr-mult, the chart; regenerated
# byte-identical; an evaluation whose models record another step is refused.
T=(icl train --preset icl-tiny --batch 4 --points-start 3 --points-end 5 --points-inc 1
   --points-every 2 --quiet --steps 4 --checkpoint-every 2)
mkdir -p tl/runs
for f in softmax ssa; do for seed in 1 2 3; do
  "$BB" "${T[@]}" --attention "$f" --seed "$seed" --out "tl-train/every-full-$f-seed$seed" >/dev/null 2>&1
done; done
for seed in 1 2 3; do
  "$BB" "${T[@]}" --attention ssa --ssa-lr-mult 10 --seed "$seed" \
    --out "tl-train/every-full-ssa-lr10-seed$seed" >/dev/null 2>&1
done
for r in tl-train/*/; do n=$(basename "$r"); mkdir -p "tl/runs/$n"; cp "$r"/run.json "$r"/config.json "$r"/model.safetensors "tl/runs/$n/"; done
for step in 2 4; do
  models=(); for r in tl-train/*/; do models+=(--model "${r}checkpoints/step-$step"); done
  "$BB" icl eval "${models[@]}" --task every --lengths 5 --sigmas 1:4 --sequences 8 \
    --out "tl/endpoint/every-full/step-$step" >/dev/null 2>&1
  "$BB" saturation "${models[@]}" --sigmas 1:4 --points 5 --sentences 8 \
    --out "tl/saturation/every-full/step-$step" >/dev/null 2>&1
done
expect_ok "icl report on a training-length folder" "$BB" icl report --dir tl
check "icl report: the primary endpoint at the last checkpoint" \
  grep -qE '^\*\*Primary, after 4 updates\*\*: ssa − softmax = ' tl/report.md
check "icl report: a row per checkpoint" bash -c 'grep -q "^| 2 |" tl/report.md && grep -q "^| 4 |" tl/report.md'
check "icl report: the --ssa-lr-mult runs are a group of their own" \
  grep -q "ssa (--ssa-lr-mult 10) − softmax" tl/report.md
check "icl report: sigma_50 by checkpoint" grep -q "σ₅₀ (secondary" tl/report.md
check "icl report: the trained values of every SSA run, the --ssa-lr-mult group's too" bash -c \
  'grep -q "^### Trained values of the attention functions" tl/report.md &&
   grep -qE "^\| ssa \| 3 \| 1 \| b: 1.00 → [0-9.]+, 1.00 → [0-9.]+; n: 1.50 → " tl/report.md &&
   grep -qE "^\| ssa \(--ssa-lr-mult 10\) \| 1 \| 0 \| b: " tl/report.md &&
   grep -q "^Largest change from the initial value over runs, layers and heads: ssa (3 runs): b by at most" tl/report.md'
check "icl report: the chart of the endpoint by updates" test -s tl/charts/endpoint-by-updates-every-full.svg
check "icl report: states the grid the endpoint is computed on" \
  grep -q "^Evaluated on: 5 points, σ of x = 1…4 (4 values), 8 sequences per σ, errors counted from point" tl/report.md
check "icl report: the saturation at every checkpoint, per function" bash -c \
  'grep -q "^Saturation (secondary; \`saturation/every-full/step-N/\`)" tl/report.md &&
   grep -qE "^\| 2 \| softmax \| [0-9.]+ ± [0-9.]+ \(3\) \|" tl/report.md &&
   grep -qE "^\| 4 \| ssa \| [0-9.]+ ± [0-9.]+ \(3\) \|" tl/report.md'
# The primary difference recomputed from an evaluation file alone (its scores replaced by
# distinct values first, so a wrong sign, pairing, length or average shows): per run the mean over
# sigma of the share of sequences with a wrong sign at the length nearest 40, SSA minus softmax
# by seed, averaged over the seeds.
rm -rf tl-num && cp -r tl tl-num
want="$(/usr/bin/python3 - <<'PY'
import json, random
p = "tl-num/endpoint/every-full/step-4/eval.json"
j = json.load(open(p))
r = random.Random(7)
for m in j["models"]:
    for c in m["cells"]:
        c["score"] = round(r.random(), 4)
json.dump(j, open(p, "w"))
def endpoint(m):
    cells = m["cells"]
    p = min({c["points"] for c in cells}, key=lambda p: abs(p - 40))
    v = [c["score"] for c in cells if c["points"] == p]
    return sum(v) / len(v)
e = {m["name"]: endpoint(m) for m in j["models"] if not m["baseline"]}
d = [e[f"every-full-ssa-seed{k}"] - e[f"every-full-softmax-seed{k}"] for k in (1, 2, 3)]
print(f"{sum(d) / 3:+.3f}")
PY
)"
expect_ok "icl report on evaluations with known scores" "$BB" icl report --dir tl-num
check "icl report: the primary difference is the mean of the seeds' differences ($want)" \
  grep -qF "**Primary, after 4 updates**: ssa − softmax = $want" tl-num/report.md
rm -rf tl-miss && cp -r tl tl-miss
/usr/bin/python3 - <<'PY'
import json
p = "tl-miss/endpoint/every-full/step-4/eval.json"
j = json.load(open(p))
j["models"] = [m for m in j["models"] if m["name"] != "every-full-ssa-seed3"]
json.dump(j, open(p, "w"))
PY
expect_ok "icl report with a run missing from the last evaluation" "$BB" icl report --dir tl-miss
check "... names the run and the step, and tests no 2 pairs" bash -c \
  'grep -q "^\*\*Not in the evaluations\*\* (left out of every mean and pair there): every-full-ssa-seed3 (step 4)\." tl-miss/report.md &&
   grep -qE "^\*\*Primary, after 4 updates\*\*: ssa − softmax = [-+][0-9.]+ \(n = 2: not tested\)" tl-miss/report.md'
/usr/bin/python3 - <<'PY'
import json
p = "tl-miss/endpoint/every-full/step-2/eval.json"
j = json.load(open(p))
j["sequences"] = 4
json.dump(j, open(p, "w"))
PY
expect_fail "icl report: checkpoints evaluated on different grids are refused" \
  "on another grid .* than the folder.s first \(5 points, σ of x = 1…4 \(4 values\), 4 sequences per σ" \
  "$BB" icl report --dir tl-miss
cp tl/report.md tl-report-first.md
expect_ok "icl report again" "$BB" icl report --dir tl
check "icl report: regenerated byte-identical" cmp -s tl/report.md tl-report-first.md
/usr/bin/python3 - <<'PY'
import json
p = "tl/endpoint/every-full/step-2/eval.json"
j = json.load(open(p))
for m in j["models"]:
    if not m["baseline"]:
        m["steps"] = 4
json.dump(j, open(p, "w"))
PY
expect_fail "icl report: an evaluation whose models record another step is refused" \
  "step-2/eval.json: model every-full-softmax-seed1 records steps 4, expected 2" \
  "$BB" icl report --dir tl
