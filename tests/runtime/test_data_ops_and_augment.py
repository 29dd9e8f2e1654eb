"""Dataset zip / concat / split, CIFAR-10 binary batches (a generated sample, never a download),
and the random augmentations: numpy oracles, reproducible under ms.set_seed."""
import numpy as np
import pytest

import runtime as ms
from runtime.data.cifar import write_cifar10_batch
from runtime.data.random_vision import rotate
from runtime.dataset import Cifar10Dataset, GeneratorDataset, NumpySlicesDataset, vision


def _rows(ds, col=0):
    return [r[col] for r in ds.create_tuple_iterator(output_numpy=True)]


def test_zip_concat_and_split():
    a = NumpySlicesDataset({"x": np.arange(10)}, shuffle=False)
    b = NumpySlicesDataset({"y": np.arange(7) * 10}, shuffle=False)
    z = a.zip(b)
    assert z.get_col_names() == ["x", "y"] and z.get_dataset_size() == 7
    assert [(int(x), int(y)) for x, y in z.create_tuple_iterator(output_numpy=True)] == [(i, 10 * i) for i in range(7)]
    g = GeneratorDataset(lambda: iter([(np.array(i),) for i in range(4)]), column_names=["g"])
    assert [int(v) for v in _rows(g.zip(a).batch(3), 1)[0]] == [0, 1, 2]
    c = a + NumpySlicesDataset({"x": np.arange(3) + 100}, shuffle=False)
    assert c.get_dataset_size() == 13 and [int(v) for v in _rows(c)] == list(range(10)) + [100, 101, 102]
    with pytest.raises(ValueError, match="unique"):
        a.zip(a)
    with pytest.raises(ValueError, match="columns"):
        a.concat(b)
    ms.set_seed(5)
    s1, s2 = a.split([0.7, 0.3])
    r1, r2 = [int(v) for v in _rows(s1)], [int(v) for v in _rows(s2)]
    assert len(r1) == 7 and len(r2) == 3 and sorted(r1 + r2) == list(range(10))
    ms.set_seed(5)
    assert [int(v) for v in _rows(a.split([0.7, 0.3])[0])] == r1  # reproducible
    p1, p2 = a.split([4, 6], randomize=False)
    assert [int(v) for v in _rows(p1)] == [0, 1, 2, 3] and [int(v) for v in _rows(p2)] == list(range(4, 10))
    with pytest.raises(ValueError, match="sum"):
        a.split([3, 3])


def test_cifar10_binary_batches(tmp_path):
    rng = np.random.default_rng(0)
    train = rng.integers(0, 256, (5, 32, 32, 3)).astype(np.uint8)
    test = rng.integers(0, 256, (2, 32, 32, 3)).astype(np.uint8)
    write_cifar10_batch(str(tmp_path / "data_batch_1.bin"), train[:3], [0, 1, 9])
    write_cifar10_batch(str(tmp_path / "data_batch_2.bin"), train[3:], [4, 5])
    write_cifar10_batch(str(tmp_path / "test_batch.bin"), test, [7, 8])
    raw = open(tmp_path / "data_batch_1.bin", "rb").read()
    assert raw[0] == 0 and raw[1:1025] == train[0, :, :, 0].tobytes()  # label byte, then the red plane
    ds = Cifar10Dataset(str(tmp_path), usage="train", shuffle=False)
    rows = list(ds.create_tuple_iterator(output_numpy=True))
    assert len(rows) == 5 and rows[0][0].dtype == np.uint8 and rows[0][1].dtype == np.uint32
    np.testing.assert_array_equal(np.stack([r[0] for r in rows]), train)
    assert [int(r[1]) for r in rows] == [0, 1, 9, 4, 5]
    assert Cifar10Dataset(str(tmp_path), usage="all", shuffle=False).get_dataset_size() == 7
    assert Cifar10Dataset(str(tmp_path), usage="test", num_shards=2, shard_id=1, shuffle=False).get_dataset_size() == 1
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "test_batch.bin").write_bytes(b"\x00" * 100)
    with pytest.raises(ValueError, match="whole number"):
        Cifar10Dataset(str(tmp_path / "bad"))


