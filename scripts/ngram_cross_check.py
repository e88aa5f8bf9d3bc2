#!/usr/bin/python3
"""A cross-check of `babyberta baseline`, written from the formulas alone (not from
baselines/ngram.cpp): interpolated Kneser-Ney (D 0.75), absolute discounting and Jelinek-Mercer
word n-gram models, each checked to sum to 1 over the vocabulary, scored on Zorro.

Usage: /usr/bin/python3 scripts/ngram_cross_check.py CORPUS ZORRO_DIR   (standard library only;
about a minute and 350 MB for aochildes_merged.txt on one core)

Unlike `baseline` it lower-cases without NFKC and holds no dev set out, so its counts differ a
little; on aochildes_merged.txt it gives Kneser-Ney bigram 63.02 and trigram 61.01 (`baseline`:
63.0 and 61.0), its unigram 61.00 (`baseline`: 60.7, whose counts leave out the dev set).
"""
import math, os, sys, glob
from collections import defaultdict, Counter

TRAIN, ZDIR = sys.argv[1], sys.argv[2]
BOS, EOS, UNK = '<s>', '</s>', '<unk>'


def load_train():
    sents = []
    with open(TRAIN) as f:
        for line in f:
            t = line.lower().split()
            if len(t) >= 3:
                sents.append(t)
    return sents


def load_zorro():
    out = {}
    for p in sorted(glob.glob(os.path.join(ZDIR, '*.txt'))):
        lines = [l.lower().split() for l in open(p).read().split('\n') if l.strip()]
        assert len(lines) % 2 == 0
        pairs = [(lines[i], lines[i + 1]) for i in range(0, len(lines), 2)]  # (bad, good)
        out[os.path.basename(p)[:-4]] = pairs
    return out


class NGram:
    """kind: 'kn' (highest raw, lower continuation), 'ad' (all raw),
    'kn_rawbi' (highest raw, bigram raw, unigram continuation) -- for order 3.
    'jm' Jelinek-Mercer."""

    def __init__(self, sents, n, D=0.75, kind='kn', unk_singletons=False, jm_lams=None):
        self.n, self.D, self.kind = n, D, kind
        wc = Counter(w for s in sents for w in s)
        if unk_singletons:
            vocab = {w for w, c in wc.items() if c > 1}
        else:
            vocab = set(wc)
        vocab |= {EOS, UNK}
        self.vocab = vocab
        self.V = len(vocab)
        # raw counts of every order from padded sentences (n-1 <s>)
        raw = [None] + [defaultdict(Counter) for _ in range(n)]  # raw[k][ctx][w]
        for s in sents:
            t = [BOS] * (n - 1) + [w if w in vocab else UNK for w in s] + [EOS]
            for i in range(n - 1, len(t)):
                w = t[i]
                for k in range(1, n + 1):
                    ctx = tuple(t[i - k + 1:i])
                    raw[k][ctx][w] += 1
        self.raw = raw
        # choose counts per order
        if kind == 'kn':
            use_raw = {n}
        elif kind == 'ad':
            use_raw = set(range(1, n + 1))
        elif kind == 'kn_rawbi':
            use_raw = {n, n - 1}
        elif kind == 'jm':
            use_raw = set(range(1, n + 1))
        else:
            raise ValueError(kind)
        cnt = [None] * (n + 1)
        for k in range(1, n + 1):
            if k in use_raw:
                cnt[k] = raw[k]
            else:
                # continuation counts: N1+(. ctx w) = distinct u with c(u ctx w)>0 at order k+1
                cc = defaultdict(Counter)
                for ctx1, d in raw[k + 1].items():
                    sub = ctx1[1:]
                    for w in d:
                        cc[sub][w] += 1
                cnt[k] = cc
        self.cnt = cnt
        self.tot = [None] + [{c: sum(d.values()) for c, d in cnt[k].items()} for k in range(1, n + 1)]
        self.types = [None] + [{c: len(d) for c, d in cnt[k].items()} for k in range(1, n + 1)]
        self.jm_lams = jm_lams
        if kind == 'jm':
            self.uni_tot = sum(raw[1][()].values())

    def prob(self, w, ctx):
        """ctx: tuple of n-1 previous tokens (already mapped)."""
        if self.kind == 'jm':
            return self._jm(w, ctx, self.n)
        return self._p(w, ctx, self.n)

    def _p(self, w, ctx, k):
        if k == 0:
            return 1.0 / self.V
        h = ctx[len(ctx) - (k - 1):] if k > 1 else ()
        lower = self._p(w, ctx, k - 1)
        d = self.cnt[k].get(h)
        if not d:
            return lower  # unseen context: back off fully
        T = self.tot[k][h]
        c = d.get(w, 0)
        return max(c - self.D, 0.0) / T + self.D * self.types[k][h] / T * lower

    def _jm(self, w, ctx, k):
        # recursive: P_k = lam_k * ML_k + (1-lam_k) * P_{k-1}; unseen ctx -> P_{k-1}
        if k == 1:
            return (self.raw[1][()].get(w, 0) + 1.0) / (self.uni_tot + self.V)
        lower = self._jm(w, ctx, k - 1)
        h = ctx[len(ctx) - (k - 1):]
        d = self.raw[k].get(h)
        if not d:
            return lower
        lam = self.jm_lams[k]
        return lam * d.get(w, 0) / self.tot[k][h] + (1 - lam) * lower

    def score(self, s):
        t = [BOS] * (self.n - 1) + [w if w in self.vocab else UNK for w in s] + [EOS]
        lp = 0.0
        for i in range(self.n - 1, len(t)):
            lp += math.log(self.prob(t[i], tuple(t[i - self.n + 1:i])))
        return lp

    def check_sums(self, ctxs):
        res = []
        vs = sorted(self.vocab)
        for ctx in ctxs:
            ctx = tuple(x if (x in self.vocab or x == BOS) else UNK for x in ctx)
            res.append((ctx, sum(self.prob(w, ctx) for w in vs)))
        return res


