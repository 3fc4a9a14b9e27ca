"""Small training programs, one per frontend and optimizer, each written
once as a step function and run traced (``captured=False``) or through the
frontend's ``capture``; ``train`` returns the losses and the final state
(parameters, optimizer state, running statistics) as numpy arrays."""

from __future__ import annotations

import numpy as np

STEPS = 20
BATCH, FEATURES, HIDDEN, CLASSES = 8, 4, 6, 3


def batches(seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((BATCH, FEATURES)).astype(np.float32),
             rng.integers(0, CLASSES, BATCH)) for _ in range(STEPS)]


def schedule(step: int) -> float:
    """A learning rate that a scheduler changes every few steps."""
    return 0.1 * 0.5 ** (step // 7)


# ------------------------------------------------------------------ torch
def torch_train(optimizer: str, captured: bool, steps: int = STEPS) -> tuple[list, list]:
    import lazytensor.torch as lt
    import torch

    dev = lt.device()
    torch.manual_seed(0)
    lt.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(FEATURES, HIDDEN), torch.nn.BatchNorm1d(HIDDEN), torch.nn.ReLU(),
        torch.nn.Dropout(0.25), torch.nn.Linear(HIDDEN, CLASSES)).to(dev)
    if optimizer == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-2)
    elif optimizer == "adam":  # torch's defaults: the step count on the host (a CPU tensor)
        opt = torch.optim.Adam(model.parameters(), lr=0.01)
    elif optimizer == "adamw":  # the same, with decoupled weight decay
        opt = torch.optim.AdamW(model.parameters(), lr=0.01)
    else:  # fused: the step counter lives on the device, as torch_xla's and CUDA's
        opt = torch.optim.Adam(model.parameters(), lr=0.01, fused=True)
    scheduler = torch.optim.lr_scheduler.StepLR(opt, 7, gamma=0.5)

    def step(x, y):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    step = lt.capture(step) if captured else step
    losses = []
    for x, y in batches()[:steps]:
        loss = step(torch.from_numpy(x).to(dev), torch.from_numpy(y).to(dev))
        scheduler.step()
        if not captured:
            lt.sync()
        losses.append(loss)
    state = [p.detach().cpu().numpy() for p in model.parameters()]
    state += [b.cpu().numpy() for b in model.buffers()]
    state += [v.cpu().numpy() for s in opt.state.values() for v in s.values()
              if isinstance(v, torch.Tensor)]
    return [float(loss.detach().cpu()) for loss in losses], state


# ------------------------------------------------------------------ numpy
def _init(np_like) -> dict:
    rng = np.random.default_rng(1)
    w = rng.standard_normal((FEATURES, CLASSES)).astype(np.float32) * 0.5
    return {"w": np_like.asarray(w), "b": np_like.zeros(CLASSES, dtype=np_like.float32),
            "mw": np_like.zeros_like(np_like.asarray(w)),
            "mb": np_like.zeros(CLASSES, dtype=np_like.float32),
            "vw": np_like.zeros_like(np_like.asarray(w)),
            "vb": np_like.zeros(CLASSES, dtype=np_like.float32),
            "mean": np_like.zeros(FEATURES, dtype=np_like.float32),
            "t": np_like.zeros((), dtype=np_like.float32)}


def _gradients(np_like, s: dict, x, onehot):
    """Softmax regression on batch-normalized inputs (running mean kept)."""
    mean = x.mean(axis=0)
    s["mean"][...] = 0.9 * s["mean"] + 0.1 * mean
    h = x - mean
    z = h @ s["w"] + s["b"]
    z = z - z.max(axis=1, keepdims=True)
    p = np_like.exp(z) / np_like.exp(z).sum(axis=1, keepdims=True)
    loss = -(onehot * np_like.log(p)).sum() / BATCH
    dz = (p - onehot) / BATCH
    return loss, h.T @ dz, dz.sum(axis=0)


