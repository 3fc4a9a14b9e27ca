"""The digits MLP written with tf.experimental.numpy and a GradientTape:
once eagerly with TensorFlow (``tnp``, ``tf.Variable``, ``tf.GradientTape``),
once lazily with lazytensor.tf (``lazytensor.tf.numpy``, its ``Variable``
and ``GradientTape``), from the same source; the lazy run calls
``lazytensor.tf.sync()`` after each step.
"""

from __future__ import annotations

import argparse
import math
import os
from contextlib import contextmanager
from types import SimpleNamespace

import numpy

from demo import data
from demo.common import Result, fit, frontend_missing, import_frontend, report

HIDDEN = 256
BATCH = 128
EPOCHS = 20


def init_params(tf, sizes: list[int], seed: int = 0) -> list:
    """He-initialised weights and zero biases as ``tf.Variable``s."""
    rng = numpy.random.default_rng(seed)
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:], strict=True):
        w = rng.standard_normal((fan_in, fan_out)).astype(numpy.float32)
        params += [tf.Variable(tf.tnp.asarray(w * math.sqrt(2.0 / fan_in))),
                   tf.Variable(tf.tnp.zeros(fan_out, dtype=tf.tnp.float32))]
    return params


def forward(tnp, params, x):
    for w, b in zip(params[:-2:2], params[1:-2:2], strict=True):
        x = tnp.maximum(tnp.matmul(x, w) + b, 0.0)
    return tnp.matmul(x, params[-2]) + params[-1]


def loss_fn(tnp, logits, onehot):
    """Mean softmax cross-entropy, written out in tnp."""
    z = logits - tnp.max(logits, axis=1, keepdims=True)
    log_probs = z - tnp.log(tnp.sum(tnp.exp(z), axis=1, keepdims=True))
    return -tnp.mean(tnp.sum(onehot * log_probs, axis=1))


def train_step(tf, params, x, onehot, lr: float):
    with tf.GradientTape() as tape:
        loss = loss_fn(tf.tnp, forward(tf.tnp, params, x), onehot)
    grads = tape.gradient(loss, params)
    for p, g in zip(params, grads, strict=True):
        p.assign_sub(lr * g)
    return loss


def train(tf, digits: data.Digits, epochs: int, capture=lambda step: step) -> tuple:
    """``tf``: a namespace with ``tnp``, ``Variable``, ``GradientTape`` and ``sync``;
    ``capture`` wraps the step function (``lazytensor.tf.capture``)."""
    tnp = tf.tnp
    params = init_params(tf, [64, HIDDEN, HIDDEN, data.N_CLASSES])
    batches = [(tnp.asarray(x), tnp.asarray(data.one_hot(y)))
               for x, y in digits.batches(BATCH, 0)]
    step = capture(lambda x, onehot, lr: train_step(tf, params, x, onehot, lr))

    def run_epoch(epoch: int) -> tuple[int, float]:
        lr = 0.5 / (1.0 + 0.1 * epoch)
        for x, onehot in batches:
            loss = step(x, onehot, lr)
            tf.sync()
        return len(batches), float(loss)

    steps, loss, first, rate = fit(run_epoch, epochs)
    logits = forward(tnp, params, tnp.asarray(digits.x_test))
    acc = float((logits.numpy().argmax(axis=1) == digits.y_test).mean())
    return acc, loss, steps, first, rate


@contextmanager
def quiet_native_stderr():
    """Silence file descriptor 2 for a block: TensorFlow's import logs oneDNN
    notices from C++ before its log level can be set."""
    saved, devnull = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def main(args: argparse.Namespace) -> int:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    with quiet_native_stderr():
        import tensorflow as tf
        import tensorflow.experimental.numpy as tnp

    epochs = args.epochs or EPOCHS
    digits = data.load()
    print(f"digits: {len(digits.y_train)} train / {len(digits.y_test)} test images; "
          f"tnp MLP 64-{HIDDEN}-{HIDDEN}-10, batch {BATCH}, {epochs} epochs, "
          "GradientTape + SGD")
    eager_ns = SimpleNamespace(tnp=tnp, Variable=tf.Variable, GradientTape=tf.GradientTape,
                               sync=lambda: None)
    eager = Result("tnp (eager TensorFlow)", *train(eager_ns, digits, epochs))
    try:
        ltf = import_frontend("lazytensor.tf")
        from lazytensor.core import metrics
    except ImportError as exc:
        report("tf frontend", eager, None)
        return frontend_missing("lazytensor.tf", exc)
    metrics.reset()
    lazy_ns = SimpleNamespace(tnp=ltf.numpy, Variable=ltf.Variable,
                              GradientTape=ltf.GradientTape, sync=ltf.sync)
    lazy = Result("lazytensor.tf (lazy)", *train(lazy_ns, digits, epochs))
    captured = Result("lazytensor.tf capture", *train(lazy_ns, digits, epochs,
                                                       capture=ltf.capture))
    report("tf frontend: the same tnp code, eager, lazy and captured", eager, lazy,
           metrics.report(), captured)
    return 0
