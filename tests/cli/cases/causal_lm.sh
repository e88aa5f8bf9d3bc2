# The causal LM (train --kind gpt2; issue: the decoder setting): training in both packings, a
# bit-identical resume after Ctrl-C, its flags' rules, scoring by Σ log P (probe and score, causal
# only), info, attention; a roberta model refuses the causal method.
fixtures
G=(train --kind gpt2 --corpus corpus.txt --preset tiny --vocab-size 400 --eval-every 50
   --dev-batches 2 --dev-fraction 0.05 --seed 1 --attention ssa)
expect_ok "train --kind gpt2 (utterance packing)" "$BB" "${G[@]}" --steps 100 --out gpt2
check "its config.json is GPT2Config's" \
  bash -c 'grep -q "\"model_type\": \"gpt2\"" gpt2/config.json && grep -q "\"n_embd\": 64" gpt2/config.json && grep -q GPT2LMHeadModel gpt2/config.json'
check "its model.safetensors holds HF GPT-2's names, SSA's values under attn." \
  bash -c 'grep -aq "transformer.h.1.attn.ssa_b" gpt2/model.safetensors && grep -aq "transformer.h.0.mlp.c_fc.weight" gpt2/model.safetensors'
check "run.json records the kind and the packing" \
  bash -c 'grep -q "\"--kind\": \"gpt2\"" gpt2/run.json && grep -q "\"--packing\": \"utterance\"" gpt2/run.json'
check "run.json records no masking flag for a causal LM" bash -c '! grep -q "mask" gpt2/run.json'
check "metrics lines have the dev perplexity (exp of the dev loss)" \
  python3 -c 'import json, math; l = [json.loads(x) for x in open("gpt2/metrics.jsonl")]; assert l and all(abs(math.exp(x["dev_loss"]) - x["dev_perplexity"]) < 1e-9 * x["dev_perplexity"] for x in l)'
check "roberta runs record no --kind (their run.json as before)" bash -c '! grep -q -- "--kind" model/run.json'

# 400 steps of batch 2: about a second in a release build, some 20 s under the sanitizers (2 cores);
# the Ctrl-C comes once the step-50 checkpoint is on disk, so the resume starts mid-run.
for packing in utterance packed; do
  P=("${G[@]}" --packing "$packing" --batch-size 2 --steps 400)
  "$BB" "${P[@]}" --out "whole-$packing" >/dev/null 2>&1
  "$BB" "${P[@]}" --out "cut-$packing" >/dev/null 2>"cut-$packing.err" &
  holder=$!
  for _ in $(seq 2400); do [ -d "cut-$packing/checkpoints/step-50" ] && break; sleep 0.05; done
  kill -INT "$holder"; wait_bounded "$holder" 60; rc=$?
  check "$packing: an interrupted gpt2 run exits 130 after a checkpoint, before its end" \
    bash -c "[ $rc -eq 130 ] && grep -Eq 'checkpoint saved at step ([5-9][0-9]|[1-3][0-9][0-9]) ' cut-$packing.err"
  expect_ok "$packing: the gpt2 run resumes" "$BB" "${P[@]}" --out "cut-$packing" --resume
  check "$packing: the resumed run's model is bit-identical to the uninterrupted one's" \
    cmp "whole-$packing/model.safetensors" "cut-$packing/model.safetensors"
  check "$packing: ... and so are its dev losses" \
    bash -c "diff <(grep -o '\"dev_loss\":[^,]*' whole-$packing/metrics.jsonl) <(grep -o '\"dev_loss\":[^,]*' cut-$packing/metrics.jsonl)"
done
check "packed and utterance runs differ (different sequences)" \
  bash -c '! cmp -s whole-packed/model.safetensors whole-utterance/model.safetensors'

# --extend-to: a gpt2 wsd run of 10 steps extended to 20 is bit for bit the 20-step run (packed,
# so the extension crosses the data's epochs the same way); constant 8 -> 12 likewise.
W=(train --kind gpt2 --corpus corpus.txt --preset tiny --vocab-size 400 --eval-every 4
   --dev-batches 2 --dev-fraction 0.05 --seed 1 --attention ssa --packing packed --batch-size 2
   --warmup-steps 2)
"$BB" "${W[@]}" --schedule wsd --decay-steps 4 --steps 10 --out gx-wsd10 >/dev/null 2>&1
expect_ok "gpt2: --resume --extend-to 20 over a 10-step wsd run" \
  "$BB" "${W[@]}" --schedule wsd --decay-steps 4 --steps 10 --out gx-wsd10 --resume --extend-to 20
