# icl train / icl eval / saturation on ICL models: run directories (resume bit for bit, settings
# fingerprint, lock, Ctrl-C), evaluation files, and bad input with one line naming what was
# expected.
I=(icl train --preset icl-tiny --batch 4 --points-start 3 --points-end 5 --points-inc 1
   --points-every 2 --seed 3 --quiet)

"$BB" "${I[@]}" --out icl-whole --steps 6 --checkpoint-every 3 >/dev/null 2>&1
"$BB" "${I[@]}" --out icl-halves --steps 3 --checkpoint-every 3 >/dev/null 2>&1
"$BB" "${I[@]}" --out icl-halves --steps 3 --extend-to 6 --checkpoint-every 3 >/dev/null 2>&1
check "icl train writes config.json, model.safetensors, run.json and step directories" \
  test -f icl-whole/config.json -a -f icl-whole/model.safetensors -a -f icl-whole/run.json \
       -a -d icl-whole/checkpoints/step-3 -a -d icl-whole/checkpoints/step-6
check "icl train resumed at step 3 ends bit-identical to one run of 6 steps" \
  cmp -s icl-whole/model.safetensors icl-halves/model.safetensors
check "icl train resumed: the optimizer state is bit-identical too" \
  cmp -s icl-whole/checkpoints/step-6/optimizer.safetensors icl-halves/checkpoints/step-6/optimizer.safetensors
check "icl train: metrics.jsonl has a line per checkpoint; a resumed run's equal the whole run's" \
  /usr/bin/python3 -c '
import json, sys
def lines(d):
    return [json.loads(l) for l in open(d + "/metrics.jsonl")]
whole, halves = lines("icl-whole"), lines("icl-halves")
assert [l["step"] for l in whole] == [3, 6], whole
keys = ("step", "train_loss", "points", "lr")
assert [[l[k] for k in keys] for l in whole] == [[l[k] for k in keys] for l in halves], (whole, halves)
assert all(l["elapsed_s"] > 0 and l["tokens_per_s"] > 0 for l in whole), whole
assert whole[1]["elapsed_s"] >= whole[0]["elapsed_s"]
state = json.load(open("icl-halves/checkpoints/step-6/trainer_state.json"))
assert [l["step"] for l in state["metrics"]] == [3, 6], state'
expect_fail "icl train on a run with other settings names the setting" \
  "icl-whole: holds a different run \(train.lr: run.json 0.0001, now 0.001\); use a new --out" \
  "$BB" "${I[@]}" --out icl-whole --steps 6 --lr 1e-3
expect_fail "icl train: an unknown task is refused with the names" \
  "babyberta icl train: --task: unknown task 'evry' .*every.*did you mean 'every'" \
  "$BB" icl train --task evry --out icl-x
expect_fail "icl train: --dims is for linear-regression" \
  "--dims is for linear-regression; task every has 1-d inputs" \
  "$BB" "${I[@]}" --out icl-dims --steps 1 --dims 3
expect_fail "icl train: --points-end beyond the model's positions" \
  "--points-end 300 needs 600 positions, the model has 512 \(n_positions\)" \
  "$BB" icl train --preset icl-tiny --out icl-long --steps 1 --points-end 300

# Evaluation: a small grid, the files and baselines.
expect_ok "icl eval on a small grid" "$BB" icl eval --model icl-whole --lengths 5,10 --sigmas 1,4 \
  --sequences 8 --out icl-ev
check "icl eval writes eval.json, eval.csv, a heatmap and error_vs_sigma.svg" \
  test -f icl-ev/eval.json -a -f icl-ev/eval.csv -a -f icl-ev/heatmap_icl_whole.svg -a -f icl-ev/error_vs_sigma.svg
check "icl eval: the exact rule makes no error" \
  test "$(grep -c '^"exact rule",1,.*,0,0$' icl-ev/eval.csv)" -eq 4
check "icl eval: eval.csv has the model, two baselines and 4 cells each" \
  test "$(wc -l < icl-ev/eval.csv)" -eq 13
