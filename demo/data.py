"""scikit-learn's bundled digits (8x8 images, 10 classes; no network needed),
split, scaled to [0, 1] and cut into fixed-size batches (a fixed batch shape
means one compiled graph for every step)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

N_CLASSES = 10


@dataclass(frozen=True)
class Digits:
    x_train: np.ndarray  # float32 [n_train, 64]
    y_train: np.ndarray  # int64 [n_train]
    x_test: np.ndarray  # float32 [n_test, 64]
    y_test: np.ndarray  # int64 [n_test]

    def batches(self, size: int, epoch: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """The training set shuffled for ``epoch`` and cut into full batches
        (the remainder is dropped so that every batch has the same shape)."""
        order = np.random.default_rng(epoch).permutation(len(self.y_train))
        return [(self.x_train[order[i:i + size]], self.y_train[order[i:i + size]])
                for i in range(0, len(order) - size + 1, size)]


def load(test_fraction: float = 0.2, seed: int = 0) -> Digits:
    from sklearn.datasets import load_digits

    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(y))
    n_test = int(len(y) * test_fraction)
    test, train = order[:n_test], order[n_test:]
    return Digits(x[train], y[train], x[test], y[test])


def one_hot(labels: np.ndarray) -> np.ndarray:
    """float32 [n, 10] one-hot rows for int labels."""
    return np.eye(N_CLASSES, dtype=np.float32)[labels]
