# Training runs and experiments: flag ranges, the run lock, resume checks, interruption, stale
# experiment results, children that die with experiment.
fixtures
T=(--corpus corpus.txt --preset tiny --vocab-size 400 --dev-batches 2)

# Nonsense numbers are refused while parsing, naming the flag and the range.
expect_fail "train --steps -5" "--steps: -5 is out of range" "$BB" train "${T[@]}" --out r --steps -5
expect_fail "train --steps 0" "--steps: 0 is out of range" "$BB" train "${T[@]}" --out r --steps 0
expect_fail "train --threads 0" "--threads: 0 is out of range" "$BB" train "${T[@]}" --out r --threads 0
expect_fail "train --threads -3" "--threads: -3 is out" "$BB" train "${T[@]}" --out r --threads -3
expect_fail "train --threads 1000" "--threads: 1025? ?|--threads: 1000 is out|expected" \
  "$BB" train "${T[@]}" --out r --threads 1025
# Above the cores, --threads is capped with one warning (issue 33, item 2).
cores=$(nproc)
"$BB" train "${T[@]}" --out capped --steps 2 --eval-every 2 --threads 1000 >/dev/null 2>capped.err
check "train --threads 1000 warns once and caps at the cores" \
  test "$(grep -c "^babyberta: warning: --threads 1000 is more than the $cores cores this process may use; using $cores$" capped.err)" -eq 1
check "... and run.json records the threads used" grep -q "\"threads\": $cores" capped/run.json
echo "the dog sees the toy ." | "$BB" score --model capped --threads 1000 >score.out 2>score.err
check "score --threads 1000 warns once and scores" \
  bash -c "test \"\$(grep -c 'warning: --threads 1000 is more than' score.err)\" -eq 1 && grep -q mean_ce score.out"
expect_fail "train --seed -1" "--seed: -1 is out of range; expected a whole number in \[0, 9007199254740991\]" \
  "$BB" train "${T[@]}" --out r --seed -1
check "train --help: a range for --seed, no {false} after --no-bias-correction" \
  bash -c "'$BB' train --help | grep -q -- '--seed UINT:in \[0, ' && ! '$BB' train --help | grep -q 'no-bias-correction{'"
# Enum flags are checked while parsing: exit 2, the valid names and the nearest (issue 33, item 6).
for args in "train:--attention SSA:unknown attention function 'SSA' \(expected one of softmax, .*\); did you mean 'ssa'\?" \
            "train:--preset base:unknown preset 'base' \(expected one of babyberta, small, tiny, decoder-114m\)" \
            "train:--recipe ssa-papr:unknown recipe 'ssa-papr' .*did you mean 'ssa-paper'\?"; do
  IFS=: read -r cmd flag msg <<< "$args"
  "$BB" $cmd "${T[@]}" --out enum-run $flag >/dev/null 2>enum.err; rc=$?
  check "$cmd $flag: exit 2 naming the nearest, before any work" \
    bash -c "[ $rc -eq 2 ] && grep -Eq -- \"$msg\" enum.err && [ ! -e enum-run ]"
done
"$BB" probe --model model --suite suite --out r.json --method PLL >/dev/null 2>enum.err; rc=$?
check "probe --method PLL: exit 2, did you mean 'pll'" \
  bash -c "[ $rc -eq 2 ] && grep -q \"did you mean 'pll'\" enum.err"
"$BB" experiment --corpus corpus.txt --suite suite --out enum-exp --attention softmax,sparsmax \
  >/dev/null 2>enum.err; rc=$?
check "experiment --attention softmax,sparsmax: exit 2, did you mean 'sparsemax'" \
  bash -c "[ $rc -eq 2 ] && grep -q \"did you mean 'sparsemax'\" enum.err && [ ! -e enum-exp ]"
expect_fail "train --lr 3e-4x is not a number" "--lr: 3e-4x is not a number" \
  "$BB" train "${T[@]}" --out r --lr 3e-4x
