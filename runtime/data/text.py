"""Text transforms (``mindspore.dataset.text``): :class:`Vocab`, :class:`Lookup`, :class:`Truncate`,
:class:`PadEnd` (the same transform as ``transforms.PadEnd``) and the tokenizers that need no model
file: :class:`WhitespaceTokenizer` and :class:`UnicodeCharTokenizer`.

Rows of text are numpy string arrays (the pipeline has no string tensors). Each transform works on
one row, as MindSpore's do inside ``Dataset.map``.

Example:
    >>> import numpy as np
    >>> from runtime.data import text
    >>> vocab = text.Vocab.from_list(["deep", "learning", "is", "fun"], special_tokens=["<pad>", "<unk>"])
    >>> tokens = text.WhitespaceTokenizer()(np.array("deep learning is great"))
    >>> text.Lookup(vocab, unknown_token="<unk>")(tokens)
    array([2, 3, 4, 1], dtype=int32)
"""
from __future__ import annotations

import numbers

import numpy as np

from graph.dtypes import int32 as _int32

from .transforms import PadEnd, _np_dtype

__all__ = ["Vocab", "Lookup", "Truncate", "PadEnd", "WhitespaceTokenizer", "UnicodeCharTokenizer"]


def _as_str_array(x, what):
    x = x.asnumpy() if hasattr(x, "asnumpy") else np.asarray(x)
    if x.dtype.kind == "S":
        x = np.char.decode(x, "utf-8")
    if x.dtype.kind != "U":
        raise TypeError(f"{what}: expects string input, got an array of dtype {x.dtype}")
    return x


