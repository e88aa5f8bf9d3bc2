# The attention functions through the CLI: unknown names and bad settings refused in one
# line, softmax-t's temperature trained, saved, described by `info` and resumed, an old softmax
# config.json (with ssa_* fields) still loading.
fixtures
T=(--corpus corpus.txt --preset tiny --vocab-size 400 --dev-batches 2 --eval-every 5)

expect_fail "train --attention softmax2" \
  "unknown attention function 'softmax2' \(expected one of softmax, ssa, softmax-t, sparsemax, entmax15, sa-softmax, cosformer" \
  "$BB" train "${T[@]}" --out att-bad --attention softmax2
check "the top-level help names every function" \
  bash -c "'$BB' --help | head -n 1 | grep -q 'attention function (softmax, ssa, softmax-t, sparsemax, entmax15, sa-softmax, cosformer'"
check "train --help describes every function" \
  bash -c "'$BB' train --help | grep -A1 -- '--attention' | grep -q 'cosformer (cosine-reweighted'"
expect_fail "train --temperature 0" "--temperature: 0 is out of range" \
  "$BB" train "${T[@]}" --out att-bad --attention softmax-t --temperature 0
expect_fail "experiment --attention softmax,entmax" "unknown attention function 'entmax'" \
  "$BB" experiment --corpus corpus.txt --suite suite --out att-exp --attention softmax,entmax

expect_ok "train softmax-t, tau 2 frozen" \
  "$BB" train "${T[@]}" --out att-t --attention softmax-t --temperature 2 --freeze-temperature --steps 6
check "info prints each layer's tau (frozen: still 2)" \
  grep -q "^layer 1  τ: 2.0000 2.0000$" <(cd "$WORK" && "$BB" info --model att-t)
check "info labels softmax-t(τ=2 frozen)" \
  grep -q "^attention  softmax-t(τ=2 frozen)$" <(cd "$WORK" && "$BB" info --model att-t)
check "config.json holds softmax-t's settings, not SSA's" \
  bash -c "grep -q '\"softmax_t_temperature_init\": 2' '$WORK/att-t/config.json' && ! grep -q ssa_b_init '$WORK/att-t/config.json'"
# info says how far the run trained, with which recipe, and its last dev loss (issue 33, item 9).
check "info shows the steps trained and the recipe" \
  grep -q "^training   step 6 of 6, recipe babyberta$" <(cd "$WORK" && "$BB" info --model att-t)
check "info shows the last dev loss" \
  grep -Eq "^dev loss   [0-9]+\.[0-9]{4} at step 6$" <(cd "$WORK" && "$BB" info --model att-t)
expect_exit2 "resume softmax-t with another temperature" \
  "cannot resume with other settings \(--temperature: checkpoint 2.0, now 3.0\)" \
  "$BB" train "${T[@]}" --out att-t --attention softmax-t --temperature 3 --freeze-temperature --steps 6 --resume
expect_ok "resume softmax-t with its own settings" \
  "$BB" train "${T[@]}" --out att-t --attention softmax-t --temperature 2 --freeze-temperature --steps 6 --resume
# run.json fingerprints SSA's value flags for every function and softmax-t's only for its own runs
# (as before the attention-function table: old runs keep their fingerprints).
check "softmax-t's run.json holds --temperature and SSA's flags" \
  bash -c "grep -q '\"--freeze-temperature\": true' '$WORK/att-t/run.json' && grep -q '\"--ssa-freeze-n\": false' '$WORK/att-t/run.json'"
check "a sparsemax run.json holds SSA's flags but not --temperature" \
  bash -c "'$BB' train ${T[*]} --out att-keys --attention sparsemax --steps 2 >/dev/null 2>&1 && grep -q '\"--ssa-b-init\": 1.0' '$WORK/att-keys/run.json' && ! grep -q -- '--temperature' '$WORK/att-keys/run.json'"
expect_fail "train --ssa-b-init above its table bound" "--ssa-b-init: 2000 is out of range; expected a number in \(0, 1000\]" \
  "$BB" train "${T[@]}" --out att-bad --attention ssa --ssa-b-init 2000

for att in sparsemax entmax15 sa-softmax cosformer; do
  expect_ok "train and probe $att" bash -c "'$BB' train ${T[*]} --out att-$att --attention $att --steps 4 \
    && '$BB' probe --model att-$att --suite suite --out att-$att.json"
  check "$att: result names its function" grep -q "\"attention_scoring\": \"$att\"" "$WORK/att-$att.json"