def _update(np_like, s: dict, gw, gb, lr: float, optimizer: str) -> None:
    if optimizer == "sgd":
        for p, g, m in (("w", gw, "mw"), ("b", gb, "mb")):
            g = g + 1e-2 * s[p]  # weight decay
            s[m][...] = 0.9 * s[m] + g
            s[p] -= lr * s[m]
        return
    s["t"] += 1.0
    for p, g, m, v in (("w", gw, "mw", "vw"), ("b", gb, "mb", "vb")):
        s[m][...] = 0.9 * s[m] + 0.1 * g
        s[v][...] = 0.999 * s[v] + 0.001 * g * g
        mhat = s[m] / (1 - 0.9 ** s["t"])
        vhat = s[v] / (1 - 0.999 ** s["t"])
        s[p] -= 0.1 * mhat / (np_like.sqrt(vhat) + 1e-8) * lr


def numpy_train(optimizer: str, captured: bool, steps: int = STEPS) -> tuple[list, list]:
    import lazytensor.numpy as lnp

    s = _init(lnp)

    def step(x, onehot, lr):
        loss, gw, gb = _gradients(lnp, s, x, onehot)
        _update(lnp, s, gw, gb, lr, optimizer)
        return loss

    step = lnp.capture(step) if captured else step
    losses = []
    for i, (x, y) in enumerate(batches()[:steps]):
        onehot = np.eye(CLASSES, dtype=np.float32)[y]
        losses.append(step(lnp.asarray(x), lnp.asarray(onehot), schedule(i)))
        if not captured:
            lnp.sync()
    return [float(loss) for loss in losses], [np.asarray(v) for v in s.values()]


# ------------------------------------------------------------------ tf
def tf_train(optimizer: str, captured: bool, steps: int = STEPS) -> tuple[list, list]:
    import lazytensor.tf as ltf
    import tensorflow as tf

    tnp = ltf.numpy
    tf.random.set_seed(0)
    init = _init(tnp)
    params = [ltf.Variable(init["w"]), ltf.Variable(init["b"])]
    slots = [ltf.Variable(tnp.zeros_like(p)) for p in params]
    slots2 = [ltf.Variable(tnp.zeros_like(p)) for p in params]
    t = ltf.Variable(tnp.zeros((), dtype=tnp.float32))

    def step(x, onehot, lr):
        with ltf.GradientTape() as tape:
            h = tf.nn.dropout(x, 0.25)
            z = tnp.matmul(h, params[0]) + params[1]
            z = z - tnp.max(z, axis=1, keepdims=True)
            logp = z - tnp.log(tnp.sum(tnp.exp(z), axis=1, keepdims=True))
            loss = -tnp.sum(onehot * logp) / BATCH
        grads = tape.gradient(loss, params)
        if optimizer == "adam":
            t.assign_add(1.0)
        for p, g, m, v in zip(params, grads, slots, slots2, strict=True):
            if optimizer == "sgd":
                m.assign(0.9 * m + g + 1e-2 * p)
                p.assign_sub(lr * m)
            else:
                m.assign(0.9 * m + 0.1 * g)
                v.assign(0.999 * v + 0.001 * g * g)
                mhat = m / (1 - 0.9 ** t)
                p.assign_sub(0.1 * mhat / (tnp.sqrt(v / (1 - 0.999 ** t)) + 1e-8) * lr)
        return loss

    step = ltf.capture(step) if captured else step
    losses = []
    for i, (x, y) in enumerate(batches()[:steps]):
        onehot = np.eye(CLASSES, dtype=np.float32)[y]
        losses.append(step(tnp.asarray(x), tnp.asarray(onehot), schedule(i)))
        if not captured:
            ltf.sync()
    state = [p.numpy() for p in (*params, *slots, *slots2, t)]
    return [float(loss) for loss in losses], state


TRAIN = {"numpy": numpy_train, "torch": torch_train, "tf": tf_train}
