"""babyberta.cpp from Python: trained models scored through the CLI's own code path.

    import babyberta
    m = babyberta.load("runs/ssa", device="cpu", threads=2)
    m.sequence_score(["the dog is here .", "the dog are here ."], method="pll", reduction="sum")

Every score sequence_score returns is a log-probability, higher is better, whatever the method and
reduction (as minicons'): for pll and pll-word-l2r (minicons' "original" and "within_word_l2r") the
number `babyberta score` prints; for holistic minus it (the CLI prints BabyBERTa's cross-entropy,
sum_ce or mean_ce, lower is better: sum_ce = -sequence_score(..., "holistic", "sum")). Before
0.2.0 holistic with a string reduction returned the cross-entropy (CHANGELOG.md). Engine errors
raise babyberta.Error with the CLI's one-line message.
"""
import csv as _csv
import difflib as _difflib
import json as _json
import math as _math
import os as _os
import pathlib as _pathlib
import tempfile as _tempfile
import warnings as _warnings

from . import _babyberta as _engine
from ._babyberta import Error, __version__, blas_info

__all__ = ["Error", "Model", "Tokenizer", "__version__", "blas_info", "compare", "icl_train",
           "load", "perplexity", "probe", "saturation", "train"]
Error.__module__ = __name__  # shown as babyberta.Error


def _check_kernels():
    """Once, at import: the CLI re-executes itself to run OpenBLAS's widest kernels for this CPU
    when OPENBLAS_CORETYPE is unset; a module cannot. Scoring runs on oneDNN and matches the CLI
    either way; training's weight gradients match the CLI's bits only where
    blas_info()["provenance"] is the same."""
    info = blas_info()
    if info["unsupported"]:
        _warnings.warn(f"babyberta: {info['unsupported']}", RuntimeWarning, stacklevel=3)
    elif not info["full_width"] and "OPENBLAS_CORETYPE" not in _os.environ:
        # The CLI would re-execute itself with OPENBLAS_CORETYPE=widest_core here.
        _warnings.warn("babyberta: OpenBLAS chose narrower kernels than this CPU supports "
                      f"({info['provenance']}); the CLI would run {info['widest_core']}'s, so "
                      "training's results equal the CLI's bit for bit only if Python is started "
                      f"with OPENBLAS_CORETYPE={info['widest_core']} (scoring matches either way)",
                      RuntimeWarning, stacklevel=3)


_check_kernels()


def _sentences(sentences):
    """A sentence or a sequence of them, as a list."""
    if isinstance(sentences, str):
        return [sentences]
    sentences = list(sentences)
    if not all(isinstance(s, str) for s in sentences):
        raise TypeError("sentences: expected a str or a sequence of str")
    return sentences


