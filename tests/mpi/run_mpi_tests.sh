#!/usr/bin/env bash
# The MPI modes under mpirun, as CI runs them (2 cores, as root): data-parallel `train` against one
# process (roberta; gpt2 in both packings, whose corpus ends each epoch with a one-utterance batch
# that leaves a rank an empty share), resume under -np 2 bit for bit, a different -np refused; an
# `experiment` grid under -np 2 against the same grid without MPI (also with --kinds
# roberta,gpt2), a rank killed midway, then a rerun.
# Usage: run_mpi_tests.sh BABYBERTA MODEL_DIFFERENCE. Exit 77 (skipped) when mpirun is missing or
# the binary was built without MPI.
set -uo pipefail
BB="$(realpath "$1")"; DIFF="$(realpath "$2")"
command -v mpirun >/dev/null || { echo "skipped: no mpirun (scripts/install-deps.sh installs OpenMPI)"; exit 77; }
MPI=(mpirun --allow-run-as-root --oversubscribe --bind-to none)
# OpenMPI as root in a container: no warnings about its shared-memory transport's defaults.
export OMPI_MCA_btl_vader_single_copy_mechanism=none
WORK="$(mktemp -d /tmp/bb-mpi-tests.XXXXXX)"
trap '[ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1
PASSED=0; FAILED=0
pass() { PASSED=$((PASSED + 1)); echo "ok      $1"; }
failed() { FAILED=$((FAILED + 1)); echo "FAILED  $1${2:+: $2}"; }
check() { local name="$1"; shift; if "$@"; then pass "$name"; else failed "$name" "$*"; fi; }

# A tiny corpus and suite, generated (no data files needed).
for s in the-dog the-cat a-bird my-mom the-baby your-ball; do for v in sees wants likes has finds takes; do
  for o in the-toy a-cup the-book that-ball some-milk the-car; do echo "${s//-/ } $v ${o//-/ } ."; done
done; done > corpus.txt
mkdir -p suite
printf 'the dog are here .\nthe dog is here .\nthe cats is here .\nthe cats are here .\n' \
  > suite/agreement-subject_verb.txt
printf 'a cup see the dog .\na cup sees the dog .\nthe toys has it .\nthe toys have it .\n' \
  > suite/agreement-determiner_noun.txt

if ! "${MPI[@]}" -np 2 "$BB" bench train --preset tiny --seconds 0.2 > probe.out 2> probe.err; then
  if grep -q "built without MPI" probe.err; then echo "skipped: $(tail -1 probe.err)"; exit 77; fi
  failed "mpirun -np 2 bench train" "$(tail -3 probe.err)"
fi

"$BB" tokenizer train --corpus corpus.txt --vocab-size 300 --out tok >/dev/null 2>&1

# 1. Data-parallel training = one process, up to float summation order (per tensor).
for att in softmax ssa; do
  T=(--corpus corpus.txt --tokenizer tok --preset tiny --attention "$att" --steps 200 --seed 3
     --eval-every 1 --dev-batches 1)
  "$BB" train "${T[@]}" --out one-$att >/dev/null 2>one-$att.err \
    || failed "train $att, one process" "$(tail -1 one-$att.err)"
  "${MPI[@]}" -np 2 "$BB" train "${T[@]}" --out two-$att >/dev/null 2>two-$att.err \
    || failed "train $att, mpirun -np 2" "$(tail -1 two-$att.err)"
  echo "-- $att: step, training loss of one process, of mpirun -np 2"
  paste <(sed -E 's/.*"step":([0-9]+).*"train_loss":([^,}]+).*/\1 \2/' one-$att/metrics.jsonl) \
        <(sed -E 's/.*"train_loss":([^,}]+).*/\1/' two-$att/metrics.jsonl) | column -t
  echo "-- $att: per tensor ||w1 - w2|| / ||w1||"
  "$DIFF" one-$att/model.safetensors two-$att/model.safetensors 1e-5 > diff-$att.txt
  rc=$?; sed -n '1,4p;$p' diff-$att.txt
  check "data-parallel $att (-np 2) matches one process within 1e-5 per tensor" test "$rc" -eq 0
done
check "only rank 0 wrote the run directory's metrics (one line per step)" \
  test "$(wc -l < two-softmax/metrics.jsonl)" -eq 200

