# The README (issue: a new user, round two, item 12): short, the Quickstart's two commands first,
# every link to docs/ and elsewhere resolving, and no example writing into the repository's source
# folders (runs/, results/): examples use a scratch folder. The reference lives in docs/.
ROOT="$(cd "$HERE/../.." && pwd)"
check "README.md is short (under 200 lines) and starts with the Quickstart" bash -c "
  [ \$(wc -l < '$ROOT/README.md') -lt 200 ] && grep -n '^## ' '$ROOT/README.md' | head -1 | grep -q ':## Quickstart$'"
check "the Quickstart's two commands: make demo, make test" bash -c "
  sed -n '/^## Quickstart/,/^## /p' '$ROOT/README.md' | grep -q '^make demo ' &&
  sed -n '/^## Quickstart/,/^## /p' '$ROOT/README.md' | grep -q '^make test '"
check "every relative link in README.md and docs/ resolves to a file" /usr/bin/python3 -c "
import os, re, sys
root = '$ROOT'
bad = []
for md in ['README.md'] + ['docs/' + f for f in os.listdir(os.path.join(root, 'docs')) if f.endswith('.md')]:
    text = open(os.path.join(root, md)).read()
    for target in re.findall(r'\]\(([^)#\s]+)(?:#[^)]*)?\)', text):
        if '://' in target: continue
        if not os.path.exists(os.path.normpath(os.path.join(root, os.path.dirname(md), target))):
            bad.append(f'{md}: {target}')
assert not bad, bad
"
check "README.md links every docs/ page" bash -c "
  for f in '$ROOT'/docs/*.md; do grep -q \"(docs/\$(basename \$f))\" '$ROOT/README.md' || { echo \"not linked: \$f\"; exit 1; }; done"
check "no example in README.md or docs/ writes into runs/ or results/" bash -c "
  ! grep -nE -- '--out (runs|results)/|out=\"(runs|results)/|--out-dir (runs|results)/' '$ROOT/README.md' '$ROOT'/docs/*.md"
