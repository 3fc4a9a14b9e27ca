"""A two-layer MLP with hand-written gradients, written the way numpy users
write it, trained on digits eagerly with numpy and lazily through
lazytensor.numpy from the SAME source: the model code takes the numpy-like
module ``np`` as a parameter, and the lazy run passes ``lazytensor.numpy``.

The learning rate decays every epoch; it is a Python float, so the lazy run
compiles its step once and never again (see ``cache_misses`` in the report).
"""

from __future__ import annotations

import argparse
import math

import numpy

from demo import data
from demo.common import Result, fit, frontend_missing, import_frontend, report

HIDDEN = 256
BATCH = 128
EPOCHS = 20


# ---------------------------------------------------------- the model code


def init_params(np, sizes: list[int], seed: int = 0) -> list[list]:
    """He-initialised weights and zero biases, as ``np`` arrays."""
    rng = numpy.random.default_rng(seed)
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:], strict=True):
        w = rng.standard_normal((fan_in, fan_out)).astype(numpy.float32)
        params.append([np.asarray(w * math.sqrt(2.0 / fan_in)),
                       np.asarray(numpy.zeros(fan_out, numpy.float32))])
    return params


def forward(np, params, x):
    """Logits and the activations the backward pass needs."""
    acts = [x]
    for w, b in params[:-1]:
        x = np.maximum(x @ w + b, 0.0)
        acts.append(x)
    w, b = params[-1]
    return x @ w + b, acts


def train_step(np, params, x, onehot, lr: float):
    """One SGD step on softmax cross-entropy; updates ``params`` in place."""
    logits, acts = forward(np, params, x)
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    total = e.sum(axis=1, keepdims=True)
    loss = -(onehot * (z - np.log(total))).sum() / x.shape[0]
    grad = (e / total - onehot) / x.shape[0]
    for i in reversed(range(len(params))):
        w, b = params[i]
        dw, db = acts[i].T @ grad, grad.sum(axis=0)
        if i:
            grad = (grad @ w.T) * (acts[i] > 0)
        w -= lr * dw
        b -= lr * db
    return loss


def accuracy(np, params, x, labels) -> float:
    logits, _ = forward(np, params, x)
    return float((logits.argmax(axis=1) == labels).mean())


def train(np, digits: data.Digits, epochs: int, mark_step=lambda: None,
          capture=lambda step: step) -> tuple:
    """Train from a fixed seed; ``mark_step`` ends each step (lazy runs);
    ``capture`` wraps the step function (``lazytensor.numpy.capture``)."""
    params = init_params(np, [digits.x_train.shape[1], HIDDEN, HIDDEN, data.N_CLASSES])
    batches = [(np.asarray(x), np.asarray(data.one_hot(y))) for x, y in digits.batches(BATCH, 0)]
    step = capture(lambda x, onehot, lr: train_step(np, params, x, onehot, lr))

    def run_epoch(epoch: int) -> tuple[int, float]:
        lr = 0.5 / (1.0 + 0.1 * epoch)
        for x, onehot in batches:
            loss = step(x, onehot, lr)
            mark_step()
        return len(batches), float(loss)

    steps, loss, first, rate = fit(run_epoch, epochs)
    acc = accuracy(np, params, np.asarray(digits.x_test), np.asarray(digits.y_test))
    return acc, loss, steps, first, rate


# ------------------------------------------------------------------ driver


def main(args: argparse.Namespace) -> int:
    epochs = args.epochs or EPOCHS
    digits = data.load()
    print(f"digits: {len(digits.y_train)} train / {len(digits.y_test)} test images; "
          f"MLP 64-{HIDDEN}-{HIDDEN}-10, batch {BATCH}, {epochs} epochs, plain SGD")
    eager = Result("numpy (eager)", *train(numpy, digits, epochs))
    try:
        lnp = import_frontend("lazytensor.numpy")
        from lazytensor.core import metrics
    except ImportError as exc:
        report("numpy frontend", eager, None)
        return frontend_missing("lazytensor.numpy", exc)
    metrics.reset()
    lazy = Result("lazytensor.numpy (lazy)", *train(lnp, digits, epochs, mark_step=lnp.sync))
    captured = Result("lazytensor.numpy capture", *train(lnp, digits, epochs,
                                                          capture=lnp.capture))
    report("numpy frontend: the same source, eager, lazy and captured", eager, lazy,
           metrics.report(), captured)
    return 0
