"""Machine-learning programs as numpy users write them: k-means, PCA,
least squares, softmax and logistic regression with hand-written gradients,
k-nearest neighbours."""

from __future__ import annotations

import numpy
from program_case import Case


def kmeans(np, X, init):
    """Lloyd's algorithm, a few fixed iterations, centroids updated per cluster
    with a boolean mask; returns centres, labels and the inertia as a float."""
    centers = X[init].copy()
    k = centers.shape[0]
    for _ in range(4):
        d2 = ((X[:, np.newaxis, :] - centers[np.newaxis, :, :]) ** 2).sum(axis=-1)
        labels = np.argmin(d2, axis=1)
        for j in range(k):
            members = X[labels == j]
            if len(members) > 0:
                centers[j] = members.mean(axis=0)
    inertia = float(np.min(d2, axis=1).sum())
    sizes = np.bincount(labels, minlength=k)
    return centers, labels, round(inertia, 6), sizes


def _make_kmeans(rng):
    blobs = [rng.normal(loc, 0.4, size=(20, 2)) for loc in ((0, 0), (3, 3), (0, 4))]
    X = numpy.concatenate(blobs)
    return X, numpy.array([0, 25, 45])


def pca(np, X):
    """PCA by eigendecomposition of the covariance, components sorted by
    decreasing variance, with a deterministic sign (largest entry positive)."""
    Xc = X - X.mean(axis=0)
    cov = Xc.T @ Xc / (X.shape[0] - 1)
    evals, evecs = np.linalg.eigh(cov)
    order = np.argsort(evals)[::-1]
    evals, evecs = evals[order], evecs[:, order]
    signs = np.sign(evecs[np.argmax(np.abs(evecs), axis=0), np.arange(evecs.shape[1])])
    evecs = evecs * signs
    ratio = evals / evals.sum()
    k = np.argmax(np.cumsum(ratio) >= 0.9) + 1  # enough components for 90%
    Z = Xc @ evecs[:, :k]
    return ratio, evecs, Z, np.cumsum(ratio), int(k)


def _make_pca(rng):
    return (rng.normal(size=(50, 4)) @ numpy.array([[3, 0, 0, 0], [1, 1, 0, 0],
                                                 [0, 0, 0.5, 0], [0, 0, 0, 0.1]]),)


def pca_svd(np, X):
    """PCA through the thin SVD, as scikit-learn does (svd_flip signs)."""
    Xc = X - np.mean(X, axis=0, keepdims=True)
    U, S, Vt = np.linalg.svd(Xc, full_matrices=False)
    max_abs = np.argmax(np.abs(U), axis=0)
    signs = np.sign(U[max_abs, range(U.shape[1])])
    Vt *= signs[:, np.newaxis]
    explained = S**2 / (len(X) - 1)
    return Vt, explained, S


def least_squares(np, A, b):
    """Normal equations, the inverse, and np.linalg.lstsq on the same system."""
    x_normal = np.linalg.solve(A.T @ A, A.T @ b)
    x_inv = np.linalg.inv(A.T.dot(A)).dot(A.T).dot(b)
    x_lstsq, residuals, rank, sv = np.linalg.lstsq(A, b, rcond=None)
    r = b - A @ x_normal
    return x_normal, x_inv, x_lstsq, int(rank), np.linalg.norm(r), np.allclose(x_normal, x_lstsq)


def _make_lsq(rng):
    t = numpy.linspace(0, 1, 30)
    A = numpy.column_stack([numpy.ones(30), t, t**2])
    return A, A @ numpy.array([1.0, -2.0, 0.5]) + 0.01 * rng.normal(size=30)


def softmax_regression(np, X, y):
    """Multinomial logistic regression trained by gradient descent, with
    one-hot targets from np.eye and a numerically stable softmax."""
    n, d = X.shape
    k = int(y.max()) + 1
    Y = np.eye(k)[y]
    W = np.zeros((d, k))
    b = np.zeros(k)
    losses = []
    for _ in range(8):
        logits = X @ W + b
        logits -= logits.max(axis=1, keepdims=True)
        P = np.exp(logits)
        P /= P.sum(axis=1, keepdims=True)
        losses.append(-np.mean(np.sum(Y * np.log(P + 1e-12), axis=1)))
        G = (P - Y) / n
        W -= 0.5 * (X.T @ G)
        b -= 0.5 * G.sum(axis=0)
    acc = np.mean(np.argmax(X @ W + b, axis=1) == y)
    return W, b, np.array(losses), float(acc)


def _make_softmax(rng):
    X = rng.normal(size=(60, 3))
    y = numpy.argmax(X @ rng.normal(size=(3, 4)), axis=1)
    return X, y