expect_fail "train --lr -1" "--lr: -1 is out of range" "$BB" train "${T[@]}" --out r --lr -1
expect_fail "train --lr nan" "--lr: nan is out of range" "$BB" train "${T[@]}" --out r --lr nan
expect_fail "train --adam-eps 0" "--adam-eps: 0 is out of range" "$BB" train "${T[@]}" --out r --adam-eps 0
expect_fail "train --mask-prob 2" "--mask-prob: 2 is out of range" "$BB" train "${T[@]}" --out r --mask-prob 2
expect_fail "train --mask-prob 0 (hung before)" "--mask-prob: 0 is out of range" \
  "$BB" train "${T[@]}" --out r --mask-prob 0
expect_fail "train --dropout 1.5" "--dropout: 1.5 is out of range" "$BB" train "${T[@]}" --out r --dropout 1.5
expect_fail "train --dev-batches -1" "--dev-batches: -1 is out" "$BB" train "${T[@]}" --out r --dev-batches -1
expect_fail "train --eval-every 0 (SIGFPE before)" "--eval-every: 0 is out" \
  "$BB" train "${T[@]}" --out r --eval-every 0
expect_fail "train --probe-every without a suite" "--probe-every needs --probe-suite" \
  "$BB" train "${T[@]}" --out r --probe-every 10
expect_fail "train --batch-size 2e9" "--batch-size: 2e9 is not a whole number|--batch-size: 2000000000 is out" \
  "$BB" train "${T[@]}" --out r --batch-size 2000000000
expect_fail "experiment --jobs 0 (hung before)" "--jobs: 0 is out of range" \
  "$BB" experiment --corpus corpus.txt --suite suite --out e --jobs 0
expect_fail "experiment --seeds 0" "--seeds: 0 is out of range" \
  "$BB" experiment --corpus corpus.txt --suite suite --out e --seeds 0
expect_fail "experiment --first-seed above --seeds" "--first-seed 4 is above --seeds 3: no seed to run" \
  "$BB" experiment --corpus corpus.txt --suite suite --out e --first-seed 4 --seeds 3
expect_fail "experiment with an unknown attention function" "unknown attention.*'sofmax'|sofmax" \
  "$BB" experiment --corpus corpus.txt --suite suite --out e --attention softmax,sofmax
expect_fail "bench --seconds -1" "--seconds: -1 is out of range" "$BB" bench train --seconds -1
expect_fail "a flag typo gets a suggestion" "unknown flag --attenton; did you mean --attention\?" \
  "$BB" train "${T[@]}" --out r --attenton ssa

# Resume: needs a checkpoint and the same math; safe flags may change.
expect_fail "--resume without a checkpoint" "no checkpoint to resume from" \
  "$BB" train "${T[@]}" --out empty-run --steps 20 --resume
"$BB" train "${T[@]}" --out run1 --steps 20 --seed 3 >/dev/null 2>&1
expect_fail "--resume with another --lr" "--lr: checkpoint 0.0001, now 0.0003" \
  "$BB" train "${T[@]}" --out run1 --steps 20 --seed 3 --lr 3e-4 --resume
expect_fail "--resume with another --steps" "--steps: checkpoint 20, now 40" \
  "$BB" train "${T[@]}" --out run1 --steps 40 --seed 3 --resume
sed 's/ \.$/ !/' corpus.txt > corpus2.txt
expect_fail "--resume with another corpus" "--corpus \(sha256\): checkpoint [0-9a-f]+, now [0-9a-f]+" \
  "$BB" train "${T[@]/corpus.txt/corpus2.txt}" --out run1 --steps 20 --seed 3 --resume
expect_ok "--resume with other --threads and --eval-every" \
  "$BB" train "${T[@]}" --out run1 --steps 20 --seed 3 --resume --threads 2 --eval-every 5
expect_fail "a new run over checkpoints" "holds checkpoints already" \
  "$BB" train "${T[@]}" --out run1 --steps 20 --seed 3

# The metrics line of a checkpoint is part of it: a lost metrics.jsonl comes back on resume.
"$BB" train "${T[@]}" --out run2 --steps 20 --seed 1 --eval-every 10 >/dev/null 2>&1
rm -rf run2/checkpoints/step-20 && rm run2/metrics.jsonl
"$BB" train "${T[@]}" --out run2 --steps 20 --seed 1 --resume >/dev/null 2>&1
check "metrics.jsonl restored from the checkpoint and continued" \
  test "$(grep -c '"step"' run2/metrics.jsonl)" -eq 2
