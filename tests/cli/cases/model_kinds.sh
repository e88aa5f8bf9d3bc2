# The model-kind table (models/model_kind.h): every command that reads a model asks it. A model of a
# kind the command does not take exits 2 with one line naming the model, its kind and the kinds
# the command takes, before any work; info describes every kind.
fixtures
"$BB" icl train --preset icl-tiny --batch 4 --points-start 3 --points-end 5 --points-inc 1 \
  --points-every 2 --seed 3 --quiet --attention ssa --out mk-icl --steps 3 --checkpoint-every 3 \
  >/dev/null 2>&1
mkdir -p mk-gpt2 && printf '{"model_type": "gpt2", "n_layer": 2}\n' > mk-gpt2/config.json
mkdir -p mk-odd && printf '{"model_type": "t5"}\n' > mk-odd/config.json
printf 'the dog .\n' > mk-sentences.txt

ICL_MSG="is an icl-gpt2 model \(the in-context-learning GPT-2 of .icl train.\); "
expect_exit2 "probe on an ICL model" "^babyberta: error: probe: mk-icl ${ICL_MSG}probe takes roberta or gpt2 models$" \
  "$BB" probe --model mk-icl --suite suite --out mk.json
expect_exit2 "score on an ICL model" "score: mk-icl ${ICL_MSG}score takes roberta or gpt2 models$" \
  bash -c "'$BB' score --model mk-icl < mk-sentences.txt"
expect_exit2 "encode on an ICL model" "encode: mk-icl ${ICL_MSG}encode takes roberta or gpt2 models$" \
  bash -c "'$BB' encode --model mk-icl < mk-sentences.txt"
expect_exit2 "export of an ICL model" "export: mk-icl ${ICL_MSG}export takes roberta or gpt2 models$" \
  "$BB" export --model mk-icl --out mk-hf
check "export of an ICL model: nothing written" test ! -e "$WORK/mk-hf"
expect_exit2 "icl eval on a roberta model" \
  "icl eval: model is a roberta model \(BabyBERTa's RoBERTa masked LM\); icl eval takes icl-gpt2 models$" \
  "$BB" icl eval --model model --out mk-eval
GPT2_MSG="is a gpt2 model \(a GPT-2-style causal LM\); "
expect_exit2 "icl eval on a gpt2 model" "icl eval: mk-gpt2 ${GPT2_MSG}icl eval takes icl-gpt2 models$" \
  "$BB" icl eval --model mk-gpt2 --out mk-eval2
expect_exit2 "saturation of a roberta and an ICL model together" \
  "saturation: mk-icl is an icl-gpt2 model and model a roberta model; give models of one kind$" \
  "$BB" saturation --model model --model mk-icl --suite suite --out mk-sat2
expect_fail "a model_type no kind has (exit 1, the known ones listed)" \
  "mk-odd/config.json: model_type 't5' is no kind this toolkit reads \(expected one of roberta, babyberta, babyberta_icl_gpt2, gpt2, babyberta_gpt2\)" \
  "$BB" info --model mk-odd

# info describes both kinds.
"$BB" info --model mk-icl > "$WORK/mk-icl.info" 2>&1
check "info on an ICL model: its kind" grep -q '^kind       icl-gpt2 (the in-context-learning GPT-2' "$WORK/mk-icl.info"
check "info on an ICL model: shape and parameters" \
  bash -c "grep -Eq '^shape      3 layers, 2 heads, hidden 64, ffn 256, 1 input dims, [0-9]+ positions, arch full$' $WORK/mk-icl.info && grep -Eq '^parameters [0-9]+$' $WORK/mk-icl.info"
check "info on an ICL model: training (step, task, seed)" \
  grep -q '^training   step 3, task every, seed 3$' "$WORK/mk-icl.info"
check "info on an ICL model: SSA's trained b and n per layer" \
  grep -Eq '^layer 2  b: [0-9.]+ [0-9.]+   n: [0-9.]+ [0-9.]+$' "$WORK/mk-icl.info"
"$BB" info --model model > "$WORK/mk-roberta.info" 2>&1
check "info on a roberta model: its kind, then its description as before" \
  bash -c "grep -q '^kind       roberta (BabyBERTa.s RoBERTa masked LM)$' $WORK/mk-roberta.info && grep -Eq '^parameters [0-9]+$' $WORK/mk-roberta.info"
