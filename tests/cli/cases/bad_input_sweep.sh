# What a command writes must spare what it reads, and what it reads must not be silently ignored
# (a bad-input sweep of the decoder and perplexity commands, 2026-12-07): results never replace a
# model's or run's files, export never writes over another folder's files, a FIFO given as --out
# stays one, a resume keeps its tokenizer only with the tokenizer's own flags, a suite sentence too
# long for the model is named by file and line, info reads a run without checkpoints, and mistyped
# values of --tie-rule, --order and --device exit 2 naming the flag.
fixtures
O_NO_VOCAB=(train --kind gpt2 --corpus corpus.txt --preset tiny --eval-every 10 --dev-batches 2
            --dev-fraction 0.05 --seed 1 --steps 20)
O=("${O_NO_VOCAB[@]}" --vocab-size 400)
"$BB" "${O[@]}" --out o-gpt2 >/dev/null 2>&1
printf 'the dog sees the toy .\n' > o-text.txt
cp o-gpt2/config.json o-config.before

expect_exit2 "perplexity --out into the model directory is refused" \
  "--out o-gpt2/config.json: is inside the --model directory o-gpt2 \(it would add to or overwrite" \
  "$BB" perplexity --model o-gpt2 --text o-text.txt --out o-gpt2/config.json
check "... and the model's config.json is untouched" cmp o-gpt2/config.json o-config.before
expect_exit2 "perplexity --out into a --dev-of run is refused" \
  "--out model/run.json: is inside the --dev-of directory model" \
  "$BB" perplexity --model o-gpt2 --dev-of model --out model/run.json
expect_exit2 "perplexity --out onto its --text input is refused" \
  "--out o-text.txt: is the --text input o-text.txt \(it would be overwritten" \
  "$BB" perplexity --model o-gpt2 --text o-text.txt --out o-text.txt
expect_exit2 "probe --out onto the model's weights is refused" \
  "--out o-gpt2/model.safetensors: is inside the --model directory o-gpt2" \
  "$BB" probe --model o-gpt2 --suite suite --out o-gpt2/model.safetensors
expect_exit2 "probe --out into the suite's folder is refused (its pairs file would join the suite)" \
  "--out suite/r.json: is inside the --suite directory suite" \
  "$BB" probe --model o-gpt2 --suite suite --out suite/r.json
expect_exit2 "baseline --out onto its corpus is refused" \
  "--out corpus.txt: is the --corpus input corpus.txt" \
  "$BB" baseline --corpus corpus.txt --suite suite --out corpus.txt
mkfifo o-fifo
expect_exit2 "--out a FIFO is refused, not replaced by a file" \
  "--out o-fifo: not a regular file \(a FIFO, device or socket\)" \
  "$BB" perplexity --model o-gpt2 --text o-text.txt --out o-fifo
check "... and it is still a FIFO" test -p o-fifo
expect_ok "results beside the model (not in it) are fine" \
  "$BB" perplexity --model o-gpt2 --text o-text.txt --out o-results/ppl.json

# export: a new or empty folder, or one an earlier export wrote (its stale remote code removed)
"$BB" train --corpus corpus.txt --preset tiny --vocab-size 400 --eval-every 10 --dev-batches 2 \
  --seed 1 --steps 10 --attention ssa --out o-ssa >/dev/null 2>&1
cp -r model o-victim
expect_exit2 "export into another run's directory is refused" \
  "export: --out o-victim is a run or model directory \(it holds run.json\); expected a new or empty folder" \
  "$BB" export --model o-gpt2 --out o-victim
check "... and that run's weights are untouched" cmp o-victim/model.safetensors model/model.safetensors
mkdir -p o-foreign && echo '{"mine": 1}' > o-foreign/notes.json
expect_exit2 "export into a folder with foreign files is refused" \
  "export: --out o-foreign holds files an export does not write \(notes.json\)" \
  "$BB" export --model o-gpt2 --out o-foreign