# 1b. The causal LM (kind gpt2) takes the same data-parallel path, in both packings.
for packing in utterance packed; do
  G=(--kind gpt2 --packing "$packing" --corpus corpus.txt --tokenizer tok --preset tiny
     --attention ssa --steps 100 --seed 3 --eval-every 1 --dev-batches 1 --batch-size 4)
  "$BB" train "${G[@]}" --out g1-$packing >/dev/null 2>g1-$packing.err \
    || failed "train gpt2 $packing, one process" "$(tail -1 g1-$packing.err)"
  "${MPI[@]}" -np 2 "$BB" train "${G[@]}" --out g2-$packing >/dev/null 2>g2-$packing.err \
    || failed "train gpt2 $packing, mpirun -np 2" "$(tail -1 g2-$packing.err)"
  "$DIFF" g1-$packing/model.safetensors g2-$packing/model.safetensors 1e-5 > gdiff-$packing.txt
  rc=$?; echo "-- gpt2 $packing: per tensor ||w1 - w2|| / ||w1||"; sed -n '1,2p;$p' gdiff-$packing.txt
  check "data-parallel gpt2 ($packing, -np 2) matches one process within 1e-5 per tensor" \
    test "$rc" -eq 0
  check "gpt2 $packing: the dev losses of both agree to 1e-5" /usr/bin/python3 -c "
import json
a = [json.loads(l)['dev_loss'] for l in open('g1-$packing/metrics.jsonl')]
b = [json.loads(l)['dev_loss'] for l in open('g2-$packing/metrics.jsonl')]
assert len(a) == len(b) == 100 and max(abs(x - y) for x, y in zip(a, b)) < 1e-5"
done

# 2. Resume under -np 2 is bit-exact against the uninterrupted -np 2 run.
T=(--corpus corpus.txt --tokenizer tok --preset tiny --attention ssa --steps 400 --seed 4
   --eval-every 25 --dev-batches 1)
"${MPI[@]}" -np 2 "$BB" train "${T[@]}" --out whole >/dev/null 2>whole.err
"${MPI[@]}" -np 2 "$BB" train "${T[@]}" --out part >/dev/null 2>part.err & MP=$!
for _ in $(seq 600); do [ -d part/checkpoints/step-50 ] && break; sleep 0.05; done
kill -TERM $(pgrep -P $MP | tail -1) 2>/dev/null  # one rank; the other stops at the same step
wait $MP
check "SIGTERM to one rank stops both with a checkpoint" \
  grep -Eq "interrupted: checkpoint saved at step [0-9]+" part.err
"${MPI[@]}" -np 2 "$BB" train "${T[@]}" --out part --resume >/dev/null 2>resume.err
check "the resumed run says where it resumes" grep -Eq "resuming from step [0-9]+" resume.err
check "resume under -np 2 is bit-exact" cmp -s whole/model.safetensors part/model.safetensors
"$BB" train "${T[@]}" --out part --resume >/dev/null 2>other.err
check "a resume with another number of processes is refused" \
  grep -Eq "checkpoint was trained by 2 processes and this run has 1; resume with the same number \(mpirun -np 2\)" other.err

# 3. An experiment grid under -np 2 gives the tables of the grid without MPI.
E=(--corpus corpus.txt --suite suite --preset tiny --steps 300 --eval-every 50 --seeds 2
   --vocab-size 300 --threads 1 --attention softmax,ssa)
"$BB" experiment "${E[@]}" --out plain > plain.out 2> plain.err \
  || failed "experiment without MPI" "$(tail -1 plain.err)"
"${MPI[@]}" -np 2 "$BB" experiment "${E[@]}" --out ranks > ranks.out 2> ranks.err \
  || failed "experiment under mpirun -np 2" "$(tail -1 ranks.err)"
check "both ranks trained runs" grep -q "on rank 1" ranks.err
check "the grid's tables under -np 2 equal those without MPI" \
  diff <(grep -v "this invocation" plain.out) <(grep -v "this invocation" ranks.out)
check "the grid's report under -np 2 equals the one without MPI" \
  diff plain/report/report.md ranks/report/report.md

# 3b. A grid with the kind as an axis (experiment --kinds roberta,gpt2) under -np 2.
K=(--corpus corpus.txt --suite suite --preset tiny --steps 100 --eval-every 50 --seeds 1
   --vocab-size 300 --threads 1 --attention softmax,ssa --kinds roberta,gpt2)