"$BB" "${W[@]}" --schedule wsd --decay-steps 4 --steps 20 --out gx-wsd20 >/dev/null 2>&1
check "gpt2 wsd: the extended run's model is bit-identical to the 20-step run's" \
  cmp gx-wsd10/model.safetensors gx-wsd20/model.safetensors
"$BB" "${W[@]}" --schedule constant --steps 8 --out gx-c8 >/dev/null 2>&1
"$BB" "${W[@]}" --schedule constant --steps 8 --out gx-c8 --resume --extend-to 12 >/dev/null 2>&1
"$BB" "${W[@]}" --schedule constant --steps 12 --out gx-c12 >/dev/null 2>&1
check "gpt2 constant: 8 steps extended to 12 equal 12 steps" cmp gx-c8/model.safetensors gx-c12/model.safetensors

expect_exit2 "a masking flag on a gpt2 run is refused" "--mask-prob does not apply to --kind gpt2" \
  "$BB" "${G[@]}" --steps 5 --out g-mask --mask-prob 0.2
check "... before any work" test ! -e g-mask
expect_exit2 "--packing on a roberta run is refused" "--packing does not apply to --kind roberta" \
  "$BB" train --corpus corpus.txt --preset tiny --steps 5 --out r-pack --packing packed
expect_exit2 "--kind other" "--kind: .*other.*roberta" "$BB" "${G[@]}" --steps 5 --out g-kind --kind other
expect_exit2 "decoder-114m is a gpt2 preset only" \
  "unknown preset 'decoder-114m' for roberta \(expected babyberta, small, tiny\)" \
  "$BB" train --corpus corpus.txt --preset decoder-114m --steps 1 --out r-big
expect_exit2 "resume with another kind: the kind alone" "gpt2: cannot resume: it holds a gpt2 run, not a roberta one \(--kind" \
  "$BB" train --corpus corpus.txt --preset tiny --vocab-size 400 --eval-every 50 --dev-batches 2 \
  --dev-fraction 0.05 --seed 1 --attention ssa --steps 100 --out gpt2 --resume

# Scoring: causal (Σ log P over every token after <s>, </s> included)
printf 'the dog sees the toy .\nthe dog see the toy .\n' > gs.txt
"$BB" score --model gpt2 --per-token < gs.txt > gs.jsonl 2> gs.err
check "score on a gpt2 model: causal by default, log-probs of every token after <s>, surprisal in bits" \
  python3 -c '
import json, math
for line in open("gs.jsonl"):
    j = json.loads(line)
    assert len(j["logprobs"]) == len(j["ids"]) - 1 == len(j["pieces"]) == len(j["surprisal"])
    assert j["pieces"][-1] == "</s>"
    assert abs(j["logprob"] - sum(j["logprobs"])) < 1e-9
    assert all(abs(s + lp / math.log(2)) < 1e-12 for s, lp in zip(j["surprisal"], j["logprobs"]))
'
"$BB" score --model gpt2 --reduction mean < gs.txt > gs-mean.jsonl 2>/dev/null
check "score --reduction mean: mean_logprob" \
  python3 -c 'import json; a = [json.loads(l) for l in open("gs.jsonl")]; b = [json.loads(l) for l in open("gs-mean.jsonl")]; assert all(abs(y["mean_logprob"] - x["logprob"] / (len(x["ids"]) - 1)) < 1e-9 for x, y in zip(a, b))'
expect_exit2 "holistic on a gpt2 model names its method" \
  "score: --method holistic scores roberta models; a gpt2 model takes causal$" \
  bash -c "'$BB' score --model gpt2 --method holistic < gs.txt"
expect_exit2 "pll on a gpt2 model (probe)" "probe: --method pll scores roberta models; a gpt2 model takes causal$" \
  "$BB" probe --model gpt2 --suite suite --method pll --out g-pll.json
expect_exit2 "causal on a roberta model" \
  "score: --method causal scores gpt2 models; a roberta model takes holistic, pll, pll-word-l2r$" \
  bash -c "'$BB' score --model model --method causal < gs.txt"
expect_ok "probe a gpt2 model (causal by default)" "$BB" probe --model gpt2 --suite suite --out gp.json
check "its result says method causal and reduction sum" \
  python3 -c 'import json; j = json.load(open("gp.json")); assert j["method"] == "causal" and j["reduction"] == "sum", j["method"]'
"$BB" info --model gpt2 > g.info 2>&1
check "info on a gpt2 model: its kind, shape, dev loss with perplexity, SSA's values" \
  bash -c "grep -q '^kind       gpt2 (a GPT-2-style causal LM)$' g.info && grep -Eq '^dev loss   [0-9.]+ at step 100 \(perplexity [0-9.]+ per token\)$' g.info && grep -Eq '^layer 1  b: ' g.info"
