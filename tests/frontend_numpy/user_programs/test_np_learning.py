"""Machine-learning programs (clustering, regression, mixtures, filters, small
networks). Each test writes an ordinary numpy program once, runs it with
numpy and with ``lazytensor.numpy`` on the same data and compares
(``np_compare.check``: values with a dtype-fitting tolerance, dtype, shape,
Python types; a third run compiles nothing; no eager fallback but the ones a
program names)."""


from __future__ import annotations

import numpy as np
import pytest
from np_compare import check


def kmeans_plus_plus(np, X, seed):
    """k-means++ seeding from a seeded generator, Lloyd iterations until the
    labels stop changing, and a centre with no members re-seeded at the point
    farthest from its centre."""
    rng = np.random.default_rng(seed)
    k = 4
    centers = [X[rng.integers(len(X))]]
    for _ in range(k - 1):
        d2 = np.min(((X[:, None, :] - np.array(centers)[None]) ** 2).sum(-1), axis=1)
        centers.append(X[rng.choice(len(X), p=d2 / d2.sum())])
    centers = np.array(centers)
    centers[3] = [100.0, 100.0]  # a centre far from every point: empty cluster
    labels = np.full(len(X), -1)
    for it in range(20):  # noqa: B007  (returned: the iterations run)
        dist = np.linalg.norm(X[:, None, :] - centers[None, :, :], axis=2)
        new = dist.argmin(axis=1)
        if np.array_equal(new, labels):
            break
        labels = new
        for j in range(k):
            members = X[labels == j]
            if members.shape[0] == 0:
                centers[j] = X[np.argmax(dist[np.arange(len(X)), labels])]
            else:
                centers[j] = members.mean(axis=0)
    counts = np.bincount(labels, minlength=k)
    return centers, labels, counts, it


def newton_logistic(np, X, y):
    """Logistic regression by Newton's method (IRLS): the Hessian X^T W X
    plus a small ridge, solved with np.linalg.solve, stopping on the step
    norm; the log-likelihood history as Python floats."""
    X = np.hstack([np.ones((X.shape[0], 1)), X])
    beta = np.zeros(X.shape[1])
    loglik = []
    for _ in range(25):
        eta = X @ beta
        p = 1 / (1 + np.exp(-eta))
        W = p * (1 - p)
        H = X.T @ (X * W[:, None]) + 1e-6 * np.eye(X.shape[1])
        g = X.T @ (y - p)
        step = np.linalg.solve(H, g)
        beta += step
        loglik.append(float(np.sum(y * eta - np.logaddexp(0, eta))))
        if np.linalg.norm(step) < 1e-10:
            break
    se = np.sqrt(np.diag(np.linalg.inv(H)))
    return beta, se, loglik[-3:], len(loglik)


def ridge_cross_validation(np, X, y):
    """Ridge regression through lstsq on the augmented system [X; sqrt(a) I],
    five-fold cross-validation with np.array_split, the best alpha by argmin."""
    alphas = np.logspace(-3, 2, 6)
    folds = np.array_split(np.arange(len(y)), 5)
    errors = np.zeros((len(alphas), len(folds)))
    for i, a in enumerate(alphas):
        for f, test in enumerate(folds):
            train = np.setdiff1d(np.arange(len(y)), test)
            A = np.vstack([X[train], np.sqrt(a) * np.eye(X.shape[1])])
            b = np.concatenate([y[train], np.zeros(X.shape[1])])
            w, *_ = np.linalg.lstsq(A, b, rcond=None)
            errors[i, f] = np.mean((X[test] @ w - y[test]) ** 2)
    mean_err = errors.mean(axis=1)
    best = alphas[np.argmin(mean_err)]
    return mean_err, errors.std(axis=1, ddof=1), float(best)


