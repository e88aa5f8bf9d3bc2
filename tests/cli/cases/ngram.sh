# babyberta baseline: n-gram reference models on a tiny corpus and suites written here (no trained
# model needed), then the bad inputs, each one line naming the file or flag.
mkdir -p "$WORK/ngram-suite" "$WORK/ngram-blimp"
for i in $(seq 1 40); do
  echo "the dog sees the toy ."; echo "the dogs see the toy ."; echo "a cat wants some milk ."
  echo "the cats want some milk ."; echo "do you want the ball ?"
done > "$WORK/ngram-corpus.txt"
# Zorro order: the ungrammatical sentence first. The second pair has a word never seen in training.
printf 'the dog see the toy .\nthe dog sees the toy .\nthe cats wants some zebra .\nthe cats want some zebra .\n' \
  > "$WORK/ngram-suite/agreement-subject_verb.txt"
printf '{"sentence_good": "the cat wants some milk .", "sentence_bad": "the cat want some milk .", "UID": "agr", "linguistics_term": "agreement"}\n' \
  > "$WORK/ngram-blimp/agr.jsonl"
printf 'the dogs see the toy .\tthe dogs sees the toy .\tagreement-plural\n' > "$WORK/ngram-pairs.tsv"

for order in 1 2 3; do
  expect_ok "baseline: word order $order on a Zorro directory" \
    "$BB" baseline --corpus ngram-corpus.txt --order "$order" --unit word --suite ngram-suite \
    --out "ngram-out/word-$order.json"
done
expect_ok "baseline: Jelinek-Mercer smoothing" \
  "$BB" baseline --corpus ngram-corpus.txt --order 3 --smoothing jm --unit word --suite ngram-suite \
  --out ngram-out/word-3-jm.json
check "baseline: the Jelinek-Mercer result names its smoothing and weight" \
  bash -c "grep -q '\"model\": \"trigram (word, JM 0.6)\"' $WORK/ngram-out/word-3-jm.json &&
           grep -q '\"interpolation_weight\": 0.6' $WORK/ngram-out/word-3-jm.json &&
           grep -q '\"smoothing\": \"Jelinek-Mercer' $WORK/ngram-out/word-3-jm.json"
check "baseline: the result and its pairs file are written" \
  test -s "$WORK/ngram-out/word-3.json" -a -s "$WORK/ngram-out/word-3.pairs.jsonl"
check "baseline: the header names the model and the method" \
  grep -q '"model": "trigram (word, KN 0.75)"' "$WORK/ngram-out/word-3.json"
check "baseline: method ngram, ties half" \
  grep -q '"method": "ngram"' "$WORK/ngram-out/word-3.json"
check "baseline: config records order, unit, corpus sha256, utterances and vocabulary" \
  bash -c "grep -q '\"order\": 3' $WORK/ngram-out/word-3.json &&
           grep -q '\"unit\": \"word\"' $WORK/ngram-out/word-3.json &&
           grep -q '\"corpus_sha256\": \"$(sha256sum "$WORK/ngram-corpus.txt" | cut -c1-64)\"' $WORK/ngram-out/word-3.json &&
           grep -q '\"vocab_size\": 18' $WORK/ngram-out/word-3.json &&
           grep -Eq '\"utterances\": (19[0-9]|200)' $WORK/ngram-out/word-3.json"
check "baseline: the bigram and trigram get every agreement pair right" \
  bash -c "grep -q '\"accuracy\": 100.0' $WORK/ngram-out/word-2.json &&
           grep -q '\"accuracy\": 100.0' $WORK/ngram-out/word-3.json"
check "baseline: two pairs scored, each with both sentences" \
  test "$(grep -c '"good_sentence"' "$WORK/ngram-out/word-3.pairs.jsonl")" = 2
check "baseline: each pair differing in one word records the corpus counts of its two words" \
  test "$(grep -Ec '"word_counts":\[[0-9]+,[0-9]+\]' "$WORK/ngram-out/word-3.pairs.jsonl")" = 2
expect_ok "baseline: compare reads a baseline result" \
  "$BB" compare ngram-out/word-2.json ngram-out/word-3.json --out ngram-report \
  --baseline "bigram (word, KN 0.75)"
check "compare: the report's word-frequency section uses the word reference's counts" \
  grep -q "counts from word-2.json" "$WORK/ngram-report/report.md"

"$BB" tokenizer train --corpus "$WORK/ngram-corpus.txt" --out "$WORK/ngram-tok" --vocab-size 300 \
  >/dev/null 2>&1
expect_ok "baseline: piece unit with a tokenizer, BLiMP and TSV suites" \
  "$BB" baseline --corpus ngram-corpus.txt --order 2 --unit piece --tokenizer ngram-tok \
  --suite ngram-blimp --suite ngram-pairs.tsv --out ngram-out/piece.json