expect_ok "icl eval: baselines of a linear task without a model" \
  "$BB" icl eval --task linear --sigmas 1,2 --sigma-fn 1,3 --sequences 4 --out icl-evl
check "icl eval (linear): least squares is exact from the fourth point on (MSE < 1e-6)" \
  test "$(awk -F, '$1 == "\"least squares\"" && $7 < 1e-6' icl-evl/eval.csv | wc -l)" -eq 4
check "icl eval (linear): the zero predictor is not" \
  test "$(awk -F, '$1 == "\"zero\"" && $7 > 0.1' icl-evl/eval.csv | wc -l)" -eq 4
expect_ok "icl eval --authors-draws (every)" "$BB" icl eval --model icl-whole --authors-draws \
  --lengths 5,10 --sigmas 1,3 --sequences 8 --out icl-eva
check "icl eval --authors-draws says so in eval.json" grep -q "the authors'" icl-eva/eval.json
expect_fail "icl eval --authors-draws: linear needs whole sigmas of the function (their seeds)" \
  "sigma of the function 1.5 is not a whole number" \
  "$BB" icl eval --task linear --authors-draws --sigma-fn 1.5 --sequences 2 --out icl-evb
expect_fail "icl eval: a missing model directory" "nope: no such ICL model directory" \
  "$BB" icl eval --model nope --task every --out icl-e2
expect_fail "icl eval: a length beyond the model's positions" \
  "--lengths: 300 is not a whole number of points from 1 to 256" \
  "$BB" icl eval --model icl-whole --lengths 300 --out icl-e3
expect_fail "icl eval: a malformed range" "--sigmas: 'x' is not a number" \
  "$BB" icl eval --model icl-whole --sigmas 1:x --out icl-e4
cp -r icl-whole icl-broken
printf 'garbage' | dd of=icl-broken/model.safetensors bs=1 seek=20 conv=notrunc status=none
expect_fail "icl eval: a corrupt model.safetensors names the file" "icl-broken/model.safetensors" \
  "$BB" icl eval --model icl-broken --lengths 5 --sigmas 1 --out icl-e5

# Saturation of ICL models: max attention weight per layer by sigma.
expect_ok "saturation on an ICL model" "$BB" saturation --model icl-whole --sigmas 1,8 --points 5 \
  --sentences 4 --out icl-sat
check "saturation (ICL) writes saturation.json, .csv and max_weight.svg" \
  test -f icl-sat/saturation.json -a -f icl-sat/saturation.csv -a -f icl-sat/max_weight.svg

# Attention maps of an ICL model: sequences instead of sentences.
expect_ok "attention on an ICL model" "$BB" attention --model icl-whole --sigma 4 --points 6 \
  --sequences 2 --out icl-att.json --svg icl-att.svg
check "attention (ICL): JSON with tokens x1, y1, ..." grep -q '"x1","y1","x2"' icl-att.json
check "attention (ICL): an SVG" test -s icl-att.svg
expect_fail "attention on an ICL model refuses sentences" "is an icl-gpt2 model: it reads sequences" \
  "$BB" attention --model icl-whole --sentence "the dog"

# One process per run directory; Ctrl-C saves a checkpoint and exits 130.
"$BB" "${I[@]}" --out icl-busy --steps 100000000 --checkpoint-every 100000000 >/dev/null 2>icl-busy.err &
holder=$!
for _ in $(seq 50); do [ -s icl-busy/.lock ] && break; sleep 0.1; done
expect_fail "a second icl train on a run directory in use" "in use by another babyberta process" \
  "$BB" "${I[@]}" --out icl-busy --steps 5
sleep 0.5; kill -INT "$holder"; wait_bounded "$holder" 30; rc=$?
check "an interrupted icl train exits 130" test "$rc" -eq 130
check "an interrupted icl train leaves a checkpoint" test -d icl-busy/checkpoints
check "an interrupted icl train says how to continue" \
  grep -Eq "interrupted: checkpoint saved at step [0-9]+ in icl-busy; to continue, run the same command again" icl-busy.err