"$BB" attention --model gpt2 --sentence "the dog sees the toy ." > g-att.json 2>/dev/null
check "attention on a gpt2 model: causal rows (no weight on later tokens)" \
  python3 -c '
import json
w = json.load(open("g-att.json"))["sentences"][0]["weights"]
assert all(row[j] == 0 for layer in w for head in layer for i, row in enumerate(head) for j in range(i + 1, len(row)))
'

# perplexity: in distribution (a run's own dev split, rebuilt from run.json) and out of it
printf 'the baby wants the cup .\nmy mom finds a bird .\n' > ppl.txt
expect_ok "perplexity of a gpt2 model on its dev split, a text and a suite's good sentences" \
  "$BB" perplexity --model gpt2 --dev-of gpt2 --text ppl.txt --good-of suite --out ppl.json
check "its dev-split perplexity is exp of the run's last dev loss (the same tokens)" \
  python3 -c '
import json, math
p = json.load(open("ppl.json"))
assert p["measure"] == "perplexity" and p["method"] == "causal" and p["kind"] == "gpt2"
dev = [r for r in p["inputs"] if r["source"] == "dev split of gpt2"][0]
last = [json.loads(l) for l in open("gpt2/metrics.jsonl")][-1]
assert abs(dev["perplexity_per_token"] - math.exp(last["dev_loss"])) < 1e-5 * dev["perplexity_per_token"], (dev, last)  # float32 batch means
text = [r for r in p["inputs"] if r["source"] == "ppl.txt"][0]
assert text["sentences"] == 2 and text["words"] == 6 + 6 + 2, text
assert abs(math.log(text["perplexity_per_word"]) * text["words"] - math.log(text["perplexity_per_token"]) * text["tokens"]) < 1e-6
'
check "the perplexity file and run.json's sessions say which build computed them, when, how long" \
  python3 -c '
import json, re
p = json.load(open("ppl.json"))["provenance"]
s = json.load(open("gpt2/run.json"))["sessions"][0]
assert p["git_revision"] and p["git_revision"] == s["git_revision"], (p, s)
assert p["threads"] == 1 and p["seconds"] > 0 and p["device"] == s["blas"], (p, s)
assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", d) for d in (p["date"], s["date"])), (p, s)
'
"$BB" perplexity --model model --text ppl.txt --out ppl-r.json >/dev/null 2>&1
check "a roberta model's is a pseudo-perplexity (pll), words without </s>" \
  python3 -c 'import json; p = json.load(open("ppl-r.json")); assert p["measure"] == "pseudo-perplexity" and p["method"] == "pll" and p["inputs"][0]["words"] == 12, p'
expect_exit2 "perplexity without an input" "nothing to measure \(give --text, --good-of or --dev-of\)" \
  "$BB" perplexity --model gpt2
"$BB" "${G[@]}" --steps 5 --out gpt2-nodev --no-dev >/dev/null 2>&1
expect_fail "--dev-of a run trained with --no-dev" "--dev-of gpt2-nodev: the run was trained with --no-dev" \
  "$BB" perplexity --model gpt2 --dev-of gpt2-nodev
printf 'the dog .\n\xff\xfe bad\n' > ppl-bad.txt
expect_fail "a text line that is not UTF-8 is named" "ppl-bad.txt:2: not valid UTF-8" \
  "$BB" perplexity --model gpt2 --text ppl-bad.txt
check "... and no result file is written" test ! -e ppl-bad.json

# experiment --kinds: the kind a grid axis; each kind compared with its own softmax
expect_ok "experiment --kinds roberta,gpt2" "$BB" experiment --corpus corpus.txt --suite suite \
  --out exk --kinds roberta,gpt2 --attention softmax,ssa --seeds 3 --preset tiny --steps 20 \
  --vocab-size 400 --eval-every 10 --dev-batches 2 --method holistic,pll --jobs 1
check "its runs: roberta's named as before, gpt2's with the kind" \
  bash -c 'ls exk/runs | grep seed1 | sort | tr "\n" " " | grep -qx "gpt2-softmax-seed1 gpt2-ssa-seed1 softmax-seed1 ssa-seed1 "'
check "the gpt2 runs are scored causal, the roberta runs holistic" \
  python3 -c 'import json; assert json.load(open("exk/results/gpt2-ssa-seed1.json"))["method"] == "causal"; assert json.load(open("exk/results/ssa-seed1.json"))["method"] == "holistic"'
