"""mindspore.dataset 2.x: padded_batch, bucket_batch_by_length, the text module (Vocab, Lookup,
Truncate, PadEnd, WhitespaceTokenizer, UnicodeCharTokenizer) and GeneratorDataset over another
dataset with shuffle=True, Vocab.from_dataset and Vocab.from_file; against MindSpore's documented examples and plain-Python oracles."""
import numpy as np
import pytest

import runtime as ms
import runtime.dataset as ds
from runtime.dataset import text


def _rows(d, col=0):
    return [r[col] for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)]


RAGGED = [[1], [1, 2], [1, 2, 3], [1, 2, 3, 4]]


def test_padded_batch_documented_example():
    d = ds.NumpySlicesDataset(RAGGED, "column1", shuffle=False)
    got = [b.tolist() for b in _rows(d.padded_batch(2, True, pad_info={}))]
    assert got == [[[1, 0], [1, 2]], [[1, 2, 3, 0], [1, 2, 3, 4]]]
    # a pad_shape and value; None entries take the batch's longest row
    got = [b.tolist() for b in _rows(d.padded_batch(3, pad_info={"column1": ([5], -1)}))]
    assert got == [[[1, -1, -1, -1, -1], [1, 2, -1, -1, -1], [1, 2, 3, -1, -1]], [[1, 2, 3, 4, -1]]]
    got = [b.tolist() for b in _rows(d.padded_batch(4, pad_info={"column1": (None, 9)}))]
    assert got == [[[1, 9, 9, 9], [1, 2, 9, 9], [1, 2, 3, 9], [1, 2, 3, 4]]]


def test_padded_batch_without_pad_info_is_batch_and_errors_are_clear():
    d = ds.NumpySlicesDataset(RAGGED, "column1", shuffle=False)
    with pytest.raises(ValueError, match="different shapes"):
        _rows(d.padded_batch(2))
    with pytest.raises(ValueError, match="larger than its pad_shape"):
        _rows(d.padded_batch(4, pad_info={"column1": ([2], 0)}))
    with pytest.raises(ValueError, match="not one of"):
        d.padded_batch(2, pad_info={"nope": (None, 0)})
    even = ds.NumpySlicesDataset(np.arange(6).reshape(3, 2), "x", shuffle=False)
    assert [b.tolist() for b in _rows(even.padded_batch(2))] == [[[0, 1], [2, 3]], [[4, 5]]]


def test_padded_batch_pads_strings_with_empty_strings():
    def gen():
        for words in (["a", "b"], ["c"]):
            yield (np.array(words),)
    d = ds.GeneratorDataset(gen, ["w"])
    (batch,) = _rows(d.padded_batch(2, pad_info={}))
    assert batch.tolist() == [["a", "b"], ["c", ""]]


def _bucket_oracle(lengths, bounds, sizes):
    """Which rows (by position) each emitted batch holds, in emission order."""
    buckets, out = [[] for _ in sizes], []
    for i, n in enumerate(lengths):
        k = sum(n >= b for b in bounds)
        buckets[k].append(i)
        if len(buckets[k]) == sizes[k]:
            out.append(buckets[k])
            buckets[k] = []
    return out + [b for b in buckets if b]


def test_bucket_batch_by_length_against_oracle():
    rng = np.random.default_rng(0)
    lengths = rng.integers(1, 12, size=40).tolist()

    def gen():
        for i, n in enumerate(lengths):
            yield np.full(n, i + 1, np.int32), np.array(i, np.int32)

    bounds, sizes = [3, 6, 9], [4, 3, 2, 2]
    d = ds.GeneratorDataset(gen, ["seq", "id"]).bucket_batch_by_length(["seq"], bounds, sizes, pad_info={})
    batches = list(d.create_tuple_iterator(output_numpy=True, num_epochs=1))
    want = _bucket_oracle(lengths, bounds, sizes)
    assert [b[1].tolist() for b in batches] == want
    for (seq, ids), rows in zip(batches, want):
        longest = max(lengths[i] for i in rows)
        assert seq.shape == (len(rows), longest)
        for j, i in enumerate(rows):
            assert seq[j].tolist() == [i + 1] * lengths[i] + [0] * (longest - lengths[i])