check "the checkpoint's trainer state holds the metrics log" \
  grep -q '"metrics"' run2/checkpoints/step-20/trainer_state.json

# Two processes on one run directory: the second fails at once, naming the holder.
"$BB" train "${T[@]}" --out busy --steps 1000000 --eval-every 100000 >/dev/null 2>busy.err &
holder=$!
for _ in $(seq 50); do [ -s busy/.lock ] && break; sleep 0.1; done
expect_fail "a second train on a run directory in use" "in use by another babyberta process \(PID $holder\)" \
  "$BB" train "${T[@]}" --out busy --steps 20
# Ctrl-C: the run saves a checkpoint and exits non-zero (130), so nobody takes it for finished.
sleep 0.5; kill -INT "$holder"; wait_bounded "$holder" 30; rc=$?
check "an interrupted train exits 130" test "$rc" -eq 130
check "an interrupted train leaves a checkpoint" test -d busy/checkpoints
check "an interrupted train says how to continue" \
  grep -Eq "interrupted: checkpoint saved at step [0-9]+ in busy; to continue: .*babyberta train .*--out busy .*--resume$" busy.err
"$BB" train "${T[@]}" --out busy --steps 1000000 --eval-every 100000 --resume >/dev/null 2>busy2.err &
holder=$!
for _ in $(seq 50); do grep -q "resuming from step" busy2.err && break; sleep 0.1; done
check "a resumed train says where it resumes" grep -q "resuming from step [1-9]" busy2.err
kill -INT "$holder"; wait_bounded "$holder" 30
pkill -9 -f "[b]usy --steps"
# Ctrl-C in the first steps, 8 times: every try saves and exits 130. A stop signal handled on a
# compute thread inside oneDNN 2.6's JIT sgemm corrupts the heap (common/stop_signals.h): before
# the signals got their own thread, 1 try in 5 aborted (exit 134). The delays count from the
# "blas:" line, printed right before the first step.
bad=0
for delay in 0 0.05 0.1 0.15 0.2 0.3 0.4 0.6; do
  rm -rf often
  "$BB" train "${T[@]}" --out often --steps 1000000 --eval-every 100000 >/dev/null 2>often.err &
  holder=$!
  for _ in $(seq 200); do grep -q "^blas:" often.err && break; sleep 0.05; done
  sleep "$delay"; kill -INT "$holder"; wait_bounded "$holder" 30; rc=$?
  [ "$rc" -eq 130 ] && grep -q "interrupted: checkpoint saved" often.err \
    || { bad=$((bad + 1)); echo "  exit $rc: $(tail -n 1 often.err)"; }
done
check "8 trains interrupted in their first steps all save and exit 130" test "$bad" -eq 0
# Every thread but the signals' own blocks SIGINT and SIGTERM (SigBlk bits 2 and 15).
"$BB" train "${T[@]}" --out often2 --threads 2 --steps 1000000 --eval-every 100000 \
  >/dev/null 2>often2.err &
