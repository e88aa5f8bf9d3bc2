# Extendable schedules (issue 33, item 3) and checkpoint retention (item 4).
fixtures
X=(--corpus corpus.txt --preset tiny --vocab-size 400 --dev-batches 2 --eval-every 4 --seed 2
   --warmup-steps 2)

# A wsd run of 10 steps extended to 20 is bit for bit the 20-step run, metrics included.
"$BB" train "${X[@]}" --schedule wsd --decay-steps 4 --steps 10 --out wsd10 >/dev/null 2>&1
expect_ok "train --resume --extend-to 20 over a 10-step wsd run" \
  "$BB" train "${X[@]}" --schedule wsd --decay-steps 4 --steps 10 --out wsd10 --resume --extend-to 20
"$BB" train "${X[@]}" --schedule wsd --decay-steps 4 --steps 20 --out wsd20 >/dev/null 2>&1
check "wsd: the extended run's model is bit-identical to the 20-step run's" \
  cmp -s wsd10/model.safetensors wsd20/model.safetensors
check "wsd: so is its metrics log (but for timings)" bash -c '
  strip() { sed -E "s/\"(elapsed_s|tokens_per_s)\":[^,}]*,?//g" "$1"; }
  [ "$(strip wsd10/metrics.jsonl)" = "$(strip wsd20/metrics.jsonl)" ]'
check "wsd: it resumed from where the decay began; the old decay's checkpoints moved aside" \
  bash -c '[ -d wsd10/extended-from-10/step-10 ] && [ -d wsd10/extended-from-10/step-8 ] &&
           [ -f wsd10/extended-from-10/metrics.jsonl ] && [ ! -d wsd10/checkpoints/step-8 ]'
check "wsd: run.json records the segments and the new total" /usr/bin/python3 -c '
import json; r = json.load(open("wsd10/run.json"))
assert r["settings"]["--steps"] == 20, r["settings"]["--steps"]
assert r["segments"] == [{"steps": 10, "from_step": 0},
  {"steps": 20, "from_step": 6, "previous_checkpoints": "extended-from-10"}], r["segments"]'
expect_ok "the extension's own resume command (same flags) is a no-op once done" \
  "$BB" train "${X[@]}" --schedule wsd --decay-steps 4 --steps 10 --out wsd10 --resume --extend-to 20

# The constant schedule extends from its last checkpoint.
"$BB" train "${X[@]}" --schedule constant --steps 8 --out const8 >/dev/null 2>&1
"$BB" train "${X[@]}" --schedule constant --steps 8 --out const8 --resume --extend-to 12 >/dev/null 2>&1
"$BB" train "${X[@]}" --schedule constant --steps 12 --out const12 >/dev/null 2>&1
check "constant: 8 steps extended to 12 equal 12 steps" \
  cmp -s const8/model.safetensors const12/model.safetensors

# The linear schedule refuses, saying why and naming the alternative; so do wrong uses.
"$BB" train "${X[@]}" --steps 8 --out lin8 >/dev/null 2>&1
expect_exit2 "linear: --extend-to refused" \
  "the linear schedule decays to 0 at --steps.*--schedule wsd --decay-steps D \(or --schedule constant\)" \
  "$BB" train "${X[@]}" --steps 8 --out lin8 --resume --extend-to 16
expect_fail "linear: --steps 16 on resume names the way to extend" \
  "--steps: checkpoint 8, now 16.*a linear-schedule run cannot be made longer.*--schedule wsd" \
  "$BB" train "${X[@]}" --steps 16 --out lin8 --resume
expect_fail "wsd: --steps 20 on resume points to --extend-to" "give the original --steps and --extend-to N" \
  "$BB" train "${X[@]}" --schedule wsd --decay-steps 4 --steps 30 --out wsd20 --resume
expect_exit2 "--extend-to without --resume" "--extend-to continues an existing run: give it with --resume" \
  "$BB" train "${X[@]}" --schedule constant --steps 8 --out fresh --extend-to 16
expect_exit2 "--extend-to not beyond --steps" "--extend-to 8 is not beyond --steps 8" \
  "$BB" train "${X[@]}" --schedule constant --steps 8 --out const8 --resume --extend-to 8
