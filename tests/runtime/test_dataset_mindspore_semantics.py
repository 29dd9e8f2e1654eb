"""``runtime.dataset`` against MindSpore 2.x's documented dataset API, used as MindSpore programs
use it (``import runtime.dataset as ds``, ``runtime.dataset.vision``, ``runtime.dataset.transforms``).

Every oracle is computed independently with numpy from the documented behaviour: the MNIST IDX
bytes read with gzip + numpy, CIFAR-10 records laid out by hand, the Rescale / Normalize /
ToTensor formulas, transpositions, batch counts, one-hot rows.
"""
import gzip
import io
import math
import os

import numpy as np
import pytest

import runtime as ms
import runtime.dataset as ds
import runtime.dataset.transforms as transforms
import runtime.dataset.vision as vision

SHARED_MNIST = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data", "mnist"))


@pytest.fixture
def mnist_dir():
    if not os.path.isdir(SHARED_MNIST):
        pytest.skip(f"the full MNIST set is not at {SHARED_MNIST} (../shared/data/mnist beside the repository)")
    return SHARED_MNIST


@pytest.fixture(autouse=True)
def _dataset_seed():
    """Tests that seed the pipeline leave no seed behind."""
    yield
    ds.config.set_seed(None)


def read_idx(path):
    """An IDX file as numpy: big-endian header (magic, dims), then the unsigned bytes."""
    raw = gzip.open(path).read() if path.endswith(".gz") else open(path, "rb").read()
    ndim = raw[3]
    dims = np.frombuffer(raw[4:4 + 4 * ndim], dtype=">u4").astype(int)
    return np.frombuffer(raw[4 + 4 * ndim:], np.uint8).reshape(dims)


def mnist_split(folder, prefix):
    def find(name):
        for cand in (name, name + ".gz"):
            if os.path.exists(os.path.join(folder, cand)):
                return os.path.join(folder, cand)
        raise FileNotFoundError(name)
    return (read_idx(find(f"{prefix}-images-idx3-ubyte")), read_idx(find(f"{prefix}-labels-idx1-ubyte")))


def numpy_rows(dataset, columns=None):
    return list(dataset.create_tuple_iterator(columns=columns, num_epochs=1, output_numpy=True))


# ------------------------------------------------------------------------------------------------
# MnistDataset
# ------------------------------------------------------------------------------------------------
def test_mnist_rows_equal_the_idx_bytes(mnist_dir):
    train_x, train_y = mnist_split(mnist_dir, "train")
    test_x, test_y = mnist_split(mnist_dir, "t10k")
    train = ds.MnistDataset(mnist_dir, usage="train", shuffle=False)
    test = ds.MnistDataset(mnist_dir, usage="test", shuffle=False)
    assert train.get_dataset_size() == 60000 and test.get_dataset_size() == 10000
    assert train.get_col_names() == ["image", "label"]
    for dset, xs, ys in ((train, train_x, train_y), (test, test_x, test_y)):
        rows = numpy_rows(dset.take(5))
        for i, (img, lab) in enumerate(rows):
            assert img.shape == (28, 28, 1) and img.dtype == np.uint8  # HWC, one channel
            assert lab.shape == () and lab.dtype == np.uint32
            np.testing.assert_array_equal(img[..., 0], xs[i])
            assert int(lab) == int(ys[i])
    assert train.output_shapes() == [[28, 28, 1], []]
    assert train.output_types() == [np.dtype(np.uint8), np.dtype(np.uint32)]
    # a whole epoch, batched: every byte of the test files
    imgs, labs = zip(*numpy_rows(test.batch(2500)))
    np.testing.assert_array_equal(np.concatenate(imgs)[..., 0], test_x)
    np.testing.assert_array_equal(np.concatenate(labs), test_y)


def test_mnist_usage_all_and_none_read_t10k_files_first(mnist_dir):
    """MindSpore lists the folder's files and sorts them by name: t10k-* before train-*."""
    test_x, test_y = mnist_split(mnist_dir, "t10k")
    train_x, train_y = mnist_split(mnist_dir, "train")
    for usage in ("all", None):
        d = ds.MnistDataset(mnist_dir, usage=usage, shuffle=False)
        assert d.get_dataset_size() == 70000
        (img0, lab0), = numpy_rows(d.take(1))
        np.testing.assert_array_equal(img0[..., 0], test_x[0])
        assert int(lab0) == int(test_y[0])
        (img1, lab1), = numpy_rows(d.skip(10000).take(1))
        np.testing.assert_array_equal(img1[..., 0], train_x[0])
        assert int(lab1) == int(train_y[0])


