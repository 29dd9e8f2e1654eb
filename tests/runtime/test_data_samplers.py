"""``runtime.dataset`` samplers against MindSpore 2.x's documented semantics, used as MindSpore
programs use them (``ds.MnistDataset(path, sampler=ds.DistributedSampler(2, rank))``,
``ds.GeneratorDataset(src, ["x"], sampler=ds.RandomSampler())``, lists and user ``Sampler``s).

Oracles are written from the documentation: the DistributedSampler rule (row k of shard d is row
``(k * num_shards + d) % n`` of the epoch's order; ``offset``: no wrap, sizes by MindSpore's
formula), permutations and ranges checked by sorting, draw frequencies against the weights with a
fixed seed and a tolerance, PK classes counted from the labels.
"""
import collections

import numpy as np
import pytest

import runtime as ms
import runtime.dataset as ds
import runtime.dataset.vision as vision
from runtime import nn


@pytest.fixture(autouse=True)
def _dataset_seed():
    """Tests that seed the pipeline leave no seed behind."""
    yield
    ds.config.set_seed(None)


def source(n):
    """A dataset whose only column is the row number, so a sampler's choice reads back directly."""
    return ds.NumpySlicesDataset({"i": np.arange(n)}, sampler=None, shuffle=False)


def rows(dataset):
    return [int(r[0]) for r in dataset.create_tuple_iterator(num_epochs=1, output_numpy=True)]


def epochs(dataset, k):
    it = dataset.create_tuple_iterator(num_epochs=k, output_numpy=True)
    return [[int(r[0]) for r in it] for _ in range(k)]


def sampled(n, sampler):
    return ds.NumpySlicesDataset({"i": np.arange(n)}, sampler=sampler)


class Indexable:
    """A random-access GeneratorDataset source: row i is (i, 10 * i)."""

    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        return np.int64(i), np.int64(10 * i)

    def __len__(self):
        return self.n


# -- SequentialSampler -------------------------------------------------------------------------
@pytest.mark.parametrize("n, start, num, expected", [
    (10, None, None, list(range(10))),
    (10, 3, None, list(range(3, 10))),
    (10, None, 4, [0, 1, 2, 3]),
    (10, 7, 10, [7, 8, 9]),
    (10, 2, 3, [2, 3, 4]),
    (10, 0, 0, list(range(10))),  # num_samples 0: all
])
def test_sequential_sampler_rows_and_size(n, start, num, expected):
    d = sampled(n, ds.SequentialSampler(start_index=start, num_samples=num))
    assert rows(d) == expected
    assert d.get_dataset_size() == len(expected)
    assert epochs(d, 2) == [expected, expected]


def test_sequential_sampler_errors():
    with pytest.raises(TypeError, match="start_index must be an int"):
        ds.SequentialSampler(start_index=1.5)
    with pytest.raises(RuntimeError, match="start_index must be >= 0"):
        ds.SequentialSampler(start_index=-1)
    with pytest.raises(TypeError, match="num_samples must be an int"):
        ds.SequentialSampler(num_samples="3")
    with pytest.raises(ValueError, match="num_samples must be >= 0"):
        ds.SequentialSampler(num_samples=-2)
    with pytest.raises(RuntimeError, match=r"start_index \(10\) must be less than the number of rows \(10\)"):
        rows(sampled(10, ds.SequentialSampler(start_index=10)))


# -- RandomSampler -----------------------------------------------------------------------------
def test_random_sampler_is_a_new_permutation_every_epoch():
    ds.config.set_seed(11)
    got = epochs(sampled(50, ds.RandomSampler()), 3)
    for e in got:
        assert sorted(e) == list(range(50))
    assert got[0] != got[1] != got[2] and got[0] != list(range(50))


def test_random_sampler_num_samples_caps_and_has_no_repeats():
    ds.config.set_seed(2)
    d = sampled(40, ds.RandomSampler(num_samples=15))
    assert d.get_dataset_size() == 15
    for e in epochs(d, 4):
        assert len(e) == 15 and len(set(e)) == 15 and set(e) <= set(range(40))
    # never more rows than the source has (MindSpore caps num_samples at the row count)
    big = sampled(6, ds.RandomSampler(num_samples=100))
    assert big.get_dataset_size() == 6 and sorted(rows(big)) == list(range(6))