"$BB" experiment "${K[@]}" --out kinds-plain > kinds-plain.out 2> kinds-plain.err \
  || failed "experiment --kinds without MPI" "$(tail -1 kinds-plain.err)"
"${MPI[@]}" -np 2 "$BB" experiment "${K[@]}" --out kinds-ranks > kinds-ranks.out 2> kinds-ranks.err \
  || failed "experiment --kinds under mpirun -np 2" "$(tail -1 kinds-ranks.err)"
check "experiment --kinds: both ranks trained runs, gpt2 ones among them" \
  bash -c 'grep -q "on rank 1" kinds-ranks.err && grep -q "gpt2-ssa-seed1" kinds-ranks.err'
check "experiment --kinds: the report under -np 2 equals the one without MPI" \
  diff kinds-plain/report/report.md kinds-ranks/report/report.md

# 4. A rank killed midway: mpirun stops the job; the rerun resumes and skips finished runs.
E2=("${E[@]/--steps/--steps}"); E2=(--corpus corpus.txt --suite suite --preset tiny --steps 1500
   --eval-every 100 --seeds 2 --vocab-size 300 --threads 1 --attention softmax,ssa)
"${MPI[@]}" -np 2 "$BB" experiment "${E2[@]}" --out killed > killed.out 2> killed.err & MP=$!
for _ in $(seq 1200); do grep -q "finished train" killed.err 2>/dev/null && break; sleep 0.05; done
sleep 0.3
kill -KILL $(pgrep -P $MP | tail -1) 2>/dev/null
wait $MP; rc=$?
check "a killed rank ends the job with an error" test "$rc" -ne 0
finished_before=$(grep -o "finished train [a-z]*-seed[0-9]" killed.err | sed 's/finished train //' | sort)
stamp() { for r in $finished_before; do stat -c %Y killed/runs/$r/model.safetensors; done; }
before="$(stamp)"
"${MPI[@]}" -np 2 "$BB" experiment "${E2[@]}" --out killed > rerun.out 2> rerun.err
check "the rerun completes" test $? -eq 0
check "the rerun names what it resumes" grep -Eq "experiment: resuming [a-z]+-seed[0-9] from step [0-9]+ of 1500" rerun.err
redone=0
for r in $finished_before; do grep -q "started  train $r " rerun.err && redone=1; done
check "the rerun does not retrain finished runs ($(echo $finished_before))" test "$redone" -eq 0 -a "$before" = "$(stamp)"
check "the completed grid's tables equal an uninterrupted grid's" \
  test "$(ls killed/results/*.json | grep -vc settings)" -eq 4

# 5. A run that fails makes the job fail, naming the run and its log.
mkdir -p failing/runs && printf 'not a directory\n' > failing/runs/ssa-seed2
"${MPI[@]}" -np 2 "$BB" experiment "${E[@]}" --out failing > failing.out 2> failing.err; rc=$?
check "a failed run fails the MPI job, naming the run and its log" \
  grep -Eq "babyberta: error: 1 job\(s\) failed: train ssa-seed2 \(rank [01], log: failing/logs/ssa-seed2.log\)" failing.err

# 6. An ICL experiment grid under -np 2 gives the report of the grid without MPI.
I=(icl experiment --attention softmax,ssa --seeds 3 --steps 6 --points-every 2 --lengths 5
   --sigmas 1,2 --sequences 8 --report-points 5 --batch 4 --points-start 3 --points-end 5
   --points-inc 1 --threads 1)
"$BB" "${I[@]}" --out icl-plain > icl-plain.out 2> icl-plain.err \
  || failed "icl experiment without MPI" "$(tail -1 icl-plain.err)"
"${MPI[@]}" -np 2 "$BB" "${I[@]}" --out icl-ranks > icl-ranks.out 2> icl-ranks.err \
  || failed "icl experiment under mpirun -np 2" "$(tail -1 icl-ranks.err)"
check "icl experiment: both ranks trained runs" grep -q "on rank 1" icl-ranks.err
check "icl experiment: the report under -np 2 equals the one without MPI" \
  diff icl-plain/report.md icl-ranks/report.md
check "icl experiment: so do its per-sigma table and its saturation views (rank 0, in process)" \
  bash -c 'diff icl-plain/table.md icl-ranks/table.md && diff icl-plain/saturation/every-full/saturation.json icl-ranks/saturation/every-full/saturation.json'

echo
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