check "the report compares each kind's ssa with its own softmax" \
  bash -c 'grep -q "gpt2 ssa, causal − gpt2 softmax, causal" exk/report/report.md && grep -q "ssa, holistic − softmax, holistic" exk/report/report.md'
# compare --across-kinds: each gpt2 group against the roberta group of its function (one roberta
# method at a time), paired by seed
(cd exk/results && "$BB" compare gpt2-*-seed?.json softmax-seed?.json ssa-seed?.json \
   --across-kinds --out ../../exk-across >/dev/null 2>&1)
check "compare --across-kinds: gpt2 ssa against roberta ssa (holistic), paired t over 3 seeds" \
  grep -q "gpt2 ssa, causal − ssa, holistic\*\*: overall .* (paired t over 3 seeds" exk-across/report.md
check "... and gpt2 softmax against roberta softmax, and nothing within a kind" bash -c \
  'grep -q "gpt2 softmax, causal − softmax, holistic" exk-across/report.md && ! grep -q "− gpt2 softmax" exk-across/report.md'
check "... its method says the kinds' batches differ" grep -q "though the two kinds' batches differ" exk-across/report.md
(cd exk/results && "$BB" compare gpt2-*-seed?.json softmax-seed?.pll.json ssa-seed?.pll.json \
   --across-kinds --out ../../exk-across-pll >/dev/null 2>&1)
check "compare --across-kinds against the roberta pll results" \
  grep -q "gpt2 ssa, causal − ssa, pll" exk-across-pll/report.md
expect_fail "compare --across-kinds with two roberta methods at once" \
  "compare --across-kinds: gpt2 softmax, causal has 2 roberta groups to be compared with \(softmax, holistic; softmax, pll\); give one roberta scoring method's results at a time" \
  "$BB" compare exk/results --across-kinds --out exk-across-bad
expect_fail "compare --across-kinds without gpt2 results" \
  "compare --across-kinds: no gpt2 group has a roberta group of its function" \
  bash -c "cd exk/results && '$BB' compare softmax-seed?.json ssa-seed?.json --across-kinds --out ../../exk-across-bad"
