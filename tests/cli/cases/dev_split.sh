# The dev split: the same dev set for every training seed (--dev-seed), recorded in run.json; a
# corpus too small for one is refused unless --no-dev; runs made before --dev-seed keep theirs.
fixtures
D=(train --corpus corpus.txt --preset tiny --vocab-size 400 --dev-batches 2 --eval-every 2 --steps 2)

"$BB" "${D[@]}" --out dev-s1 --seed 1 2> dev-s1.err >/dev/null
"$BB" "${D[@]}" --out dev-s2 --seed 2 2> dev-s2.err >/dev/null
"$BB" "${D[@]}" --out dev-d5 --seed 1 --dev-seed 5 2> dev-d5.err >/dev/null
split_line() { grep -E '^train [0-9]+ utterances' "$1"; }
check "two training seeds hold out the same dev utterances" \
  test -n "$(split_line dev-s1.err)" -a "$(split_line dev-s1.err)" = "$(split_line dev-s2.err)"
check "another --dev-seed holds out others" test "$(split_line dev-s1.err)" != "$(split_line dev-d5.err)"
check "run.json records --dev-seed" grep -q '"--dev-seed": 0' dev-s1/run.json
check "... and --dev-seed 5" grep -q '"--dev-seed": 5' dev-d5/run.json

head -n 20 corpus.txt > small-corpus.txt
expect_fail "a corpus too small for a dev set is refused, naming the minimum and --no-dev" \
  "small-corpus.txt: 20 utterances after the filters leave no dev utterance at --dev-fraction 0.01; a dev set needs about 100 utterances or more: give --no-dev" \
  "$BB" train --corpus small-corpus.txt --preset tiny --vocab-size 300 --steps 2 --out dev-small
expect_ok "--no-dev trains on it" "$BB" train --corpus small-corpus.txt --preset tiny \
  --vocab-size 300 --steps 2 --eval-every 2 --out dev-none --no-dev
check "--no-dev: no dev loss in metrics.jsonl" bash -c \
  "grep -q '\"train_loss\"' dev-none/metrics.jsonl && ! grep -q dev_loss dev-none/metrics.jsonl"
check "--no-dev: run.json says so" grep -q '"--no-dev": true' dev-none/run.json

# A run from before --dev-seed (no "--dev-seed" in its run.json): resumed with its own split.
cp -r dev-s1 dev-old && sed -i '/"--dev-seed"/d' dev-old/run.json
expect_ok "a run made before --dev-seed resumes" "$BB" "${D[@]}" --out dev-old --seed 1 --resume
check "... and keeps its run.json without --dev-seed" bash -c "! grep -q -- '--dev-seed' dev-old/run.json"
expect_fail "... but not with an explicit other --dev-seed" "cannot resume with other settings \(--dev-seed: checkpoint \(not set\), now 5" \
  "$BB" "${D[@]}" --out dev-old --seed 1 --resume --dev-seed 5