holder=$!
for _ in $(seq 200); do grep -q "^blas:" often2.err && break; sleep 0.05; done
sleep 0.3
unblocked=0
for t in /proc/"$holder"/task/*; do
  blk=$(awk '/^SigBlk/ {print $2}' "$t/status" 2>/dev/null) || continue
  [ -n "$blk" ] && [ $((0x$blk & 0x4002)) -ne $((0x4002)) ] && unblocked=$((unblocked + 1))
done
kill -INT "$holder"; wait_bounded "$holder" 30
check "a training process has one thread that takes SIGINT and SIGTERM (its sigwait)" \
  test "$unblocked" -eq 1
# A command that has no state to save stops at once on Ctrl-C, killed by the signal. The signal
# is sent once the process has its signal thread (SigBlk shows SIGINT blocked in main): a job
# started with & in a script ignores SIGINT until then, so a signal sent earlier would be lost.
# On a loaded machine the start (loading the libraries) can take well over 10 s: wait up to 60.
"$BB" bench train --preset tiny --seconds 60 >/dev/null 2>&1 &
holder=$!
for _ in $(seq 1200); do
  blk=$(awk '/^SigBlk/ {print $2}' /proc/"$holder"/status 2>/dev/null)
  [ -n "$blk" ] && [ $((0x$blk & 2)) -ne 0 ] && break
  sleep 0.05
done
kill -INT "$holder"; wait_bounded "$holder" 10; rc=$?
check "an interrupted bench stops at once, killed by SIGINT" test "$rc" -eq 130

# experiment: results made with other settings are refused, or redone with --force.
E0=(--corpus corpus.txt --suite suite --preset tiny --vocab-size 400 --seeds 1 --attention softmax
    --out exp)
E=("${E0[@]}" --jobs 1)
expect_ok "experiment (first run)" "$BB" experiment "${E[@]}" --steps 20 --eval-every 10
expect_ok "experiment --baselines 1,2 (reusing the run)" "$BB" experiment "${E[@]}" --steps 20 \
  --eval-every 10 --baselines 1,2
check "experiment --baselines: a result per order" \
  test -s exp/results/ngram-1.json -a -s exp/results/ngram-2.json
check "experiment --baselines: reference columns in the report, never compared" bash -c \
  "grep -q 'unigram (word, KN 0.75) (reference)' exp/report/report.md && ! grep -q '− unigram' exp/report/report.md"
expect_fail "experiment --baselines 4" "--baselines: unknown n-gram order '4'" \
  "$BB" experiment "${E[@]}" --steps 20 --eval-every 10 --baselines 4
expect_ok "experiment without softmax (compared with its first function)" "$BB" experiment \
  --corpus corpus.txt --suite suite --preset tiny --vocab-size 400 --seeds 1 \
  --attention sparsemax,cosformer --jobs 1 --out exp-nosoftmax --steps 20 --eval-every 10
check "its report compares cosformer with sparsemax" \
  grep -q "cosformer − sparsemax" exp-nosoftmax/report/report.md
"$BB" experiment "${E[@]}" --steps 20 --eval-every 10 >/dev/null 2>same.err
check "experiment rerun with the same settings reuses everything" \
  grep -q "0 runs to train, 0 to probe" same.err
# Without --jobs, runs go side by side on all cores, 1 thread each; more threads than cores warn once.
cores=$(getconf _NPROCESSORS_ONLN)
"$BB" experiment "${E0[@]}" --steps 20 --eval-every 10 >/dev/null 2>default.err
check "experiment without --jobs runs one 1-thread run per core" \
  grep -q "0 runs to train, 0 to probe ($cores at a time, 1 thread each)" default.err
check "... and does not warn" bash -c '! grep -q "will slow each other down" default.err'
"$BB" experiment "${E0[@]}" --steps 20 --eval-every 10 --jobs $((cores + 1)) >/dev/null 2>over.err
check "experiment with jobs x threads above the cores warns once" \
  test "$(grep -c "^babyberta: warning: --jobs $((cores + 1)) x --threads 1 = $((cores + 1)) threads on $cores cores; runs will slow each other down$" over.err)" -eq 1
expect_exit2 "experiment rerun with other --steps" "runs/softmax-seed1: made with other settings \(--steps: this run 20, now 30" \
  "$BB" experiment "${E[@]}" --steps 30
expect_fail "experiment rerun with another --method" "softmax-seed1.json: made with other settings \(--method: result holistic, now pll" \
  "$BB" experiment "${E[@]}" --steps 20 --method pll
"$BB" experiment "${E[@]}" --steps 30 --method pll --force >/dev/null 2>force.err
check "experiment --force redoes them, with the grid's progress on the event's line" \
  grep -q "^  finished train softmax-seed1 | grid: 1/1 runs trained, 30/30 steps (100%)" force.err
check "experiment shows the probes' progress with an ETA" \
  grep -q "| grid: 1/1 probes done, ETA -$" force.err
check "not a terminal: one line per event, never the same status twice" \
  test "$(grep -o 'grid: .*' force.err | uniq -d | wc -l)" -eq 0 -a \
       "$(grep -c '^grid: 0/1 probes done' force.err)" -eq 0
check "the redone run has the new settings" grep -q '"--steps": 30' exp/runs/softmax-seed1/run.json
# A run made before run.json existed, whose result is missing: probed again, not a crash.
cp -r exp exp-legacy && rm exp-legacy/runs/softmax-seed1/run.json exp-legacy/results/softmax-seed1.*
expect_ok "experiment reprobes a run without run.json" \
  "$BB" experiment "${E[@]/exp/exp-legacy}" --steps 30 --method pll
check "its new result records its settings" test -s exp-legacy/results/softmax-seed1.settings.json

# --first-seed S --seeds K adds seeds S..K only (the first seeds' runs may live elsewhere).
"$BB" experiment --corpus corpus.txt --suite suite --preset tiny --vocab-size 400 --jobs 1 \
  --attention softmax --out exp-seeds --steps 20 --eval-every 10 --first-seed 2 --seeds 2 \
  >/dev/null 2>seeds.err
check "experiment --first-seed 2 --seeds 2 trains seed 2 alone" \
  bash -c 'ls exp-seeds/runs | tr "\n" " " | grep -qx "softmax-seed2 "'

# experiment killed (kill -9): its children die with it; Ctrl-C: exit non-zero, no report.
"$BB" experiment "${E[@]/exp/exp2}" --steps 1000000 --eval-every 100000 >/dev/null 2>&1 &
parent=$!
for _ in $(seq 100); do pgrep -f "[e]xp2/runs/softmax-seed1" >/dev/null && break; sleep 0.1; done
kill -9 "$parent"; wait_bounded "$parent" 10; sleep 1
check "experiment's children die with it" bash -c '! pgrep -f "[e]xp2/runs/softmax-seed1"'
pkill -9 -f "[e]xp2/runs/softmax-seed1"  # (a survivor, if this check failed)
"$BB" experiment "${E[@]/exp/exp3}" --steps 1000000 --eval-every 100000 >exp3.out 2>&1 &
parent=$!
for _ in $(seq 100); do pgrep -f "[e]xp3/runs/softmax-seed1" >/dev/null && break; sleep 0.1; done
sleep 0.5; kill -INT "$parent"; wait_bounded "$parent" 30; rc=$?
check "an interrupted experiment exits non-zero" test "$rc" -ne 0
check "an interrupted experiment says so" grep -q "interrupted (train softmax-seed1 stopped)" exp3.out
check "an interrupted experiment writes no report" test ! -e exp3/report/report.md
pkill -9 -f "[e]xp3/runs/softmax-seed1"

# --recipe ssa-paper: its values reach run.json and config.json; a flag given still wins.
expect_ok "train --recipe ssa-paper" \
  "$BB" train "${T[@]}" --out rec --steps 40 --recipe ssa-paper --lr 5e-4 --eval-every 20
check "ssa-paper: HF masking, random batches, eps 1e-8, warmup 15%, the given --lr" bash -c \
  "grep -q '\"--recipe\": \"ssa-paper\"' rec/run.json && grep -q '\"--hf-masking\": true' rec/run.json \
   && grep -q '\"--bucket-batches\": 1,' rec/run.json && grep -q '\"--adam-eps\": 1e-08' rec/run.json \
   && grep -q '\"--warmup-steps\": 6,' rec/run.json && grep -q '\"--lr\": 0.0005' rec/run.json"
check "ssa-paper: LayerNorm eps 1e-12 in config.json" grep -q '"layer_norm_eps": 1e-12' rec/config.json
check "ssa-paper: the tiny preset given on the command line stays" \
  grep -q '"--preset": "tiny"' rec/run.json
expect_fail "train --recipe bert" "unknown recipe 'bert'" "$BB" train "${T[@]}" --out rec2 --recipe bert

# experiment --method holistic,pll: a result per method, and the report keeps them apart.
expect_ok "experiment with two methods" "$BB" experiment "${E[@]/exp/exp-methods}" --steps 20 \
  --eval-every 10 --method holistic,pll
check "results for both methods" test -s exp-methods/results/softmax-seed1.json -a \
  -s exp-methods/results/softmax-seed1.pll.json -a -s exp-methods/results/softmax-seed1.pll.settings.json
check "the report keeps the methods apart" grep -q "softmax, pll" exp-methods/report/report.md

# The dev loss of every evaluation is shown, not only written to metrics.jsonl.
"$BB" train "${T[@]}" --out devshow --steps 10 --eval-every 5 >/dev/null 2>devshow.err
check "train shows the dev loss at each evaluation" \
  bash -c "grep -q '^step 5: dev loss [0-9.]*$' devshow.err && grep -q '^step 10: dev loss' devshow.err"
