# Broken data files (token cache, tokenizer directory, corpora, suites, results, stdin) and
# numeric flags out of range: each ends with one line naming the file or flag and what was
# expected, or (the cache) is repaired with one note.
fixtures

# flip_byte FILE OFFSET: XORs one byte of FILE (a negative OFFSET counts from the end).
flip_byte() {
  local f="$1" off="$2" size b
  size=$(stat -c %s "$f")
  [ "$off" -lt 0 ] && off=$((size + off))
  b=$(od -An -tu1 -j "$off" -N1 "$f" | tr -d ' ')
  printf "$(printf '\\%03o' $((b ^ 1)))" | dd of="$f" bs=1 seek="$off" conv=notrunc status=none
}

# stderr_of NAME CMD...: runs CMD in $WORK, its stderr into $WORK/NAME.err, its exit code into
# $WORK/NAME.rc.
stderr_of() {
  local name="$1"; shift
  (cd "$WORK" && timeout 300 "$@" >/dev/null 2>"$WORK/$name.err"; echo $? >"$WORK/$name.rc")
}

# Token cache: a bit flip in the cached ids is detected, noted once and the cache rebuilt.
mkdir -p "$WORK/cached/cache"
cp "$WORK/model/cache/corpus.tokens" "$WORK/cached/cache/corpus.tokens"
flip_byte "$WORK/cached/cache/corpus.tokens" -5
stderr_of cache "$BB" train --corpus corpus.txt --out cached --tokenizer model --preset tiny \
  --steps 2 --eval-every 1 --dev-batches 1 --seed 1
check "train: flipped bit in the token cache is rebuilt (exit 0)" grep -qx 0 "$WORK/cache.rc"
check "train: flipped bit in the token cache gives one note" \
  test "$(grep -c 'babyberta: note: cached/cache/corpus.tokens: checksum mismatch, rebuilding' \
         "$WORK/cache.err")" = 1
check "train: the rebuilt cache matches the original" \
  cmp -s "$WORK/model/cache/corpus.tokens" "$WORK/cached/cache/corpus.tokens"

# Tokenizer directories: settings without a model (a save cut short now) retrains; a model
# without settings (an older build's crash) is named.
"$BB" tokenizer train --corpus "$WORK/corpus.txt" --out "$WORK/tok" --vocab-size 300 >/dev/null
mkdir -p "$WORK/half" "$WORK/half2" "$WORK/half3"
cp "$WORK/tok/tokenizer.json" "$WORK/half/"
cp "$WORK/tok/tokenizer.json" "$WORK/half3/"
cp "$WORK/tok/tokenizer.model" "$WORK/half2/"
expect_ok "train: settings without tokenizer.model (interrupted save) retrains" \
  "$BB" train --corpus corpus.txt --out half --preset tiny --vocab-size 300 --steps 1 \
  --eval-every 1 --dev-batches 1
expect_fail "train: tokenizer.model without settings is named" \
  "half2: tokenizer.model without tokenizer.json .*half-written" \
  "$BB" train --corpus corpus.txt --out half2 --preset tiny --steps 1
expect_fail "train: --tokenizer dir with only tokenizer.json is named" \
  "half3: tokenizer.json without tokenizer.model \(a half-written tokenizer" \
  "$BB" train --corpus corpus.txt --out t-only --tokenizer half3 --preset tiny --steps 1

# Tokenizer training: vocabulary size and corpus problems say what to change.
expect_fail "tokenizer train: --vocab-size 3" \
  "--vocab-size 3: must be at least [0-9]+ for this corpus \(5 special tokens \+ 256 byte pieces" \
  "$BB" tokenizer train --corpus corpus.txt --out t3 --vocab-size 3
expect_fail "tokenizer train: --vocab-size too high for the corpus" \
  "corpus.txt: vocabulary size 100000 is too large for this corpus \(at most ~[0-9]+ pieces\); lower --vocab-size" \
  "$BB" tokenizer train --corpus corpus.txt --out t4 --vocab-size 100000
: > "$WORK/empty.txt"
printf '\n   \n\n' > "$WORK/blank.txt"
expect_fail "tokenizer train: empty corpus" "empty.txt: empty corpus" \
  "$BB" tokenizer train --corpus empty.txt --out t5