def test_bucket_batch_by_length_pad_to_boundary_length_function_and_drop_remainder():
    d = ds.NumpySlicesDataset(RAGGED, "column1", shuffle=False)
    out = _rows(d.bucket_batch_by_length(["column1"], [3, 5], [2, 2, 2], pad_info={"column1": (None, 7)},
                                         pad_to_bucket_boundary=True))
    assert [b.tolist() for b in out] == [[[1, 7], [1, 2]], [[1, 2, 3, 7], [1, 2, 3, 4]]]
    out = _rows(d.bucket_batch_by_length(["column1"], [3], [3, 3], pad_info={}, drop_remainder=True))
    assert out == []  # neither bucket fills
    # a length function over two columns: the sum of their lengths
    z = ds.NumpySlicesDataset({"a": np.arange(4), "b": np.arange(4)}, shuffle=False)
    out = _rows(z.bucket_batch_by_length(["a", "b"], [4], [1, 3], element_length_function=lambda a, b: int(a + b)),
                col=0)
    assert [b.tolist() for b in out] == [[0], [1], [2, 3]]  # lengths 0, 2 | 4, 6
    with pytest.raises(ValueError, match="len\\(bucket_boundaries\\) \\+ 1"):
        d.bucket_batch_by_length(["column1"], [3], [1])


def test_vocab_and_lookup_documented_behaviour():
    vocab = text.Vocab.from_list(["home", "behind", "the", "world", "<unk>"])
    assert vocab.vocab() == {"home": 0, "behind": 1, "the": 2, "world": 3, "<unk>": 4}
    assert vocab.tokens_to_ids(["home", "world", "nope"]) == [0, 3, -1]
    assert vocab.ids_to_tokens([0, 3]) == ["home", "world"]
    words = np.array(["home", "the", "mars"])
    np.testing.assert_array_equal(text.Lookup(vocab, "<unk>")(words), [0, 2, 4])
    with pytest.raises(ValueError, match="not in the vocabulary"):
        text.Lookup(vocab)(words)
    v2 = text.Vocab.from_list(["a", "b"], special_tokens=["<pad>"], special_first=False)
    assert v2.vocab() == {"a": 0, "b": 1, "<pad>": 2}
    v3 = text.Vocab.from_dict({"home": 3, "behind": 2})
    assert text.Lookup(v3, data_type=ms.int64)(np.array(["behind"])).dtype == np.int64
    with pytest.raises(ValueError, match="repeated"):
        text.Vocab.from_list(["a", "a"])


def test_tokenizers_against_python():
    s = "Welcome     To   BeiJing!\tok"
    tokens, starts, limits = text.WhitespaceTokenizer(with_offsets=True)(np.array(s))
    assert tokens.tolist() == s.split()
    for t, a, b in zip(tokens, starts, limits):
        assert s.encode()[a:b].decode() == t
    assert starts.dtype == np.uint32
    u = "北京a"
    chars, starts, limits = text.UnicodeCharTokenizer(True)(np.array(u))
    assert chars.tolist() == list(u) and starts.tolist() == [0, 3, 6] and limits.tolist() == [3, 6, 7]


def test_text_pipeline_tokenize_lookup_truncate_pad():
    sentences = ["deep learning is fun", "is", "learning deep learning is what we do"]
    vocab = text.Vocab.from_list(["deep", "learning", "is", "fun"], special_tokens=["<pad>", "<unk>"])
    d = ds.NumpySlicesDataset({"text": np.array(sentences)}, shuffle=False)
    d = d.map([text.WhitespaceTokenizer(), text.Lookup(vocab, "<unk>"), text.Truncate(5), text.PadEnd([5], 0)],
              input_columns="text")
    got = [r.tolist() for r in _rows(d)]
    ids = {w: i for i, w in enumerate(["<pad>", "<unk>", "deep", "learning", "is", "fun"])}
    want = [([ids.get(w, 1) for w in s.split()][:5] + [0] * 5)[:5] for s in sentences]
    assert got == want
    assert ds.text is text and text.PadEnd is ds.transforms.PadEnd


def test_generator_dataset_over_mnist_with_shuffle():
    mnist = ds.MnistDataset(ds.embedded_mnist_dir(), usage="test", shuffle=False)
    plain = _rows(mnist, col=1)
    g = ds.GeneratorDataset(mnist, column_names=["image", "label"], shuffle=True)
    assert g.get_dataset_size() == len(plain) == 1000
    ms.set_seed(3)
    first = _rows(g, col=1)
    ms.set_seed(3)
    again = _rows(g, col=1)
    assert sorted(int(v) for v in first) == sorted(int(v) for v in plain)  # the same rows ...
    assert [int(v) for v in first] != [int(v) for v in plain]              # ... in another order
    assert [int(v) for v in first] == [int(v) for v in again]              # reproducible under the seed
    shard = ds.GeneratorDataset(mnist, column_names=["image", "label"], shuffle=False, num_shards=4, shard_id=1)
    assert shard.get_dataset_size() == 250
    # without random access needs it stays a plain iteration in the source's order
    assert [int(v) for v in _rows(ds.GeneratorDataset(mnist, ["image", "label"]), col=1)] == \
        [int(v) for v in plain]