class Vocab:
    """A word -> id table (MindSpore's ``text.Vocab``); build it with :meth:`from_list`,
    :meth:`from_dict`, :meth:`from_dataset` or :meth:`from_file`."""

    def __init__(self):
        self._ids = {}

    @classmethod
    def _with_specials(cls, words, special_tokens, special_first, what):
        """Ids in ``words`` order with ``special_tokens`` before or after them (repeats refused)."""
        specials = list(special_tokens or [])
        for w in specials:
            if not isinstance(w, str):
                raise TypeError(f"{what}: special tokens must be str, got {w!r}")
        clash = sorted(set(specials) & set(words)) + sorted({w for w in specials if specials.count(w) > 1})
        if clash:
            raise ValueError(f"{what}: special token(s) {clash} repeat a word or another special token")
        order = specials + list(words) if special_first else list(words) + specials
        vocab = cls()
        vocab._ids = {w: i for i, w in enumerate(order)}
        return vocab

    @classmethod
    def from_dataset(cls, dataset, columns=None, freq_range=None, top_k=None, special_tokens=None,
                     special_first=True):
        """Every distinct word of ``columns`` (all columns when None) of ``dataset``, one pass over
        it, ordered from the most to the least frequent, equal frequencies lexicographically
        (MindSpore's order). ``freq_range=(min, max)`` keeps words seen min..max times (either
        end None: unbounded; min 0 is 1); ``top_k`` then keeps the first k. Each row value is a
        string or an array of strings (tokens)."""
        what = "Vocab.from_dataset"
        if isinstance(columns, str):
            columns = [columns]
        names = dataset.get_col_names()
        wanted = list(names) if columns is None else list(columns)
        unknown = [c for c in wanted if c not in names]
        if unknown:
            raise ValueError(f"{what}: no column(s) {unknown}; the dataset has {names}")
        lo, hi = _freq_bounds(freq_range, what)
        if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, numbers.Integral)
                                  or top_k <= 0):
            raise ValueError(f"{what}: top_k must be a positive int or None, got {top_k!r}")
        counts = {}
        positions = [names.index(c) for c in wanted]
        for row in dataset.create_tuple_iterator(output_numpy=True, num_epochs=1):
            for k in positions:
                for word in _as_str_array(row[k], what).reshape(-1).tolist():
                    counts[word] = counts.get(word, 0) + 1
        kept = [w for w, n in counts.items() if lo <= n and (hi is None or n <= hi)]
        if counts and not kept:
            import warnings
            warnings.warn(f"{what}: no word falls in freq_range {freq_range}", stacklevel=2)
        kept.sort(key=lambda w: (-counts[w], w))
        if top_k is not None:
            kept = kept[:top_k]
        return cls._with_specials(kept, special_tokens, special_first, what)

    @classmethod
    def from_file(cls, file_path, delimiter="", vocab_size=None, special_tokens=None, special_first=True):
        """One word per line of the UTF-8 file ``file_path``, in file order: the whole line, or
        the text before the first ``delimiter`` when one is given; only the first ``vocab_size``
        words when given. A repeated word raises ValueError."""
        what = "Vocab.from_file"
        if not isinstance(delimiter, str):
            raise TypeError(f"{what}: delimiter must be a str, got {delimiter!r}")
        if vocab_size is not None and (isinstance(vocab_size, bool) or not isinstance(vocab_size, numbers.Integral)
                                       or vocab_size <= 0):
            raise ValueError(f"{what}: vocab_size must be a positive int or None, got {vocab_size!r}")
        words, seen = [], set()
        with open(file_path, encoding="utf-8") as f:
            for line in f:
                if vocab_size is not None and len(words) >= vocab_size:
                    break
                line = line.rstrip("\r\n")
                word = line.split(delimiter, 1)[0] if delimiter else line
                if word in seen:
                    raise ValueError(f"{what}: word {word!r} appears twice in {file_path}")
                seen.add(word)
                words.append(word)
        return cls._with_specials(words, special_tokens, special_first, what)

    @classmethod
    def from_list(cls, word_list, special_tokens=None, special_first=True):
        """Ids in list order; ``special_tokens`` first (ids 0, 1, ...) or, with
        ``special_first=False``, after the words. Repeated words or specials raise ValueError."""
        words = list(word_list)
        specials = list(special_tokens or [])
        for w in words + specials:
            if not isinstance(w, str):
                raise TypeError(f"Vocab.from_list: words and special tokens must be str, got {w!r}")
        order = specials + words if special_first else words + specials
        if len(set(order)) != len(order):
            dup = sorted({w for w in order if order.count(w) > 1})
            raise ValueError(f"Vocab.from_list: repeated word(s) {dup}")
        vocab = cls()
        vocab._ids = {w: i for i, w in enumerate(order)}
        return vocab

    @classmethod
    def from_dict(cls, word_dict):
        """The given word -> id mapping (ids must be non-negative ints)."""
        if not isinstance(word_dict, dict):
            raise TypeError(f"Vocab.from_dict: word_dict must be a dict, got {type(word_dict).__name__}")
        for w, i in word_dict.items():
            if not isinstance(w, str):
                raise TypeError(f"Vocab.from_dict: words must be str, got {w!r}")
            if isinstance(i, bool) or not isinstance(i, numbers.Integral) or i < 0:
                raise ValueError(f"Vocab.from_dict: ids must be non-negative ints, got {w!r}: {i!r}")
        vocab = cls()
        vocab._ids = {w: int(i) for w, i in word_dict.items()}
        return vocab

    def vocab(self):
        """The word -> id dict."""
        return dict(self._ids)

    def tokens_to_ids(self, tokens):
        """Id of a word (-1 when absent), or a list of ids for a list of words."""
        if isinstance(tokens, str):
            return self._ids.get(tokens, -1)
        return [self._ids.get(str(t), -1) for t in tokens]

    def ids_to_tokens(self, ids):
        """Word of an id ('' when absent), or a list of words for a list of ids."""
        inverse = {i: w for w, i in self._ids.items()}
        if isinstance(ids, numbers.Integral):
            return inverse.get(int(ids), "")
        return [inverse.get(int(i), "") for i in ids]

    def __len__(self):
        return len(self._ids)


def _freq_bounds(freq_range, what):
    """(min, max or None) of a ``freq_range`` (min 0 is 1: a word in the vocab was seen)."""
    if freq_range is None:
        return 1, None
    if not isinstance(freq_range, (tuple, list)) or len(freq_range) != 2:
        raise ValueError(f"{what}: freq_range must be a (min_frequency, max_frequency) pair, got {freq_range!r}")
    lo, hi = freq_range
    for v in (lo, hi):
        if v is not None and (isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 0):
            raise ValueError(f"{what}: frequencies must be non-negative ints or None, got {freq_range!r}")
    if lo is not None and hi is not None and hi < lo:
        raise ValueError(f"{what}: freq_range min_frequency must not exceed max_frequency, got {freq_range!r}")
    return max(1, lo or 0), hi