def test_random_sampler_with_replacement_draws_uniformly():
    ds.config.set_seed(5)
    n, k = 5, 3000
    got = [i for e in epochs(sampled(n, ds.RandomSampler(replacement=True)), k) for i in e]
    assert len(got) == n * k
    freq = np.bincount(got, minlength=n) / len(got)
    np.testing.assert_allclose(freq, np.full(n, 1 / n), atol=0.02)
    # with replacement an epoch repeats rows: some of the 3000 epochs of 5 draws are not permutations
    per_epoch = np.asarray(got).reshape(k, n)
    assert any(len(set(e)) < n for e in per_epoch)
    big = sampled(4, ds.RandomSampler(replacement=True, num_samples=9))
    assert big.get_dataset_size() == 4 and len(rows(big)) == 4


def test_random_sampler_seeding():
    def run():
        return epochs(sampled(30, ds.RandomSampler()), 2)
    ds.config.set_seed(7)
    a, b = run(), run()
    ds.config.set_seed(8)
    c = run()
    assert a == b and a != c
    ds.config.set_seed(None)
    ms.set_seed(7)  # the global seed seeds the pipeline when the dataset seed is unset
    try:
        assert run() == run()
    finally:
        ms.set_seed(0)


def test_random_sampler_errors():
    with pytest.raises(TypeError, match="replacement must be a bool"):
        ds.RandomSampler(replacement=1)
    with pytest.raises(TypeError, match="num_samples must be an int"):
        ds.RandomSampler(num_samples=2.0)
    with pytest.raises(ValueError, match="num_samples must be >= 0"):
        ds.RandomSampler(num_samples=-1)


