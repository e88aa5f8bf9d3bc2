# Odd text and odd flags (a bad-input sweep of perplexity, score, compare-perplexity, compare
# --across-kinds and train): lines of only Unicode space or invisible characters, words counted
# once normalised, an --out that is an input or empty, an over-long line named by file and line,
# byte-fallback pieces in --words, a comparison with nothing to compare, a value's flag for a
# function without that value.
fixtures
O=(train --kind gpt2 --corpus corpus.txt --preset tiny --vocab-size 400 --eval-every 20
   --dev-batches 2 --dev-fraction 0.05 --steps 20)
"$BB" "${O[@]}" --seed 1 --out odd-g1 >/dev/null 2>&1
"$BB" "${O[@]}" --seed 1 --attention ssa --out odd-s1 >/dev/null 2>&1
printf 'the dog sees the ball\n' > odd-plain.txt
printf 'the\xc2\xa0dog sees\xe3\x80\x80the ball\n' > odd-nbsp.txt  # U+00A0, U+3000 between words
printf 'the dog sees the ball\n\xc2\xa0\n' > odd-blank.txt         # line 2: U+00A0 alone
words_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["inputs"][0]["words"])' "$1"; }
for m in odd-g1 model; do
  "$BB" perplexity --model "$m" --text odd-plain.txt --out "odd-$m-plain.json" >/dev/null 2>&1
  "$BB" perplexity --model "$m" --text odd-nbsp.txt --out "odd-$m-nbsp.json" >/dev/null 2>&1
  check "perplexity ($m): Unicode spaces between words count as ASCII ones (words once normalised)" \
    test "$(words_of "odd-$m-plain.json")" = "$(words_of "odd-$m-nbsp.json")"
  expect_fail "perplexity ($m): a line of only U+00A0 is refused, naming file and line" \
    "odd-blank.txt:2: nothing to score once normalised" \
    "$BB" perplexity --model "$m" --text odd-blank.txt
  expect_fail "score ($m): the same line on stdin" "stdin:1: nothing to score once normalised" \
    bash -c "printf '\xe2\x80\x8b\n' | '$BB' score --model '$m'"
done
cp odd-plain.txt odd-keep.txt
expect_fail "perplexity --out naming its own --text is refused" \
  "--out odd-keep.txt: is the --text input odd-keep.txt" \
  "$BB" perplexity --model odd-g1 --text odd-keep.txt --out odd-keep.txt
check "... and the text is untouched" cmp -s odd-plain.txt odd-keep.txt
for cmd in perplexity probe; do
  expect_fail "$cmd --out '' is refused at parsing (exit 2)" "--out: an empty path" \
    bash -c "'$BB' $cmd --model odd-g1 --text odd-plain.txt --suite suite --out ''; test \$? -eq 2 && exit 2 || exit 0"
done
python3 -c 'print("the dog sees the ball"); print(); print(" ".join(["ball"] * 300))' > odd-long.txt
expect_fail "an over-long line is named by file and line" "odd-long.txt:3: [0-9]+ tokens, longer than the model's" \
  "$BB" perplexity --model odd-g1 --text odd-long.txt
printf 'the \xf0\x9f\x90\xb6 sees\n' > odd-emoji.txt
check "score --words: a byte-fallback word reads as itself, not as <0x..> pieces" bash -c \
  "'$BB' score --model model --method pll --words < odd-emoji.txt | grep -qF \"\$(printf '\"words\":[\"the\",\"\xf0\x9f\x90\xb6\",\"sees\"]')\""
expect_fail "compare-perplexity with the baseline's files only: nothing to compare" \
  "nothing to compare" "$BB" compare-perplexity odd-odd-g1-plain.json --out odd-cp0
"$BB" perplexity --model odd-s1 --text odd-plain.txt --out odd-s1-plain.json >/dev/null 2>&1
expect_ok "compare-perplexity, one seed a side" \
  "$BB" compare-perplexity odd-odd-g1-plain.json odd-s1-plain.json --out odd-cp1
check "... shows no spread for one seed (no ± 0.00)" bash -c '! grep -q "± 0.00" odd-cp1/perplexity.md'
expect_fail "compare --across-kinds with --baseline is a usage error" "--baseline excludes --across-kinds" \
  "$BB" compare odd-nothing.json --across-kinds --baseline ssa --out odd-c
expect_fail "train: a value's flag for a function without it (--ssa-b-init, softmax)" \
  "--ssa-b-init does not apply to --attention softmax \(it sets a value of ssa\)" \
  "$BB" "${O[@]}" --out odd-x --ssa-b-init 2
expect_fail "train: --temperature with ssa" "--temperature does not apply to --attention ssa" \
  "$BB" "${O[@]}" --attention ssa --out odd-x --temperature 2
expect_ok "experiment softmax,ssa with --ssa-b-init: SSA's runs get it, softmax's train without it" \
  "$BB" experiment --corpus corpus.txt --suite suite --attention softmax,ssa --seeds 1 --preset tiny \
  --steps 5 --vocab-size 400 --jobs 1 --ssa-b-init 2 --out odd-exp
check "... recorded per run: softmax at the default 1.0, ssa at 2.0" bash -c \
  'grep -q "\"--ssa-b-init\": 1.0" odd-exp/runs/softmax-seed1/run.json && grep -q "\"--ssa-b-init\": 2.0" odd-exp/runs/ssa-b2-seed1/run.json'