def test_mnist_usage_all_on_a_folder_with_only_train_files(tmp_path, rng):
    """As in MindSpore (the quick start's MNIST_Data/train folder), "all" reads what is there."""
    images = rng.integers(0, 256, size=(4, 28, 28), dtype=np.uint8)
    labels = np.array([3, 1, 4, 1], np.uint8)
    for name, arr, magic in (("train-images-idx3-ubyte", images, 2051), ("train-labels-idx1-ubyte", labels, 2049)):
        header = magic.to_bytes(4, "big") + b"".join(int(d).to_bytes(4, "big") for d in arr.shape)
        (tmp_path / name).write_bytes(header + arr.tobytes())
    for usage in ("all", None, "train"):
        got = [int(lab) for _, lab in numpy_rows(ds.MnistDataset(str(tmp_path), usage=usage, shuffle=False))]
        assert got == [3, 1, 4, 1]
    with pytest.raises(ValueError):
        ds.MnistDataset(str(tmp_path), usage="test")


def test_mnist_num_samples_and_default_shuffle(mnist_dir):
    test_x, test_y = mnist_split(mnist_dir, "t10k")
    d = ds.MnistDataset(mnist_dir, usage="test", num_samples=300, shuffle=False)
    assert d.get_dataset_size() == 300
    assert [int(l) for _, l in numpy_rows(d)] == test_y[:300].tolist()
    # shuffle=None (the default) on a mappable source: a random order, reproducible with a seed
    ds.config.set_seed(7)
    a = numpy_rows(ds.MnistDataset(mnist_dir, usage="test", num_samples=300))
    ds.config.set_seed(7)
    b = numpy_rows(ds.MnistDataset(mnist_dir, usage="test", num_samples=300))
    assert len(a) == 300
    assert [int(l) for _, l in a] == [int(l) for _, l in b]
    # not the file order, and each image still travels with its own label
    flat = test_x.reshape(10000, -1)
    index = {flat[i].tobytes(): i for i in range(10000)}
    positions = [index[img.tobytes()] for img, _ in a]
    assert positions != list(range(300))
    assert all(int(lab) == int(test_y[p]) for (_, lab), p in zip(a, positions))


def test_mnist_iterator_yields_tensors(mnist_dir):
    img, lab = next(ds.MnistDataset(mnist_dir, usage="test", shuffle=False).create_tuple_iterator())
    assert isinstance(img, ms.Tensor) and isinstance(lab, ms.Tensor)
    assert tuple(img.shape) == (28, 28, 1) and img.dtype == ms.uint8
    assert tuple(lab.shape) == () and int(lab.asnumpy()) == 7  # the first test digit is a 7


@pytest.mark.xfail(strict=True, reason="MindSpore gives the MNIST label as a UInt32 Tensor; this framework has no "
                   "uint32 dtype (graph/dtypes.py maps numpy uint32 to Int64), so the Tensor is Int64. "
                   "output_numpy=True gives the documented uint32.")
def test_mnist_label_tensor_is_uint32(mnist_dir):
    _, lab = next(ds.MnistDataset(mnist_dir, usage="test", shuffle=False).create_tuple_iterator())
    assert str(lab.dtype) == "UInt32"


