# Model directories that are corrupt, inconsistent, hostile or mistyped: one line naming the file
# (and field) and what was expected; step directories are model directories too; stale temporary
# files of a crashed run are removed. Each case edits its own copy of the trained fixture model.
fixtures

# A fresh copy of the fixture model as $WORK/NAME.
model_copy() { rm -rf "${WORK:?}/$1"; cp -r "$WORK/model" "$WORK/$1"; }
# set_field DIR KEY VALUE: config.json's top-level "KEY": <old> becomes "KEY": VALUE (JSON text;
# config.json is written with two-space indentation, one key a line).
set_field() { sed -E -i "s/^  \"$2\": [^,]*(,?)\$/  \"$2\": $3\1/" "$WORK/$1/config.json"; }
# Flips the lowest bit of the last byte of FILE (inside the last tensor's data).
flip_last_byte() {
  local f="$1" size byte
  size=$(stat -c %s "$f")
  byte=$(tail -c 1 "$f" | od -An -tu1 | tr -d ' ')
  printf "$(printf '\\%03o' $((byte ^ 1)))" | dd of="$f" bs=1 seek=$((size - 1)) conv=notrunc status=none
}
# Points lm_head.layer_norm.bias at bytes [0, n) (inside word_embeddings), keeping the header's
# length (perl is part of every Debian system: Essential).
overlap_tensors() {
  perl -0777 -pi -e 's/("lm_head\.layer_norm\.bias":\{"data_offsets":)\[(\d+),(\d+)\]/
    my $r = "[0," . ($3 - $2) . "]"; $1 . $r . (" " x (length("[$2,$3]") - length($r)))/e' "$1"
}

model_copy mf-flip
flip_last_byte "$WORK/mf-flip/model.safetensors"
expect_fail "model: bit flip in model.safetensors data" \
  "^babyberta: error: mf-flip/model.safetensors: data section sha256 mismatch \(file corrupted\?\)$" \
  "$BB" info --model mf-flip

model_copy mf-overlap
overlap_tensors "$WORK/mf-overlap/model.safetensors"
expect_fail "model: two tensors overlap in model.safetensors" \
  "mf-overlap/model.safetensors: tensor .*overlap tensor" "$BB" info --model mf-overlap

model_copy mf-eps
set_field mf-eps layer_norm_eps -1
expect_fail "config: layer_norm_eps -1" \
  "mf-eps/config.json: layer_norm_eps must be > 0 and < 0.1, got -1$" "$BB" info --model mf-eps

model_copy mf-dropout
set_field mf-dropout hidden_dropout_prob 7
expect_fail "config: hidden_dropout_prob 7" \
  "mf-dropout/config.json: hidden_dropout_prob must be >= 0 and < 1, got 7$" \
  "$BB" probe --model mf-dropout --suite suite --out r.json

model_copy mf-mask
set_field mf-mask mask_token_id 5
expect_fail "config: mask_token_id differs from the tokenizer's" \
  "mf-mask/config.json: mask_token_id 5 does not match mf-mask/tokenizer.model \(its <mask> is 0\)" \
  "$BB" probe --model mf-mask --suite suite --out r.json

model_copy mf-layers
set_field mf-layers num_hidden_layers 2147483647
expect_fail "config: num_hidden_layers 2147483647" \
  "mf-layers/config.json: num_hidden_layers must be between 1 and 1024, got 2147483647" \
  "$BB" info --model mf-layers

model_copy mf-vocab
set_field mf-vocab vocab_size 2e9
expect_fail "config: vocab_size 2e9" \
  "mf-vocab/config.json: vocab_size must be between 6 and 1000000, got 2000000000" \
  "$BB" probe --model mf-vocab --suite suite --out r.json

model_copy mf-positions
set_field mf-positions max_position_embeddings 2e9
expect_fail "config: max_position_embeddings 2e9" \
  "mf-positions/config.json: max_position_embeddings must be between 1 and [0-9]+, got 2000000000" \
  "$BB" info --model mf-positions

model_copy mf-type
set_field mf-type hidden_size '"big"'
expect_fail "config: a wrongly typed field" \
  "mf-type/config.json: field \"hidden_size\" must be an integer, got \"big\"" \
  "$BB" info --model mf-type

model_copy mf-zero
ln -sf /dev/zero "$WORK/mf-zero/model.safetensors"
expect_fail "model: model.safetensors -> /dev/zero" \
  "mf-zero/model.safetensors: not a regular file" "$BB" info --model mf-zero

model_copy mf-dir
rm "$WORK/mf-dir/model.safetensors" && mkdir "$WORK/mf-dir/model.safetensors"
expect_fail "model: model.safetensors is a directory" \
  "mf-dir/model.safetensors: is a directory, expected a file" \
  "$BB" probe --model mf-dir --suite suite --out r.json

expect_fail "probe: mistyped --model directory" "^babyberta: error: modle: no such model directory$" \
  "$BB" probe --model modle --suite suite --out r.json
expect_fail "score: mistyped --model directory" "modle: no such model directory" \
  "$BB" score --model modle
expect_fail "info: mistyped --model directory" "modle: no such model directory" \
  "$BB" info --model modle
expect_fail "encode: mistyped --model directory" "modle: no such model" \
  "$BB" encode --model modle
expect_fail "probe: --model is a suite, not a model directory" \
  "suite: not a model directory \(no config.json\)" \
  "$BB" probe --model suite --suite suite --out r.json

expect_ok "probe: a checkpoints/step-N directory is a model directory" \
  "$BB" probe --model model/checkpoints/step-20 --suite suite --out step.json

model_copy mf-stale
printf 'torn' > "$WORK/mf-stale/model.safetensors.tmp.99999999"
mkdir -p "$WORK/mf-stale/checkpoints/.step-30.tmp.99999999"
expect_ok "train --resume in a run with stale temporaries" \
  "$BB" train --corpus corpus.txt --out mf-stale --preset tiny --steps 20 --vocab-size 400 \
  --eval-every 10 --dev-batches 2 --seed 1 --resume
check "stale temporaries of a crashed run are removed" \
  test ! -e "$WORK/mf-stale/model.safetensors.tmp.99999999" \
  -a ! -e "$WORK/mf-stale/checkpoints/.step-30.tmp.99999999" \
  -a -d "$WORK/mf-stale/checkpoints/step-20"