def nearest_neighbours(np, A, B):
    """Pairwise Euclidean distances by einsum (the |a|^2 + |b|^2 - 2ab
    identity) and by broadcasting, the three nearest with argpartition,
    a cosine-similarity matrix."""
    aa = np.einsum("ij,ij->i", A, A)
    bb = np.einsum("ij,ij->i", B, B)
    d2 = aa[:, None] + bb[None, :] - 2 * np.einsum("ik,jk->ij", A, B)
    D = np.sqrt(np.maximum(d2, 0))
    D2 = np.sqrt(((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=-1))
    idx = np.argpartition(D, 3, axis=1)[:, :3]
    idx = np.take_along_axis(idx, np.argsort(np.take_along_axis(D, idx, 1), axis=1), 1)
    unit_b = B / np.linalg.norm(B, axis=1)[:, None]
    cos = (A / np.linalg.norm(A, axis=1, keepdims=True)) @ unit_b.T
    return D, bool(np.allclose(D, D2)), idx, cos.max(axis=1)


def kalman_filter(np, zs):
    """A constant-velocity Kalman filter over noisy 1-D positions: predict
    and update with 2x2 matrices and np.linalg.inv each step, the filtered
    track and the final covariance."""
    dt = 1.0
    F = np.array([[1, dt], [0, 1]])
    H = np.array([[1.0, 0.0]])
    Q = 0.01 * np.array([[dt ** 3 / 3, dt ** 2 / 2], [dt ** 2 / 2, dt]])
    R = np.array([[0.5]])
    x = np.array([zs[0], 0.0])
    P = np.eye(2)
    track = []
    for z in zs:
        x = F @ x
        P = F @ P @ F.T + Q
        S = H @ P @ H.T + R
        K = P @ H.T @ np.linalg.inv(S)
        x = x + (K @ (z - H @ x)).ravel()
        P = (np.eye(2) - K @ H) @ P
        track.append(x.copy())
    track = np.array(track)
    return track, P, float(np.sqrt(np.mean((track[:, 0] - zs) ** 2)))


def tiny_regression_net(np, X, y, seed):
    """A one-hidden-layer tanh network for regression trained with
    mini-batch SGD with momentum, batches from a seeded permutation, the
    backward pass by hand; per-epoch losses as Python floats."""
    rng = np.random.default_rng(seed)
    W1 = rng.normal(0, 0.5, (X.shape[1], 16))
    b1 = np.zeros(16)
    W2 = rng.normal(0, 0.5, (16, 1))
    b2 = np.zeros(1)
    params = [W1, b1, W2, b2]
    velocity = [np.zeros_like(p) for p in params]
    losses = []
    for _ in range(3):
        perm = rng.permutation(len(X))
        for start in range(0, len(X), 16):
            idx = perm[start:start + 16]
            xb, yb = X[idx], y[idx, None]
            h = np.tanh(xb @ W1 + b1)
            pred = h @ W2 + b2
            err = pred - yb
            dW2 = h.T @ err / len(xb)
            db2 = err.mean(axis=0)
            dh = err @ W2.T * (1 - h ** 2)
            dW1 = xb.T @ dh / len(xb)
            db1 = dh.mean(axis=0)
            for p, v, g in zip(params, velocity, (dW1, db1, dW2, db2), strict=True):
                v *= 0.9
                v -= 0.05 * g
                p += v
        losses.append(round(float(np.mean((np.tanh(X @ W1 + b1) @ W2 + b2 - y[:, None]) ** 2)), 9))
    return W1, b2, losses


def gmm_2d(np, X):
    """A two-component 2-D Gaussian mixture by EM: densities through
    np.linalg.slogdet and solve, responsibilities, and each component's
    covariance with np.cov(aweights=responsibilities); the log-likelihood
    history; then a frequency-weighted covariance of rounded data."""
    k = 2
    mu = X[[0, -1]].copy()
    covs = np.array([np.eye(2), np.eye(2)])
    pis = np.full(k, 1 / k)
    history = []
    for _ in range(8):
        logp = np.empty((len(X), k))
        for j in range(k):
            d = X - mu[j]
            sign, logdet = np.linalg.slogdet(covs[j])
            maha = np.sum(d * np.linalg.solve(covs[j], d.T).T, axis=1)
            logp[:, j] = np.log(pis[j]) - 0.5 * (maha + logdet + 2 * np.log(2 * np.pi))
        top = logp.max(axis=1, keepdims=True)
        lse = top[:, 0] + np.log(np.exp(logp - top).sum(axis=1))
        resp = np.exp(logp - lse[:, None])
        history.append(round(float(lse.sum()), 8))
        for j in range(k):
            pis[j] = resp[:, j].mean()
            mu[j] = np.average(X, axis=0, weights=resp[:, j])
            covs[j] = np.cov(X, rowvar=False, aweights=resp[:, j], ddof=0) + 1e-6 * np.eye(2)
    values, counts = np.unique(np.round(X[:, 0]), return_counts=True)
    fcov = np.cov(values, fweights=counts)
    return mu, covs, pis, history[-3:], float(fcov), resp.argmax(axis=1)


def gmm_em(np, x):
    """A two-component 1-D Gaussian mixture fitted by EM: responsibilities
    through a log-sum-exp, weighted means and variances, the log-likelihood
    per iteration until it stops improving."""
    w = np.array([0.5, 0.5])
    mu = np.array([x.min(), x.max()])
    var = np.array([1.0, 1.0])
    history = []
    for _ in range(40):
        logp = np.log(w) - 0.5 * np.log(2 * np.pi * var) - 0.5 * (x[:, None] - mu) ** 2 / var
        m = logp.max(axis=1, keepdims=True)
        lse = m + np.log(np.exp(logp - m).sum(axis=1, keepdims=True))
        resp = np.exp(logp - lse)
        nk = resp.sum(axis=0)
        w = nk / len(x)
        mu = (resp * x[:, None]).sum(axis=0) / nk
        var = (resp * (x[:, None] - mu) ** 2).sum(axis=0) / nk
        history.append(float(lse.sum()))
        if len(history) > 1 and history[-1] - history[-2] < 1e-8:
            break
    return w, mu, var, len(history), resp.argmax(axis=1)


def conv_layer(np, img, kernels):
    """A convolution layer by hand: sliding_window_view patches of an image
    batch contracted with a kernel bank by np.einsum, a bias, ReLU, 2x2 max
    pooling by reshape, and a per-channel normalization."""
    k = kernels.shape[-1]
    patches = np.lib.stride_tricks.sliding_window_view(img, (k, k), axis=(1, 2))
    bias = np.linspace(-0.1, 0.1, len(kernels))[:, None, None]
    out = np.einsum("bhwij,cij->bchw", patches, kernels) + bias
    out = np.maximum(out, 0)
    b, c, h, w = out.shape
    cropped = out[:, :, :h // 2 * 2, :w // 2 * 2]
    pooled = cropped.reshape(b, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))
    mean = pooled.mean(axis=(0, 2, 3), keepdims=True)
    std = pooled.std(axis=(0, 2, 3), keepdims=True)
    normed = (pooled - mean) / (std + 1e-5)
    active = np.count_nonzero(out, axis=(0, 2, 3))
    return out, pooled, normed, active


def sinkhorn_transport(np, a, b, x, y):
    """Entropy-regularized optimal transport by Sinkhorn iterations: a cost
    matrix from np.subtract.outer, the kernel, alternating scalings until
    the marginals match, the plan's cost, and a projected-gradient solve of
    simplex-constrained least squares with the sort-based projection."""
    C = np.subtract.outer(x, y) ** 2
    K = np.exp(-C / 0.05)
    u = np.ones_like(a)
    for it in range(500):  # noqa: B007  (returned)
        v = b / (K.T @ u)
        u_new = a / (K @ v)
        if np.max(np.abs(u_new - u)) < 1e-10:
            break
        u = u_new
    plan = u_new[:, None] * K * v[None, :]
    cost = np.sum(plan * C)

    def project(p):
        s = np.sort(p)[::-1]
        css = np.cumsum(s) - 1
        rho = np.nonzero(s - css / np.arange(1, len(p) + 1) > 0)[0][-1]
        return np.maximum(p - css[rho] / (rho + 1), 0)

    M = K[:, :len(a)]
    w = np.full(len(a), 1 / len(a))
    for _ in range(50):
        w = project(w - 0.5 * M.T @ (M @ w - a))
    return plan, float(cost), it, plan.sum(axis=1), w, float(w.sum())


def softmax_classifier(np, X, y, W1, W2, perms):
    """A two-layer classifier trained from scratch: tanh hidden layer,
    softmax cross-entropy, manual backprop, SGD with momentum over
    mini-batches drawn by a given permutation per epoch."""
    k = W2.shape[1]
    vel1, vel2 = np.zeros_like(W1), np.zeros_like(W2)
    losses = []
    for perm in perms:
        for start in range(0, len(X), 32):
            idx = perm[start:start + 32]
            xb, yb = X[idx], y[idx]
            h = np.tanh(xb @ W1)
            logits = h @ W2
            logits = logits - logits.max(axis=1, keepdims=True)
            p = np.exp(logits)
            p /= p.sum(axis=1, keepdims=True)
            onehot = np.eye(k)[yb]
            loss = -np.mean(np.sum(onehot * np.log(p + 1e-12), axis=1))
            d_logits = (p - onehot) / len(xb)
            gW2 = h.T @ d_logits
            gW1 = xb.T @ ((d_logits @ W2.T) * (1 - h ** 2))
            vel1 = 0.9 * vel1 - 0.5 * gW1
            vel2 = 0.9 * vel2 - 0.5 * gW2
            W1 = W1 + vel1
            W2 = W2 + vel2
        losses.append(float(loss))
    pred = np.argmax(np.tanh(X @ W1) @ W2, axis=1)
    return W1, W2, losses, (pred == y).mean(), np.bincount(pred, minlength=k)


def pca_two_ways(np, X):
    """PCA by np.linalg.svd of the centred data and by np.linalg.eigh of the
    covariance; sign-free comparisons: explained variance ratios, the
    absolute cosine between the two first axes, and reconstructions."""
    Xc = X - X.mean(axis=0)
    U, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    var_svd = s ** 2 / (len(X) - 1)
    evals, evecs = np.linalg.eigh(np.cov(Xc, rowvar=False))
    evals, evecs = evals[::-1], evecs[:, ::-1]
    ratio = evals / evals.sum()
    cos = np.abs(Vt[0] @ evecs[:, 0])
    k = int(np.searchsorted(np.cumsum(ratio), 0.9)) + 1
    Z = Xc @ Vt[:k].T
    recon = Z @ Vt[:k] + X.mean(axis=0)
    err = np.linalg.norm(X - recon, axis=1)
    return var_svd, evals, ratio, cos, k, recon, err, np.abs(Z).max(axis=0)


def hmm_viterbi(np, log_A, log_B, log_pi, obs):
    """A hidden Markov model in log space: the forward algorithm with
    np.logaddexp.reduce over the previous state, the sequence likelihood,
    Viterbi decoding with a back-pointer table and a backtrack loop, and
    posterior state probabilities by forward-backward."""
    T, S = len(obs), len(log_pi)
    alpha = np.empty((T, S))
    alpha[0] = log_pi + log_B[:, obs[0]]
    delta = alpha[0].copy()
    back = np.zeros((T, S), dtype=np.int64)
    for t in range(1, T):
        alpha[t] = np.logaddexp.reduce(alpha[t - 1][:, None] + log_A, axis=0) + log_B[:, obs[t]]
        cand = delta[:, None] + log_A
        back[t] = cand.argmax(axis=0)
        delta = cand.max(axis=0) + log_B[:, obs[t]]
    beta = np.zeros((T, S))
    for t in range(T - 2, -1, -1):
        beta[t] = np.logaddexp.reduce(log_A + log_B[:, obs[t + 1]] + beta[t + 1], axis=1)
    loglik = np.logaddexp.reduce(alpha[-1])
    post = np.exp(alpha + beta - loglik)
    path = [int(delta.argmax())]
    for t in range(T - 1, 0, -1):
        path.append(int(back[t, path[-1]]))
    return loglik, post, path[::-1], float(delta.max()), post.argmax(axis=1)


def kfold_ridge(np, X, y, lambdas):
    """k-fold cross-validation of ridge regression: folds by np.array_split
    of a permutation, the closed form by np.linalg.solve on standardised
    features, the validation error per lambda, and the refit at the best."""
    folds = np.array_split(np.arange(len(X)), 4)
    errs = np.zeros((len(lambdas), len(folds)))
    for j, val in enumerate(folds):
        train = np.setdiff1d(np.arange(len(X)), val)
        mu, sd = X[train].mean(axis=0), X[train].std(axis=0)
        Xt, Xv = (X[train] - mu) / sd, (X[val] - mu) / sd
        ym = y[train].mean()
        for i, lam in enumerate(lambdas):
            w = np.linalg.solve(Xt.T @ Xt + lam * np.eye(X.shape[1]), Xt.T @ (y[train] - ym))
            errs[i, j] = np.mean((Xv @ w + ym - y[val]) ** 2)
    best = lambdas[int(np.argmin(errs.mean(axis=1)))]
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    w = np.linalg.solve(Z.T @ Z + best * np.eye(X.shape[1]), Z.T @ (y - y.mean()))
    return errs, best, w, [len(f) for f in folds]


def kalman_smoother(np, zs, dt, q, r):
    """A constant-velocity Kalman filter in 2-D (state x, y, vx, vy) with
    position measurements, storing the predicted and filtered moments, then
    a Rauch-Tung-Striebel smoother running backwards; the log-likelihood of
    the innovations with slogdet, and the NIS per step."""
    F = np.eye(4)
    F[0, 2] = F[1, 3] = dt
    H = np.eye(2, 4)
    Q = q * np.kron(np.array([[dt**3 / 3, dt**2 / 2], [dt**2 / 2, dt]]), np.eye(2))
    R = r * np.eye(2)
    x, P = np.zeros(4), np.eye(4) * 10.0
    xs_p, Ps_p, xs_f, Ps_f, nis, loglik = [], [], [], [], [], 0.0
    for z in zs:
        x, P = F @ x, F @ P @ F.T + Q
        xs_p.append(x)
        Ps_p.append(P)
        S = H @ P @ H.T + R
        innov = z - H @ x
        K = np.linalg.solve(S, H @ P).T
        x = x + K @ innov
        P = (np.eye(4) - K @ H) @ P
        xs_f.append(x)
        Ps_f.append(P)
        nis.append(innov @ np.linalg.inv(S) @ innov)
        sign, logdet = np.linalg.slogdet(S)
        loglik += -0.5 * (logdet + nis[-1] + 2 * np.log(2 * np.pi))
    xs, Ps = [xs_f[-1]], [Ps_f[-1]]
    for k in range(len(zs) - 2, -1, -1):
        G = Ps_f[k] @ F.T @ np.linalg.inv(Ps_p[k + 1])
        xs.insert(0, xs_f[k] + G @ (xs[0] - xs_p[k + 1]))
        Ps.insert(0, Ps_f[k] + G @ (Ps[0] - Ps_p[k + 1]) @ G.T)
    return np.array(xs_f), np.array(xs), np.stack(Ps)[:, :2, :2], np.array(nis), float(loglik)


def mlp_backprop(np, X, y, W1, W2, steps):
    """A two-layer float32 network trained by hand: ReLU hidden layer,
    softmax cross-entropy, gradients by manual backprop, SGD with momentum
    and weight decay, gradient-norm clipping; dtypes stay float32 (numpy 2
    keeps float32 with Python scalars)."""
    W1, W2 = W1.copy(), W2.copy()
    b1 = np.zeros(W1.shape[1], dtype=np.float32)
    b2 = np.zeros(W2.shape[1], dtype=np.float32)
    vel = [np.zeros_like(p) for p in (W1, b1, W2, b2)]
    onehot = np.eye(W2.shape[1], dtype=np.float32)[y]
    losses = []
    for _ in range(steps):
        h_pre = X @ W1 + b1
        h = np.maximum(h_pre, 0)
        logits = h @ W2 + b2
        logits = logits - logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        losses.append(-np.mean(np.log(p[np.arange(len(y)), y] + 1e-7)))
        d_logits = (p - onehot) / len(y)
        gW2, gb2 = h.T @ d_logits + 1e-3 * W2, d_logits.sum(axis=0)
        d_h = (d_logits @ W2.T) * (h_pre > 0)
        gW1, gb1 = X.T @ d_h + 1e-3 * W1, d_h.sum(axis=0)
        grads = [gW1, gb1, gW2, gb2]
        norm = np.sqrt(sum((g * g).sum() for g in grads))
        scale = min(1.0, 5.0 / (float(norm) + 1e-6))
        for i, (param, g) in enumerate(zip((W1, b1, W2, b2), grads, strict=True)):
            vel[i] = 0.9 * vel[i] - 0.5 * scale * g
            param += vel[i]
    acc = (np.argmax(X @ W1 + b1 > 0, axis=1) >= 0).mean()
    pred = np.argmax(np.maximum(X @ W1 + b1, 0) @ W2 + b2, axis=1)
    return W1, b2, np.array(losses), pred, float(acc), W1.dtype.name, p.dtype.name


@pytest.mark.usefixtures('runtime')
def test_kmeans_plus_plus_with_an_empty_cluster():
    rng = np.random.default_rng(1)
    X = np.concatenate([rng.normal(c, 0.5, size=(15, 2)) for c in ((0, 0), (4, 0), (2, 4))])
    check(kmeans_plus_plus, X, 3)


@pytest.mark.usefixtures('runtime')
def test_newton_logistic_regression():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(80, 2))
    y = (rng.random(80) < 1 / (1 + np.exp(-(0.5 + X @ [1.5, -1.0])))).astype(float)
    check(newton_logistic, X, y, rtol=1e-7)


