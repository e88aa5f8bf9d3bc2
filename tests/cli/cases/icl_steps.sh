# icl eval records the updates each model was trained ("steps" in eval.json; issue 47 part 3), and
# names a step directory by its run so that one evaluation per checkpoint step lists the runs.
"$BB" icl train --preset icl-tiny --batch 4 --points-start 3 --points-end 5 --points-inc 1 \
  --points-every 2 --seed 3 --quiet --out st-a --steps 4 --checkpoint-every 2 >/dev/null 2>&1
"$BB" icl train --preset icl-tiny --batch 4 --points-start 3 --points-end 5 --points-inc 1 \
  --points-every 2 --seed 4 --quiet --out st-b --steps 4 --checkpoint-every 2 >/dev/null 2>&1
expect_ok "icl eval on two runs' step-2 checkpoints" "$BB" icl eval --model st-a/checkpoints/step-2 \
  --model st-b/checkpoints/step-2 --task every --lengths 5 --sigmas 1 --sequences 4 --out st-eval2
check "icl eval: a step directory is named by its run, with its step" /usr/bin/python3 -c '
import json, sys
m = [x for x in json.load(open("st-eval2/eval.json"))["models"] if not x["baseline"]]
sys.exit(not ([(x["name"], x["steps"]) for x in m] == [("st-a", 2), ("st-b", 2)]))'
expect_ok "icl eval on a run directory" "$BB" icl eval --model st-a --lengths 5 --sigmas 1 \
  --sequences 4 --out st-eval
check "icl eval: a run directory's model records its latest step" /usr/bin/python3 -c '
import json, sys
m = [x for x in json.load(open("st-eval/eval.json"))["models"] if not x["baseline"]]
sys.exit(not ([(x["name"], x["steps"]) for x in m] == [("st-a", 4)]))'
check "icl eval: baselines have no steps" /usr/bin/python3 -c '
import json, sys
b = [x for x in json.load(open("st-eval/eval.json"))["models"] if x["baseline"]]
sys.exit(not (b and all("steps" not in x for x in b)))'
expect_ok "saturation on two runs' step-2 checkpoints (the task from their runs)" "$BB" saturation \
  --model st-a/checkpoints/step-2 --model st-b/checkpoints/step-2 --sigmas 1,2 --points 5 \
  --sentences 4 --out st-sat
check "saturation: a step directory is named by its run, with its step" /usr/bin/python3 -c '
import json, sys
m = json.load(open("st-sat/saturation.json"))["models"]
sys.exit(not ([(x["name"], x["steps"]) for x in m] == [("st-a", 2), ("st-b", 2)]))'
expect_ok "icl eval on a step directory without --task (the task from its run)" "$BB" icl eval \
  --model st-a/checkpoints/step-2 --lengths 5 --sigmas 1 --sequences 4 --out st-eval3
# run.json records what computed each session (as train's does); a resume adds one.
"$BB" icl train --preset icl-tiny --batch 4 --points-start 3 --points-end 5 --points-inc 1 \
  --points-every 2 --seed 3 --quiet --out st-a --steps 6 --checkpoint-every 2 >/dev/null 2>&1
check "icl train: run.json records a session per start, from its step, with its kernels" \
  /usr/bin/python3 -c '
import json, sys
s = json.load(open("st-a/run.json"))["sessions"]
sys.exit(not ([x["from_step"] for x in s] == [0, 4] and all(x["blas"] and x["threads"] == 1 for x in s)))'