# icl experiment: a grid of 2 functions x 3 seeds, evaluated and compared over seeds; a rerun
# skips finished runs and writes the same report.
E=(icl experiment --attention softmax,ssa --seeds 3 --steps 4 --points-every 2 --lengths 5
   --sigmas 1,2 --sequences 8 --report-points 5 --jobs 2 --batch 4 --points-start 3
   --points-end 5 --points-inc 1)
expect_ok "icl experiment on a tiny grid" "$BB" "${E[@]}" --out icl-exp
check "icl experiment trains every run" test "$(ls -d icl-exp/runs/every-full-*-seed* | wc -l)" -eq 6
check "icl experiment forwards unknown flags to icl train (--batch 4)" \
  grep -q '"batch_size": 4' icl-exp/runs/every-full-ssa-seed2/run.json
check "icl experiment writes the group's evaluation" test -f icl-exp/eval/every-full/eval.json
check "icl experiment's report compares ssa with softmax over 3 paired seeds" \
  grep -Eq '\| 2 \|.*ssa − softmax|(inconclusive|\*\*)' icl-exp/table.md
check "icl experiment ends with the shift comparison: σ₅₀, saturation, charts" bash -c \
  'grep -q "### Primary endpoint: σ₅₀" icl-exp/report.md && grep -q "### Saturation beside the errors (\`saturation/every-full/\`)" icl-exp/report.md \
   && ls icl-exp/charts/every-full-error-by-sigma.svg icl-exp/saturation/every-full/saturation.json >/dev/null'
check "icl eval (in the experiment's log) prints its progress in cells with an ETA" \
  grep -Eq '^[0-9]+/[0-9]+ cells \| .* \| ETA ' icl-exp/logs/eval-every-full.log
check "icl experiment's status line counts the evaluations' cells" bash -c '
  "$0" "$@" --out icl-exp 2>&1 >/dev/null | grep -Eq "evaluations done, [0-9]+/[0-9]+ cells \([0-9]+%\)"' "$BB" "${E[@]}"
cp icl-exp/report.md icl-exp-shift-first.md
expect_ok "icl report --dir on an icl experiment folder" "$BB" icl report --dir icl-exp
check "... regenerates the experiment's report.md byte for byte" cmp icl-exp/report.md icl-exp-shift-first.md
cp icl-exp/report.md icl-exp-report-first.md
expect_ok "icl experiment rerun (finished runs skipped)" "$BB" "${E[@]}" --out icl-exp
check "icl experiment rerun: the same report" cmp -s icl-exp/report.md icl-exp-report-first.md
check "icl experiment rerun: finished runs' steps count as done, not as speed (no ETA)" bash -c '
  "$0" "$@" --out icl-exp 2>&1 >/dev/null |
    grep -q "grid: 6/6 runs trained, 24/24 steps (100%), 0.0 steps/s, ETA -"' "$BB" "${E[@]}"
expect_fail "icl experiment: another --lr for the same runs fails, naming the run and its log" \
  "job\(s\) failed: (.*; )?every-full-softmax-seed1 \(exit 1, log: .*exp/logs/every-full-softmax-seed1.log\)" \
  "$BB" "${E[@]}" --out icl-exp --lr 1e-3
expect_fail "icl experiment: a misspelt flag for icl train fails before any run starts" \
  "icl experiment: a flag for icl train: .*--bach" "$BB" "${E[@]}" --out icl-exp2 --bach 3
check "icl experiment: nothing was started" test ! -d icl-exp2/runs
check "icl experiment: the run's log says its run.json holds other settings" \
  grep -q "holds a different run (train.lr: run.json 0.0001, now 0.001)" \
  icl-exp/logs/every-full-softmax-seed1.log