expect_ok "export an SSA model" "$BB" export --model o-ssa --out o-hf
check "... with its remote code" test -s o-hf/modeling_babyberta.py
mkdir -p o-hf/__pycache__
expect_ok "export a softmax model over that export" "$BB" export --model model --out o-hf
check "... which removes the SSA export's remote code (a plain RoBERTa folder)" \
  bash -c '! ls o-hf/*.py 2>/dev/null | grep -q . && grep -q "\"model_type\": \"roberta\"" o-hf/config.json'

# resume keeps the run's tokenizer: flags that would train another are refused, not ignored
expect_exit2 "resume with another --vocab-size is refused" \
  "o-gpt2: holds a tokenizer trained with other settings \(--vocab-size 400 there, now 999\); a run keeps its tokenizer" \
  "$BB" "${O_NO_VOCAB[@]}" --out o-gpt2 --resume --vocab-size 999
expect_exit2 "resume with --keep-case (the run lower-cases) is refused" \
  "--keep-case off there, now on" \
  "$BB" "${O[@]}" --out o-gpt2 --resume --keep-case
expect_exit2 "resume with another --tokenizer-type is refused" \
  "--tokenizer-type bpe there, now unigram" \
  "$BB" "${O[@]}" --out o-gpt2 --resume --tokenizer-type unigram

# a suite sentence longer than the model takes: its file and line, not a count across the suite
mkdir -p o-long
{ printf 'the dog are here .\nthe dog is here .\nthe cat are here .\n'
  printf 'ball %.0s' $(seq 300); printf '.\n'; } > o-long/agreement-long.txt
expect_fail "probe names the file and line of a sentence too long for the model" \
  "o-long/agreement-long.txt:4: [0-9]+ tokens, longer than the model's 128" \
  "$BB" probe --model o-gpt2 --suite o-long --out o-long-r.json

# info on a run whose checkpoints are gone: a readable training line
cp -r o-gpt2 o-nock && rm -rf o-nock/checkpoints
check "info without checkpoints: 'no checkpoint, N steps planned, recipe R'" \
  bash -c "'$BB' info --model o-nock | grep -Eq '^training   no checkpoint, 20 steps planned, recipe [a-z-]+$'"

# values checked at parsing: exit 2, the flag named
expect_exit2 "probe --tie-rule names the flag and its values" "--tie-rule.*foo.*half, wrong" \
  "$BB" probe --model o-gpt2 --suite suite --tie-rule foo --out o-tie.json
expect_exit2 "probe --order names the flag and its values" "--order.*backwards.*bad-first, good-first" \
  "$BB" probe --model o-gpt2 --suite suite --order backwards --out o-order.json
expect_exit2 "--device gpu names the flag" "--device: unknown device 'gpu' \(expected cpu or cuda\)" \
  "$BB" perplexity --model o-gpt2 --text o-text.txt --device gpu

# score on a CRLF file: the sentence echoed without its \r
printf 'the dog sees the toy .\r\n' > o-crlf.txt
check "score echoes a CRLF line's sentence without the carriage return" \
  bash -c "'$BB' score --model o-gpt2 < o-crlf.txt | python3 -c 'import json, sys; j = json.loads(sys.stdin.readline()); assert j[\"sentence\"] == \"the dog sees the toy .\", j'"

# perplexity: one input of each name per file (compare-perplexity pairs inputs by name)
expect_exit2 "perplexity --text given twice" "perplexity: the input o-text.txt is given twice" \
  "$BB" perplexity --model o-gpt2 --text o-text.txt --text o-text.txt
expect_exit2 "perplexity --dev-of given twice" "perplexity: --dev-of given 2 times; one dev split per file" \
  "$BB" perplexity --model o-gpt2 --dev-of o-gpt2 --dev-of model

# a flag given twice: said plainly, not in CLI11's words
expect_exit2 "a flag given twice" "babyberta train: --steps given 2 times \(give it once\)$" \
  "$BB" "${O[@]}" --out o-twice --steps 30