expect_fail "tokenizer train: corpus of blank lines" \
  "blank.txt: no sentences to train the tokenizer on" \
  "$BB" tokenizer train --corpus blank.txt --out t6

# Several suites at once, then what is not a suite.
printf 'the dog sees the toy .\tthe dog see the toy .\tagreement-object\n' > "$WORK/mine.tsv"
expect_ok "probe: several --suite paths" \
  "$BB" probe --model model --suite suite/agreement-subject_verb.txt --suite mine.tsv \
  --out multi.json
check "probe: several suites give both paradigms" \
  grep -q '"agreement-object"' "$WORK/multi.json"
printf 'the dog sees the toy .\tthe dog see the toy .\tagreement-subject_verb\n' > "$WORK/clash.tsv"
expect_fail "probe: a paradigm in two suites" \
  "paradigm 'agreement-subject_verb' is in both .*agreement-subject_verb.txt and .*clash.tsv" \
  "$BB" probe --model model --suite suite --suite clash.tsv --out clash.json
expect_fail "probe: --suite given a result .json" "multi.json: not a suite \(a suite is" \
  "$BB" probe --model model --suite multi.json --out r.json
expect_fail "probe: --suite given the training corpus" \
  "corpus.txt: not named phenomenon-paradigm.txt.*--format zorro" \
  "$BB" probe --model model --suite corpus.txt --out r.json
printf 'a b .\nc d .\ne f .\n' > "$WORK/agreement-odd.txt"
expect_fail "probe: --suite given an odd-line .txt" \
  "agreement-odd.txt: 3 lines, expected an even number \(two lines per pair\)" \
  "$BB" probe --model model --suite agreement-odd.txt --out r.json

# A TSV/CSV header row names the columns and is never scored as a pair (issue 33, item 1).
printf 'good\tbad\tparadigm\nthe dog sees the toy .\tthe dog see the toy .\tagreement-object\n' \
  > "$WORK/header.tsv"
"$BB" probe --model model --suite header.tsv --out header.json >/dev/null 2>header.err
check "probe: a TSV header row is not scored (one paradigm, one pair)" \
  bash -c "grep -A2 '\"agreement-object\": {' header.json | grep -q '\"pairs\": 1,' && ! grep -q '\"paradigm\": {' header.json"
check "probe: ... and one note says the first row is a header" \
  test "$(grep -c '^babyberta: note: header.tsv: line 1 is a header (good, bad, paradigm): columns read by name; --no-header scores it as a pair$' header.err)" -eq 1
check "probe: ... and the result records the header" grep -q '"header": \[' header.json
"$BB" probe --model model --suite header.tsv --out noheader.json --no-header >/dev/null 2>&1
check "probe --no-header scores the first row as a pair" grep -q '"paradigm": {' noheader.json
printf 'a dog runs .\ta dog run .\n' > "$WORK/plain.tsv"
expect_fail "probe --header on a file without one" "plain.tsv:1: --header given but the first row" \
  "$BB" probe --model model --suite plain.tsv --out r.json --header
expect_fail "probe --header --no-header" "--header|--no-header" \
  "$BB" probe --model model --suite plain.tsv --out r.json --header --no-header
printf 'good\tparadigm\na dog runs .\tx\n' > "$WORK/half.tsv"
expect_fail "probe: a header row without a bad column is refused" \
  "half.tsv:1: the first row \(good, paradigm\) looks like a header but has no bad column" \
  "$BB" probe --model model --suite half.tsv --out r.json
printf 'id,sentence_bad,sentence_good,UID\r\n1,"the dog see the toy, then .","the dog sees the toy, then .",agreement-csv\r\n' \
  > "$WORK/pairs.csv"
"$BB" probe --model model --suite pairs.csv --out csv.json >/dev/null 2>csv.err
check "probe: a CSV with quoted commas and a header in another order" \
  bash -c "grep -A2 '\"agreement-csv\": {' csv.json | grep -q '\"pairs\": 1,'"
check "probe: ... its note names the ignored column" grep -q 'ignored: id;' csv.err
printf '"the dog sees the toy .,the dog see the toy .\n' > "$WORK/open.csv"
expect_fail "probe: an unclosed CSV quote names the line" \
  "open.csv:1: a quoted field opened here is never closed" \
  "$BB" probe --model model --suite open.csv --out r.json