# icl experiment with variants (issue 33, item 5): named runs, the values in their config, labels.
expect_ok "icl experiment --attention 'softmax,ssa(n=2 frozen)'" "$BB" icl experiment \
  --attention 'softmax,ssa(n=2 frozen)' --seeds 1 --steps 2 --points-every 2 --lengths 5 \
  --sigmas 1 --sequences 4 --report-points 5 --jobs 1 --batch 4 --points-start 3 --points-end 5 \
  --points-inc 1 --out icl-var
check "icl experiment: the variant's run is named ssa-n2-frozen and trained with n = 2 frozen" \
  /usr/bin/python3 -c '
import json; c = json.load(open("icl-var/runs/every-full-ssa-n2-frozen-seed1/config.json"))
flat = json.dumps(c)
assert "\"ssa_n_init\": 2.0" in flat and "\"ssa_freeze_n\": true" in flat, flat'
check "icl experiment: its reports label it ssa(n=2 frozen)" bash -c \
  'grep -q "ssa(n=2 frozen)" icl-var/table.md && grep -q "ssa(n=2 frozen)" icl-var/report.md'

# icl report: a results folder built from the experiment's runs (run.json, config.json,
# model.safetensors only), its evaluations and saturation, then the report from the folder alone.
mkdir -p icl-rep/runs
for r in icl-exp/runs/*/; do
  n=$(basename "$r"); mkdir -p "icl-rep/runs/$n"
  cp "$r/run.json" "$r/config.json" "$r/model.safetensors" "icl-rep/runs/$n/"
done
RM=(); for r in icl-rep/runs/*/; do RM+=(--model "${r%/}"); done
expect_ok "icl report: the endpoint evaluation" "$BB" icl eval "${RM[@]}" --lengths 5 \
  --sigmas 1:9:2 --sequences 20 --out icl-rep/endpoint/every-full
expect_ok "icl report: the length grid" "$BB" icl eval "${RM[@]}" --lengths 3,5,7 --sigmas 1 \
  --sequences 8 --out icl-rep/grid/every-full
expect_ok "icl report: saturation" "$BB" saturation "${RM[@]}" --sigmas 1,4,16 --points 5 \
  --sentences 4 --out icl-rep/saturation/every-full
expect_ok "icl report on the folder" "$BB" icl report --dir icl-rep
check "icl report: the primary endpoint row compares ssa with softmax over 3 paired seeds" \
  grep -Eq '^\| ssa \| 3 \|.*(3 pairs|no variance: every seed pair differs by exactly this; not testable).*\(primary\) \|$' icl-rep/report.md
check "icl report: sigma_50 of each softmax seed, or censored beyond the grid" \
  grep -Eq '^\| softmax \| 3 \| ([0-9.]+|> 9)(, ([0-9.]+|> 9)){2} \|' icl-rep/report.md
check "icl report: lengths above the trained 41 points apart (none here: a dash)" \
  grep -Eq '^\| softmax \| [0-9.]+ ± [0-9.]+ \| – \|$' icl-rep/report.md
check "icl report: where wrong predictions point, beside the chance share" \
  grep -Eq '^\| ssa \| [0-9]+ \| [0-9.]+% \(by seed .*%\) \| [0-9.]+% \|$' icl-rep/report.md
check "icl report: the three charts" test -f icl-rep/charts/every-full-error-by-sigma.svg \
  -a -f icl-rep/charts/every-full-error-by-length.svg -a -f icl-rep/charts/every-full-max-weight-by-sigma.svg
check "icl report: no authors/ folder, no authors' section" bash -c "! grep -q \"authors' draws\" icl-rep/report.md"
check "icl report: SSA's trained b and n per seed, layer and head, initial -> trained" \
  grep -Eq '^\| ssa \| 1 \| 0 \| b: 1\.00 → [0-9.]+(, 1\.00 → [0-9.]+)*; n: 1\.50 → [0-9.]+' icl-rep/report.md
check "icl report: ... and whether each value moves (by more than 0.1)" \
  grep -Eq '^Largest change from the initial value .*ssa \(3 runs\): b by at most [0-9.]+ \((moves|nearly fixed)\), n by at most' icl-rep/report.md