class Model:
    """A trained model directory (config.json, model.safetensors, tokenizer.model)."""

    def __init__(self, engine):
        self._engine = engine

    def __repr__(self):
        c = self.config  # RobertaConfig's names, or GPT2Config's
        layers = c.get("num_hidden_layers", c.get("n_layer"))
        heads = c.get("num_attention_heads", c.get("n_head"))
        hidden = c.get("hidden_size", c.get("n_embd"))
        return (f"babyberta.Model({str(self.path)!r}, kind={self.kind!r}, "
                f"attention={self.attention_function!r}, {layers} layers, {heads} heads, "
                f"hidden {hidden}, threads={self._engine.threads})")

    @property
    def path(self):
        return self._engine.path

    @property
    def config(self):
        """config.json as a dict."""
        return self._engine.config

    @property
    def kind(self):
        """The model's kind: "roberta" (the masked LM) or "gpt2" (the causal LM)."""
        return self._engine.kind

    @property
    def attention_function(self):
        """The attention function's label: "softmax", "ssa", "ssa(n=2 frozen)", ..."""
        return self._engine.attention_function

    @property
    def trained_values(self):
        """The function's trained per-head values by name ("b", "n", "tau"): arrays [layers, heads]."""
        return self._engine.trained_values

    def sequence_score(self, sentences, method=None, reduction="mean"):
        """One log-probability per sentence, higher is better, for every method (holistic too: the
        negative of the cross-entropy `babyberta score` prints). method: None for the model's
        kind's (roberta: "pll", minicons' MaskedLMScorer; gpt2: "causal", its IncrementalLMScorer). reduction: "mean" (minicons'
        default), "sum" (`babyberta score`'s default for pll), or a callable on each sentence's
        per-token log-probabilities (a numpy array) returning its score. An empty sentence raises
        babyberta.Error, as `babyberta score` refuses it."""
        sentences = _sentences(sentences)
        if isinstance(reduction, str):
            return self._engine.sequence_score(sentences, self._method(method), reduction)
        if callable(reduction):
            return [reduction(lp) for lp in self._engine.token_logprobs(sentences, self._method(method))]
        raise TypeError('reduction: expected "sum", "mean" or a callable')

    def token_score(self, sentences, method=None, surprisal=False):
        """Per sentence a list of (piece, log-probability) of the tokens the method scores
        (holistic: every token with <s> and </s>; pll: every token but those; causal: every token
        after <s>). method: None as in sequence_score. surprisal=True: (piece, log-probability,
        surprisal in bits = -log2 P) triples, as `score --per-token`'s "surprisal"."""
        scores = self._engine.token_score(_sentences(sentences), self._method(method))
        if not surprisal:
            return scores
        return [[(piece, lp, -lp / _math.log(2)) for piece, lp in s] for s in scores]

    def word_score(self, sentences, method=None, surprisal=False):
        """Per sentence a list of (word, log-probability): each whitespace word with the sum of its
        pieces' log-probabilities under the method (None: the kind's default, as in
        sequence_score), as `score --words`. <s> and </s> are no words (a causal score's </s>
        stays in sequence_score only); no word-boundary correction (docs/training.md). surprisal=True:
        (word, log-probability, surprisal in bits) triples."""
        words = self._engine.word_score(_sentences(sentences), self._method(method))
        if not surprisal:
            return words
        return [[(w, lp, -lp / _math.log(2)) for w, lp in s] for s in words]

    def conditional_score(self, prefix, continuation, method=None, reduction="mean"):
        """Per pair the log-probability of the continuation given the prefix (minicons'
        conditional_score; a SyntaxGym-style critical region): the pieces of `continuation` in
        the sentence prefix + " " + continuation, scored by the method (None: the kind's default;
        causal: each piece given the pieces before it; pll: each piece masked in turn, the rest
        of the sentence visible), </s> left out. prefix and continuation: str or sequences of str
        of equal length (one prefix serves every continuation). reduction as in sequence_score
        ("mean", minicons' default; "sum"; or a callable on the pieces' log-probabilities).
        A list of floats, one per pair."""
        continuations = _sentences(continuation)
        prefixes = _sentences(prefix)
        if len(prefixes) == 1:
            prefixes = prefixes * len(continuations)
        if isinstance(reduction, str):
            return self._engine.conditional_score(prefixes, continuations, self._method(method),
                                                  reduction)
        if callable(reduction):
            return [reduction(lp) for lp in self._engine.conditional_score(
                prefixes, continuations, self._method(method), "")]
        raise TypeError('reduction: expected "sum", "mean" or a callable')

    def _method(self, method):
        # None: roberta's minicons default (pll), the causal LM's only method (its kind's default)
        if method is not None:
            return method
        return "pll" if self.kind == "roberta" else ""

    @property
    def tokenizer(self):
        """The model's tokenizer: encode, decode, id_to_piece, piece_to_id, vocab_size, vocab."""
        return Tokenizer(self._engine)

    def attention(self, sentence):
        """(weights, pieces): the attention weights of one sentence as a float32 array [layers,
        heads, L, L] (query rows, key columns) and its L pieces with <s> and </s>; given a list
        of sentences, a list of such pairs."""
        if isinstance(sentence, str):
            return self._engine.attention(sentence)
        return [self._engine.attention(s) for s in _sentences(sentence)]

    def logits(self, sentences):
        """Per sentence its output logits, a float32 array [L, vocabulary] (rows: <s>, the pieces,
        </s>; a "<mask>" in the text is the mask token)."""
        return self._engine.logits(_sentences(sentences))

    def fill_mask(self, text, k=5):
        """The k most probable tokens at the "<mask>" in `text`, as dicts {token, id,
        probability}, most probable first; with several masks, one such list per mask. Given a
        list of texts, a list of those results, one per text."""
        def one(t):
            filled = self._engine.fill_mask(t, k)
            return filled[0] if len(filled) == 1 else filled
        if isinstance(text, str):
            return one(text)
        return [one(t) for t in _sentences(text)]

    def encode(self, sentences):
        """Per sentence (ids, pieces), with <s> and </s>."""
        return self._engine.encode(_sentences(sentences))