def test_flips_crops_pad_against_numpy():
    rng = np.random.default_rng(1)
    imgs = rng.integers(0, 255, (16, 6, 8, 3)).astype(np.uint8)
    flipped = vision.RandomHorizontalFlip(1.0)._apply_batch(imgs)
    np.testing.assert_array_equal(flipped, imgs[:, :, ::-1])
    np.testing.assert_array_equal(vision.RandomVerticalFlip(1.0)._apply_batch(imgs), imgs[:, ::-1])
    half = vision.RandomHorizontalFlip(0.5)._apply_batch(imgs)
    same = [np.array_equal(h, i) for h, i in zip(half, imgs)]
    assert all(s or np.array_equal(h, i[:, ::-1]) for s, h, i in zip(same, half, imgs)) and 0 < sum(same) < 16
    np.testing.assert_array_equal(vision.Pad((1, 2))(imgs[0]), np.pad(imgs[0], ((2, 2), (1, 1), (0, 0))))
    np.testing.assert_array_equal(vision.Pad((1, 2, 3, 4), padding_mode=vision.Border.EDGE)(imgs[0]),
                                  np.pad(imgs[0], ((2, 4), (1, 3), (0, 0)), mode="edge"))
    crops = vision.RandomCrop((4, 5), padding=1)._apply_batch(imgs)
    assert crops.shape == (16, 4, 5, 3)
    padded = np.pad(imgs, ((0, 0), (1, 1), (1, 1), (0, 0)))
    for c, p in zip(crops, padded):  # every crop is a window of the padded image
        assert any(np.array_equal(c, p[t:t + 4, l:l + 5]) for t in range(5) for l in range(6))
    rrc = vision.RandomResizedCrop(5)._apply_batch(imgs)
    assert rrc.shape == (16, 5, 5, 3) and rrc.dtype == np.uint8


def test_rotation_against_rot90_and_fill():
    img = np.arange(25, dtype=np.float32).reshape(5, 5, 1)
    np.testing.assert_array_equal(rotate(img, 90), np.rot90(img))
    np.testing.assert_array_equal(rotate(img, -90, vision.Inter.BILINEAR), np.rot90(img, -1))
    wide = np.ones((2, 4, 1), np.uint8)
    out = rotate(wide, 90, expand=True, fill_value=7)
    assert out.shape == (4, 2, 1) and (out == 1).all()
    assert (rotate(wide, 45, fill_value=7) == 7).any()
    r = vision.RandomRotation((90, 90))
    np.testing.assert_array_equal(r(img), np.rot90(img))


def test_random_augmentation_pipelines_are_reproducible_and_vary_per_epoch():
    data = np.random.default_rng(2).integers(0, 255, (8, 10, 10, 3)).astype(np.uint8)

    def pipeline():
        ds = NumpySlicesDataset({"image": data}, shuffle=False)
        return ds.map([vision.RandomCrop(8, padding=2), vision.RandomHorizontalFlip(), vision.RandomRotation(20),
                       vision.RandomResizedCrop(6)], "image")

    ms.set_seed(11)
    it = pipeline().create_tuple_iterator(output_numpy=True, num_epochs=2)
    first, second = [r[0] for r in it], [r[0] for r in it]
    ms.set_seed(11)
    again = [r[0] for r in pipeline().create_tuple_iterator(output_numpy=True, num_epochs=1)]
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert not all(np.array_equal(a, b) for a, b in zip(first, second))  # a new draw per epoch
    assert first[0].shape == (6, 6, 3)