# Issue 46, item 1: a first row that is no sentence pair like the others is never scored silently.
# The exact input of the issue: good_sent,bad_sent and two pairs (3 lines) scored 66.7 before.
printf 'good_sent,bad_sent\nthe dog sees the toy .,the dog see the toy .\nthe cats are here .,the cats is here .\n' \
  > "$WORK/h2.csv"
"$BB" probe --model model --suite h2.csv --out h2.json >/dev/null 2>h2.err
check "probe: good_sent,bad_sent is read as a header (2 pairs scored, not 3)" \
  bash -c "grep -A2 '\"h2\": {' h2.json | grep -q '\"pairs\": 2,'"
check "probe: ... and the note on stderr says so" \
  grep -q '^babyberta: note: h2.csv: line 1 is a header (good_sent, bad_sent): columns read by name' h2.err
printf 'sentence_a,sentence_b\nthe dog sees the toy .,the dog see the toy .\n' > "$WORK/h3.csv"
expect_fail "probe: a header-like first row that names no good/bad column is refused" \
  "h3.csv:1: the first row \(sentence_a, sentence_b\) looks like a header.*--header skips it.*--no-header scores it" \
  "$BB" probe --model model --suite h3.csv --out r.json
"$BB" probe --model model --suite h3.csv --out h3.json --header >/dev/null 2>h3.err
check "probe --header: the unnamed header row is skipped, columns by position (1 pair)" \
  bash -c "grep -A2 '\"h3\": {' h3.json | grep -q '\"pairs\": 1,' && grep -q 'columns read by position' h3.err"
"$BB" probe --model model --suite h3.csv --out h3n.json --no-header >/dev/null 2>&1
check "probe --no-header: the same row is scored as a pair (2 pairs)" \
  bash -c "grep -A2 '\"h3\": {' h3n.json | grep -q '\"pairs\": 2,'"
printf 'col1\tcol2\nthe dog sees the toy .\tthe dog see the toy .\nthe cats are here .\tthe cats is here .\n' > "$WORK/h4.tsv"
expect_fail "probe: a TSV whose plain-word first row stands above sentences is refused" \
  "h4.tsv:1: the first row \(col1, col2\) looks like a header" \
  "$BB" probe --model model --suite h4.tsv --out r.json
printf 'cat,cats\ndog,dogs\ntoy,toys\n' > "$WORK/words.csv"
"$BB" probe --model model --suite words.csv --out words.json >/dev/null 2>words.err
check "probe: a suite of one-word pairs loads without a flag (3 pairs, no note)" \
  bash -c "grep -A2 '\"words\": {' words.json | grep -q '\"pairs\": 3,' && ! grep -q note words.err"
printf '{"good": "the dog sees the toy .", "bad": "the dog see the toy .", "item": 1}\n' > "$WORK/keys.jsonl"
"$BB" probe --model model --suite keys.jsonl --out keys.json >/dev/null 2>keys.err
check "probe: BLiMP-style JSONL with other keys: good/bad read by name, the rest named" \
  bash -c "grep -A2 '\"keys\": {' keys.json | grep -q '\"pairs\": 1,' && grep -q 'keys.jsonl: sentences read from the keys bad, good; ignored: item' keys.err"
printf '{"sentence_good": "sentence_good", "sentence_bad": "sentence_bad"}\n{"sentence_good": "the dog sees the toy .", "sentence_bad": "the dog see the toy ."}\n' > "$WORK/hdr.jsonl"
expect_fail "probe: a JSONL whose first record is a header turned into an object is refused" \
  "hdr.jsonl:1: the first record \(sentence_good, sentence_bad\) looks like a header" \
  "$BB" probe --model model --suite hdr.jsonl --out r.json
printf '{"text": "the dog sees the toy ."}\n' > "$WORK/nokeys.jsonl"
expect_fail "probe: a JSONL without good/bad keys names the keys it has" \
  "nokeys.jsonl:1: no good sentence among the keys \(text\)" \
  "$BB" probe --model model --suite nokeys.jsonl --out r.json

# A BLiMP file forced through --format zorro is named with what it looks like (issue 33, item 7).
expect_fail "probe: BLiMP jsonl with --format zorro" \
  "blimp-as-zorro.jsonl: read as a Zorro file \(one sentence per line\) but it looks like a BLiMP file" \
  bash -c "printf '{\"sentence_good\": \"the dog is here .\", \"sentence_bad\": \"the dog are here .\"}\n' > blimp-as-zorro.jsonl && '$BB' probe --model model --suite blimp-as-zorro.jsonl --format zorro --out r.json"