class Lookup:
    """Words -> ids through ``vocab``. A word not in it becomes the id of ``unknown_token``
    (which must be in the vocabulary), or raises ValueError when ``unknown_token`` is None."""

    def __init__(self, vocab, unknown_token=None, data_type=_int32):
        if not isinstance(vocab, Vocab):
            raise TypeError(f"Lookup: vocab must be a text.Vocab, got {type(vocab).__name__}")
        self.vocab = vocab
        self.unknown_token = unknown_token
        self._unknown_id = None
        if unknown_token is not None:
            if unknown_token not in vocab._ids:
                raise ValueError(f"Lookup: unknown_token {unknown_token!r} is not in the vocabulary")
            self._unknown_id = vocab._ids[unknown_token]
        self._dtype = _np_dtype(data_type, "Lookup")
        if self._dtype.kind not in "iu":
            raise TypeError(f"Lookup: data_type must be an integer type, got {data_type!r}")

    def __call__(self, words):
        words = _as_str_array(words, "Lookup")
        ids = self.vocab._ids
        out = np.empty(words.shape, self._dtype)
        for pos, w in np.ndenumerate(words):
            i = ids.get(str(w), self._unknown_id)
            if i is None:
                raise ValueError(f"Lookup: {str(w)!r} is not in the vocabulary and no unknown_token is set")
            out[pos] = i
        return out


class Truncate:
    """Keep the first ``max_seq_len`` elements along the last axis of a 1-D or 2-D row."""

    def __init__(self, max_seq_len):
        if isinstance(max_seq_len, bool) or not isinstance(max_seq_len, numbers.Integral):
            raise TypeError(f"Truncate: max_seq_len must be an int, got {max_seq_len!r}")
        if max_seq_len <= 0:
            raise ValueError(f"Truncate: max_seq_len must be positive, got {max_seq_len}")
        self.max_seq_len = int(max_seq_len)

    def __call__(self, x):
        x = x.asnumpy() if hasattr(x, "asnumpy") else np.asarray(x)
        if x.ndim not in (1, 2):
            raise ValueError(f"Truncate: the input must be 1-D or 2-D, got shape {x.shape}")
        return x[..., :self.max_seq_len].copy()


def _tokenize(s, pieces, with_offsets):
    """tokens, or (tokens, byte offsets of each start, byte offsets past each end) as uint32."""
    tokens = np.array([p for p, _ in pieces], dtype=str) if pieces else np.array([], dtype="<U1")
    if not with_offsets:
        return tokens
    starts, limits = [], []
    for piece, char_start in pieces:
        b = len(s[:char_start].encode("utf-8"))
        starts.append(b)
        limits.append(b + len(piece.encode("utf-8")))
    return tokens, np.array(starts, np.uint32), np.array(limits, np.uint32)


def _one_string(x, what):
    x = _as_str_array(x, what)
    if x.ndim != 0:
        raise ValueError(f"{what}: expects one string per row (a 0-d array), got shape {x.shape}")
    return str(x)


class WhitespaceTokenizer:
    """Split a string on whitespace (spaces, tabs, newlines and the other Unicode spaces)."""

    def __init__(self, with_offsets=False):
        if not isinstance(with_offsets, bool):
            raise TypeError(f"WhitespaceTokenizer: with_offsets must be a bool, got {with_offsets!r}")
        self.with_offsets = with_offsets

    def __call__(self, x):
        s = _one_string(x, "WhitespaceTokenizer")
        pieces, start = [], None
        for i, ch in enumerate(s + " "):
            if ch.isspace():
                if start is not None:
                    pieces.append((s[start:i], start))
                    start = None
            elif start is None:
                start = i
        return _tokenize(s, pieces, self.with_offsets)


class UnicodeCharTokenizer:
    """Split a string into its Unicode characters."""

    def __init__(self, with_offsets=False):
        if not isinstance(with_offsets, bool):
            raise TypeError(f"UnicodeCharTokenizer: with_offsets must be a bool, got {with_offsets!r}")
        self.with_offsets = with_offsets

    def __call__(self, x):
        s = _one_string(x, "UnicodeCharTokenizer")
        return _tokenize(s, [(ch, i) for i, ch in enumerate(s)], self.with_offsets)


_ = PadEnd  # re-exported: MindSpore programs reach it as text.PadEnd too
