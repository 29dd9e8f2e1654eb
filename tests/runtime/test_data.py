"""runtime.data: MNIST IDX reading and validation, pipelines (map/batch/shuffle/repeat...),
Python sources and the numpy vision transforms, each checked against an independent oracle
(hand-written IDX files, numpy formulas, the published MNIST statistics)."""
import gzip
import os
import struct
import subprocess
import sys

import numpy as np
import pytest

import runtime as ms
from runtime.data import (GeneratorDataset, MnistDataset, NumpySlicesDataset, embedded_mnist_dir, transforms,
                          vision)

MNIST_TRAIN_HIST = [5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949]
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# ------------------------------------------------------------------------------------------------
# helpers: write IDX files by hand (the oracle for the reader)
# ------------------------------------------------------------------------------------------------
def idx_bytes(arr, magic):
    arr = np.asarray(arr, np.uint8)
    return struct.pack(">I", magic) + b"".join(struct.pack(">I", d) for d in arr.shape) + arr.tobytes()


def write_split(folder, split, images, labels, gz=False, image_bytes=None, label_bytes=None):
    names = {"train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
             "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")}[split]
    os.makedirs(folder, exist_ok=True)
    payloads = (image_bytes if image_bytes is not None else idx_bytes(images, 2051),
                label_bytes if label_bytes is not None else idx_bytes(labels, 2049))
    paths = []
    for name, data in zip(names, payloads):
        path = os.path.join(folder, name + (".gz" if gz else ""))
        with open(path, "wb") as f:
            f.write(gzip.compress(data) if gz else data)
        paths.append(path)
    return paths


def rows(ds, output_numpy=True):
    return list(ds.create_tuple_iterator(num_epochs=1, output_numpy=output_numpy))


@pytest.fixture
def small(rng):
    images = rng.integers(0, 256, size=(7, 28, 28), dtype=np.uint8)
    labels = rng.integers(0, 10, size=7, dtype=np.uint8)
    return images, labels


# ------------------------------------------------------------------------------------------------
# MnistDataset on hand-written files
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("gz", [False, True])
def test_mnist_reads_raw_and_gzip(tmp_path, small, gz):
    images, labels = small
    write_split(str(tmp_path), "train", images, labels, gz=gz)
    ds = MnistDataset(str(tmp_path), usage="train", shuffle=False)
    assert ds.get_col_names() == ["image", "label"]
    assert ds.get_dataset_size() == 7
    out = rows(ds)
    assert len(out) == 7
    for (img, lab), ref_img, ref_lab in zip(out, images, labels):
        assert img.shape == (28, 28, 1) and img.dtype == np.uint8
        assert lab.shape == () and lab.dtype == np.uint32
        np.testing.assert_array_equal(img[..., 0], ref_img)
        assert int(lab) == int(ref_lab)


def test_mnist_usage_selects_files(tmp_path, rng):
    tr = rng.integers(0, 256, size=(5, 28, 28), dtype=np.uint8), np.arange(5, dtype=np.uint8)
    te = rng.integers(0, 256, size=(3, 28, 28), dtype=np.uint8), np.array([7, 8, 9], np.uint8)
    write_split(str(tmp_path), "train", *tr)
    write_split(str(tmp_path), "test", *te, gz=True)
    assert MnistDataset(str(tmp_path), usage="train").get_dataset_size() == 5
    assert MnistDataset(str(tmp_path), usage="test").get_dataset_size() == 3
    all_labels = [int(l) for _, l in rows(MnistDataset(str(tmp_path), usage="all", shuffle=False))]
    assert all_labels == [7, 8, 9, 0, 1, 2, 3, 4]  # t10k files sort before train files, as in MindSpore
    assert MnistDataset(str(tmp_path)).get_dataset_size() == 8  # usage=None: whatever is there
    only_test = tmp_path / "only_test"
    write_split(str(only_test), "test", *te)
    assert MnistDataset(str(only_test)).get_dataset_size() == 3
    with pytest.raises(ValueError, match="train-images-idx3-ubyte"):
        MnistDataset(str(only_test), usage="train")
    with pytest.raises(ValueError, match="usage"):
        MnistDataset(str(tmp_path), usage="validation")