# -- DistributedSampler ------------------------------------------------------------------------
def shard_oracle(n, shards, d):
    """The documented rule: every shard ceil(n / shards) rows, row k of shard d being (k * shards + d) % n."""
    return [(k * shards + d) % n for k in range(-(-n // shards))]


@pytest.mark.parametrize("n, shards", [(10, 3), (9, 3), (5, 4), (2, 3), (8, 1), (1000, 8)])
def test_distributed_sampler_without_shuffle_follows_the_rule(n, shards):
    for d in range(shards):
        sd = sampled(n, ds.DistributedSampler(shards, d, shuffle=False))
        assert rows(sd) == shard_oracle(n, shards, d)
        assert sd.get_dataset_size() == -(-n // shards)


@pytest.mark.parametrize("n, shards", [(23, 3), (40, 4), (7, 2)])
def test_shuffled_shards_are_disjoint_and_cover_the_rows_every_epoch(n, shards):
    ds.config.set_seed(3)
    per = -(-n // shards)
    got = [epochs(sampled(n, ds.DistributedSampler(shards, d)), 2) for d in range(shards)]
    for e in range(2):
        shard_rows = [got[d][e] for d in range(shards)]
        assert all(len(r) == per for r in shard_rows)
        # interleaving the shards back gives the epoch's order: each row once, then the wrapped ones
        order = [shard_rows[k % shards][k // shards] for k in range(per * shards)]
        assert sorted(order[:n]) == list(range(n))
        assert order[n:] == order[:per * shards - n]
    assert got[0][0] != got[0][1]  # a new order every epoch


def test_distributed_sampler_num_samples_caps_each_shard():
    for d in range(3):
        sd = sampled(20, ds.DistributedSampler(3, d, shuffle=False, num_samples=4))
        assert rows(sd) == shard_oracle(20, 3, d)[:4] and sd.get_dataset_size() == 4
    assert sampled(5, ds.DistributedSampler(2, 0, num_samples=10)).get_dataset_size() == 3


@pytest.mark.parametrize("n, shards, offset", [(10, 3, 0), (10, 3, 1), (10, 3, 3), (7, 4, 2), (3, 4, 1)])
def test_distributed_sampler_offset_is_an_uneven_shifted_split(n, shards, offset):
    got = []
    for d in range(shards):
        sd = sampled(n, ds.DistributedSampler(shards, d, shuffle=False, offset=offset))
        r = rows(sd)
        # MindSpore's shard size with an offset: (n + offset) // S, one more below the remainder,
        # one fewer for the shards the offset skips
        size = (n + offset) // shards + (d < (n + offset) % shards) - (d < offset)
        assert len(r) == size == sd.get_dataset_size()
        assert all((p + offset) % shards == d for p in r) and r == sorted(r)
        got.extend(r)
    assert sorted(got) == list(range(n))  # disjoint and covering, nothing wrapped


def test_one_rule_for_the_sampler_and_the_shard_arguments():
    """num_shards/shard_id on a dataset and DistributedSampler give the same rows, epoch by epoch."""
    for seed in (None, 4):
        ds.config.set_seed(seed)
        for d in range(3):
            by_args = ds.NumpySlicesDataset({"i": np.arange(17)}, num_shards=3, shard_id=d, num_samples=5)
            by_sampler = sampled(17, ds.DistributedSampler(3, d, num_samples=5))
            assert epochs(by_args, 3) == epochs(by_sampler, 3)
    # ranks that set no seed still agree: two separately built shards of one epoch cover the rows
    ds.config.set_seed(None)
    halves = [rows(sampled(10, ds.DistributedSampler(2, d))) for d in range(2)]
    assert sorted(halves[0] + halves[1]) == list(range(10))


def test_distributed_sampler_errors():
    with pytest.raises(TypeError, match="num_shards must be an int"):
        ds.DistributedSampler(2.0, 0)
    with pytest.raises(TypeError, match="shard_id must be an int"):
        ds.DistributedSampler(2, "0")
    with pytest.raises(RuntimeError, match="num_shards must be >= 1"):
        ds.DistributedSampler(0, 0)
    with pytest.raises(RuntimeError, match=r"shard_id must be in \[0, num_shards - 1\]"):
        ds.DistributedSampler(2, 2)
    with pytest.raises(RuntimeError, match=r"shard_id must be in"):
        ds.DistributedSampler(2, -1)
    with pytest.raises(TypeError, match="shuffle must be a bool"):
        ds.DistributedSampler(2, 0, shuffle=None)
    with pytest.raises(ValueError, match="num_samples must be >= 0"):
        ds.DistributedSampler(2, 0, num_samples=-1)
    with pytest.raises(TypeError, match="offset must be an int"):
        ds.DistributedSampler(2, 0, offset=0.5)
    with pytest.raises(RuntimeError, match="offset must be -1"):
        ds.DistributedSampler(2, 0, offset=3)
    s = ds.DistributedSampler(4, 1, shuffle=False)
    assert s.set_offset(2) is s and s.offset == 2 and s.is_sharded() and not s.is_shuffled()


# -- SubsetSampler, lists and other iterables --------------------------------------------------
@pytest.mark.parametrize("sampler", [ds.SubsetSampler([7, 2, 2, 5]), [7, 2, 2, 5], (7, 2, 2, 5),
                                     np.array([7, 2, 2, 5])])
def test_subset_sampler_and_index_lists_keep_their_order(sampler):
    d = sampled(8, sampler)
    assert rows(d) == [7, 2, 2, 5] and d.get_dataset_size() == 4
    assert epochs(d, 2) == [[7, 2, 2, 5]] * 2


def test_subset_sampler_num_samples_int_and_errors():
    assert rows(sampled(8, ds.SubsetSampler([7, 2, 5], num_samples=2))) == [7, 2]
    assert ds.SubsetSampler([7, 2, 5], num_samples=2).get_num_samples() == 2
    assert rows(sampled(8, 3)) == [3]  # one int: SubsetSampler([3])
    assert rows(ds.GeneratorDataset(Indexable(9), ["a", "b"], sampler=[4, 1, 8, 0], num_samples=3)) == [4, 1, 8]
    with pytest.raises(RuntimeError, match=r"sample ID \(8\) is out of bound, expected range \[0, 7\]"):
        rows(sampled(8, [1, 8]))
    with pytest.raises(RuntimeError, match="out of bound"):
        rows(sampled(8, ds.SubsetSampler([-1])))
    with pytest.raises(TypeError, match=r"indices must be ints, got indices\[1\] = 2.5"):
        ds.SubsetSampler([1, 2.5])
    with pytest.raises(TypeError, match="indices must be an iterable of ints"):
        ds.SubsetSampler("12")
    with pytest.raises(TypeError, match="unsupported sampler object"):
        sampled(8, "12")
    with pytest.raises(TypeError, match="sampler must be a sampler or an iterable"):
        sampled(8, 2.5)


def test_subset_random_sampler_shuffles_its_indices_every_epoch():
    ds.config.set_seed(1)
    idx = [3, 14, 15, 9, 2, 6, 5, 35, 8, 97]
    d = sampled(100, ds.SubsetRandomSampler(idx))
    got = epochs(d, 3)
    assert all(sorted(e) == sorted(idx) for e in got)
    assert got[0] != got[1] and got[0] != idx
    part = epochs(sampled(100, ds.SubsetRandomSampler(idx, num_samples=4)), 3)
    assert all(sorted(e) == sorted(idx[:4]) for e in part)  # MindSpore keeps the first num_samples indices
    assert len({tuple(e) for e in part}) > 1


# -- WeightedRandomSampler ---------------------------------------------------------------------
def test_weighted_sampler_with_replacement_follows_the_weights():
    ds.config.set_seed(9)
    weights = [1, 2, 3, 4, 0, 10]
    n, k = 6, 3000
    got = np.array([i for e in epochs(sampled(n, ds.WeightedRandomSampler(weights)), k) for i in e])
    assert len(got) == n * k  # num_samples None: as many rows as the source has
    freq = np.bincount(got, minlength=n) / len(got)
    np.testing.assert_allclose(freq, np.array(weights) / sum(weights), atol=0.015)
    assert freq[4] == 0


def test_weighted_sampler_with_fewer_weights_than_rows_draws_only_weighted_rows():
    ds.config.set_seed(9)
    got = [i for e in epochs(sampled(10, ds.WeightedRandomSampler([0.5, 0.5], num_samples=6)), 200) for i in e]
    assert set(got) == {0, 1} and len(got) == 1200
    assert abs(np.mean(got) - 0.5) < 0.05


def test_weighted_sampler_without_replacement():
    ds.config.set_seed(4)
    weights = [0.9, 0.01, 0.4, 0.8, 0.1, 0.1, 0.3]  # MindSpore's documented example
    d = sampled(7, ds.WeightedRandomSampler(weights, 4, replacement=False))
    got = epochs(d, 4000)
    assert d.get_dataset_size() == 4
    assert all(len(e) == 4 and len(set(e)) == 4 for e in got)
    # the first pick of a weighted draw without replacement is row i with probability w_i / sum(w)
    first = np.bincount([e[0] for e in got], minlength=7) / len(got)
    np.testing.assert_allclose(first, np.array(weights) / sum(weights), atol=0.02)
    # the second pick: sum over first picks j of P(j) * w_i / (sum - w_j)
    w = np.array(weights)
    p2 = np.array([sum(w[j] / w.sum() * w[i] / (w.sum() - w[j]) for j in range(7) if j != i) for i in range(7)])
    second = np.bincount([e[1] for e in got], minlength=7) / len(got)
    np.testing.assert_allclose(second, p2, atol=0.02)
    # zero weights come last: with all non-zero rows drawn, the zero-weight row is the remainder
    full = rows(sampled(3, ds.WeightedRandomSampler([1, 0, 1], replacement=False)))
    assert sorted(full[:2]) == [0, 2] and full[2] == 1


def test_weighted_sampler_errors():
    with pytest.raises(TypeError, match=r"weights must be numbers, got weights\[1\] = 'a'"):
        ds.WeightedRandomSampler([1, "a"])
    with pytest.raises(RuntimeError, match="weights is empty"):
        ds.WeightedRandomSampler([])
    with pytest.raises(RuntimeError, match="all zero"):
        ds.WeightedRandomSampler([0, 0.0])
    with pytest.raises(RuntimeError, match="non-negative"):
        ds.WeightedRandomSampler([1, -1])
    with pytest.raises(TypeError, match="replacement must be a bool"):
        ds.WeightedRandomSampler([1], replacement="yes")
    with pytest.raises(ValueError, match="num_samples must be >= 0"):
        ds.WeightedRandomSampler([1], num_samples=-3)
    with pytest.raises(RuntimeError, match="3 weights for a source of 2 rows"):
        rows(sampled(2, ds.WeightedRandomSampler([1, 1, 1])))
    with pytest.raises(RuntimeError, match="without replacement, needs at least num_samples = 3 weights"):
        rows(sampled(5, ds.WeightedRandomSampler([1, 1], num_samples=3, replacement=False)))


# -- PKSampler ---------------------------------------------------------------------------------
def _mnist_labels():
    d = ds.MnistDataset(ds.embedded_mnist_dir(), usage="test", shuffle=False)
    return np.array([int(r[1]) for r in d.create_tuple_iterator(output_numpy=True)])


def test_pk_sampler_takes_k_rows_of_every_class():
    ds.config.set_seed(6)
    d = ds.MnistDataset(ds.embedded_mnist_dir(), usage="test", sampler=ds.PKSampler(3))
    assert d.get_dataset_size() == 30
    labels = [int(r[1]) for r in d.create_tuple_iterator(output_numpy=True)]
    assert labels == [c for c in range(10) for _ in range(3)]
    shuffled = ds.MnistDataset(ds.embedded_mnist_dir(), usage="test", sampler=ds.PKSampler(2, shuffle=True))
    classes = [int(r[1]) for r in shuffled.create_tuple_iterator(output_numpy=True)][::2]
    assert sorted(classes) == list(range(10)) and classes != list(range(10))
    capped = ds.MnistDataset(ds.embedded_mnist_dir(), usage="test", sampler=ds.PKSampler(3, num_samples=7))
    assert capped.get_dataset_size() == 7 == len(list(capped.create_tuple_iterator(num_epochs=1)))


def test_pk_sampler_rows_belong_to_their_class():
    """The rows PK picks (read back by image) have the label of their class block."""
    labels = _mnist_labels()
    images = np.stack([r[0] for r in ds.MnistDataset(ds.embedded_mnist_dir(), usage="test", shuffle=False)
                       .create_tuple_iterator(output_numpy=True)])
    by_image = collections.defaultdict(set)
    for i, img in enumerate(images):
        by_image[img.tobytes()].add(int(labels[i]))
    d = ds.MnistDataset(ds.embedded_mnist_dir(), usage="test", sampler=ds.PKSampler(4))
    for img, lab in d.create_tuple_iterator(output_numpy=True):
        assert int(lab) in by_image[img.tobytes()]


def test_pk_sampler_errors():
    with pytest.raises(TypeError, match="num_val must be an int"):
        ds.PKSampler(2.0)
    with pytest.raises(RuntimeError, match="num_val must be > 0"):
        ds.PKSampler(0)
    with pytest.raises(NotImplementedError, match="num_class"):
        ds.PKSampler(2, num_class=3)
    with pytest.raises(TypeError, match="shuffle must be a bool"):
        ds.PKSampler(2, shuffle="no")
    with pytest.raises(TypeError, match="class_column must be a str"):
        ds.PKSampler(2, class_column=1)
    with pytest.raises(ValueError, match="GeneratorDataset doesn't support PKSampler"):
        ds.GeneratorDataset(Indexable(4), ["a", "b"], sampler=ds.PKSampler(1))
    with pytest.raises(ValueError, match="doesn't support PKSampler"):
        sampled(4, ds.PKSampler(1))


# -- user samplers ---------------------------------------------------------------------------
class ReverseSampler(ds.Sampler):
    """MindSpore's documented example."""

    def __init__(self, num_samples=None):
        super().__init__(num_samples)
        self.resets = 0

    def __iter__(self):
        for i in range(self.dataset_size - 1, -1, -1):
            yield i

    def reset(self):
        self.resets += 1


def test_user_sampler_subclass():
    s = ReverseSampler()
    d = sampled(5, s)
    assert d.get_dataset_size() == 5
    assert epochs(d, 2) == [[4, 3, 2, 1, 0]] * 2
    assert s.dataset_size == 5 and s.resets == 2  # reset after each epoch's indices
    assert rows(sampled(5, ReverseSampler(num_samples=2))) == [4, 3]
    three = ReverseSampler(num_samples=3)
    assert three.get_num_samples() == 0  # dataset_size 0 before a dataset uses it: __iter__ yields nothing
    assert rows(sampled(5, three)) == [4, 3, 2] and three.get_num_samples() == 3  # asking changed nothing
    assert ReverseSampler().get_num_samples() is None


def test_user_sampler_is_capped_at_the_row_count_and_checked():
    class Endless(ds.Sampler):
        def __iter__(self):
            i = 0
            while True:
                yield i % 3
                i += 1

    assert rows(sampled(4, Endless())) == [0, 1, 2, 0]

    class OutOfRange(ds.Sampler):
        def __iter__(self):
            return iter([0, 9])

    with pytest.raises(RuntimeError, match=r"sample ID \(9\) is out of bound"):
        rows(sampled(4, OutOfRange()))

    class NoIter(ds.Sampler):
        pass

    with pytest.raises(NotImplementedError, match="must define __iter__"):
        rows(sampled(4, NoIter()))


def test_plain_iterables_as_samplers():
    class Evens:  # any object with __iter__: iterated anew every epoch
        def __iter__(self):
            return iter(range(0, 10, 2))

    assert epochs(sampled(10, Evens()), 2) == [[0, 2, 4, 6, 8]] * 2
    one_shot = (i for i in [5, 1, 3])  # a generator object is read once and replayed
    assert epochs(sampled(10, one_shot), 2) == [[5, 1, 3]] * 2
    assert rows(ds.GeneratorDataset(Indexable(10), ["a", "b"], sampler=Evens(), num_samples=2)) == [0, 2]


def test_child_samplers():
    # the parent samples positions among the rows its child returns
    parent = ds.SequentialSampler(start_index=1, num_samples=2)
    parent.add_child(ds.SubsetSampler([5, 2, 9, 7]))
    d = sampled(10, parent)
    assert rows(d) == [2, 9] and d.get_dataset_size() == 2
    dist = ds.DistributedSampler(2, 1, shuffle=False)
    dist.add_child(ds.SubsetSampler([5, 2, 9, 7, 4]))
    assert rows(sampled(10, dist)) == [2, 7, 5]  # positions 1, 3, (5 % 5 =) 0 of the child's rows
    # MindSpore's documented example: 3 of the child's 4 random rows
    ds.config.set_seed(2)
    docs = ds.SequentialSampler(start_index=0, num_samples=3)
    docs.add_child(ds.RandomSampler(num_samples=4))
    got = rows(sampled(10, docs))
    assert len(got) == 3 and len(set(got)) == 3
    assert docs.get_child().num_samples == 4
    # get_num_samples: MindSpore's table
    assert docs.get_num_samples() == 3
    only_child = ds.SequentialSampler()
    only_child.add_child(ds.RandomSampler(num_samples=4))
    assert only_child.get_num_samples() == 4
    with pytest.raises(RuntimeError, match="already has a child"):
        docs.add_child(ds.RandomSampler())


# -- argument conflicts ------------------------------------------------------------------------
def test_file_sources_refuse_a_sampler_with_shuffle_sharding_or_num_samples():
    path = ds.embedded_mnist_dir()
    with pytest.raises(RuntimeError, match="sampler and shuffle cannot be specified at the same time"):
        ds.MnistDataset(path, shuffle=False, sampler=ds.SequentialSampler())
    with pytest.raises(RuntimeError, match="sampler and sharding cannot be specified at the same time"):
        ds.MnistDataset(path, sampler=ds.RandomSampler(), num_shards=2, shard_id=0)
    with pytest.raises(RuntimeError, match="sampler and num_samples cannot be specified at the same time"):
        ds.MnistDataset(path, sampler=[1, 2], num_samples=1)


def test_generator_sources_refuse_conflicting_arguments():
    with pytest.raises(ValueError, match="Conflicting arguments during sampler assignments"):
        ds.GeneratorDataset(Indexable(4), ["a", "b"], sampler=ds.RandomSampler(), shuffle=True)
    with pytest.raises(ValueError, match="Conflicting arguments"):
        ds.GeneratorDataset(Indexable(4), ["a", "b"], sampler=ds.SequentialSampler(), num_samples=2)
    with pytest.raises(ValueError, match="Conflicting arguments"):
        ds.NumpySlicesDataset(np.arange(4), sampler=ds.RandomSampler(), num_shards=2, shard_id=0)
    with pytest.raises(ValueError, match="drop shuffle=True and num_shards"):
        ds.GeneratorDataset(Indexable(4), ["a", "b"], sampler=[0, 1], num_shards=2, shard_id=0)
    with pytest.raises(ValueError, match="sampler is not supported if source does not have attribute '__getitem__'"):
        ds.GeneratorDataset(lambda: iter([(1,)]), ["a"], sampler=ds.RandomSampler())


def test_generator_dataset_with_samplers():
    ds.config.set_seed(3)
    d = ds.GeneratorDataset(Indexable(12), ["a", "b"], sampler=ds.RandomSampler())
    got = list(d.create_tuple_iterator(output_numpy=True))
    assert sorted(int(a) for a, _ in got) == list(range(12))
    assert all(int(b) == 10 * int(a) for a, b in got)  # whole rows move together
    shard = ds.GeneratorDataset(Indexable(7), ["a", "b"], sampler=ds.DistributedSampler(2, 1, shuffle=False))
    assert rows(shard) == shard_oracle(7, 2, 1)
    # over another dataset (its rows of one epoch read once)
    over = ds.GeneratorDataset(source(6), ["i"], sampler=ds.SequentialSampler(start_index=4))
    assert rows(over) == [4, 5]


# -- the pipeline around a sampler -------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda: ds.SequentialSampler(2, 9), lambda: ds.RandomSampler(num_samples=13),
    lambda: ds.RandomSampler(True, 7), lambda: ds.DistributedSampler(3, 2),
    lambda: ds.SubsetRandomSampler(range(0, 30, 3)), lambda: ds.WeightedRandomSampler([1] * 20, 11),
    lambda: ReverseSampler(num_samples=8), lambda: [1, 2, 3, 4, 5],
])
def test_dataset_size_agrees_with_the_rows_read(make):
    d = sampled(31, make())
    n = len(rows(d))
    assert d.get_dataset_size() == n
    batched = sampled(31, make()).batch(4)
    assert batched.get_dataset_size() == -(-n // 4) == len(list(batched.create_tuple_iterator(num_epochs=1)))


def test_use_sampler_and_add_sampler():
    d = source(10)
    d.use_sampler(ds.SequentialSampler(start_index=6))
    assert rows(d) == [6, 7, 8, 9] and d.get_dataset_size() == 4
    d.use_sampler(ds.SequentialSampler(start_index=1))
    d.add_sampler(ds.SubsetSampler([3, 1, 0, 2]))  # the current sampler now reads the child's rows
    assert rows(d) == [1, 0, 2] and d.get_dataset_size() == 3


def test_training_on_two_shards_of_mnist_sees_disjoint_halves():
    """The data-parallel recipe: each rank trains on ``MnistDataset(..., sampler=DistributedSampler(2, rank))``;
    in every epoch the two ranks' images are the dataset's images, each exactly once."""
    path = ds.embedded_mnist_dir()
    full = collections.Counter(r[0].tobytes() for r in ds.MnistDataset(path, usage="test", shuffle=False)
                               .create_tuple_iterator(output_numpy=True))
    ds.config.set_seed(21)
    seen = {}
    losses = {}
    for rank in range(2):
        ms.set_seed(1)
        data = ds.MnistDataset(path, usage="test", sampler=ds.DistributedSampler(2, rank))
        assert data.get_dataset_size() == 500
        data = data.map(vision.Rescale(1 / 255, 0), input_columns="image", output_columns="x")
        data = data.map(lambda y: y.astype(np.int32), input_columns="label")
        data = data.project(["x", "label"]).batch(100, drop_remainder=True)
        net = nn.Dense(28 * 28, 10)
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.1, 0.9))
        step.set_train()
        it = data.create_tuple_iterator(num_epochs=2)
        for epoch in range(2):
            images, epoch_losses = [], []
            for x, y in it:
                images.extend((np.rint(x.asnumpy() * 255).astype(np.uint8)).reshape(-1, 28, 28, 1))
                epoch_losses.append(float(step(x.reshape(-1, 28 * 28), y).asnumpy()))
            seen[rank, epoch] = images
            losses[rank, epoch] = epoch_losses
    for epoch in range(2):
        both = collections.Counter(img.tobytes() for rank in range(2) for img in seen[rank, epoch])
        assert both == full
    assert [i.tobytes() for i in seen[0, 0]] != [i.tobytes() for i in seen[0, 1]]  # reshuffled per epoch
    for rank in range(2):
        assert all(np.isfinite(v) for e in range(2) for v in losses[rank, e])
        assert np.mean(losses[rank, 1]) < np.mean(losses[rank, 0])
