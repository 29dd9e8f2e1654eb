"""ImageFolderDataset over a small generated tree of PNG/JPEG files (never a download), and the
CenterCrop / ToTensor transforms. Oracles: the files' own bytes and a directory listing sorted by
hand (raw reads), the arrays the PNGs were written from (lossless decode), Pillow itself (JPEG
decode), and numpy formulas of MindSpore's CenterCrop / ToTensor rules."""
import io
import os
import sys

import numpy as np
import pytest

import runtime as ms
from runtime.data import ImageFolderDataset, config, vision

# the PNG/JPEG files are written with Pillow (the `vision` extra); only raw-byte reading and the
# errors run without it
PIL_MISSING = "Pillow is not installed: pip install -e '.[vision]' (the tests of image decoding need it)"


def _pil():
    return pytest.importorskip("PIL.Image", reason=PIL_MISSING)


def _encode(array, fmt):
    Image = _pil()
    buf = io.BytesIO()
    Image.fromarray(array).save(buf, format=fmt, **({"quality": 95} if fmt == "JPEG" else {}))
    return buf.getvalue()


@pytest.fixture
def tree(tmp_path):
    """root/<class>/<files>: two classes of images (PNG and JPEG, sizes differ), plus files and
    folders the reader must skip or filter. Returns (root, {relative path: source array})."""
    rng = np.random.default_rng(0)
    root = tmp_path / "images"
    sources = {}
    layout = {"dog": [("b.png", (5, 7)), ("a.jpg", (8, 8)), ("c.png", (6, 4))],
              "cat": [("z.png", (4, 4)), ("m.jpg", (9, 6))]}
    for cls, files in layout.items():
        (root / cls).mkdir(parents=True)
        for name, (h, w) in files:
            arr = rng.integers(0, 256, (h, w, 3)).astype(np.uint8)
            if name.endswith(".jpg"):
                # a smooth gradient, which JPEG keeps within a few levels
                yy, xx = np.mgrid[0:h, 0:w]
                arr = np.clip(rng.integers(40, 200, 3) + 3 * yy[..., None] - 2 * xx[..., None], 0, 255).astype(np.uint8)
            (root / cls / name).write_bytes(_encode(arr, "JPEG" if name.endswith(".jpg") else "PNG"))
            sources[f"{cls}/{name}"] = arr
    (root / "dog" / "notes.txt").write_bytes(b"not an image")
    (root / "dog" / "nested").mkdir()  # deeper folders are not read
    (root / "dog" / "nested" / "deep.png").write_bytes(_encode(np.zeros((2, 2, 3), np.uint8), "PNG"))
    (root / "top_level.png").write_bytes(b"files directly in dataset_dir are not read")
    return root, sources


def _rows(ds):
    return [(r[0], r[1]) for r in ds.create_tuple_iterator(output_numpy=True)]


def test_raw_bytes_labels_and_order(tree):
    root, _ = tree
    ds = ImageFolderDataset(str(root), shuffle=False)
    # MindSpore's order: class folders sorted, files of a class sorted; labels by folder position
    expected = ["cat/m.jpg", "cat/z.png", "dog/a.jpg", "dog/b.png", "dog/c.png", "dog/notes.txt"]
    rows = _rows(ds)
    assert ds.get_col_names() == ["image", "label"] and ds.get_dataset_size() == len(expected) == len(rows)
    for (image, label), rel in zip(rows, expected):
        assert image.dtype == np.uint8 and image.ndim == 1
        assert image.tobytes() == (root / rel).read_bytes()
        assert label.dtype == np.uint32 and label.shape == () and int(label) == (0 if rel.startswith("cat") else 1)
    assert ds.get_class_indexing() == {"cat": 0, "dog": 1} and ds.num_classes() == 2
    assert ds.batch(2).get_class_indexing() == {"cat": 0, "dog": 1}  # through the pipeline, as MindSpore


def test_extensions_and_class_indexing(tree):
    root, _ = tree
    pngs = ImageFolderDataset(str(root), shuffle=False, extensions=[".png"])
    assert [r[0].tobytes() for r in _rows(pngs)] == [(root / p).read_bytes() for p in
                                                     ("cat/z.png", "dog/b.png", "dog/c.png")]
    only_dog = ImageFolderDataset(str(root), shuffle=False, extensions=[".png", ".jpg"], class_indexing={"dog": 7})
    assert [int(r[1]) for r in _rows(only_dog)] == [7, 7, 7] and only_dog.num_classes() == 1
    both = ImageFolderDataset(str(root), shuffle=False, extensions=[".jpg"], class_indexing={"cat": 3, "dog": 1})
    assert [int(r[1]) for r in _rows(both)] == [3, 1]
    with pytest.raises(ValueError, match=r"class_indexing names folder\(s\) \['bird'\]"):
        ImageFolderDataset(str(root), class_indexing={"bird": 0})
    with pytest.raises(ValueError, match="no image files with extensions"):
        ImageFolderDataset(str(root), extensions=[".PNG"])  # extensions match exactly, as MindSpore's


