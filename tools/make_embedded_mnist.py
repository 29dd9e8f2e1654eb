"""Regenerate the MNIST subset shipped in ``runtime/data/_embedded`` (deterministic output).

Takes the first 6,000 training and the first 1,000 test digits of the full MNIST set (standard
gzip IDX files, default ``../shared/data/mnist`` beside the repository) and writes them as
standard gzip IDX files with the standard names, gzip mtime 0 so the bytes are reproducible.

Usage: python tools/make_embedded_mnist.py [SOURCE_DIR] [--out DIR] [--train N] [--test N]
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import os
import struct
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from runtime.data.mnist import IMAGES_MAGIC, LABELS_MAGIC, _find, read_idx  # noqa: E402

NAMES = {"train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
         "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")}


def idx_bytes(arr: np.ndarray, magic: int) -> bytes:
    arr = np.ascontiguousarray(arr, dtype=np.uint8)
    return struct.pack(">I", magic) + b"".join(struct.pack(">I", d) for d in arr.shape) + arr.tobytes()


def write_gz(path: str, payload: bytes) -> None:
    tmp = path + ".tmp"
    with open(tmp, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=0) as gz:
            gz.write(payload)
    os.replace(tmp, path)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source", nargs="?", default=os.path.join(ROOT, "..", "shared", "data", "mnist"))
    ap.add_argument("--out", default=os.path.join(ROOT, "runtime", "data", "_embedded"))
    ap.add_argument("--train", type=int, default=6000)
    ap.add_argument("--test", type=int, default=1000)
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    for split, count in (("train", args.train), ("test", args.test)):
        img_name, lbl_name = NAMES[split]
        images = read_idx(_find(args.source, img_name), IMAGES_MAGIC, 3)[:count]
        labels = read_idx(_find(args.source, lbl_name), LABELS_MAGIC, 1)[:count]
        for name, arr, magic in ((img_name, images, IMAGES_MAGIC), (lbl_name, labels, LABELS_MAGIC)):
            payload = idx_bytes(arr, magic)
            path = os.path.join(args.out, name + ".gz")
            write_gz(path, payload)
            print(f"{path}: {arr.shape} sha256(uncompressed)={hashlib.sha256(payload).hexdigest()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