expect_fail "wsd without --decay-steps" "--schedule wsd needs --decay-steps" \
  "$BB" train "${X[@]}" --schedule wsd --steps 8 --out w
expect_fail "--decay-steps without wsd" "--decay-steps is for --schedule wsd" \
  "$BB" train "${X[@]}" --decay-steps 3 --steps 8 --out w
expect_fail "--decay-steps longer than the run" "--decay-steps 9 is more than --steps 8 minus the warmup \(2\)" \
  "$BB" train "${X[@]}" --schedule wsd --decay-steps 9 --steps 8 --out w
expect_fail "--schedule cosine: the choices and exit 2" "unknown schedule 'cosine' \(expected one of linear, constant, wsd\)" \
  "$BB" train "${X[@]}" --schedule cosine --steps 8 --out w

# Retention: the last 3 by default, all with `all`, probed steps always; changeable on resume.
"$BB" train "${X[@]}" --steps 24 --out keep3 >/dev/null 2>&1
check "--keep-checkpoints default: the last 3 of 6" \
  bash -c '[ "$(ls keep3/checkpoints | tr "\n" " ")" = "step-16 step-20 step-24 " ]'
"$BB" train "${X[@]}" --steps 24 --out keepall --keep-checkpoints all >/dev/null 2>&1
check "--keep-checkpoints all keeps the 6" bash -c '[ "$(ls keepall/checkpoints | wc -l)" = 6 ]'
"$BB" train "${X[@]}" --steps 24 --out keep1 --keep-checkpoints 1 --probe-every 8 \
  --probe-suite suite >/dev/null 2>&1
check "--keep-checkpoints 1 with --probe-every 8: the probed steps and the last" \
  bash -c '[ "$(ls keep1/checkpoints | tr "\n" " ")" = "step-16 step-24 step-8 " ]'
"$BB" train "${X[@]}" --schedule wsd --decay-steps 8 --steps 24 --keep-checkpoints 1 --out keepwsd >/dev/null 2>&1
check "wsd: the checkpoint where the decay begins is kept for an extension" \
  bash -c '[ "$(ls keepwsd/checkpoints | tr "\n" " ")" = "step-16 step-24 " ]'
expect_fail "--keep-checkpoints none" "--keep-checkpoints: none is not a whole number; expected one in \[1, 1000000\] or all" \
  "$BB" train "${X[@]}" --steps 8 --out w --keep-checkpoints none

# experiment --extend-to: every run extended, re-probed and compared; a new run goes straight there.
E=(--corpus corpus.txt --suite suite --preset tiny --vocab-size 400 --seeds 1 --attention softmax
   --jobs 1 --eval-every 4 --schedule wsd --decay-steps 4 --steps 10)
"$BB" experiment "${E[@]}" --out ext-a >/dev/null 2>&1
expect_ok "experiment --extend-to 20 extends its runs" "$BB" experiment "${E[@]}" --out ext-a --extend-to 20
"$BB" experiment "${E[@]}" --out ext-b --extend-to 20 >/dev/null 2>&1
check "experiment: the extended run is bit-identical to the direct one, its result re-probed" bash -c '
  cmp -s ext-a/runs/softmax-seed1/model.safetensors ext-b/runs/softmax-seed1/model.safetensors &&
  cmp -s ext-a/results/softmax-seed1.settings.json ext-b/results/softmax-seed1.settings.json &&
  cmp -s ext-a/results/softmax-seed1.pairs.jsonl ext-b/results/softmax-seed1.pairs.jsonl'
check "experiment --extend-to again: nothing to do" bash -c '
  "$0" experiment "${@}" --out ext-a --extend-to 20 2>&1 | grep -q "0 runs to train, 0 to probe"' \
  "$BB" "${E[@]}"
expect_fail "experiment: the extended grid refuses its old --steps" "--steps: this run 20, now 10" \
  "$BB" experiment "${E[@]}" --out ext-a
expect_fail "experiment --extend-to on a linear grid" "--extend-to: the linear schedule decays to 0" \
  "$BB" experiment --corpus corpus.txt --suite suite --out ext-c --steps 10 --extend-to 20