def test_bad_arguments(tree, tmp_path):
    root, _ = tree
    with pytest.raises(ValueError, match="does not exist"):
        ImageFolderDataset(str(tmp_path / "absent"))
    (tmp_path / "empty" / "cls").mkdir(parents=True)
    with pytest.raises(ValueError, match="no image files"):
        ImageFolderDataset(str(tmp_path / "empty"))
    with pytest.raises(TypeError, match="extensions"):
        ImageFolderDataset(str(root), extensions=".png")
    with pytest.raises(TypeError, match="class_indexing"):
        ImageFolderDataset(str(root), class_indexing=["dog"])
    with pytest.raises(ValueError, match="class_indexing"):
        ImageFolderDataset(str(root), class_indexing={"dog": -1})
    with pytest.raises(TypeError, match="decode"):
        ImageFolderDataset(str(root), decode="yes")
    with pytest.raises(ValueError, match="num_parallel_workers"):
        ImageFolderDataset(str(root), num_parallel_workers=0)
    with pytest.raises(ValueError, match="shard_id"):
        ImageFolderDataset(str(root), num_shards=2, shard_id=2)


def test_decode_png_exact_and_jpeg_as_pillow(tree):
    Image = _pil()
    root, sources = tree
    ds = ImageFolderDataset(str(root), shuffle=False, extensions=[".png", ".jpg"], decode=True)
    names = ["cat/m.jpg", "cat/z.png", "dog/a.jpg", "dog/b.png", "dog/c.png"]
    rows = _rows(ds)
    assert len(rows) == len(names)
    for (image, _), rel in zip(rows, names):
        src = sources[rel]
        assert image.shape == src.shape and image.dtype == np.uint8 and image.flags.writeable
        if rel.endswith(".png"):
            np.testing.assert_array_equal(image, src)  # lossless
        else:
            np.testing.assert_array_equal(image, np.asarray(Image.open(root / rel).convert("RGB")))
            assert np.abs(image.astype(int) - src).mean() < 4  # and close to what was encoded
    # decode=False + map(Decode) gives the same images, in threads too
    raw = ImageFolderDataset(str(root), shuffle=False, extensions=[".png", ".jpg"])
    mapped = _rows(raw.map(vision.Decode(), "image", num_parallel_workers=2))
    for (a, la), (b, lb) in zip(rows, mapped):
        np.testing.assert_array_equal(a, b)
        assert int(la) == int(lb)


def test_decode_errors(tree, monkeypatch):
    _pil()
    root, _ = tree
    ds = ImageFolderDataset(str(root), shuffle=False, decode=True)  # notes.txt is no image
    with pytest.raises(ValueError, match=r"failed to decode image .*notes\.txt"):
        _rows(ds)
    (root / "cat" / "z.png").write_bytes((root / "cat" / "z.png").read_bytes()[:40])  # truncated
    with pytest.raises(ValueError, match=r"z\.png"):
        _rows(ImageFolderDataset(str(root), shuffle=False, decode=True, extensions=[".png"]))
    monkeypatch.setitem(sys.modules, "PIL", None)  # as if Pillow were not installed
    with pytest.raises(RuntimeError, match=r"msjit\[vision\]"):
        ImageFolderDataset(str(root), decode=True)


def test_shuffle_samples_shards_and_workers(tree):
    root, _ = tree
    every = [r[0].tobytes() for r in _rows(ImageFolderDataset(str(root), shuffle=False))]

    def order(**kw):
        return [r[0].tobytes() for r in _rows(ImageFolderDataset(str(root), **kw))]

    ms.set_seed(4)
    a = order()  # shuffle=None shuffles
    ms.set_seed(4)
    assert order() == a and sorted(a) == sorted(every)
    config.set_seed(9)  # the dataset seed takes precedence over ms.set_seed
    try:
        b = order(num_parallel_workers=3)
        ms.set_seed(123)
        assert order(num_parallel_workers=1) == b
    finally:
        config.set_seed(None)
    assert order(shuffle=False, num_samples=4) == every[:4]
    shards = [order(shuffle=False, num_shards=2, shard_id=i) for i in (0, 1)]
    assert shards == [every[0::2], every[1::2]]
    assert order(shuffle=False, num_parallel_workers=4) == every


