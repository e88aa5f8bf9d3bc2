# export: the HF folder's files from the fixture model; bad input refused in one line.
fixtures
expect_ok "export the fixture model" "$BB" export --model model --out hf
for f in config.json model.safetensors tokenizer.json tokenizer_config.json special_tokens_map.json; do
  check "export wrote $f" test -s "$WORK/hf/$f"
done
check "tokenizer.json: BPE with byte fallback and merges" bash -c \
  "grep -q '\"type\":\"BPE\"' '$WORK/hf/tokenizer.json' && grep -q '\"byte_fallback\":true' '$WORK/hf/tokenizer.json' && grep -q '\"merges\":\[\"' '$WORK/hf/tokenizer.json'"
check "tokenizer_config.json: PreTrainedTokenizerFast, 128 tokens" bash -c \
  "grep -q '\"tokenizer_class\": \"PreTrainedTokenizerFast\"' '$WORK/hf/tokenizer_config.json' && grep -q '\"model_max_length\": 128' '$WORK/hf/tokenizer_config.json'"
# An export killed mid-way (Ctrl-C) leaves FILE.tmp.PID behind: the next export removes it.
: > "$WORK/hf/model.safetensors.tmp.999999999"
expect_ok "export again over the first" "$BB" export --model model --out hf
check "a killed export's temporary is gone" test ! -e "$WORK/hf/model.safetensors.tmp.999999999"
expect_fail "export a missing model" "ex-none: no such model directory" \
  "$BB" export --model ex-none --out hf2
expect_fail "export into the model directory" "--out must not be the model directory" \
  "$BB" export --model model --out model

# A non-softmax model carries its own transformers classes; our reader reads the folder back.
expect_ok "export a softmax-t model" "$BB" export --model att-t --out hf-t
check "softmax-t: auto_map, model_type babyberta and the two Python files" bash -c \
  "grep -q '\"AutoModelForMaskedLM\": \"modeling_babyberta.BabyBertaForMaskedLM\"' '$WORK/hf-t/config.json' \
   && grep -q '\"model_type\": \"babyberta\"' '$WORK/hf-t/config.json' \
   && test -s '$WORK/hf-t/modeling_babyberta.py' && test -s '$WORK/hf-t/babyberta_torch.py'"
/usr/bin/python3 "$HERE/../interop/check_bundled_roberta.py" "$WORK/hf-t" > "$WORK/bundled-t.out" 2>&1
rc=$?
if [ "$rc" -eq 77 ]; then echo "skip    the bundled code of the softmax-t export: $(cat "$WORK/bundled-t.out")"
else check "softmax-t: the bundled code builds model.safetensors' parameters and runs on them" test "$rc" -eq 0
fi
check "softmax: a plain RobertaForMaskedLM folder, no Python files" bash -c \
  "grep -q '\"model_type\": \"roberta\"' '$WORK/hf/config.json' && ! test -e '$WORK/hf/modeling_babyberta.py'"
expect_ok "info reads an exported folder back" "$BB" info --model hf-t
expect_fail "probe on an exported folder says what it is and what to load instead" \
  "hf: an exported HuggingFace folder \(HF's tokenizer.json, no tokenizer.model\): load the run directory it was exported from" \
  "$BB" probe --model hf --suite suite --out hf-probe.json
expect_fail "score on an exported folder, the same" "hf: an exported HuggingFace folder" \
  bash -c "echo 'the dog .' | '$BB' score --model hf"