def logistic_regression(np, X, y):
    """Binary logistic regression in float32, clipped probabilities, a loss
    history of Python floats, and early stopping on a tolerance."""
    X = X.astype(np.float32)
    w = np.zeros(X.shape[1], dtype=np.float32)
    history = []
    step = 0
    for step in range(30):  # noqa: B007  (the last step is returned)
        p = 1.0 / (1.0 + np.exp(-(X @ w)))
        p = np.clip(p, 1e-7, 1 - 1e-7)
        loss = -np.mean(y * np.log(p) + (1 - y) * np.log1p(-p))
        history.append(round(float(loss), 4))
        grad = X.T @ (p - y) / len(y)
        if np.linalg.norm(grad) < 1e-3:
            break
        w = w - np.float32(1.0) * grad
    return w, history, step, (p > 0.5).astype(int)


def _make_logistic(rng):
    X = rng.normal(size=(40, 3))
    return X, (X[:, 0] - X[:, 1] > 0).astype(numpy.float32)


def knn(np, X_train, y_train, X_test):
    """k-nearest neighbours: squared distances by the dot-product identity,
    argsort, take_along_axis and a per-row vote with np.bincount."""
    sq = (X_test**2).sum(1)[:, None] + (X_train**2).sum(1)[None, :] - 2 * X_test @ X_train.T
    sq = np.maximum(sq, 0)
    nearest = np.argsort(sq, axis=1, kind="stable")[:, :5]
    dists = np.sqrt(np.take_along_axis(sq, nearest, axis=1))
    votes = y_train[nearest]
    pred = np.array([np.bincount(row, minlength=3).argmax() for row in votes])
    return nearest, dists, pred


def _make_knn(rng):
    centres = numpy.repeat(numpy.array([[0, 0], [3, 0], [0, 3]]), 10, axis=0)
    X = rng.normal(size=(30, 2)) + centres
    return X, numpy.repeat(numpy.arange(3), 10), rng.normal(size=(8, 2)) * 2


class _MLP:
    """A two-layer perceptron as tutorials write it: parameters in a dict,
    a forward pass that caches activations, backprop by hand."""

    def __init__(self, np, W1, W2):
        self.np = np
        self.params = {"W1": W1.astype(np.float32), "b1": np.zeros(W1.shape[1], np.float32),
                       "W2": W2.astype(np.float32), "b2": np.zeros(W2.shape[1], np.float32)}

    def forward(self, X):
        np, p = self.np, self.params
        self.X = X
        self.h = np.maximum(X @ p["W1"] + p["b1"], 0)
        return self.h @ p["W2"] + p["b2"]

    def backward(self, dout):
        p = self.params
        dh = dout @ p["W2"].T * (self.h > 0)
        return {"W2": self.h.T @ dout, "b2": dout.sum(axis=0),
                "W1": self.X.T @ dh, "b1": dh.sum(axis=0)}


def mlp_training(np, X, y, W1, W2, perm):
    """Mini-batch SGD on a mean-squared error: batches from a permutation,
    in-place parameter updates through a dict (aliasing must hold)."""
    X, y = X.astype(np.float32), y.astype(np.float32)
    net = _MLP(np, W1, W2)
    first_W1 = net.params["W1"]
    losses = []
    for start in range(0, len(X), 8):
        idx = perm[start:start + 8]
        out = net.forward(X[idx])
        err = out - y[idx, None]
        losses.append(float((err ** 2).mean()))
        grads = net.backward(2 * err / len(idx))
        for name, g in grads.items():
            net.params[name] -= np.float32(0.05) * g
    same_object = first_W1 is net.params["W1"]
    return net.params, losses, same_object, net.forward(X[:4]).dtype.name


def _make_mlp(rng):
    X = rng.normal(size=(24, 3))
    return (X, numpy.sin(X).sum(axis=1), rng.normal(size=(3, 6)) * 0.5,
            rng.normal(size=(6, 1)) * 0.5, rng.permutation(24))


CASES = [
    Case("kmeans", kmeans, _make_kmeans, frozenset({"numpy.bincount"})),
    Case("pca_eigh", pca, _make_pca, rtol=1e-6),
    Case("pca_svd", pca_svd, _make_pca, rtol=1e-6),
    Case("least_squares", least_squares, _make_lsq, frozenset({"numpy.linalg.lstsq"}), 1e-6),
    Case("softmax_regression", softmax_regression, _make_softmax),
    Case("logistic_regression", logistic_regression, _make_logistic, rtol=1e-4),
    Case("mlp_training", mlp_training, _make_mlp, rtol=1e-4),
    Case("knn", knn, _make_knn, frozenset({"numpy.bincount"})),
]