done

# A softmax model directory written before the seven functions: config.json with ssa_* fields.
rm -rf att-old && cp -r model att-old
sed -i 's/^  "attention_scoring": "softmax",$/  "attention_scoring": "softmax",\n  "ssa_b_init": 1.0,\n  "ssa_n_init": 1.5,\n  "ssa_freeze_b": false,\n  "ssa_freeze_n": false,/' att-old/config.json
check "old config.json has ssa_* fields" grep -q ssa_b_init "$WORK/att-old/config.json"
expect_ok "an old softmax model directory still probes" \
  "$BB" probe --model att-old --suite suite --out att-old.json

# attention and saturation: the fixture model's maps and curves; bad input refused in one line.
expect_ok "attention --sentence ... --out --svg" \
  "$BB" attention --model model --sentence "the dog sees the toy ." --sentence "my mom has a cup ." \
  --out att-maps.json --svg att-maps.svg
check "attention JSON: 2 sentences, weights [layer][head][query][key]" \
  grep -q '"weights_index":"\[layer\]\[head\]\[query\]\[key\]"' "$WORK/att-maps.json"
check "attention SVG written" grep -q "<svg" "$WORK/att-maps.svg"
expect_ok "attention reads stdin" bash -c "echo 'the dog sees the toy .' | '$BB' attention --model model > att-stdin.json"
check "attention to stdout is JSON with tokens" grep -q '"tokens":\["<s>"' "$WORK/att-stdin.json"
expect_fail "attention without sentences" "attention: no sentences" \
  bash -c "'$BB' attention --model model < /dev/null"
expect_fail "attention on a missing model" "att-none: no such model directory" \
  "$BB" attention --model att-none --sentence "the dog ."
expect_fail "attention on non-UTF-8 text" "sentence 1: invalid UTF-8" \
  bash -c "printf 'the \xff dog .\n' | '$BB' attention --model model"
expect_ok "saturation of two models on the suite" \
  "$BB" saturation --model model --model att-t --suite suite --out att-sat --sentences 20
for f in saturation.json saturation.csv saturation.md magnification.svg disproportion.svg; do
  check "saturation wrote $f" test -s "$WORK/att-sat/$f"
done
check "saturation.md names both models and a λ column" \
  bash -c "grep -q 'softmax-t(τ=2 frozen)' '$WORK/att-sat/saturation.md' && grep -q 'λ for max ≥ 0.9' '$WORK/att-sat/saturation.md'"
# Two models with one label (issue 33, item 10): the legend names each by its directory.
rm -rf att-same && cp -r model att-same
"$BB" saturation --model model --model att-same --suite suite --out att-sat2 --sentences 20 \
  >/dev/null 2>&1
check "saturation: colliding labels name their directories in the chart's legend" \
  bash -c "grep -q 'softmax (model)' '$WORK/att-sat2/magnification.svg' && grep -q 'softmax (att-same)' '$WORK/att-sat2/magnification.svg'"
expect_ok "saturation --analytic for every function" \
  "$BB" saturation --analytic --out att-analytic --sentences 20 --length 6
expect_fail "saturation without a model" "saturation: give --model DIR" \
  "$BB" saturation --suite suite --out att-sat2
expect_fail "saturation --scales 0" "--scales: 0 is out of range" \
  "$BB" saturation --analytic --out att-sat3 --scales 0
expect_fail "saturation --analytic --attention bogus" "unknown attention function 'bogus'" \
  "$BB" saturation --analytic --out att-sat4 --attention softmax,bogus

# compare with experiment's settings files in the glob (results/*.json), and four functions.
echo '{"settings": {}}' > att-sparsemax.settings.json
expect_ok "compare skips NAME.settings.json" \
  "$BB" compare att-sparsemax.json att-sparsemax.settings.json att-entmax15.json \
  att-sa-softmax.json att-cosformer.json --baseline sparsemax --out att-report
check "compare: four groups in the report" \
  bash -c "grep -c '^| att-.*\.json |' '$WORK/att-report/report.md' | grep -qx 4"