class Tokenizer:
    """A model's tokenizer (Model.tokenizer), the one the model was trained with."""

    def __init__(self, engine):
        self._engine = engine

    def __repr__(self):
        return f"babyberta.Tokenizer(vocab_size={self.vocab_size})"

    @property
    def vocab_size(self):
        """The number of ids (pieces and special tokens)."""
        return self._engine.vocab_size

    @property
    def vocab(self):
        """{piece: id} over every id."""
        return {self._engine.piece(i): i for i in range(self._engine.vocab_size)}

    def encode(self, text):
        """The ids of `text` with <s> and </s> (as the model sees it); a list of texts: a list of
        id lists."""
        if isinstance(text, str):
            return self._engine.encode([text])[0][0]
        return [ids for ids, _ in self._engine.encode(_sentences(text))]

    def tokenize(self, text):
        """The pieces of `text` with <s> and </s>; a list of texts: a list of piece lists."""
        if isinstance(text, str):
            return self._engine.encode([text])[0][1]
        return [pieces for _, pieces in self._engine.encode(_sentences(text))]

    def decode(self, ids):
        """The text of `ids`, special tokens dropped."""
        return self._engine.decode([int(i) for i in ids])

    def id_to_piece(self, id):
        """The piece of one id."""
        return self._engine.piece(int(id))

    def piece_to_id(self, piece):
        """The id of one piece (the <unk> id for a piece not in the vocabulary)."""
        return self._engine.piece_id(piece)


def load(run_dir, device="cpu", threads=1, precision="fp32"):
    """Loads a model directory (a `train` run directory or an exported model). `precision`:
    "fp32", or "bf16" (the linear layers' products in bf16 with fp32 accumulation, on a CPU with
    AMX-BF16 or AVX512-BF16: `blas_info()["bf16_isa"]`; elsewhere babyberta.Error)."""
    return Model(_engine.load(str(run_dir), device, threads, precision))


def perplexity(model, texts=(), good_of=(), dev_of=(), threads=None, device="cpu",
               precision="fp32"):
    """As `babyberta perplexity`: the model's perplexity (gpt2) or pseudo-perplexity (roberta) per
    token and per word on each input, as a dict ("measure", "method", "inputs": one dict per input
    with "source", "sentences", "tokens", "words", "nll_per_token", "perplexity_per_token",
    "perplexity_per_word"). texts: text files (one sentence per line); good_of: suites whose good
    sentences to measure (e.g. BLiMP, out of distribution); dev_of: train runs whose own dev split
    to measure (in distribution). `model`: a Model or a model directory."""
    model_dir = model.path if isinstance(model, Model) else model
    if threads is None:
        threads = model._engine.threads if isinstance(model, Model) else 1
    as_list = lambda x: [str(x)] if isinstance(x, (str, _os.PathLike)) else [str(p) for p in x]  # noqa: E731
    return _engine.perplexity(str(model_dir), as_list(texts), as_list(good_of), as_list(dev_of),
                              threads, device, precision)


