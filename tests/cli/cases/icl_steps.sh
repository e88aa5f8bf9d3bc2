# icl train's --steps as train's (issue: a new user, round two, item 9): run.json records the run's
# planned updates; another --steps is refused with train's message (shorter: use the original
# flags; longer: --extend-to), --extend-to records the new total and its rerun is a no-op; icl
# experiment takes --extend-to for its runs (new seeds trained directly to the total) and refuses
# a grid whose --steps differs from its runs' before any job.
F=(icl train --task every --attention ssa --preset icl-tiny --points-every 2 --batch 4)
"$BB" "${F[@]}" --steps 6 --out is6 >/dev/null 2>&1
check "run.json records the planned updates" grep -q '"steps": 6' is6/run.json
expect_fail "a shorter --steps on a finished icl run" \
  "is6: cannot resume with other settings \(--steps: run.json 6, now 3\); use the original flags$" \
  "$BB" "${F[@]}" --steps 3 --out is6
expect_fail "a longer --steps points to --extend-to" \
  "is6: cannot resume with other settings \(--steps: run.json 6, now 9\); use the original flags; to make it longer give the original --steps and --extend-to N" \
  "$BB" "${F[@]}" --steps 9 --out is6
check "... and nothing was trained" bash -c '[ ! -d is6/checkpoints/step-9 ] && grep -q "\"steps\": 6" is6/run.json'
expect_ok "--extend-to 9 with the original --steps" "$BB" "${F[@]}" --steps 6 --extend-to 9 --out is6
check "run.json records the new total" grep -q '"steps": 9' is6/run.json
"$BB" "${F[@]}" --steps 9 --out is9 >/dev/null 2>&1
check "the extended run is bit for bit the 9-step run" cmp is6/model.safetensors is9/model.safetensors
expect_ok "the extension's own command again is a no-op" "$BB" "${F[@]}" --steps 6 --extend-to 9 --out is6
expect_ok "... and so is --steps 9, the run's total now" "$BB" "${F[@]}" --steps 9 --out is6
expect_fail "--extend-to with another original --steps" \
  "is6: cannot extend: --steps 5 is not the run's \(9 in run.json\); give the original --steps and --extend-to N" \
  "$BB" "${F[@]}" --steps 5 --extend-to 12 --out is6

I=(icl experiment --attention softmax,ssa --steps 6 --points-every 2 --lengths 5 --sigmas 1,2
   --sequences 8 --report-points 5 --batch 4 --points-start 3 --points-end 5 --points-inc 1
   --threads 1 --out isx)
"$BB" "${I[@]}" --seeds 1 >/dev/null 2>&1
expect_ok "icl experiment --extend-to 9, a seed added" "$BB" "${I[@]}" --seeds 2 --extend-to 9
check "every run, old and new, stands at 9 updates planned" bash -c \
  'for r in isx/runs/*/; do grep -q "\"steps\": 9" "$r/run.json" || exit 1; done; ls -d isx/runs/*seed2 >/dev/null'
"$BB" icl train --task every --arch full --attention ssa --preset icl-tiny --seed 1 --batch 4 \
  --points-every 2 --points-start 3 --points-end 5 --points-inc 1 --steps 9 --out isx9 >/dev/null 2>&1
check "the extended seed-1 ssa run equals a 9-step run" \
  cmp isx9/model.safetensors isx/runs/every-full-ssa-seed1/model.safetensors
expect_fail "an icl experiment rerun with the original --steps only, refused before any job" \
  "isx: run every-full-softmax-seed1 has 9 updates planned, the grid 6 \(--steps 6\); give the grid's original --steps \(and --extend-to 9 for the extended runs\)" \
  "$BB" "${I[@]}" --seeds 2
"$BB" "${I[@]}" --seeds 2 > isx-refused.out 2>&1
check "... and no job ran" bash -c '! grep -q "started" isx-refused.out && grep -q "updates planned" isx-refused.out'
