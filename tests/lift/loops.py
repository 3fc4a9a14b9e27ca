"""Loop functions the lifting tests lift (written as ported C code); those
the lifting benchmark also lifts come from its catalogue (bench/lift)."""

import numpy as np
from tasks_basic import matvec_flat  # noqa: F401
from tasks_more import fir, histogram, softmax  # noqa: F401


def saxpy(alpha, x, y):
    for i in range(len(x)):
        y[i] = alpha * x[i] + y[i]


def overlay(base, top):
    out = np.zeros(len(base), dtype=np.uint8)
    for i in range(len(base)):
        b = int(base[i])
        t = int(top[i])
        if b < 128:
            out[i] = 2 * b * t // 255
        else:
            out[i] = 255 - 2 * (255 - b) * (255 - t) // 255
    return out


def smooth(x):  # a recursive filter: no program in the language
    out = np.zeros(len(x))
    acc = 0.0
    for i in range(len(x)):
        acc = 0.5 * acc + x[i]
        out[i] = acc
    return out


def rng(seed=0):
    return np.random.default_rng(seed)


EXAMPLES = {
    "saxpy": lambda r, n: (np.array(r.normal()), r.normal(size=n), r.normal(size=n)),
    "softmax": lambda r, n: (r.normal(size=n),),
    "fir": lambda r, n: (r.normal(size=n + 3), r.normal(size=3)),
    "overlay": lambda r, n: (r.integers(0, 256, n).astype(np.uint8),
                             r.integers(0, 256, n).astype(np.uint8)),
    "histogram": lambda r, n: (r.integers(0, 6, 3 * n), np.zeros(6, dtype=np.int64)),
    "matvec_flat": lambda r, n: (r.normal(size=n * (n + 1)), r.normal(size=n + 1)),
    "smooth": lambda r, n: (r.normal(size=n),),
}


def examples(name: str) -> list[tuple]:
    r = rng()
    return [EXAMPLES[name](r, 4), EXAMPLES[name](r, 6)]


def lower_row_sums(A):  # a triangular nest: outside the language
    s = np.zeros(A.shape[0])
    for i in range(A.shape[0]):
        for j in range(i):
            s[i] += A[i, j]
    return s


def clip_copy(x):
    out = x.copy()
    for i in range(len(out)):
        if out[i] < 0:
            out[i] = 0.0
    return out


def energy_and_scale(x, y):  # returns a value and updates an argument in place
    s = 0.0
    for i in range(len(x)):
        s += x[i] * x[i]
    for i in range(len(y)):
        y[i] = y[i] * 2.0
    return s