@pytest.mark.usefixtures('runtime')
def test_ridge_cross_validation_with_lstsq():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 5))
    y = X @ np.array([1.0, 0.0, -2.0, 0.5, 0.0]) + 0.3 * rng.normal(size=40)
    check(ridge_cross_validation, X, y, rtol=1e-7)


@pytest.mark.usefixtures('runtime')
def test_nearest_neighbours_with_einsum():
    rng = np.random.default_rng(6)
    check(nearest_neighbours, rng.normal(size=(12, 4)), rng.normal(size=(9, 4)), rtol=1e-7)


@pytest.mark.usefixtures('runtime')
def test_kalman_filter_loop():
    rng = np.random.default_rng(8)
    zs = 0.7 * np.arange(15) + rng.normal(0, 0.7, size=15)
    check(kalman_filter, zs, rtol=1e-7)


@pytest.mark.usefixtures('runtime')
def test_tiny_regression_net_with_momentum():
    rng = np.random.default_rng(10)
    X = rng.uniform(-2, 2, size=(64, 2))
    check(tiny_regression_net, X, np.sin(X[:, 0]) * X[:, 1], 11, rtol=1e-7)


@pytest.mark.usefixtures('runtime')
def test_gaussian_mixture_2d_with_weighted_cov():
    rng = np.random.default_rng(14)
    X = np.concatenate([rng.multivariate_normal([0, 0], [[1, 0.5], [0.5, 1]], 40),
                        rng.multivariate_normal([4, 3], [[0.6, -0.2], [-0.2, 0.4]], 30)])
    check(gmm_2d, X, rtol=1e-7)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_gaussian_mixture_em():
    rng = np.random.default_rng(27)
    check(gmm_em, np.concatenate([rng.normal(-2, 0.7, 60), rng.normal(3, 1.2, 40)]), rtol=1e-7)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_conv_layer_with_sliding_windows_and_einsum():
    rng = np.random.default_rng(123)
    check(conv_layer, rng.normal(size=(2, 11, 12)), rng.normal(size=(4, 3, 3)), rtol=1e-9)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.filterwarnings('ignore::lazytensor.numpy.LazyFallbackWarning')