# ---- Vocab.from_dataset / Vocab.from_file ------------------------------------------------------------

def _corpus():
    # build_vocab's documented corpus: word -> number of occurrences
    corpus = {"Z": 4, "Y": 4, "X": 4, "W": 3, "U": 3, "V": 2, "T": 1}
    for k, v in corpus.items():
        yield (np.array([k] * v, dtype="S"),)


def test_vocab_from_dataset_documented_corpus():
    d = ds.GeneratorDataset(_corpus, ["column1"], shuffle=False)
    vocab = text.Vocab.from_dataset(d, columns=["column1"], freq_range=(1, 10), top_k=5,
                                    special_tokens=["<pad>", "<unk>"], special_first=True)
    # most frequent first, ties lexicographic; top_k after freq_range; specials in front
    assert vocab.vocab() == {"<pad>": 0, "<unk>": 1, "X": 2, "Y": 3, "Z": 4, "U": 5, "W": 6}
    vocab = text.Vocab.from_dataset(d, "column1", freq_range=(2, 3), special_tokens=["<unk>"], special_first=False)
    assert vocab.vocab() == {"U": 0, "W": 1, "V": 2, "<unk>": 3}
    assert text.Vocab.from_dataset(d).vocab() == {w: i for i, w in enumerate("XYZUWVT")}
    assert text.Vocab.from_dataset(d, freq_range=(0, None), top_k=100).vocab() == \
        text.Vocab.from_dataset(d).vocab()


def test_vocab_from_dataset_against_a_counter_over_tokenized_lines():
    from collections import Counter
    lines = ["the cat sat on the mat", "the dog sat", "a cat and a dog", "on and on"]
    d = ds.GeneratorDataset(lambda: ((np.array(line),) for line in lines), ["text"], shuffle=False)
    d = d.map(operations=text.WhitespaceTokenizer(), input_columns=["text"])
    counts = Counter(w for line in lines for w in line.split())
    expect = sorted(counts, key=lambda w: (-counts[w], w))
    vocab = text.Vocab.from_dataset(d, ["text"])
    assert list(vocab.vocab()) == expect and list(vocab.vocab().values()) == list(range(len(expect)))
    ids = [r[0].tolist() for r in d.map(operations=text.Lookup(vocab), input_columns=["text"])
           .create_tuple_iterator(output_numpy=True, num_epochs=1)]
    assert ids[0] == [expect.index(w) for w in lines[0].split()]


def test_vocab_from_dataset_errors():
    d = ds.GeneratorDataset(_corpus, ["column1"], shuffle=False)
    with pytest.raises(ValueError, match="no column"):
        text.Vocab.from_dataset(d, ["nope"])
    with pytest.raises(ValueError, match="top_k"):
        text.Vocab.from_dataset(d, top_k=0)
    with pytest.raises(ValueError, match="freq_range"):
        text.Vocab.from_dataset(d, freq_range=(3, 2))
    with pytest.raises(ValueError, match="special"):
        text.Vocab.from_dataset(d, special_tokens=["X"])
    with pytest.warns(UserWarning, match="freq_range"):
        assert len(text.Vocab.from_dataset(d, freq_range=(5, 9))) == 0


def test_vocab_from_file(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("home,1\nbehind,2\nthe,3\nworld,4\nhello,5\n", encoding="utf-8")
    vocab = text.Vocab.from_file(str(path), ",", vocab_size=4, special_tokens=["<pad>"], special_first=True)
    assert vocab.vocab() == {"<pad>": 0, "home": 1, "behind": 2, "the": 3, "world": 4}
    vocab = text.Vocab.from_file(str(path), special_tokens=["<unk>"], special_first=False)
    assert vocab.tokens_to_ids(["home,1", "hello,5", "<unk>"]) == [0, 4, 5]
    path.write_text("a\nb\na\n", encoding="utf-8")
    with pytest.raises(ValueError, match="twice"):
        text.Vocab.from_file(str(path))
    with pytest.raises(ValueError, match="vocab_size"):
        text.Vocab.from_file(str(path), vocab_size=0)
