# Files that are missing or of the wrong kind, named in the message.
fixtures
expect_fail "train: missing corpus" "no-such-corpus.txt" \
  "$BB" train --corpus no-such-corpus.txt --out m --preset tiny --steps 1
check "train: a failed start leaves no run directory behind (not even its .lock)" test ! -e m
mkdir -p kept-dir
expect_fail "train: missing corpus into a directory that existed" "no-such-corpus.txt" \
  "$BB" train --corpus no-such-corpus.txt --out kept-dir --preset tiny --steps 1
check "train: ... which stays" test -d kept-dir
expect_fail "probe: missing model directory" "no-such-model" \
  "$BB" probe --model no-such-model --suite suite --out r.json
expect_fail "unknown flag gets a suggestion" "--attention" \
  "$BB" train --corpus c.txt --out m --attenton ssa

# Every numeric option of every command shows its valid range in --help (issue 33, item 12), and no
# negated flag shows CLI11's "{false}".
check "--help: every number has a range, no {false}" bash -c '
  for c in train probe score encode compare experiment info attention saturation bench export \
           "tokenizer train" "data fetch"; do
    help="$("$0" $c --help)" || exit 1
    if printf "%s\n" "$help" | grep -E "^\s+--[a-z-]+ (INT|UINT|FLOAT)" | grep -vq "in [[(]"; then
      echo "$c: a number without a range"; exit 1; fi
    if printf "%s\n" "$help" | grep -q "{false}\|{true}"; then echo "$c: {false}"; exit 1; fi
  done' "$BB"

# An unknown command is named, with the nearest one (issue 33, item 6).
expect_fail "babyberta frobnicate" "^babyberta: error: unknown command 'frobnicate' \(see babyberta --help\)$" \
  "$BB" frobnicate
expect_fail "babyberta trian suggests train" "unknown command 'trian'; did you mean 'train'\?" \
  "$BB" trian --corpus c.txt
expect_fail "babyberta alone lists the commands" "a command is required: train, probe, score" "$BB"
expect_fail "a flag before any command is named as such" \
  "^babyberta: error: unknown option --bogus before a command: flags follow the command \(babyberta COMMAND --help\); commands: train, probe" \
  "$BB" --bogus

# --device cuda where there is none (a CPU-only build, or no GPU) is one line, for bench gemm too.
expect_fail "bench gemm --device cuda without a GPU" "^babyberta: error: .*no CUDA (backend|device)" \
  "$BB" bench gemm --device cuda --seconds 0.1

# A score never depends on --threads: every batch runs on one thread (a product split across
# threads rounds differently on AVX2 CPUs; with one batch the pool narrows to one thread).
printf 'the dog sees the toy .\nthe cat wants some milk .\n' > threads-in.txt
check "score: --threads 1 and --threads 2 give the same bytes (one batch, pll and holistic)" bash -c '
  for m in pll holistic; do
    "$0" score --model model --method $m --threads 1 < threads-in.txt > threads-1.jsonl &&
    "$0" score --model model --method $m --threads 2 < threads-in.txt > threads-2.jsonl &&
    cmp -s threads-1.jsonl threads-2.jsonl || exit 1
  done' "$BB"