def test_sinkhorn_and_simplex_projection():
    rng = np.random.default_rng(127)
    a = rng.random(7)
    b = rng.random(9)
    check(sinkhorn_transport, a / a.sum(), b / b.sum(),
          np.sort(rng.random(7)), np.sort(rng.random(9)), rtol=1e-7)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.slow  # three epoch graphs of ~250 nodes: ~4 s of XLA compile on one core
def test_softmax_classifier_with_momentum_and_minibatches():
    rng = np.random.default_rng(131)
    centres = rng.normal(scale=3, size=(3, 4))
    y = rng.integers(0, 3, 64)
    X = centres[y] + rng.normal(size=(64, 4))
    perms = [rng.permutation(64) for _ in range(3)]
    W1, W2 = 0.3 * rng.normal(size=(4, 8)), 0.3 * rng.normal(size=(8, 3))
    check(softmax_classifier, X, y, W1, W2, perms,
          rtol=1e-7)


@pytest.mark.usefixtures('own_runtime')
def test_pca_by_svd_and_eigh():
    rng = np.random.default_rng(132)
    base = rng.normal(size=(50, 2)) @ rng.normal(size=(2, 5))
    check(pca_two_ways, base + 0.05 * rng.normal(size=(50, 5)), rtol=1e-7)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.slow  # an unrolled forward-backward graph: ~3 s of XLA compile on one core