def probe(model, suite=None, method=None, reduction=None, tie_rule="half",
          pairs_per_paradigm=None, out=None, threads=None, device="cpu", header=None,
          precision="fp32", pairs=None):
    """Scores a suite's minimal pairs as `babyberta probe` does; returns the result it writes (F.json
    as a dict) with its pairs (F.pairs.jsonl) under "pairs" and the notes `probe` prints (a header
    row read, keys ignored) under "notes", each also issued as a UserWarning. `method`: None for the
    model's kind's default (roberta: "holistic", gpt2: "causal"). `model`: a Model or a
    model directory; `suite`: a suite path or a list of them; `out`: where to write the files
    (default: nowhere); `header`: a .tsv/.csv/.jsonl's first row: None detects it (a row that
    looks like a header but names no good and bad column raises babyberta.Error), True is
    `--header`, False `--no-header`; `precision`: "fp32" or "bf16" (as `load`). `pairs`: instead
    of a suite, minimal pairs in memory, (good, bad) or (good, bad, paradigm) tuples (paradigm
    default "pairs"); result["pairs"] then holds one row per pair, in order, ready for
    pandas.DataFrame."""
    if header not in (None, True, False):
        raise TypeError("header: expected None (detect), True or False")
    if (suite is None) == (pairs is None):
        raise TypeError("probe: give a suite or pairs=[(good, bad), ...], not both")
    if pairs is not None:
        rows = []
        for i, p in enumerate(pairs):
            if isinstance(p, str) or len(p) not in (2, 3) or not all(isinstance(x, str) for x in p):
                raise TypeError(f"pairs[{i}]: expected (good, bad) or (good, bad, paradigm) strings")
            for x in p:
                if "\t" in x or "\n" in x:
                    raise Error(f"pairs[{i}]: a tab or a line break inside a sentence")
            rows.append("\t".join((p[0], p[1], p[2] if len(p) == 3 else "pairs")))
        with _tempfile.TemporaryDirectory() as scratch:
            table = _pathlib.Path(scratch) / "pairs.tsv"
            table.write_text("".join(r + "\n" for r in rows))  # good, bad, paradigm by position
            result = probe(model, str(table), method, reduction, tie_rule, pairs_per_paradigm, out,
                           threads, device, False, precision)
        # back in the order given: each paradigm's pairs are indexed in input order
        position, seen = {}, {}
        for i, r in enumerate(rows):
            paradigm = r.rsplit("\t", 1)[1]
            position[(paradigm, seen.get(paradigm, 0))] = i
            seen[paradigm] = seen.get(paradigm, 0) + 1
        result["pairs"].sort(key=lambda row: position[(row["paradigm"], row["index"])])
        return result
    model_dir = model.path if isinstance(model, Model) else model
    if threads is None:
        threads = model._engine.threads if isinstance(model, Model) else 1
    suites = [str(suite)] if isinstance(suite, (str, _os.PathLike)) else [str(s) for s in suite]
    with _tempfile.TemporaryDirectory() as scratch:
        target = _pathlib.Path(out) if out is not None else _pathlib.Path(scratch) / "probe.json"
        notes = _engine.probe(str(model_dir), suites, str(target), method or "", reduction or "",
                              tie_rule, pairs_per_paradigm or 0, threads, device, header,
                              precision)
        for note in notes:
            _warnings.warn(f"babyberta: {note}", UserWarning, stacklevel=2)
        result = _json.loads(target.read_text())
        result["notes"] = notes
        pairs = target.with_name(target.stem + ".pairs.jsonl")
        result["pairs"] = [_json.loads(line) for line in pairs.read_text().splitlines() if line]
    return result


def _number(text):
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def compare(results, out=None, baseline="softmax", bootstrap=1000, primary=()):
    """Compares probe results as `babyberta compare` does and returns report.csv's records (one
    dict per level, name and group: means, sd, differences, intervals, tests); `pandas.DataFrame(
    records)` makes a table of them. `results`: result files (F.json) or directories of them;
    `out`: the report directory (default: nowhere); `primary`: `--primary`'s endpoints ("overall",
    phenomena, paradigms), tested together in findings.md."""
    if isinstance(primary, str):
        primary = [primary]
    paths = [str(results)] if isinstance(results, (str, _os.PathLike)) else [str(r) for r in results]
    with _tempfile.TemporaryDirectory() as scratch:
        target = _pathlib.Path(out) if out is not None else _pathlib.Path(scratch)
        _engine.compare(paths, str(target), baseline, bootstrap, list(primary))
        with open(target / "report.csv", newline="") as f:
            rows = list(_csv.DictReader(f))
    return [{k: None if v in (None, "") else _number(v) for k, v in row.items()} for row in rows]