expect_fail "compare without the baseline's results" \
  "no results labelled 'softmax' to compare with \(--baseline; the labels are: cosformer, entmax15" \
  "$BB" compare att-entmax15.json att-cosformer.json --out att-report3
expect_fail "compare of settings files only" "compare: only settings files given" \
  "$BB" compare att-sparsemax.settings.json --out att-report2
expect_fail "experiment --attention with an empty item" "--attention: empty item in 'softmax,,ssa'" \
  "$BB" experiment --corpus corpus.txt --suite suite --out att-exp2 --attention softmax,,ssa

# score names its number by direction; --per-token pieces line up with logprobs; pairs.jsonl
# carries the sentences.
expect_ok "score holistic --per-token" bash -c "echo 'the dog sees the toy .' | '$BB' score --model model --per-token > sc-h.jsonl"
# items KEY FILE: how many items the JSON array "KEY":[...] on FILE's first line holds.
items() { sed -E "s/.*\"$1\":\[([^]]*)\].*/\1/" "$2" | head -1 | tr ',' '\n' | grep -c .; }
check "holistic: mean_ce and no score field" bash -c \
  "grep -q '\"mean_ce\":' '$WORK/sc-h.jsonl' && ! grep -q '\"score\":' '$WORK/sc-h.jsonl'"
check "holistic: as many pieces as logprobs as ids" \
  test "$(items pieces sc-h.jsonl)" = "$(items logprobs sc-h.jsonl)" -a \
       "$(items ids sc-h.jsonl)" = "$(items logprobs sc-h.jsonl)"
expect_ok "score pll --per-token" bash -c "echo 'the dog sees the toy .' | '$BB' score --model model --method pll --per-token > sc-p.jsonl"
check "pll: pll field, no <s> among the pieces" bash -c \
  "grep -q '\"pll\":' '$WORK/sc-p.jsonl' && ! grep -q '\"pieces\":\[\"<s>\"' '$WORK/sc-p.jsonl'"
check "pll: as many pieces as logprobs, two fewer than ids" \
  test "$(items pieces sc-p.jsonl)" = "$(items logprobs sc-p.jsonl)" -a \
       "$(( $(items ids sc-p.jsonl) - 2 ))" = "$(items logprobs sc-p.jsonl)"
# --reduction: the mean over the scored tokens beside each method's default (minicons' mean).
expect_ok "score pll --reduction mean" bash -c "echo 'the dog sees the toy .' | '$BB' score --model model --method pll --reduction mean > sc-pm.jsonl"
expect_ok "score holistic --reduction sum" bash -c "echo 'the dog sees the toy .' | '$BB' score --model model --reduction sum > sc-hs.jsonl"
# field KEY FILE: the number "KEY": on FILE's first line.
field() { sed -E "s/.*\"$1\":(-?[0-9.e+-]+).*/\1/" "$2" | head -1; }
check "score pll --reduction mean: mean_pll = pll / scored tokens" python3 -c "
import math; assert math.isclose($(field mean_pll sc-pm.jsonl) * $(items logprobs sc-p.jsonl), $(field pll sc-p.jsonl), rel_tol=1e-9)"
check "score holistic --reduction sum: sum_ce = mean_ce x ids" python3 -c "
import math; assert math.isclose($(field sum_ce sc-hs.jsonl), $(field mean_ce sc-h.jsonl) * $(items ids sc-h.jsonl), rel_tol=1e-9)"
expect_fail "score --reduction median names the choices" "--reduction: unknown reduction 'median'.*sum, mean" \
  "$BB" score --model model --reduction median
expect_ok "probe pll --reduction mean" "$BB" probe --model model --suite suite --method pll \
  --reduction mean --out att-pll-mean.json
expect_ok "probe pll (sum, its default)" "$BB" probe --model model --suite suite --method pll \
  --out att-pll-sum.json
check "probe records the reduction" grep -q '"reduction": "mean"' att-pll-mean.json
check "probe records the default reduction too" grep -q '"reduction": "sum"' att-pll-sum.json
expect_ok "compare a mean and a sum result" "$BB" compare att-pll-mean.json att-pll-sum.json \
  --out att-red-report
check "compare: the reduction is a stratum, never compared across" \
  grep -q 'pll (mean)' att-red-report/report.md
check "pairs.jsonl has good_sentence and bad_sentence" \
  grep -q '"bad_sentence":' "$WORK/att-sparsemax.pairs.jsonl"