check "baseline: the piece result has both suites' paradigms" \
  bash -c "grep -q '\"agr\"' $WORK/ngram-out/piece.json &&
           grep -q '\"agreement-plural\"' $WORK/ngram-out/piece.json &&
           grep -q '\"model\": \"bigram (piece, KN 0.75)\"' $WORK/ngram-out/piece.json"

expect_fail "baseline: missing corpus" \
  "ngram-missing.txt: no such file \(expected the training corpus, one utterance per line\)" \
  "$BB" baseline --corpus ngram-missing.txt --suite ngram-suite --out ngram-out/m.json
expect_fail "baseline: --order 4" \
  "--order: 4 is out of range; expected a whole number in \[1, 3\]" \
  "$BB" baseline --corpus ngram-corpus.txt --order 4 --suite ngram-suite --out ngram-out/o.json
expect_fail "baseline: --unit piece without --tokenizer" \
  "--unit piece needs --tokenizer DIR" \
  "$BB" baseline --corpus ngram-corpus.txt --unit piece --suite ngram-suite --out ngram-out/p.json
expect_fail "baseline: --smoothing wb" "unknown smoothing 'wb' \(expected one of kn, jm\)" \
  "$BB" baseline --corpus ngram-corpus.txt --smoothing wb --suite ngram-suite --out ngram-out/w.json
expect_fail "baseline: --unit letter" "unknown unit 'letter' \(expected one of word, piece\)" \
  "$BB" baseline --corpus ngram-corpus.txt --unit letter --suite ngram-suite --out ngram-out/l.json
expect_fail "baseline: unwritable --out" \
  "/proc/nope/r.json: cannot create the directory /proc/nope" \
  "$BB" baseline --corpus ngram-corpus.txt --suite ngram-suite --out /proc/nope/r.json
expect_fail "baseline: --tokenizer without a tokenizer" "ngram-suite: no tokenizer.model" \
  "$BB" baseline --corpus ngram-corpus.txt --unit piece --tokenizer ngram-suite \
  --suite ngram-suite --out ngram-out/t.json
expect_fail "baseline: --suite given a result .json" "word-3.json: not a suite" \
  "$BB" baseline --corpus ngram-corpus.txt --suite ngram-out/word-3.json --out ngram-out/s.json

# babyberta reference: published per-paradigm accuracies (UnMasked's zorro.csv layout) as reference
# result files, shown by compare beside the n-gram rows, with --primary's range sentence.
mkdir -p "$WORK/ref-suite"
printf 'a b .\nb a .\n' > "$WORK/ref-suite/agr-x.txt"
printf 'c d .\nd c .\n' > "$WORK/ref-suite/bind-y.txt"
printf 'model,agr-x,bind-y,corpora,rep,scoring_method,overall\nBabyBERTa,80.0,60.0,AO-CHILDES,a,holistic,70.0\nBabyBERTa,90.0,70.0,AO-CHILDES,b,holistic,80.0\nBabyBERTa,50.0,50.0,AO-CHILDES,b,mlm,50.0\n' \
  > "$WORK/zorro-um.csv"
expect_ok "reference: UnMasked's rows as reference results" "$BB" reference --unmasked-csv zorro-um.csv \
  --suite ref-suite --source test --out ref-out
check "reference: one file per holistic run, marked reference, with its source row" \
  bash -c "test -s $WORK/ref-out/unmasked-holistic-run1.json -a -s $WORK/ref-out/unmasked-holistic-run2.json &&
           ! test -e $WORK/ref-out/unmasked-holistic-run3.json &&
           grep -q '\"reference\": true' $WORK/ref-out/unmasked-holistic-run2.json &&
           grep -q '\"line\": 3' $WORK/ref-out/unmasked-holistic-run2.json"
expect_ok "compare: a reference group alone, with --primary" "$BB" compare ref-out --primary overall \
  --out ref-report
check "compare --primary: the reference group's range of its runs" \
  grep -q 'BabyBERTa (UnMasked) (reference)\*\*: overall 75.0 ± 7.1 over 2 runs, from 70.00 to 80.00' \
  "$WORK/ref-report/findings.md"
expect_fail "compare --primary: a name that is no endpoint" \
  "--primary: 'agreement' is neither overall nor a phenomenon or paradigm" \
  "$BB" compare ref-out --primary overall,agreement --out ref-report2
check "compare --primary: nothing written when refused" test ! -e "$WORK/ref-report2"
expect_fail "reference: a column the suite lacks" "zorro-bad.csv:1: column 'agr-z' is no paradigm of the suite" \
  bash -c "printf 'model,agr-x,agr-z,corpora,rep,scoring_method,overall\nBabyBERTa,1,2,AO-CHILDES,a,holistic,1.5\n' > zorro-bad.csv && '$BB' reference --unmasked-csv zorro-bad.csv --suite ref-suite --source t --out ref-bad"
expect_fail "reference: --method mlm (ours is pll)" "--method" \
  "$BB" reference --unmasked-csv zorro-um.csv --suite ref-suite --source t --method mlm --out ref-bad
