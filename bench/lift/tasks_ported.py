"""Loops as someone porting old C code writes them: index tracking,
counters, two passes, strides, borders skipped, nested ifs, in-place
updates, running values. Written to probe loops the lifter was not tuned
on (the lifter's own tasks are in tasks_basic.py and tasks_more.py).
Two are refused by design and are not benchmark tasks: ``one_hot`` (its
width is a value, not a shape) and ``first_negative`` (an early ``break``).
"""

import numpy as np


def argmax_loop(x):
    best = x[0]
    k = 0
    for i in range(1, len(x)):
        if x[i] > best:
            best = x[i]
            k = i
    return k


def argmin_loop(x):
    k = 0
    for i in range(len(x)):
        if x[i] < x[k]:
            k = i
    return k


def count_above(x, t):
    c = 0
    for i in range(len(x)):
        if x[i] > t:
            c += 1
    return c


def dot_stride(x, y):
    n = len(x) // 2
    s = 0.0
    for i in range(n):
        s += x[2 * i] * y[i]
    return s


def variance(x):
    n = len(x)
    mean = 0.0
    for i in range(n):
        mean += x[i]
    mean = mean / n
    var = 0.0
    for i in range(n):
        d = x[i] - mean
        var += d * d
    return var / n


def normalize(x):
    s = 0.0
    for i in range(len(x)):
        s += x[i] * x[i]
    norm = np.sqrt(s)
    out = np.zeros_like(x)
    for i in range(len(x)):
        out[i] = x[i] / norm
    return out


def outer_prod(a, b):
    n, m = len(a), len(b)
    out = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            out[i, j] = a[i] * b[j]
    return out


def transpose_copy(a):
    rows, cols = a.shape
    out = np.zeros((cols, rows))
    for r in range(rows):
        for c in range(cols):
            out[c][r] = a[r][c]
    return out


def trace(a):
    t = 0.0
    for i in range(a.shape[0]):
        t += a[i, i]
    return t


def diagonal(a):
    n = a.shape[0]
    d = np.zeros(n)
    for i in range(n):
        d[i] = a[i, i]
    return d


def box_blur(img):
    h, w = img.shape
    out = np.zeros((h - 2, w - 2))
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            s = 0.0
            for dy in range(-1, 2):
                for dx in range(-1, 2):
                    s += img[y + dy, x + dx]
            out[y - 1, x - 1] = s / 9.0
    return out


def relu6(x):
    out = np.zeros_like(x)
    for i in range(len(x)):
        if x[i] > 0:
            if x[i] > 6:
                out[i] = 6
            else:
                out[i] = x[i]
        else:
            out[i] = 0
    return out


def absdiff_u8(a, b):
    out = np.zeros_like(a)
    for i in range(len(a)):
        if a[i] > b[i]:
            out[i] = a[i] - b[i]
        else:
            out[i] = b[i] - a[i]
    return out


def horner(c, x):
    out = np.zeros_like(x)
    for i in range(len(x)):
        acc = 0.0
        for k in range(len(c)):
            acc = acc * x[i] + c[k]
        out[i] = acc
    return out


def minmax_scale(x):
    lo = x[0]
    hi = x[0]
    for i in range(len(x)):
        if x[i] < lo:
            lo = x[i]
        if x[i] > hi:
            hi = x[i]
    out = np.zeros_like(x)
    for i in range(len(x)):
        out[i] = (x[i] - lo) / (hi - lo)
    return out


def one_hot(labels, k):  # the width is a value, not a shape: refused
    n = len(labels)
    out = np.zeros((n, k))
    for i in range(n):
        for j in range(k):
            if labels[i] == j:
                out[i, j] = 1.0
    return out


def one_hot_into(labels, out):
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            if labels[i] == j:
                out[i, j] = 1.0
            else:
                out[i, j] = 0.0


def diff1(x):
    out = np.zeros(len(x) - 1)
    for i in range(1, len(x)):
        out[i - 1] = x[i] - x[i - 1]
    return out


def axpy_inplace(a, x, y):
    for i in range(len(y)):
        y[i] += a * x[i]


def prefix_sum(x):
    out = np.zeros_like(x)
    acc = 0.0
    for i in range(x.shape[0]):
        acc += x[i]
        out[i] = acc
    return out


def running_mean(x):
    out = np.zeros_like(x)
    s = 0.0
    for i in range(len(x)):
        s += x[i]
        out[i] = s / (i + 1)
    return out


def clip_elif(x, lo, hi):
    out = np.empty_like(x)
    for i in range(len(x)):
        v = x[i]
        if v < lo:
            v = lo
        elif v > hi:
            v = hi
        out[i] = v
    return out


def sign_loop(x):
    out = np.zeros_like(x)
    for i in range(len(x)):
        s = 0
        if x[i] > 0:
            s = 1
        elif x[i] < 0:
            s = -1
        out[i] = s
    return out


def sat_add_u8(a, b):
    out = np.zeros_like(a)
    for i in range(len(a)):
        s = int(a[i]) + int(b[i])
        if s > 255:
            s = 255
        out[i] = s
    return out


def while_sum(x):
    s = 0.0
    i = 0
    while i < len(x):
        s = s + x[i]
        i = i + 1
    return s


def row_argmax(a):
    n, m = a.shape
    idx = np.zeros(n, dtype=np.int64)
    for i in range(n):
        best = a[i, 0]
        k = 0
        for j in range(1, m):
            if a[i, j] > best:
                best = a[i, j]
                k = j
        idx[i] = k
    return idx


def product(x):
    p = 1.0
    for i in range(len(x)):
        p = p * x[i]
    return p


def first_negative(x):
    k = -1
    for i in range(len(x)):
        if x[i] < 0:
            k = i
            break
    return k