def test_mnist_num_samples_and_shuffle_default(tmp_path, rng):
    images = rng.integers(0, 256, size=(50, 28, 28), dtype=np.uint8)
    labels = np.arange(50, dtype=np.uint8)
    write_split(str(tmp_path), "train", images, labels)
    first = [int(l) for _, l in rows(MnistDataset(str(tmp_path), num_samples=4, shuffle=False))]
    assert first == [0, 1, 2, 3]
    ms.set_seed(3)
    shuffled = [int(l) for _, l in rows(MnistDataset(str(tmp_path)))]  # shuffle=None shuffles (MindSpore)
    assert sorted(shuffled) == list(range(50)) and shuffled != list(range(50))
    # images travel with their labels
    for img, lab in rows(MnistDataset(str(tmp_path))):
        np.testing.assert_array_equal(img[..., 0], images[int(lab)])


def test_mnist_truncated_file(tmp_path, small):
    images, labels = small
    data = idx_bytes(images, 2051)
    paths = write_split(str(tmp_path), "train", images, labels, image_bytes=data[:-100])
    with pytest.raises(ValueError) as e:
        MnistDataset(str(tmp_path), usage="train")
    msg = str(e.value)
    assert paths[0] in msg and "truncated" in msg
    assert str(len(data)) in msg and str(len(data) - 100) in msg  # expected vs actual bytes