def test_decode_needs_pillow_or_decodes():
    try:
        import PIL  # noqa: F401 - only whether Pillow is installed
    except ImportError:
        with pytest.raises(RuntimeError, match="Pillow"):
            vision.Decode()(np.frombuffer(b"not an image", np.uint8))
        return
    import io
    from PIL import Image
    buf = io.BytesIO()
    Image.fromarray(np.full((3, 4, 3), 200, np.uint8)).save(buf, format="PNG")
    out = vision.Decode()(np.frombuffer(buf.getvalue(), np.uint8))
    assert out.shape == (3, 4, 3) and (out == 200).all()


def test_pad_end_pads_and_truncates_as_mindspore():
    from runtime.dataset import transforms
    # MindSpore's example: [1, 2, 3] padded to [4] with 10 -> (4,) int64
    ds = NumpySlicesDataset([[1, 2, 3]], ["col"]).map(operations=transforms.PadEnd(pad_shape=[4], pad_value=10))
    rows = [r["col"] for r in ds.create_dict_iterator(num_epochs=1, output_numpy=True)]
    assert len(rows) == 1 and rows[0].tolist() == [1, 2, 3, 10] and rows[0].dtype == np.int64
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = transforms.PadEnd([3, 2])(x)  # pad axis 0, truncate axis 1
    want = np.zeros((3, 2), np.float32)
    want[:2] = x[:, :2]
    np.testing.assert_array_equal(out, want)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(transforms.PadEnd([None, 5], -1.5)(x)[:, 3:], np.full((2, 2), -1.5, np.float32))
    assert transforms.PadEnd([3])(np.array(["a", "bc"])).tolist() == ["a", "bc", ""]
    with pytest.raises(TypeError, match="pad_shape must be a list"):
        transforms.PadEnd((4,))
    with pytest.raises(ValueError, match="positive"):
        transforms.PadEnd([0])
    with pytest.raises(TypeError, match="pad_value"):
        transforms.PadEnd([2], pad_value=[1])
    with pytest.raises(ValueError, match="axes"):
        transforms.PadEnd([2, 2])(np.arange(3))


def test_random_crop_decode_resize_is_decode_then_random_resized_crop():
    pytest.importorskip("PIL")
    import io
    from PIL import Image
    from runtime.data.random_vision import drawing_from
    rng = np.random.default_rng(3)
    images = [rng.integers(0, 255, (12 + i, 16 - i, 3)).astype(np.uint8) for i in range(4)]
    encoded = []
    for img in images:
        buf = io.BytesIO()
        Image.fromarray(img).save(buf, format="PNG")  # lossless: decoding gives the image back
        encoded.append(np.frombuffer(buf.getvalue(), np.uint8))
    op = vision.RandomCropDecodeResize((5, 6), scale=(0.2, 0.9), max_attempts=4)
    ref = vision.RandomResizedCrop((5, 6), scale=(0.2, 0.9), max_attempts=4)
    for seed, (img, data) in enumerate(zip(images, encoded)):
        with drawing_from(np.random.default_rng(seed)):
            got = op(data)
        with drawing_from(np.random.default_rng(seed)):
            want = ref(img)
        assert got.shape == (5, 6, 3) and got.dtype == np.uint8
        np.testing.assert_array_equal(got, want)

    def pipeline():
        return GeneratorDataset(lambda: ((e,) for e in encoded), ["image"], shuffle=False).map(
            vision.RandomCropDecodeResize(4), "image")
    ms.set_seed(7)
    first = [r[0] for r in pipeline().create_tuple_iterator(output_numpy=True, num_epochs=1)]
    ms.set_seed(7)
    again = [r[0] for r in pipeline().create_tuple_iterator(output_numpy=True, num_epochs=1)]
    assert len(first) == 4 and all(a.shape == (4, 4, 3) and np.array_equal(a, b) for a, b in zip(first, again))
    with pytest.raises(TypeError, match="1-D"):
        op(images[0])
    with pytest.raises(ValueError, match="max_attempts"):
        vision.RandomCropDecodeResize(4, max_attempts=0)