def test_decrypt_callable(tree):
    root, _ = tree
    seen = []

    def decrypt(path):
        seen.append(os.path.basename(path))
        with open(path, "rb") as f:
            return bytes(b ^ 0xFF for b in f.read())

    ds = ImageFolderDataset(str(root), shuffle=False, extensions=[".png"], decrypt=decrypt)
    first = _rows(ds)[0][0]
    assert first.tobytes() == bytes(b ^ 0xFF for b in (root / "cat" / "z.png").read_bytes())
    assert sorted(seen) == ["b.png", "c.png", "z.png"]
    with pytest.raises(TypeError, match="decrypt"):
        _rows(ImageFolderDataset(str(root), shuffle=False, decrypt=lambda p: "text"))


def test_training_style_pipeline(tree):
    _pil()
    root, sources = tree
    ds = ImageFolderDataset(str(root), shuffle=False, extensions=[".png"], decode=True)
    ds = ds.map([vision.Resize((6, 6)), vision.CenterCrop(4), vision.ToTensor()], "image")
    ds = ds.batch(3)
    (images, labels), = list(ds.create_tuple_iterator())
    assert images.shape == (3, 3, 4, 4) and images.dtype == ms.float32 and labels.asnumpy().tolist() == [0, 1, 1]
    expected = vision.ToTensor()(vision.CenterCrop(4)(vision.Resize((6, 6))(sources["cat/z.png"])))
    np.testing.assert_allclose(images.asnumpy()[0], expected)


# ------------------------------------------------------------------------------------------------
# CenterCrop and ToTensor against MindSpore's rules written as numpy
# ------------------------------------------------------------------------------------------------
def _center_crop_oracle(img, h, w):
    H, W = img.shape[:2]
    ph, pw = max(0, h - H), max(0, w - W)  # zero padding, the odd pixel at the top / left
    img = np.pad(img, ((ph - ph // 2, ph // 2), (pw - pw // 2, pw // 2)) + ((0, 0),) * (img.ndim - 2))
    H, W = img.shape[:2]
    top, left = (H - h) // 2, (W - w) // 2
    return img[top:top + h, left:left + w]


@pytest.mark.parametrize("in_hw", [(5, 5), (6, 7), (3, 2), (4, 9)])
@pytest.mark.parametrize("size", [2, (3, 4), (6, 6), (5, 1)])
def test_center_crop(in_hw, size, rng):
    h, w = (size, size) if isinstance(size, int) else size
    img = rng.integers(1, 255, in_hw + (3,)).astype(np.uint8)
    np.testing.assert_array_equal(vision.CenterCrop(size)(img), _center_crop_oracle(img, h, w))
    np.testing.assert_array_equal(vision.CenterCrop(size)(img[..., 0]), _center_crop_oracle(img[..., 0], h, w))
    batch = rng.integers(1, 255, (4,) + in_hw + (3,)).astype(np.uint8)
    np.testing.assert_array_equal(vision.CenterCrop(size)._apply_batch(batch),
                                  np.stack([_center_crop_oracle(b, h, w) for b in batch]))


def test_center_crop_and_to_tensor_errors():
    for bad in (0, (2,), (2, -1), 2.5, "3"):
        with pytest.raises(ValueError, match="CenterCrop: size"):
            vision.CenterCrop(bad)
    with pytest.raises(TypeError, match="ToTensor: output_type"):
        vision.ToTensor(output_type="complex")
    with pytest.raises(ValueError, match="ToTensor"):
        vision.ToTensor()(np.zeros(5))


def test_to_tensor(rng):
    img = rng.integers(0, 256, (4, 5, 3)).astype(np.uint8)
    out = vision.ToTensor()(img)
    assert out.shape == (3, 4, 5) and out.dtype == np.float32
    np.testing.assert_allclose(out, img.transpose(2, 0, 1).astype(np.float32) / 255, rtol=1e-6)
    # MindSpore divides by 255 whatever the dtype, and a 2-D image gains one channel
    f = rng.random((4, 5)).astype(np.float32) * 255
    np.testing.assert_allclose(vision.ToTensor()(f), (f / 255)[None], rtol=1e-6)
    half = vision.ToTensor(output_type=np.float16)(img)
    assert half.dtype == np.float16 and vision.ToTensor(ms.float64)(img).dtype == np.float64
    np.testing.assert_allclose(half, out, atol=1e-3)
    Image = pytest.importorskip("PIL.Image", reason=PIL_MISSING)
    np.testing.assert_array_equal(vision.ToTensor()(Image.fromarray(img)), out)  # a PIL image in