def test_quick_start_pipeline(mnist_dir):
    """The quick-start datapipe: Rescale(1/255, 0), Normalize((0.1307,), (0.3081,)), HWC2CHW,
    TypeCast(int32) on the label, batch(64)."""
    test_x, test_y = mnist_split(mnist_dir, "t10k")

    def datapipe(batch_size, drop_remainder=False):
        d = ds.MnistDataset(mnist_dir, usage="test", shuffle=False)
        image_transforms = [vision.Rescale(1.0 / 255.0, 0), vision.Normalize(mean=(0.1307,), std=(0.3081,)),
                            vision.HWC2CHW()]
        d = d.map(image_transforms, "image")
        d = d.map(transforms.TypeCast(ms.int32), "label")
        return d.batch(batch_size, drop_remainder=drop_remainder)

    d = datapipe(64)
    assert d.get_dataset_size() == math.ceil(10000 / 64) == 157
    assert datapipe(64, drop_remainder=True).get_dataset_size() == 10000 // 64 == 156
    assert d.get_col_names() == ["image", "label"]
    assert d.output_shapes() == [[64, 1, 28, 28], [64]]
    assert d.output_types() == [np.dtype(np.float32), np.dtype(np.int32)]
    x, y = next(d.create_tuple_iterator())
    assert isinstance(x, ms.Tensor) and x.dtype == ms.float32 and tuple(x.shape) == (64, 1, 28, 28)
    assert isinstance(y, ms.Tensor) and y.dtype == ms.int32 and tuple(y.shape) == (64,)
    expect = ((test_x[:64].astype(np.float64) / 255.0 - 0.1307) / 0.3081)[:, None]
    np.testing.assert_allclose(x.asnumpy(), expect, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(y.asnumpy(), test_y[:64].astype(np.int32))
    sizes = [b["label"].shape[0] for b in d.create_dict_iterator(num_epochs=1, output_numpy=True)]
    assert sizes == [64] * 156 + [10000 - 156 * 64]
    assert [b[1].shape[0] for b in numpy_rows(datapipe(64, True))] == [64] * 156


# ------------------------------------------------------------------------------------------------
# Cifar10Dataset and ImageFolderDataset
# ------------------------------------------------------------------------------------------------
def write_cifar_records(path, images_hwc, labels):
    """The CIFAR-10 binary layout by hand: a label byte, then 1024 R, 1024 G, 1024 B bytes."""
    with open(path, "wb") as f:
        for img, lab in zip(images_hwc, labels):
            f.write(bytes([int(lab)]))
            for c in range(3):
                f.write(img[:, :, c].tobytes())


def test_cifar10(tmp_path, rng):
    train = rng.integers(0, 256, size=(5, 4, 32, 32, 3), dtype=np.uint8)
    train_labels = rng.integers(0, 10, size=(5, 4))
    test = rng.integers(0, 256, size=(3, 32, 32, 3), dtype=np.uint8)
    test_labels = [9, 0, 5]
    for i in range(5):
        write_cifar_records(str(tmp_path / f"data_batch_{i + 1}.bin"), train[i], train_labels[i])
    write_cifar_records(str(tmp_path / "test_batch.bin"), test, test_labels)
    d = ds.Cifar10Dataset(str(tmp_path), usage="test", shuffle=False)
    assert d.get_col_names() == ["image", "label"] and d.get_dataset_size() == 3
    rows = numpy_rows(d)
    for (img, lab), ref, ref_lab in zip(rows, test, test_labels):
        assert img.shape == (32, 32, 3) and img.dtype == np.uint8 and lab.dtype == np.uint32
        np.testing.assert_array_equal(img, ref)
        assert int(lab) == ref_lab
    tr = ds.Cifar10Dataset(str(tmp_path), usage="train", shuffle=False)
    assert tr.get_dataset_size() == 20
    np.testing.assert_array_equal(np.stack([r[0] for r in numpy_rows(tr)]), train.reshape(20, 32, 32, 3))
    assert [int(r[1]) for r in numpy_rows(tr)] == train_labels.reshape(-1).tolist()
    # "all": data_batch_* then test_batch (sorted file names)
    labels_all = [int(r[1]) for r in numpy_rows(ds.Cifar10Dataset(str(tmp_path), usage="all", shuffle=False))]
    assert labels_all == train_labels.reshape(-1).tolist() + test_labels
    assert ds.Cifar10Dataset(str(tmp_path)).get_dataset_size() == 23


def test_image_folder(tmp_path):
    PIL = pytest.importorskip("PIL.Image")
    rng = np.random.default_rng(1)
    made = {}
    for cls in ("dog", "cat", "bird"):
        os.makedirs(tmp_path / cls)
        for k in range(2):
            arr = rng.integers(0, 256, size=(5, 7, 3), dtype=np.uint8)
            path = tmp_path / cls / f"{k}.png"
            PIL.fromarray(arr).save(path)
            made[(cls, k)] = (arr, path.read_bytes())
    d = ds.ImageFolderDataset(str(tmp_path), shuffle=False)
    assert d.get_col_names() == ["image", "label"] and d.get_dataset_size() == 6
    # classes: folder names in alphabetical order -> 0, 1, 2
    assert d.get_class_indexing() == {"bird": 0, "cat": 1, "dog": 2}
    rows = numpy_rows(d)
    expect = [(cls, k) for cls in ("bird", "cat", "dog") for k in range(2)]
    for (img, lab), key in zip(rows, expect):
        assert img.dtype == np.uint8 and img.ndim == 1  # the undecoded file bytes
        assert img.tobytes() == made[key][1]
        assert int(lab) == ["bird", "cat", "dog"].index(key[0])
    decoded = ds.ImageFolderDataset(str(tmp_path), shuffle=False).map(vision.Decode(), "image")
    for (img, _), key in zip(numpy_rows(decoded), expect):
        np.testing.assert_array_equal(img, made[key][0])
    direct = ds.ImageFolderDataset(str(tmp_path), shuffle=False, decode=True)
    np.testing.assert_array_equal(numpy_rows(direct)[0][0], made[("bird", 0)][0])
    custom = ds.ImageFolderDataset(str(tmp_path), shuffle=False, class_indexing={"bird": 5, "cat": 6, "dog": 7})
    assert [int(r[1]) for r in numpy_rows(custom)] == [5, 5, 6, 6, 7, 7]


# ------------------------------------------------------------------------------------------------
# NumpySlicesDataset and GeneratorDataset
# ------------------------------------------------------------------------------------------------
def test_numpy_slices_data_forms():
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    y = np.arange(6)
    d = ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False)
    assert d.get_col_names() == ["x", "y"] and d.get_dataset_size() == 6
    rows = numpy_rows(d)
    np.testing.assert_array_equal(np.stack([r[0] for r in rows]), x)
    assert [int(r[1]) for r in rows] == y.tolist()
    t = ds.NumpySlicesDataset((x, y), column_names=["a", "b"], shuffle=False)
    assert t.get_col_names() == ["a", "b"]
    np.testing.assert_array_equal(numpy_rows(t)[3][0], x[3])
    one = ds.NumpySlicesDataset([1, 2, 3], shuffle=False)
    assert one.get_col_names() == ["column_0"]
    assert [int(r[0]) for r in numpy_rows(one)] == [1, 2, 3]
    nested = ds.NumpySlicesDataset([[1, 2], [3, 4]], column_names=["v"], shuffle=False)
    assert [r[0].tolist() for r in numpy_rows(nested)] == [[1, 2], [3, 4]]
    # shuffle=None shuffles (a random-access source), reproducibly under a seed
    ds.config.set_seed(3)
    a = [int(r[0]) for r in numpy_rows(ds.NumpySlicesDataset(list(range(50))))]
    ds.config.set_seed(3)
    b = [int(r[0]) for r in numpy_rows(ds.NumpySlicesDataset(list(range(50))))]
    assert a == b and sorted(a) == list(range(50)) and a != list(range(50))
    with pytest.raises(ValueError):
        ds.NumpySlicesDataset({"a": [1, 2], "b": [1, 2, 3]})