def test_mnist_truncated_and_corrupt_gzip(tmp_path, small):
    images, labels = small
    gz = gzip.compress(idx_bytes(images, 2051))
    d1 = tmp_path / "cut"
    write_split(str(d1), "train", images, labels, gz=True)
    img_path = str(d1 / "train-images-idx3-ubyte.gz")
    with open(img_path, "wb") as f:
        f.write(gz[: len(gz) // 2])
    with pytest.raises(ValueError, match="gzip") as e:
        MnistDataset(str(d1))
    assert img_path in str(e.value)
    d2 = tmp_path / "flip"
    write_split(str(d2), "train", images, labels, gz=True)
    img_path = str(d2 / "train-images-idx3-ubyte.gz")
    bad = bytearray(gz)
    for i in range(len(bad) // 2, len(bad) // 2 + 8):
        bad[i] ^= 0xFF
    with open(img_path, "wb") as f:
        f.write(bytes(bad))
    with pytest.raises(ValueError) as e:
        MnistDataset(str(d2))
    assert img_path in str(e.value)


def test_mnist_wrong_magic_and_dimensions(tmp_path, small):
    images, labels = small
    # labels written where images belong (magic 2049 instead of 2051)
    paths = write_split(str(tmp_path / "a"), "train", images, labels, image_bytes=idx_bytes(labels, 2049))
    with pytest.raises(ValueError, match="magic number 2049") as e:
        MnistDataset(str(tmp_path / "a"))
    assert paths[0] in str(e.value) and "2051" in str(e.value)
    paths = write_split(str(tmp_path / "b"), "train", images, labels, label_bytes=b"hello world, not idx")
    with pytest.raises(ValueError, match="magic") as e:
        MnistDataset(str(tmp_path / "b"))
    assert paths[1] in str(e.value)
    # extra trailing bytes: the length must match the header exactly
    write_split(str(tmp_path / "c"), "train", images, labels, label_bytes=idx_bytes(labels, 2049) + b"\0\0")
    with pytest.raises(ValueError, match="longer than its header"):
        MnistDataset(str(tmp_path / "c"))


def test_mnist_count_mismatch(tmp_path, small):
    images, labels = small
    paths = write_split(str(tmp_path), "train", images, labels[:5])
    with pytest.raises(ValueError) as e:
        MnistDataset(str(tmp_path))
    msg = str(e.value)
    assert "7 images" in msg and "5 labels" in msg and paths[0] in msg and paths[1] in msg


def test_mnist_missing_folder_and_files(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        MnistDataset(str(tmp_path / "nope"))
    with pytest.raises(ValueError) as e:
        MnistDataset(str(tmp_path))
    for name in ("train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
                 "t10k-labels-idx1-ubyte"):
        assert name in str(e.value)


# ------------------------------------------------------------------------------------------------
# the embedded subset and the full set
# ------------------------------------------------------------------------------------------------
def test_embedded_subset():
    folder = embedded_mnist_dir()
    assert sorted(os.listdir(folder)) == sorted(
        n + ".gz" for n in ("train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
                            "t10k-labels-idx1-ubyte"))
    train = MnistDataset(folder, usage="train", shuffle=False)
    test = MnistDataset(folder, usage="test", shuffle=False)
    assert train.get_dataset_size() == 6000 and test.get_dataset_size() == 1000
    labels = np.array([int(l) for _, l in rows(train)])
    assert labels[:5].tolist() == [5, 0, 4, 1, 9]  # the first labels of the real MNIST training set
    hist = np.bincount(labels, minlength=10)
    assert hist.sum() == 6000 and hist.min() > 450 and hist.max() < 750  # ~600 per digit
    first = next(iter(train.create_tuple_iterator(output_numpy=True)))[0]
    assert first.max() == 255 and 0.05 < (first > 0).mean() < 0.5  # a real digit, not noise
    mean = np.mean([img.mean() for img, _ in rows(test)])
    assert 28 < mean < 38  # MNIST's mean pixel is ~33


def test_full_mnist(mnist_dir):
    train = MnistDataset(mnist_dir, usage="train", shuffle=False)
    test = MnistDataset(mnist_dir, usage="test", shuffle=False)
    assert train.get_dataset_size() == 60000 and test.get_dataset_size() == 10000
    assert MnistDataset(mnist_dir).get_dataset_size() == 70000
    labels = np.concatenate([b[1] for b in train.batch(10000).create_tuple_iterator(output_numpy=True)])
    assert np.bincount(labels, minlength=10).tolist() == MNIST_TRAIN_HIST
    assert labels[:5].tolist() == [5, 0, 4, 1, 9]
    images = np.concatenate([b[0] for b in train.batch(10000).create_tuple_iterator(output_numpy=True)])
    assert images.shape == (60000, 28, 28, 1)
    assert abs(images.mean() - 33.318) < 0.01


def test_embedded_subset_regenerates_identically(mnist_dir, tmp_path):
    """tools/make_embedded_mnist.py reproduces the shipped files byte for byte."""
    out = tmp_path / "emb"
    subprocess.run([sys.executable, os.path.join(REPO, "tools", "make_embedded_mnist.py"), mnist_dir,
                    "--out", str(out)], check=True, capture_output=True)
    for name in os.listdir(embedded_mnist_dir()):
        with open(os.path.join(embedded_mnist_dir(), name), "rb") as a, open(out / name, "rb") as b:
            assert a.read() == b.read(), name


# ------------------------------------------------------------------------------------------------
# vision / transforms against numpy formulas
# ------------------------------------------------------------------------------------------------
def bilinear_reference(img, out_h, out_w):
    """Per-pixel bilinear resize, half-pixel centres, coordinates clamped to the image."""
    in_h, in_w = img.shape[:2]
    out = np.zeros((out_h, out_w) + img.shape[2:], np.float64)

    def src(d, n_in, n_out):
        s = (d + 0.5) * n_in / n_out - 0.5
        s = min(max(s, 0.0), n_in - 1.0)
        i0 = int(np.floor(s))
        i1 = min(i0 + 1, n_in - 1)
        return i0, i1, s - i0

    for y in range(out_h):
        y0, y1, fy = src(y, in_h, out_h)
        for x in range(out_w):
            x0, x1, fx = src(x, in_w, out_w)
            top = (1 - fx) * img[y0, x0] + fx * img[y0, x1]
            bot = (1 - fx) * img[y1, x0] + fx * img[y1, x1]
            out[y, x] = (1 - fy) * top + fy * bot
    return out


@pytest.mark.parametrize("out_hw", [(32, 32), (4, 9), (13, 3)])
def test_resize_bilinear_matches_formula(rng, out_hw):
    img = rng.uniform(0, 1, size=(11, 7, 3)).astype(np.float32)
    got = vision.Resize(out_hw)(img)
    assert got.shape == out_hw + (3,) and got.dtype == np.float32
    np.testing.assert_allclose(got, bilinear_reference(img.astype(np.float64), *out_hw), rtol=1e-5, atol=1e-6)


def test_resize_uint8_rounds_and_2d(rng):
    img = rng.integers(0, 256, size=(28, 28), dtype=np.uint8)
    got = vision.Resize((32, 32))(img)
    assert got.shape == (32, 32) and got.dtype == np.uint8
    ref = np.floor(bilinear_reference(img.astype(np.float64), 32, 32) + 0.5)
    assert np.abs(got.astype(int) - ref).max() <= 1  # float32 arithmetic at exact .5 ties
    assert (got.astype(int) == ref).mean() > 0.99


def test_resize_nearest_and_aspect(rng):
    img = rng.integers(0, 256, size=(6, 4, 1), dtype=np.uint8)
    got = vision.Resize((3, 8), vision.Inter.NEAREST)(img)
    iy = np.floor(np.arange(3) * 6 / 3).astype(int)
    ix = np.floor(np.arange(8) * 4 / 8).astype(int)
    np.testing.assert_array_equal(got, img[iy][:, ix])
    assert vision.Resize(8)(rng.uniform(size=(10, 20, 3)).astype(np.float32)).shape == (8, 16, 3)
    with pytest.raises(ValueError):
        vision.Resize((0, 3))
    with pytest.raises(TypeError):
        vision.Resize("big")


def test_rescale_normalize_hwc2chw_typecast(rng):
    img = rng.integers(0, 256, size=(5, 6, 3), dtype=np.uint8)
    r = vision.Rescale(1 / 255, -0.5)(img)
    assert r.dtype == np.float32
    np.testing.assert_allclose(r, img / 255 - 0.5, rtol=1e-6, atol=1e-6)
    mean, std = [10.0, 20.0, 30.0], [2.0, 4.0, 8.0]
    n = vision.Normalize(mean, std)(img)
    assert n.dtype == np.float32
    np.testing.assert_allclose(n, (img - np.array(mean)) / np.array(std), rtol=1e-6)
    chw = vision.HWC2CHW()(img)
    assert chw.shape == (3, 5, 6)
    np.testing.assert_array_equal(chw, np.transpose(img, (2, 0, 1)))
    n_chw = vision.Normalize(mean, std, is_hwc=False)(chw)
    np.testing.assert_allclose(n_chw, np.transpose(n, (2, 0, 1)), rtol=1e-6)
    assert vision.HWC2CHW()(img[..., 0]).shape == (5, 6)  # <H, W> unchanged, as in MindSpore
    with pytest.raises(ValueError):
        vision.HWC2CHW()(np.zeros((2, 2, 2, 2)))
    with pytest.raises(ValueError):
        vision.Normalize([1.0], [0.0])
    t = transforms.TypeCast(ms.int32)(np.array(7, np.uint32))
    assert t.dtype == np.int32 and int(t) == 7
    assert transforms.TypeCast(np.float16)(np.ones(2)).dtype == np.float16


def test_pipeline_transforms_equal_per_sample_application(rng):
    """The block-wise (vectorised) map gives exactly what applying each op per sample gives."""
    images = rng.integers(0, 256, size=(37, 28, 28, 1), dtype=np.uint8)
    labels = rng.integers(0, 10, size=37).astype(np.uint32)
    ops = [vision.Resize((32, 32)), vision.Rescale(1 / 255, 0), vision.Rescale(1 / 0.3081, -0.1307 / 0.3081),
           vision.HWC2CHW()]
    ds = NumpySlicesDataset({"image": images, "label": labels}, shuffle=False)
    ds = ds.map(ops, input_columns="image").map(transforms.TypeCast(ms.int32), input_columns="label")
    got = rows(ds)
    # per-row path: a lambda in the list forces per-sample application
    ds2 = NumpySlicesDataset({"image": images, "label": labels}, shuffle=False)
    ds2 = ds2.map(ops + [lambda x: x], input_columns="image")
    got2 = rows(ds2)
    for (img, lab), (img2, _), src, l0 in zip(got, got2, images, labels):
        ref = src
        for op in ops:
            ref = op(ref)
        assert img.shape == (1, 32, 32) and img.dtype == np.float32
        np.testing.assert_array_equal(img, ref)
        np.testing.assert_array_equal(img2, ref)
        assert lab.dtype == np.int32 and int(lab) == int(l0)
    # and the numpy formula for the first one
    ref0 = (np.floor(bilinear_reference(images[0, ..., 0].astype(np.float64), 32, 32) + 0.5) / 255 - 0.1307) / 0.3081
    np.testing.assert_allclose(got[0][0][0], ref0, atol=2e-2)


def test_user_pipeline_on_full_mnist(mnist_dir):
    ds = MnistDataset(mnist_dir, usage="train", shuffle=False)
    ds = ds.map(operations=[vision.Resize((32, 32)), vision.Rescale(1.0 / 255.0, 0.0),
                            vision.Rescale(1 / 0.3081, -1 * 0.1307 / 0.3081), vision.HWC2CHW()],
                input_columns="image")
    ds = ds.map(operations=transforms.TypeCast(ms.int32), input_columns="label")
    ds = ds.batch(32, drop_remainder=True)
    assert ds.get_dataset_size() == 1875
    n = 0
    hist = np.zeros(10, np.int64)
    for image, label in ds.create_tuple_iterator(num_epochs=1):
        n += 1
        assert image.shape == (32, 1, 32, 32) and image.dtype == ms.float32
        assert label.shape == (32,) and label.dtype == ms.int32
        hist += np.bincount(label.asnumpy(), minlength=10)
        if n == 1:
            assert label.asnumpy()[:5].tolist() == [5, 0, 4, 1, 9]
            x = image.asnumpy()
            assert abs(x.min() - (-0.1307 / 0.3081)) < 1e-5
    assert n == 1875
    assert hist.sum() == 60000 and (hist <= np.array(MNIST_TRAIN_HIST)).all()


# ------------------------------------------------------------------------------------------------
# pipeline structure
# ------------------------------------------------------------------------------------------------
def test_batch_counts_and_drop_remainder():
    data = np.arange(10, dtype=np.int64)
    ds = NumpySlicesDataset(data, column_names="x", shuffle=False)
    b = ds.batch(3)
    assert b.get_dataset_size() == 4 and b.get_batch_size() == 3
    out = [r[0] for r in rows(b)]
    assert [o.shape for o in out] == [(3,), (3,), (3,), (1,)]
    np.testing.assert_array_equal(np.concatenate(out), data)
    d = ds.batch(3, drop_remainder=True)
    assert d.get_dataset_size() == 3 and len(rows(d)) == 3
    big = NumpySlicesDataset(np.arange(5000).reshape(2500, 2), shuffle=False).batch(7, drop_remainder=True)
    got = np.concatenate([r[0] for r in rows(big)])
    np.testing.assert_array_equal(got, np.arange(5000).reshape(2500, 2)[:2499])
    with pytest.raises(ValueError):
        ds.batch(0)


def test_shuffle_reproducible_with_seed():
    data = np.arange(3000)

    def order(seed, buffer=None):
        ms.set_seed(seed)
        ds = NumpySlicesDataset(data, shuffle=buffer is None)
        if buffer:
            ds = ds.shuffle(buffer)
        return np.array([int(r[0]) for r in rows(ds)])

    a, b, c = order(7), order(7), order(8)
    assert sorted(a.tolist()) == data.tolist()
    np.testing.assert_array_equal(a, b)
    assert (a != c).any()
    s1, s2, s3 = order(7, 100), order(7, 100), order(9, 100)
    assert sorted(s1.tolist()) == data.tolist() and (s1 != data).any()
    np.testing.assert_array_equal(s1, s2)
    assert (s1 != s3).any()
    # a buffer of 100 rows: no row comes out more than ~3 buffers ahead of its input position
    out_pos = np.argsort(s1)  # out_pos[v]: where input row v came out
    assert (out_pos >= np.arange(3000) - 300).all()
    # a new order every epoch of one iterator, and the same sequence of orders per launch
    ms.set_seed(11)
    it = NumpySlicesDataset(data[:50]).create_tuple_iterator(num_epochs=2, output_numpy=True)
    e1 = [int(r[0]) for r in it]
    e2 = [int(r[0]) for r in it]
    assert sorted(e1) == sorted(e2) == list(range(50)) and e1 != e2
    assert list(it) == []  # num_epochs=2 exhausted
    with pytest.raises(ValueError):
        NumpySlicesDataset(data).shuffle(1)


def test_repeat_take_skip_project_rename_dict_iterator():
    ds = NumpySlicesDataset({"a": np.arange(6), "b": np.arange(6) * 10}, shuffle=False)
    assert ds.get_col_names() == ["a", "b"]
    r = ds.repeat(3)
    assert r.get_dataset_size() == 18 and [int(x[0]) for x in rows(r)] == list(range(6)) * 3
    assert [int(x[0]) for x in rows(ds.take(4))] == [0, 1, 2, 3]
    assert [int(x[0]) for x in rows(ds.skip(4))] == [4, 5]
    assert ds.take(4).get_dataset_size() == 4 and ds.skip(4).get_dataset_size() == 2
    p = ds.project(["b"])
    assert p.get_col_names() == ["b"] and int(rows(p)[1][0]) == 10
    rn = ds.rename(["a"], ["alpha"])
    d = next(iter(rn.create_dict_iterator(num_epochs=1)))
    assert set(d) == {"alpha", "b"} and isinstance(d["alpha"], ms.Tensor)
    t = next(iter(ds.create_tuple_iterator(num_epochs=1)))
    assert isinstance(t[0], ms.Tensor) and t[0].dtype == ms.int64
    sel = next(iter(ds.create_tuple_iterator(columns=["b"], num_epochs=1, output_numpy=True)))
    assert len(sel) == 1 and int(sel[0]) == 0
    assert [int(x[0]) for x in ds] == list(range(6))  # plain iteration gives Tensors
    with pytest.raises(ValueError, match="unknown column"):
        ds.project(["zzz"])


def test_map_output_columns_and_errors():
    ds = NumpySlicesDataset({"x": np.arange(4, dtype=np.float32), "y": np.arange(4)}, shuffle=False)
    m = ds.map(transforms.Duplicate(), input_columns="x", output_columns=["x1", "x2"])
    assert m.get_col_names() == ["x1", "x2", "y"]
    r = rows(m)
    assert float(r[2][0]) == 2.0 and float(r[2][1]) == 2.0 and int(r[2][2]) == 2
    two = ds.map(lambda a, b: a + b, input_columns=["x", "y"], output_columns=["s"])
    assert two.get_col_names() == ["s"] and [float(v[0]) for v in rows(two)] == [0.0, 2.0, 4.0, 6.0]
    with pytest.raises(ValueError, match="not in the dataset"):
        ds.map(lambda a: a, input_columns="nope")
    with pytest.raises(TypeError, match="callable"):
        ds.map([3], input_columns="x")
    ragged = GeneratorDataset(lambda: ((np.ones(i + 1),) for i in range(3)), column_names=["v"])
    with pytest.raises(ValueError, match="different shapes"):
        rows(ragged.batch(3))


def test_generator_dataset_sources():
    def gen():
        for i in range(5):
            yield np.array([i, i + 1], np.float32), np.array(i, np.int32)

    ds = GeneratorDataset(gen, column_names=["data", "label"])
    assert ds.get_col_names() == ["data", "label"] and ds.get_dataset_size() == 5
    it = ds.create_tuple_iterator(num_epochs=2, output_numpy=True)
    assert [int(r[1]) for r in it] == list(range(5))
    assert [int(r[1]) for r in it] == list(range(5))  # the generator function is called per epoch
    b = rows(ds.batch(2))
    assert b[0][0].shape == (2, 2) and b[-1][0].shape == (1, 2)

    class RandomAccess:
        def __getitem__(self, i):
            return np.array([i * 2]), np.array(i)

        def __len__(self):
            return 8

    ra = GeneratorDataset(RandomAccess(), ["a", "b"], shuffle=False)
    assert ra.get_dataset_size() == 8 and [int(r[1]) for r in rows(ra)] == list(range(8))
    ms.set_seed(1)
    shuffled = [int(r[1]) for r in rows(GeneratorDataset(RandomAccess(), ["a", "b"]))]  # shuffle=None
    assert sorted(shuffled) == list(range(8))
    assert [int(r[0][0]) for r in rows(GeneratorDataset(RandomAccess(), ["a", "b"], num_samples=3, shuffle=False))] \
        == [0, 2, 4]

    class Iterable:
        def __iter__(self):
            return iter([(np.array(1),), (np.array(2),)])

    assert [int(r[0]) for r in rows(GeneratorDataset(Iterable(), ["v"]))] == [1, 2]
    with pytest.raises(ValueError, match="random-access"):
        GeneratorDataset(Iterable(), ["v"], shuffle=True)
    with pytest.raises(ValueError, match="column"):
        rows(GeneratorDataset(gen, column_names=["only_one"]))
    with pytest.raises(ValueError, match="column_names"):
        GeneratorDataset(gen)


def test_numpy_slices_forms():
    ds = NumpySlicesDataset([[1, 2], [3, 4], [5, 6]], shuffle=False)
    assert ds.get_col_names() == ["column_0"] and rows(ds)[1][0].tolist() == [3, 4]
    ds = NumpySlicesDataset((np.arange(3), np.arange(3) * 2.0), column_names=["a", "b"], shuffle=False)
    assert [float(r[1]) for r in rows(ds)] == [0.0, 2.0, 4.0]
    ds = NumpySlicesDataset({"k": np.eye(3, dtype=np.float32)}, shuffle=False)
    assert ds.get_col_names() == ["k"] and rows(ds)[2][0].tolist() == [0, 0, 1]
    with pytest.raises(ValueError, match="same length"):
        NumpySlicesDataset((np.arange(3), np.arange(4)))
    with pytest.raises(ValueError, match="column name"):
        NumpySlicesDataset((np.arange(3), np.arange(3)), column_names=["a"])


def test_dataset_module_aliases():
    import runtime.dataset as ds
    import runtime.dataset.transforms as t
    import runtime.dataset.vision as v
    from runtime.dataset.vision import c_transforms
    assert ds.MnistDataset is MnistDataset and v.Resize is vision.Resize and t.TypeCast is transforms.TypeCast
    assert c_transforms.HWC2CHW is vision.HWC2CHW