def saturation(models=(), suite=None, scales=None, boosts=None, sentences=500, seed=1,
               analytic=False, attention=None, length=10, sigmas=None, points=40, out=None,
               threads=1, device="cpu"):
    """`babyberta saturation`: the records of its saturation.json, as a dict. models: Models or
    model directories (BabyBERTa models with `suite`, whose grammatical sentences are used; or ICL
    models, with `sigmas` and `points`); analytic=True: random score rows per `attention`
    function ("softmax,ssa" or a list; default every function) instead of models. scales and
    boosts: the magnifications and boosts (default the command's). out: where to write the
    command's files (default: nowhere)."""
    if isinstance(models, (Model, str, _os.PathLike)):
        models = [models]
    dirs = [str(m.path if isinstance(m, Model) else m) for m in models]
    if not isinstance(attention, (str, type(None))):
        attention = ",".join(attention)
    with _tempfile.TemporaryDirectory() as scratch:
        target = _pathlib.Path(out) if out is not None else _pathlib.Path(scratch)
        _engine.saturation(dirs, str(suite or ""), str(target), scales, boosts, sentences, seed,
                           analytic, attention or "", length, sigmas or "", points, threads, device)
        return _json.loads((target / "saturation.json").read_text())


def _flag_args(command, forms, flags):
    """Keyword arguments as a command's command line, from its flag table (forms: flag -> value,
    switch_on or switch_off): warmup_steps=500 is --warmup-steps 500; a switch (resume=True,
    no_bias_correction=True) is given when True."""
    args = []
    for name, value in flags.items():
        flag = "--" + name.replace("_", "-")
        form = forms.get(flag)
        if form is None:
            close = _difflib.get_close_matches(flag, list(forms), n=1)
            hint = f" (did you mean {close[0][2:].replace('-', '_')}?)" if close else ""
            raise Error(f"{command}: unknown keyword argument '{name}'{hint}")
        if form != "value":
            if not isinstance(value, bool):
                raise TypeError(f"{command}: {name} is a switch: expected True or False")
            if value:
                args.append(flag)
            continue
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, float):
            text = repr(value)  # round-trips
        elif isinstance(value, (list, tuple)):
            text = ",".join(str(v) for v in value)
        else:
            text = str(value)
        args += [flag, text]
    return args


def train(progress=None, **flags):
    """Trains as `babyberta train` does, in this process, with its flags as keyword arguments
    (corpus=..., out=..., attention="ssa", preset="small", steps=..., resume=True, ...).
    progress: None (the CLI's progress line on stderr) or a callable given a dict (step, steps,
    loss, lr, grad_norm, tokens, elapsed_s: seconds trained over all sessions, dev_loss: at the
    steps with a metrics line, else None) after every update. Ctrl-C (KeyboardInterrupt), or an exception
    raised by `progress`, stops the run with a checkpoint saved and is then raised; the same call
    with resume=True continues it bit for bit. Returns the run directory."""
    _engine.train(_flag_args("train", _engine.train_flag_forms(), flags), progress)
    return _pathlib.Path(flags["out"])


def icl_train(progress=None, **flags):
    """Trains as `babyberta icl train` does, in this process, with its flags as keyword arguments
    (out=..., task="every", arch="attention-only-residual", attention="ssa", steps=...,
    ssa_lr_mult=..., keep_checkpoints=..., extend_to=...). progress: None or a callable given a
    dict (step, steps, loss, points) after every update. The same call on an existing run resumes
    it bit for bit; Ctrl-C (KeyboardInterrupt), or an exception raised by `progress`, stops the
    run with a checkpoint saved and is then raised. Returns the run directory."""
    _engine.icl_train(_flag_args("icl_train", _engine.icl_train_flag_forms(), flags), progress)
    return _pathlib.Path(flags["out"])