def test_generator_sources():
    def gen():
        for i in range(7):
            yield np.full((2, 3), i, np.float32), np.array(i * 10)

    g = ds.GeneratorDataset(gen, column_names=["data", "label"])
    assert g.get_col_names() == ["data", "label"] and g.get_dataset_size() == 7
    rows = numpy_rows(g)
    assert [int(r[1]) for r in rows] == [i * 10 for i in range(7)]  # an iterable keeps its order
    assert rows[4][0].shape == (2, 3) and rows[4][0].dtype == np.float32 and float(rows[4][0][0, 0]) == 4
    # the generator function is called again for each epoch
    it = g.create_tuple_iterator(num_epochs=2, output_numpy=True)
    assert [[int(r[1]) for r in it] for _ in range(2)] == [[i * 10 for i in range(7)]] * 2

    class Iterable:
        def __iter__(self):
            return iter([(np.array([i, -i]),) for i in range(4)])

    assert [r[0].tolist() for r in numpy_rows(ds.GeneratorDataset(Iterable(), ["v"]))] == [[0, 0], [1, -1], [2, -2],
                                                                                             [3, -3]]
    with pytest.raises(ValueError):
        ds.GeneratorDataset(Iterable(), ["v"], shuffle=True)  # shuffle needs a random-access source

    class RandomAccess:
        def __getitem__(self, i):
            return np.array([i, i * i], np.int32), np.array(i % 3)

        def __len__(self):
            return 20

    ordered = ds.GeneratorDataset(RandomAccess(), ["x", "y"], shuffle=False)
    assert [r[0].tolist() for r in numpy_rows(ordered)] == [[i, i * i] for i in range(20)]
    ds.config.set_seed(11)
    shuffled = [int(r[0][0]) for r in numpy_rows(ds.GeneratorDataset(RandomAccess(), ["x", "y"]))]
    assert sorted(shuffled) == list(range(20)) and shuffled != list(range(20))  # shuffle=None shuffles
    assert ds.GeneratorDataset(RandomAccess(), ["x", "y"], num_samples=5).get_dataset_size() == 5
    par = ds.GeneratorDataset(RandomAccess(), ["x", "y"], shuffle=False, num_parallel_workers=3)
    assert [r[0].tolist() for r in numpy_rows(par)] == [[i, i * i] for i in range(20)]
    # the doc example: a list of ints, one column named by a string
    lst = ds.GeneratorDataset([i for i in range(10)], "column1", shuffle=False)
    assert lst.get_col_names() == ["column1"]
    row = next(lst.create_tuple_iterator())
    assert isinstance(row, list) and isinstance(row[0], ms.Tensor) and int(row[0].asnumpy()) == 0