check "icl report: the primary endpoints together (one group: no such section)" \
  bash -c "! grep -q 'The primary endpoints together' icl-rep/report.md"
expect_fail "icl report: a folder without runs" "icl-none/runs: no runs directory" \
  "$BB" icl report --dir icl-none
expect_ok "icl report: a length grid of one run only" "$BB" icl eval --model "${RM[1]}" \
  --lengths 3,5,7 --sigmas 1 --sequences 8 --out icl-rep/grid/every-full
expect_ok "icl report with runs the grid lacks" "$BB" icl report --dir icl-rep
check "icl report: the runs the grid lacks are named, the rest reported" \
  grep -q "not evaluated on the grid yet): .*seed2" icl-rep/report.md
rm -f icl-rep/endpoint/every-full/eval.json
expect_fail "icl report: a missing endpoint evaluation names the file" \
  "icl-rep/endpoint/every-full/eval.json" "$BB" icl report --dir icl-rep

# An experiment whose binary is removed (or rebuilt) while it runs: the next child cannot start,
# and its log says why instead of staying empty.
cp "$BB" bb-moved
(./bb-moved icl experiment --out exp-moved --tasks every --archs attention-only-residual \
   --attention softmax --seeds 2 --steps 400 --preset icl-tiny --batch 4 --jobs 1 --threads 1 \
   >/dev/null 2>&1) &
moved=$!
for _ in $(seq 200); do [ -f exp-moved/runs/every-attention-only-residual-softmax-seed1/run.json ] && break; sleep 0.05; done
rm -f bb-moved
wait_bounded "$moved" 60 || true
check "experiment: a child that cannot start logs that the binary was rebuilt or removed" \
  grep -q "cannot run .*bb-moved (rebuilt or removed since this command started?)" \
  exp-moved/logs/every-attention-only-residual-softmax-seed2.log

# An attention function's value flags: icl train refuses one its function lacks; icl experiment
# refuses one no function of its grid has, and gives each run only its own function's values.
E1=(icl experiment --seeds 1 --steps 2 --points-every 2 --lengths 5
    --sigmas 1 --sequences 8 --report-points 5 --jobs 2 --batch 4 --points-start 3
    --points-end 5 --points-inc 1)
expect_fail "icl train: --ssa-b-init with softmax" \
  "--ssa-b-init does not apply to --attention softmax \(it sets a value of ssa\)" \
  "$BB" "${I[@]}" --attention softmax --ssa-b-init 2 --steps 2 --out icl-hv-x
expect_fail "icl experiment: --temperature for a softmax,ssa grid" \
  "--temperature does not apply to --attention softmax,ssa \(it sets a value of softmax-t\)" \
  "$BB" "${E1[@]}" --attention softmax,ssa --temperature 2 --out icl-hv-y
expect_ok "icl experiment softmax,ssa with --ssa-b-init 2: SSA's runs get it" \
  "$BB" "${E1[@]}" --attention softmax,ssa --ssa-b-init 2 --out icl-hv
check "... SSA's run is named and labelled by its b (2); softmax's trained without the flag" bash -c \
  'grep -q "\"ssa_b_init\": 2.0" icl-hv/runs/every-full-ssa-b2-seed1/config.json &&
   test -f icl-hv/runs/every-full-softmax-seed1/model.safetensors &&
   ! grep -q "ssa_b_init" icl-hv/runs/every-full-softmax-seed1/config.json &&
   grep -q "ssa(b=2)" icl-hv/table.md'
expect_ok "icl experiment with a variant and a grid value: each once (no repeated flag)" \
  "$BB" "${E1[@]}" --attention "softmax,ssa(n=2)" --ssa-b-init 2 --out icl-hv2
check "... the SSA run has both values" bash -c \
  'grep -q "\"ssa_b_init\": 2.0" icl-hv2/runs/every-full-ssa-b2-n2-seed1/config.json &&
   grep -q "\"ssa_n_init\": 2.0" icl-hv2/runs/every-full-ssa-b2-n2-seed1/config.json'