def test_hmm_forward_backward_and_viterbi():
    rng = np.random.default_rng(141)
    A = rng.dirichlet(np.ones(3) * 2, size=3) + np.eye(3)
    A /= A.sum(axis=1, keepdims=True)
    B = rng.dirichlet(np.ones(4), size=3)
    check(hmm_viterbi, np.log(A), np.log(B), np.log(np.array([0.5, 0.3, 0.2])),
          rng.integers(0, 4, 8), rtol=1e-9)


@pytest.mark.usefixtures('own_runtime')
@pytest.mark.slow  # six graphs with LU solves: ~5 s of XLA compile on one core
def test_kfold_ridge_with_array_split_and_solve():
    rng = np.random.default_rng(146)
    X = rng.normal(size=(32, 4))  # equal folds: every fold's graph is the first one's
    y = X @ np.array([1.5, 0.0, -2.0, 0.3]) + 0.5 * rng.normal(size=32)
    check(kfold_ridge, X, y, [0.1, 10.0], rtol=1e-8)


@pytest.mark.usefixtures('own_runtime')
# one graph of five unrolled filter steps and the smoother's inverses (solve,
# inv, slogdet composites): 6 to 10 s of compiling here
@pytest.mark.slow
def test_kalman_filter_with_rts_smoother():
    rng = np.random.default_rng(184)
    t = np.arange(5) * 0.5
    truth = np.stack([2 * t + 1, -t + 0.2 * t**2], axis=1)
    check(kalman_smoother, truth + rng.normal(scale=0.5, size=truth.shape), 0.5, 0.1, 0.25,
          rtol=1e-8)


@pytest.mark.usefixtures('own_runtime')
# three graphs of 60-120 nodes (one per step, cut by float(norm)): 10 s of
# compiling here
@pytest.mark.slow
def test_float32_mlp_with_manual_backprop():
    rng = np.random.default_rng(185)
    X = rng.normal(size=(40, 2)).astype(np.float32)
    y = ((X[:, 0] * X[:, 1]) > 0).astype(np.int64)
    W1 = (rng.normal(size=(2, 16)) * 0.5).astype(np.float32)
    W2 = (rng.normal(size=(16, 2)) * 0.5).astype(np.float32)
    check(mlp_backprop, X, y, W1, W2, 2, rtol=2e-4)