# Empty sentences name the file and line.
printf 'the dog are here .\n\nthe cats is here .\nthe cats are here .\n' > "$WORK/agreement-gap.txt"
expect_fail "probe: empty line in a Zorro file" "agreement-gap.txt:2: the line is empty" \
  "$BB" probe --model model --suite agreement-gap.txt --out r.json
printf '{"sentence_good": "the dog is here .", "sentence_bad": "the dog are here ."}\n{"sentence_good": "", "sentence_bad": "x ."}\n' \
  > "$WORK/blimp.jsonl"
expect_fail "probe: empty sentence in BLiMP" \
  'blimp.jsonl:2: "sentence_good" is empty, expected a sentence' \
  "$BB" probe --model model --suite blimp.jsonl --out r.json
printf '{"sentence_good": 7, "sentence_bad": "x ."}\n' > "$WORK/typed.jsonl"
expect_fail "probe: wrongly typed BLiMP field" \
  'typed.jsonl:1: "sentence_good" is an integer, expected a string' \
  "$BB" probe --model model --suite typed.jsonl --out r.json
printf 'a dog runs .\ta dog run .\n\ta dog run .\n' > "$WORK/gap.tsv"
expect_fail "probe: empty sentence in a TSV" "gap.tsv:2: the good sentence \(field 1\) is empty" \
  "$BB" probe --model model --suite gap.tsv --out r.json
expect_fail "score: empty line on stdin" "stdin:2: empty sentence" \
  bash -c "printf 'the dog sees the toy .\n\nthe cat .\n' | '$BB' score --model model"

# compare takes a directory of results and names the result file a pairs file belongs to (item 7).
mkdir -p "$WORK/results-dir" && cp "$WORK/multi.json" "$WORK/multi.pairs.jsonl" "$WORK/results-dir/"
expect_ok "compare: a directory of results" "$BB" compare results-dir --out rep-dir
expect_fail "compare: a pairs file names its result file" \
  "multi.pairs.jsonl: a pairs file; give its result file multi.json" \
  "$BB" compare multi.pairs.jsonl --out rep-pairs
mkdir -p "$WORK/empty-dir"
expect_fail "compare: a directory without results" "empty-dir: a directory without result .json files" \
  "$BB" compare empty-dir --out rep-empty

# Results that compare cannot use.
printf '{"model": "m", "config": {}, "method": "holistic", "paradigms": {}}\n' > "$WORK/none.json"
printf '{"model": "m", "config": {}, "method": "holistic", "paradigms": {"a-b": {"accuracy": 250, "pairs": 10, "ties": 0}}}\n' \
  > "$WORK/acc.json"
expect_fail "compare: a result with no paradigms" \
  'none.json: "paradigms" is empty, expected at least one paradigm' \
  "$BB" compare none.json --out rep
expect_fail "compare: accuracy 250" \
  "acc.json: paradigm 'a-b': \"accuracy\" is 250, expected a percentage in \[0, 100\]" \
  "$BB" compare acc.json --out rep
expect_fail "compare: --bootstrap -1" "--bootstrap: -1 is out of range; expected a whole number in \[1, 1000000\]" \
  "$BB" compare multi.json --out rep --bootstrap -1

# probe's outputs are checked before anything is loaded or scored.
expect_fail "probe: --out under an unwritable place" \
  "/proc/nope/r.json: cannot create the directory /proc/nope" \
  "$BB" probe --model model --suite suite --out /proc/nope/r.json
expect_fail "probe: --out checked before the suite is read" \
  "/proc/nope/r.json: cannot create the directory" \
  "$BB" probe --model model --suite corpus.txt --out /proc/nope/r.json
expect_fail "probe: --pairs-per-paradigm -5" "--pairs-per-paradigm: -5 is out of range" \
  "$BB" probe --model model --suite suite --out r.json --pairs-per-paradigm -5
expect_fail "probe: --batch-tokens -5" "--batch-tokens: -5 is out of range" \
  "$BB" probe --model model --suite suite --out r.json --batch-tokens -5
expect_fail "probe: --threads 0" "--threads: 0 is out of range" \
  "$BB" probe --model model --suite suite --out r.json --threads 0
