# Files that are missing or of the wrong kind, named in the message.
fixtures
expect_fail "train: missing corpus" "no-such-corpus.txt" \
  "$BB" train --corpus no-such-corpus.txt --out m --preset tiny --steps 1
expect_fail "probe: missing model directory" "no-such-model" \
  "$BB" probe --model no-such-model --suite suite --out r.json
expect_fail "unknown flag gets a suggestion" "--attention" \
  "$BB" train --corpus c.txt --out m --attenton ssa