# ------------------------------------------------------------------------------------------------
# map / batch / shuffle / repeat / take / skip / split / project / rename / zip / concat
# ------------------------------------------------------------------------------------------------
def test_map_columns_and_workers():
    x = np.arange(40, dtype=np.int64)
    d = ds.NumpySlicesDataset({"a": x, "b": x * 2}, shuffle=False)
    out = numpy_rows(d.map(lambda v: v + 100, input_columns="a"))
    assert [int(r[0]) for r in out] == (x + 100).tolist() and [int(r[1]) for r in out] == (x * 2).tolist()
    # two inputs -> one output column, named by output_columns
    summed = d.map(lambda a, b: a + b, input_columns=["a", "b"], output_columns=["s"])
    assert summed.get_col_names() == ["s"]
    assert [int(r[0]) for r in numpy_rows(summed)] == (3 * x).tolist()
    # one input -> two outputs
    split = d.map(lambda a: (a, -a), input_columns="a", output_columns=["p", "n"])
    assert split.get_col_names() == ["p", "n", "b"]
    assert [int(r[1]) for r in numpy_rows(split)] == (-x).tolist()
    # operations apply in order; input_columns=None takes the first column
    chained = d.map([lambda v: v * 3, lambda v: v - 1])
    assert [int(r[0]) for r in numpy_rows(chained)] == (x * 3 - 1).tolist()
    for workers in (1, 2, 4):
        got = numpy_rows(d.map(lambda v: v ** 2, input_columns="b", num_parallel_workers=workers))
        assert [int(r[1]) for r in got] == ((x * 2) ** 2).tolist()
    with pytest.raises(ValueError):
        d.map(lambda v: v, input_columns="missing")


