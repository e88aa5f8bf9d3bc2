#!/usr/bin/env bash
# The CLI audit as a test: every bad input or fault must end with a non-zero exit and one line
# naming the file or flag and what was expected. Usage: run_cli_tests.sh BINARY [CASE_FILE...]
# Each file under cases/ (run with the scratch directory $WORK as cwd) defines cases with the helpers below; the run prints one line per case
# and closes with "N passed, N failed".
set -uo pipefail
BB="$(realpath "$1")"; shift
HERE="$(cd "$(dirname "$0")" && pwd)"
WORK="$(mktemp -d /tmp/bb-cli-tests.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
PASSED=0; FAILED=0; FAILURES=()

# expect_fail NAME REGEX CMD...: CMD exits non-zero, its stderr's last non-empty line matches
# REGEX (extended, case-sensitive), that line starts with "babyberta: error:" (or is CLI11's
# one-line usage error) and no stack trace or raw library text ("json.exception", "basic_filebuf",
# "bad_alloc", "terminate called") appears.
expect_fail() {
  local name="$1" regex="$2"; shift 2
  local err rc line
  err="$(cd "$WORK" && timeout "${CLI_TEST_TIMEOUT:-60}" "$@" 2>&1 >/dev/null)"; rc=$?
  LAST_RC=$rc
  line="$(printf '%s\n' "$err" | grep -v '^[[:space:]]*$' | tail -n 1)"
  if [ "$rc" -eq 0 ]; then
    _case_failed "$name" "exit 0 (expected an error matching /$regex/)"
  elif [ "$rc" -eq 124 ]; then
    _case_failed "$name" "timed out (hang)"
  elif [ "$rc" -ge 128 ]; then
    _case_failed "$name" "killed by signal $((rc - 128)): $line"
  elif printf '%s' "$err" | grep -Eq 'json\.exception|basic_filebuf|bad_alloc|terminate called|max_size\(\)'; then
    _case_failed "$name" "raw library text: $line"
  elif ! printf '%s' "$line" | grep -Eq -- "$regex"; then
    _case_failed "$name" "message /$regex/ not found in: $line"
  else
    _case_passed "$name"
  fi
}

# expect_exit2 NAME REGEX CMD...: as expect_fail, and the exit status is 2 (a usage error: a bad
# flag, a request the model or machine cannot serve, flags that contradict the run directory).
# The command runs once: expect_fail leaves its exit status in LAST_RC.
expect_exit2() {
  local name="$1"; shift
  expect_fail "$name" "$@"
  if [ "$LAST_RC" -eq 2 ]; then _case_passed "$name: exit 2"
  else _case_failed "$name: exit 2" "exit $LAST_RC"; fi
}

# expect_ok NAME CMD...: CMD exits 0.
expect_ok() {
  local name="$1"; shift
  local err rc
  err="$(cd "$WORK" && timeout 300 "$@" 2>&1 >/dev/null)"; rc=$?
  if [ "$rc" -eq 0 ]; then _case_passed "$name"
  else _case_failed "$name" "exit $rc: $(printf '%s\n' "$err" | tail -n 1)"; fi
}

# check NAME COND...: a plain shell condition (e.g. a file exists after a fault).
check() {
  local name="$1"; shift
  if "$@"; then _case_passed "$name"; else _case_failed "$name" "condition failed: $*"; fi
}

# wait_bounded PID SECONDS: waits for a background job; after SECONDS kills it (and its children)
# and returns 124, so that a case about interruption can never hang the suite.
wait_bounded() {
  local pid="$1" i
  for ((i = 0; i < $2 * 10; ++i)); do
    kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null; return $?; }
    sleep 0.1
  done
  pkill -9 -P "$pid" 2>/dev/null; kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  return 124
}

_case_passed() { PASSED=$((PASSED + 1)); echo "ok      $1"; }
_case_failed() { FAILED=$((FAILED + 1)); FAILURES+=("$1"); echo "FAILED  $1: $2"; }

# Shared fixtures, built once per run: a tiny corpus, a tiny suite, a tiny trained model.
fixtures() {
  if [ -d "$WORK/model" ]; then return; fi
  mkdir -p "$WORK/suite"
  python_free_corpus > "$WORK/corpus.txt"
  printf 'the dog are here .\nthe dog is here .\nthe cats is here .\nthe cats are here .\n' \
    > "$WORK/suite/agreement-subject_verb.txt"
  "$BB" train --corpus "$WORK/corpus.txt" --out "$WORK/model" --preset tiny --steps 20 \
    --vocab-size 400 --eval-every 10 --dev-batches 2 --seed 1 >/dev/null 2>&1 \
    || { echo "FAILED  fixtures: cannot train the tiny model"; exit 1; }
}
python_free_corpus() {
  local subjects=(the-dog the-cat a-bird my-mom the-baby your-ball)
  local verbs=(sees wants likes has finds takes)
  local objects=(the-toy a-cup the-book that-ball some-milk the-car)
  local i j k
  for i in "${subjects[@]}"; do for j in "${verbs[@]}"; do for k in "${objects[@]}"; do
    echo "${i//-/ } ${j} ${k//-/ } ."
  done; done; done
}

if [ $# -eq 0 ]; then set -- "$HERE"/cases/*.sh; fi
cases=()
for f in "$@"; do cases+=("$(realpath "$f")"); done
cd "$WORK" || exit 1  # cases run in the scratch directory
for f in "${cases[@]}"; do
  _file_name="$(basename "$f")" _file_started=$SECONDS  # (cases may reuse the name f)
  echo "== $_file_name"
  # shellcheck source=/dev/null
  source "$f"
  echo "   ($_file_name: $((SECONDS - _file_started)) s)"
done
echo
[ "$FAILED" -eq 0 ] || printf 'failed: %s\n' "${FAILURES[@]}"
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