def evaluate(m, zorro):
    per = {}
    tot_c = 0.0
    tot_n = 0
    for name, pairs in zorro.items():
        c = 0.0
        for bad, good in pairs:
            sb, sg = m.score(bad), m.score(good)
            c += 1.0 if sg > sb else (0.5 if sg == sb else 0.0)
        per[name] = 100.0 * c / len(pairs)
        tot_c += c
        tot_n += len(pairs)
    return per, sum(per.values()) / len(per), 100.0 * tot_c / tot_n


if __name__ == '__main__':
    sents = load_train()
    zorro = load_zorro()
    print('utterances used', len(sents), 'tokens', sum(map(len, sents)), 'paradigms', len(zorro),
          'pairs', sum(len(p) for p in zorro.values()), flush=True)
    check_ctx = {1: [()], 2: [('the',), ('<s>',), ('zzqq',)],
                 3: [('<s>', '<s>'), ('do', 'you'), ('you', 'zzqq'), ('zzqq', 'qqzz'), ('the', 'pig')]}
    variants = [
        ('KN', 1, dict(kind='kn')), ('KN', 2, dict(kind='kn')), ('KN', 3, dict(kind='kn')),
        ('JM(.6/.3/.1)', 3, dict(kind='jm', jm_lams={3: 0.6, 2: 0.75})),
        ('JM(.75/.25)', 2, dict(kind='jm', jm_lams={2: 0.75})),
        ('AbsDisc bi+uni raw', 3, dict(kind='ad')), ('AbsDisc bi+uni raw', 2, dict(kind='ad')),
        ('KN bigram raw, uni cont', 3, dict(kind='kn_rawbi')),
        ('KN singletons->unk', 3, dict(kind='kn', unk_singletons=True)),
        ('KN singletons->unk', 2, dict(kind='kn', unk_singletons=True)),
    ]
    perstd = {}
    rows = []
    for name, n, kw in variants:
        m = NGram(sents, n, **kw)
        sums = m.check_sums(check_ctx[n])
        print(name, n, 'sums:', ['%s:%.12f' % (' '.join(c) or '()', s) for c, s in sums], flush=True)
        per, mean, pooled = evaluate(m, zorro)
        rows.append((name, n, mean, pooled, m.V, len(sents)))
        print('ROW %-26s n=%d mean=%.2f pooled=%.2f V=%d utt=%d' % rows[-1], flush=True)
        if kw == dict(kind='kn'):
            perstd[n] = per
        del m
    print('\nPER-PARADIGM standard KN (n=1 / n=2 / n=3)')
    for p in sorted(perstd[1]):
        print('%-52s %6.2f %6.2f %6.2f' % (p, perstd[1][p], perstd[2][p], perstd[3][p]))