def test_batch_shapes_drop_remainder_and_size():
    imgs = np.arange(10 * 4 * 4 * 3, dtype=np.uint8).reshape(10, 4, 4, 3)
    d = ds.NumpySlicesDataset({"image": imgs, "label": np.arange(10, dtype=np.int32)}, shuffle=False)
    for bs in (1, 3, 4, 10, 11):
        for drop in (False, True):
            b = d.batch(bs, drop_remainder=drop)
            n = 10 // bs if drop else math.ceil(10 / bs)
            assert b.get_dataset_size() == n
            rows = numpy_rows(b)
            assert len(rows) == n
            sizes = [r[0].shape[0] for r in rows]
            full = [bs] * (10 // bs)
            assert sizes == (full if drop or 10 % bs == 0 else full + [10 % bs])
            if rows:
                np.testing.assert_array_equal(rows[0][0], imgs[:bs])
                assert rows[0][1].shape == (min(bs, 10),) and rows[0][1].dtype == np.int32
    assert d.batch(3).get_batch_size() == 3
    ragged = ds.GeneratorDataset(lambda: iter([(np.zeros(2),), (np.zeros(3),)]), ["v"]).batch(2)
    with pytest.raises(ValueError):  # batch needs equal shapes within a column
        numpy_rows(ragged)
    with pytest.raises(ValueError):
        d.batch(0)


def test_shuffle_buffer_repeat_take_skip():
    d = ds.NumpySlicesDataset(list(range(100)), shuffle=False)
    ds.config.set_seed(5)
    it = d.shuffle(buffer_size=10).create_tuple_iterator(num_epochs=2, output_numpy=True)
    e1 = [int(r[0]) for r in it]
    e2 = [int(r[0]) for r in it]
    assert sorted(e1) == sorted(e2) == list(range(100))
    assert e1 != list(range(100)) and e1 != e2  # a new order each epoch
    # a buffer of 10 rows: row k can only come out after rows up to k - 9 have entered the buffer
    assert all(pos >= v - 9 for pos, v in enumerate(e1))
    ds.config.set_seed(5)
    assert [int(r[0]) for r in numpy_rows(d.shuffle(10))] == e1  # the seed makes it reproducible
    with pytest.raises(ValueError):
        d.shuffle(1)
    r = d.take(5).repeat(3)
    assert r.get_dataset_size() == 15
    assert [int(x[0]) for x in numpy_rows(r)] == list(range(5)) * 3
    assert [int(x[0]) for x in numpy_rows(d.skip(97))] == [97, 98, 99]
    assert d.skip(97).get_dataset_size() == 3 and d.take(500).get_dataset_size() == 100
    assert [int(x[0]) for x in numpy_rows(d.skip(2).take(3))] == [2, 3, 4]
    # batch then repeat: get_dataset_size counts batches of all repeats
    assert d.batch(32).repeat(2).get_dataset_size() == 2 * 4


def test_split_project_rename_zip_concat():
    d = ds.NumpySlicesDataset({"a": np.arange(10), "b": np.arange(10) * 10}, shuffle=False)
    first, second = d.split([7, 3], randomize=False)
    assert [int(r[0]) for r in numpy_rows(first)] == list(range(7))
    assert [int(r[0]) for r in numpy_rows(second)] == [7, 8, 9]
    p, q = d.split([0.8, 0.2], randomize=False)
    assert (p.get_dataset_size(), q.get_dataset_size()) == (8, 2)
    ds.config.set_seed(2)
    r1, r2 = d.split([5, 5])
    got = sorted(int(r[0]) for r in numpy_rows(r1) + numpy_rows(r2))
    assert got == list(range(10))
    with pytest.raises(ValueError):
        d.split([4, 4])
    assert d.project(["b"]).get_col_names() == ["b"]
    assert [int(r[0]) for r in numpy_rows(d.project(["b", "a"]))] == list(range(0, 100, 10))
    rn = d.rename(input_columns=["a"], output_columns=["x"])
    assert rn.get_col_names() == ["x", "b"]
    other = ds.NumpySlicesDataset({"c": np.arange(4) + 50}, shuffle=False)
    for z in (d.zip(other), ds.zip((d, other))):
        assert z.get_col_names() == ["a", "b", "c"] and z.get_dataset_size() == 4  # the shortest
        assert [(int(r[0]), int(r[2])) for r in numpy_rows(z)] == [(i, 50 + i) for i in range(4)]
    with pytest.raises(ValueError):
        d.zip(d)  # repeated column names
    c = d.concat(d.take(2))
    assert c.get_dataset_size() == 12
    assert [int(r[0]) for r in numpy_rows(c)] == list(range(10)) + [0, 1]
    assert [int(r[0]) for r in numpy_rows(d.take(1) + d.take(1))] == [0, 0]


def test_output_shapes_estimate():
    def gen():
        for i in range(1, 5):
            yield np.ones((16, i, 3)), np.array([i])

    g = ds.GeneratorDataset(gen, ["data1", "data2"])
    assert g.output_shapes() == [[16, 1, 3], [1]]  # the first row
    assert g.output_shapes(estimate=True) == [[16, None, 3], [1]]  # varying dimensions are None
    assert g.output_types() == [np.dtype(np.float64), np.dtype(np.int64)]


# ------------------------------------------------------------------------------------------------
# iterators
# ------------------------------------------------------------------------------------------------
def test_iterators():
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    d = ds.NumpySlicesDataset({"x": x, "y": np.array([4, 5, 6], np.int32)}, shuffle=False)
    row = next(d.create_tuple_iterator())
    assert isinstance(row, list) and all(isinstance(v, ms.Tensor) for v in row)
    assert row[0].dtype == ms.float32 and row[1].dtype == ms.int32
    np.testing.assert_array_equal(row[0].asnumpy(), x[0])
    row_np = next(d.create_tuple_iterator(output_numpy=True))
    assert all(isinstance(v, np.ndarray) for v in row_np)
    swapped = next(d.create_tuple_iterator(columns=["y", "x"], output_numpy=True))
    assert int(swapped[0]) == 4 and swapped[1].tolist() == [0.0, 1.0]
    item = next(d.create_dict_iterator())
    assert set(item) == {"x", "y"} and isinstance(item["x"], ms.Tensor)
    item_np = next(d.create_dict_iterator(num_epochs=1, output_numpy=True))
    assert isinstance(item_np["y"], np.ndarray) and item_np["y"].dtype == np.int32
    # num_epochs bounds the epochs one iterator gives; a loop over a fresh iterator is one epoch
    it = d.create_dict_iterator(num_epochs=3, output_numpy=True)
    epochs = [[int(r["y"]) for r in it] for _ in range(4)]
    assert epochs == [[4, 5, 6]] * 3 + [[]]
    for _ in range(2):
        assert [int(r[1].asnumpy()) for r in d.create_tuple_iterator()] == [4, 5, 6]
    # iterating the dataset itself: lists of Tensors
    assert [int(r[1].asnumpy()) for r in d] == [4, 5, 6]
    with pytest.raises(ValueError):
        d.create_tuple_iterator(columns=["nope"])


def test_seed_makes_shuffles_and_augmentations_reproducible():
    imgs = np.random.default_rng(0).integers(0, 256, size=(40, 8, 8, 3), dtype=np.uint8)

    def run(seed):
        ds.config.set_seed(seed)
        d = ds.NumpySlicesDataset({"image": imgs, "idx": np.arange(40)})
        d = d.map([vision.RandomCrop(6), vision.RandomHorizontalFlip()], "image").shuffle(8).batch(8)
        return [(b[0].copy(), b[1].copy()) for b in numpy_rows(d)]

    a, b, c = run(1), run(1), run(2)
    assert all(np.array_equal(x[0], y[0]) and np.array_equal(x[1], y[1]) for x, y in zip(a, b))
    assert not all(np.array_equal(x[1], y[1]) for x, y in zip(a, c))
    assert ds.config.get_seed() == 2


# ------------------------------------------------------------------------------------------------
# vision transforms
# ------------------------------------------------------------------------------------------------
def test_rescale_and_normalize_formulas(rng):
    img = rng.integers(0, 256, size=(5, 6, 3), dtype=np.uint8)
    r = vision.Rescale(1.0 / 255, 0)(img)
    assert r.dtype == np.float32 and r.shape == img.shape
    np.testing.assert_allclose(r, img / 255.0, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(vision.Rescale(2.0, -3.0)(img), img * 2.0 - 3.0, rtol=1e-6)
    mean, std = [121.0, 115.0, 100.0], [70.0, 68.0, 71.0]  # the doc example's values
    n = vision.Normalize(mean=mean, std=std, is_hwc=True)(img)
    assert n.dtype == np.float32
    np.testing.assert_allclose(n, (img - np.array(mean)) / np.array(std), rtol=1e-5, atol=1e-6)
    chw = np.ascontiguousarray(img.transpose(2, 0, 1))
    n_chw = vision.Normalize(mean=mean, std=std, is_hwc=False)(chw)
    np.testing.assert_allclose(n_chw, ((img - np.array(mean)) / np.array(std)).transpose(2, 0, 1), rtol=1e-5,
                               atol=1e-6)
    # after Rescale, as the quick start does
    q = vision.Normalize(mean=(0.1307,), std=(0.3081,))(vision.Rescale(1 / 255.0, 0)(img[..., :1]))
    np.testing.assert_allclose(q, (img[..., :1] / 255.0 - 0.1307) / 0.3081, rtol=1e-5, atol=1e-5)
    # in a pipeline (a stack of rows at once) the result is the same
    d = ds.NumpySlicesDataset({"image": np.stack([img, img[::-1]])}, shuffle=False)
    got = numpy_rows(d.map([vision.Rescale(1 / 255.0, 0), vision.Normalize([0.5] * 3, [0.25] * 3)], "image"))
    np.testing.assert_allclose(got[1][0], (img[::-1] / 255.0 - 0.5) / 0.25, rtol=1e-5, atol=1e-5)
    # documented errors: mean in [0, 255], std in (0, 255], equal lengths, is_hwc a bool
    for bad_mean, bad_std in (([-1.0], [1.0]), ([256.0], [1.0]), ([0.5], [0.0]), ([0.5], [300.0])):
        with pytest.raises(ValueError):
            vision.Normalize(bad_mean, bad_std)
    with pytest.raises(ValueError):
        vision.Normalize([0.5, 0.5], [0.2])
    with pytest.raises(TypeError):
        vision.Normalize([0.5], [0.2], is_hwc=1)


def test_hwc2chw_and_totensor(rng):
    img = rng.integers(0, 256, size=(4, 5, 3), dtype=np.uint8)
    out = vision.HWC2CHW()(img)
    assert out.shape == (3, 4, 5) and out.dtype == np.uint8
    for c in range(3):
        np.testing.assert_array_equal(out[c], img[:, :, c])
    assert vision.HWC2CHW()(img[..., 0]).shape == (4, 5)  # <H, W> is returned unchanged
    t = vision.ToTensor()(img)
    assert t.shape == (3, 4, 5) and t.dtype == np.float32
    np.testing.assert_allclose(t, img.transpose(2, 0, 1) / 255.0, rtol=1e-6)
    assert vision.ToTensor(output_type=np.float64)(img).dtype == np.float64
    assert vision.ToTensor()(img[..., 0]).shape == (1, 4, 5)  # <H, W> gains a channel axis


def test_resize_crop_flip(rng):
    img = rng.uniform(0, 1, size=(8, 12, 3)).astype(np.float32)
    # bilinear with half-pixel centres: halving each side averages 2x2 blocks exactly
    half = vision.Resize((4, 6))(img)
    np.testing.assert_allclose(half, img.reshape(4, 2, 6, 2, 3).mean(axis=(1, 3)), rtol=1e-5, atol=1e-6)
    # an int size resizes the shorter side, keeping the aspect ratio
    assert vision.Resize(4)(img).shape == (4, 6, 3)
    assert vision.Resize(4)(img.transpose(1, 0, 2)).shape == (6, 4, 3)
    nearest = vision.Resize((4, 6), vision.Inter.NEAREST)(img)
    np.testing.assert_array_equal(nearest, img[::2, ::2])
    u8 = rng.integers(0, 256, size=(7, 9, 1), dtype=np.uint8)
    c = vision.CenterCrop((3, 4))(u8)
    np.testing.assert_array_equal(c, u8[2:5, 2:6])  # top = (7 - 3) // 2, left = (9 - 4) // 2
    np.testing.assert_array_equal(vision.CenterCrop(5)(u8), u8[1:6, 2:7])
    crop = vision.RandomCrop((4, 5))(u8)
    assert crop.shape == (4, 5, 1) and crop.dtype == np.uint8
    windows = [u8[i:i + 4, j:j + 5] for i in range(4) for j in range(5)]
    assert any(np.array_equal(crop, w) for w in windows)  # some window of the image
    padded = vision.RandomCrop(9, padding=1)(u8[:, :8])
    assert padded.shape == (9, 9, 1)
    np.testing.assert_array_equal(vision.RandomHorizontalFlip(prob=1.0)(u8), u8[:, ::-1])
    np.testing.assert_array_equal(vision.RandomHorizontalFlip(prob=0.0)(u8), u8)
    with pytest.raises(ValueError):
        vision.RandomHorizontalFlip(prob=1.5)


def test_decode(rng):
    PIL = pytest.importorskip("PIL.Image")
    arr = rng.integers(0, 256, size=(6, 5, 3), dtype=np.uint8)
    buf = io.BytesIO()
    PIL.fromarray(arr).save(buf, format="PNG")
    encoded = np.frombuffer(buf.getvalue(), np.uint8)
    out = vision.Decode()(encoded)
    assert out.shape == (6, 5, 3) and out.dtype == np.uint8
    np.testing.assert_array_equal(out, arr)
    d = ds.NumpySlicesDataset({"image": [encoded, encoded]}, shuffle=False)
    got = numpy_rows(d.map([vision.Decode(), vision.HWC2CHW()], "image"))
    np.testing.assert_array_equal(got[1][0], arr.transpose(2, 0, 1))


# ------------------------------------------------------------------------------------------------
# transforms: TypeCast, OneHot, Compose
# ------------------------------------------------------------------------------------------------
def test_typecast():
    lab = np.array(7, np.uint32)
    out = transforms.TypeCast(ms.int32)(lab)
    assert out.dtype == np.int32 and int(out) == 7
    assert transforms.TypeCast(ms.float32)(np.array([1, 2])).dtype == np.float32
    assert transforms.TypeCast(np.float16)(np.array([1.5])).tolist() == [1.5]
    d = ds.NumpySlicesDataset({"label": np.array([1, 2, 3], np.uint32)}, shuffle=False)
    t = next(d.map(transforms.TypeCast(ms.int32), "label").create_tuple_iterator())[0]
    assert t.dtype == ms.int32 and int(t.asnumpy()) == 1
    fl = next(d.map(transforms.TypeCast(ms.float32), "label").batch(3).create_tuple_iterator())[0]
    assert fl.dtype == ms.float32 and fl.asnumpy().tolist() == [1.0, 2.0, 3.0]


def test_onehot():
    labels = np.array([1, 2, 3, 4, 5, 6, 7, 8])
    d = ds.NumpySlicesDataset(labels, ["label"], shuffle=False).map(transforms.OneHot(num_classes=10), ["label"])
    rows = numpy_rows(d)
    assert rows[0][0].shape == (10,) and rows[0][0].dtype == np.int64  # the documented example
    np.testing.assert_array_equal(np.stack([r[0] for r in rows]), np.eye(10, dtype=np.int64)[labels])
    eager = transforms.OneHot(num_classes=5, smoothing_rate=0)(np.array([1, 2, 3]))
    assert eager.shape == (3, 5) and eager.dtype == np.int64
    np.testing.assert_array_equal(eager, np.eye(5)[[1, 2, 3]])
    smooth = transforms.OneHot(num_classes=4, smoothing_rate=0.2)(np.array(2))
    np.testing.assert_allclose(smooth, np.eye(4)[2] * (1 - 0.2) + 0.2 / 4, rtol=1e-6)
    with pytest.raises(TypeError):
        transforms.OneHot(num_classes=2.5)
    with pytest.raises(ValueError):
        transforms.OneHot(num_classes=3, smoothing_rate=1.5)


def test_compose(rng):
    img = rng.integers(0, 256, size=(6, 6, 3), dtype=np.uint8)
    ops = [vision.Rescale(1 / 255.0, 0), vision.Normalize([0.5] * 3, [0.5] * 3), vision.HWC2CHW()]
    composed = transforms.Compose(ops)(img)
    seq = img
    for op in ops:
        seq = op(seq)
    np.testing.assert_allclose(composed, seq)
    np.testing.assert_allclose(composed, ((img / 255.0 - 0.5) / 0.5).transpose(2, 0, 1), rtol=1e-5, atol=1e-6)
    d = ds.NumpySlicesDataset({"image": img[None].repeat(3, 0)}, shuffle=False)
    got = numpy_rows(d.map(transforms.Compose(ops + [lambda x: x * 2]), "image"))
    np.testing.assert_allclose(got[2][0], seq * 2, rtol=1e-6)
