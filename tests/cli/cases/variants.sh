# experiment --attention with variants: NAME(KEY=VALUE[ frozen], ...) (issue 33, item 5).
fixtures
V=(--corpus corpus.txt --suite suite --preset tiny --vocab-size 400 --seeds 1 --jobs 1 --steps 4
   --eval-every 4)
expect_ok "experiment --attention 'softmax,ssa(n=2 frozen),ssa(b=0.5, n frozen),softmax-t(tau=2)'" \
  "$BB" experiment "${V[@]}" --out var --attention 'softmax,ssa(n=2 frozen),ssa(b=0.5, n frozen),softmax-t(tau=2)'
check "variants: filesystem-safe run names" bash -c '
  [ "$(ls var/runs | tr "\n" " ")" = "softmax-seed1 softmax-t-tau2-seed1 ssa-b0.5-n1.5-frozen-seed1 ssa-n2-frozen-seed1 " ]'
check "variants: the runs trained with the values (run.json)" /usr/bin/python3 -c '
import json; s = json.load(open("var/runs/ssa-n2-frozen-seed1/run.json"))["settings"]
assert s["--attention"] == "ssa" and s["--ssa-n-init"] == 2.0 and s["--ssa-freeze-n"] is True, s
s = json.load(open("var/runs/ssa-b0.5-n1.5-frozen-seed1/run.json"))["settings"]
assert s["--ssa-b-init"] == 0.5 and s["--ssa-freeze-b"] is False and s["--ssa-freeze-n"] is True, s
s = json.load(open("var/runs/softmax-t-tau2-seed1/run.json"))["settings"]
assert s["--temperature"] == 2.0, s'
check "variants: the report labels them as the models do" bash -c '
  grep -q "ssa(n=2 frozen)" var/report/report.md && grep -q "ssa(b=0.5, n=1.5 frozen)" var/report/report.md &&
  grep -q "softmax-t(τ=2)" var/report/report.md'
expect_ok "variants: a rerun finds every run done" "$BB" experiment "${V[@]}" --out var \
  --attention 'softmax,ssa(n=2 frozen),ssa(b=0.5, n frozen),softmax-t(tau=2)'
expect_fail "variants: an unknown key names the function's keys" "unknown value 'x' of ssa in 'ssa\(x=1\)' \(expected b, n\)" \
  "$BB" experiment "${V[@]}" --out var2 --attention 'ssa(x=1)'
expect_fail "variants: a value out of range" "n=0.5 in 'ssa\(n=0.5\)': expected a number in \(1, 100\]" \
  "$BB" experiment "${V[@]}" --out var2 --attention 'ssa(n=0.5)'
expect_fail "variants: a function without values" "softmax has no trainable values to set" \
  "$BB" experiment "${V[@]}" --out var2 --attention 'softmax(n=2)'
expect_fail "variants: the defaults spelled out are the plain function, listed twice" \
  "'ssa\(n=1.5\)' is ssa again \(each variant once\)" \
  "$BB" experiment "${V[@]}" --out var2 --attention 'ssa,ssa(n=1.5)'
expect_fail "variants: a torn variant" "'ssa\(n=2': expected NAME or NAME\(KEY=VALUE\[ frozen\], ...\)" \
  "$BB" experiment "${V[@]}" --out var2 --attention 'ssa(n=2'
check "variants: nothing was made by the refused ones" bash -c '[ ! -e var2 ]'