check "... nothing written" test ! -e exk-across-bad
# scripts/collect-experiment.sh: what a study folder keeps of an experiment (no models)
bash "$HERE/../../scripts/collect-experiment.sh" "$BB" exk exk-col > exk-col.out 2>&1
check "collect-experiment: every finished run's settings, metrics and trained values" bash -c \
  'for r in gpt2-ssa-seed1 softmax-seed3; do for f in run.json config.json metrics.jsonl values.txt; do
     test -s "exk-col/runs/$r/$f" || exit 1; done; done &&
   grep -q "^model      runs/gpt2-ssa-seed1$" exk-col/runs/gpt2-ssa-seed1/values.txt &&
   grep -qE "^layer 0  b: [0-9.]+ [0-9.]+   n: " exk-col/runs/ssa-seed2/values.txt &&
   ! grep -rq "$PWD" exk-col/runs/*/values.txt && ! find exk-col -name "*.safetensors" | grep -q .'
check "collect-experiment: every result with its settings and pairs, both kinds and methods" bash -c \
  'test "$(ls exk-col/results | wc -l)" = "$(ls exk/results | wc -l)" &&
   cmp -s exk/results/ssa-seed1.pll.json exk-col/results/ssa-seed1.pll.json'
expect_exit2 "collect-experiment on a directory that is no experiment" \
  "collect-experiment: exk-col/runs: no runs/ \(not an experiment directory\)" \
  bash "$HERE/../../scripts/collect-experiment.sh" "$BB" exk-col/runs exk-col2
expect_exit2 "experiment --kinds with a typo" "--kinds: .*gtp2" \
  "$BB" experiment --corpus corpus.txt --suite suite --out exk2 --kinds roberta,gtp2 --steps 5

# export: a softmax gpt2 model is HF's GPT2LMHeadModel; an independent plain-PyTorch reader of the
# folder (tests/interop/read_gpt2_export.py, none of our code) reproduces our per-token log-probs
"$BB" train --kind gpt2 --corpus corpus.txt --preset tiny --vocab-size 400 --eval-every 50 \
  --dev-batches 2 --dev-fraction 0.05 --seed 1 --attention softmax --steps 60 --out gpt2-softmax \
  >/dev/null 2>&1
expect_ok "export a softmax gpt2 model" "$BB" export --model gpt2-softmax --out gpt2-hf
check "its config is a plain GPT2LMHeadModel's (no remote code)" \
  python3 -c 'import json, os; c = json.load(open("gpt2-hf/config.json")); assert c["model_type"] == "gpt2" and c["architectures"] == ["GPT2LMHeadModel"] and "auto_map" not in c; assert not [f for f in os.listdir("gpt2-hf") if f.endswith(".py")]'
"$BB" score --model gpt2-softmax --per-token < gs.txt > gs-hf.jsonl 2>/dev/null
/usr/bin/python3 "$HERE/../interop/read_gpt2_export.py" gpt2-hf < gs-hf.jsonl > reader.out 2>&1
rc=$?
if [ "$rc" -eq 77 ]; then echo "skip    an independent reader of the export: $(cat reader.out)"
else check "an independent plain-PyTorch reader of the export gives our per-token log-probs (float32 error)" test "$rc" -eq 0
fi
# The other functions: remote code (modeling_babyberta_gpt2.py, auto_map); the bundled forward,
# run from the folder, gives our per-token log-probs with right and with left padding.
for fn in ssa softmax-t sparsemax entmax15 sa-softmax cosformer; do
  "$BB" train --kind gpt2 --corpus corpus.txt --preset tiny --vocab-size 400 --eval-every 30 \
    --dev-batches 2 --dev-fraction 0.05 --seed 1 --attention "$fn" --steps 30 --out "gpt2-$fn" \
    >/dev/null 2>&1
  expect_ok "export a gpt2 model with $fn" "$BB" export --model "gpt2-$fn" --out "gpt2-hf-$fn"
  check "$fn: the folder has its remote code" bash -c "cd gpt2-hf-$fn && test -s modeling_babyberta_gpt2.py && test -s babyberta_gpt2_torch.py && test -s babyberta_torch.py"
  "$BB" score --model "gpt2-$fn" --per-token < gs.txt > "gs-$fn.jsonl" 2>/dev/null
  /usr/bin/python3 "$HERE/../interop/check_bundled_gpt2.py" "gpt2-hf-$fn" < "gs-$fn.jsonl" \
    > "bundled-$fn.out" 2>&1
  rc=$?
  if [ "$rc" -eq 77 ]; then echo "skip    the bundled code of the $fn export: $(cat "bundled-$fn.out")"
  else check "$fn: the bundled code's names, shapes and per-token log-probs are ours (float32 error)" test "$rc" -eq 0
  fi
done

check "info reads a gpt2 export with remote code back as a gpt2 model" \
  bash -c "'$BB' info --model gpt2-hf-ssa | grep -q '^kind *gpt2'"

# score --words: the pieces' log-probabilities summed per whitespace word (both kinds)
"$BB" score --model gpt2 --words --per-token < gs.txt > gw.jsonl 2>/dev/null
"$BB" score --model model --method pll --words --per-token < gs.txt > rw.jsonl 2>/dev/null
check "score --words: each sentence's words, each the sum of its pieces (causal: all but </s>; pll: all)" \
  python3 -c '
import json
for f, eos in (("gw.jsonl", 1), ("rw.jsonl", 0)):
    for line in open(f):
        j = json.loads(line)
        assert j["words"] == j["sentence"].split(), (j["words"], j["sentence"])
        assert abs(sum(j["word_logprobs"]) - sum(j["logprobs"][:len(j["logprobs"]) - eos])) < 1e-9
'

expect_ok "saturation of a gpt2 model" "$BB" saturation --model gpt2 --suite suite --out g-sat --sentences 10
check "... writes its records" test -s g-sat/saturation.json

# bench score measures the kind it is given (--kind gpt2 scores causally by default)
check "bench score --kind gpt2 scores a gpt2 model with causal" bash -c \
  '"$0" bench score --kind gpt2 --preset tiny --seconds 0.2 | python3 -c "import json, sys; j = json.load(sys.stdin); assert j[\"kind\"] == \"gpt2\" and j[\"method\"] == \"causal\" and j[\"sentences_per_s\"] > 0, j"' "$BB"
check "bench score without --kind: roberta, holistic (as before)" bash -c \
  '"$0" bench score --preset tiny --seconds 0.2 | python3 -c "import json, sys; j = json.load(sys.stdin); assert j[\"kind\"] == \"roberta\" and j[\"method\"] == \"holistic\", j"' "$BB"
expect_exit2 "bench score --kind gpt2 --method pll names the kind's methods" "bench score: --method pll scores roberta models; a gpt2 model takes causal" \
  "$BB" bench score --kind gpt2 --preset tiny --method pll --seconds 0.2
expect_exit2 "bench score --kind icl is refused" "bench score: --kind icl has no sentence scoring" \
  "$BB" bench score --kind icl --seconds 0.2
