"""Benchmark tasks, part 1: element-wise, 2-D maps, reductions and linear
algebra, written as a person porting old C loops to Python would."""

import math

import numpy as np

# -- 1-D element-wise ------------------------------------------------------


def vadd(a, b):
    n = a.shape[0]
    c = np.zeros(n)
    for i in range(n):
        c[i] = a[i] + b[i]
    return c


def saxpy(alpha, x, y):
    n = len(x)
    for i in range(n):
        y[i] = alpha * x[i] + y[i]


def scale_offset(x, s, off):
    n = len(x)
    out = np.empty(n)
    for i in range(n):
        out[i] = x[i] * s - off
    return out


def squared_diff(a, b):
    n = len(a)
    out = np.zeros(n)
    for i in range(n):
        d = a[i] - b[i]
        out[i] = d * d
    return out


def clamp(x, lo, hi):
    n = len(x)
    out = np.zeros(n)
    for i in range(n):
        v = x[i]
        if v < lo:
            v = lo
        if v > hi:
            v = hi
        out[i] = v
    return out


def fma3(a, b, c):
    out = np.zeros(len(a))
    i = 0
    while i < len(a):
        out[i] = a[i] * b[i] + c[i]
        i += 1
    return out


def vexp_scale(x, t):
    n = len(x)
    out = np.zeros(n)
    for i in range(n):
        out[i] = math.exp(x[i] / t)
    return out


# -- 2-D maps and transposes --------------------------------------------------


def add2d(A, B):
    rows, cols = A.shape
    C = np.zeros((rows, cols))
    for i in range(rows):
        for j in range(cols):
            C[i][j] = A[i][j] + B[i][j]
    return C


def transpose(A):
    n, m = A.shape
    T = np.zeros((m, n))
    for i in range(n):
        for j in range(m):
            T[j, i] = A[i, j]
    return T


def add_row_bias(A, b):
    n, m = A.shape
    out = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            out[i, j] = A[i, j] + b[j]
    return out


def outer(x, y):
    n = len(x)
    m = len(y)
    P = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            P[i, j] = x[i] * y[j]
    return P


def scale_cols(A, s):
    n, m = A.shape
    for i in range(n):
        for j in range(m):
            A[i, j] = A[i, j] * s[j]


# -- reductions -----------------------------------------------------------------


def vsum(x):
    s = 0.0
    for i in range(len(x)):
        s += x[i]
    return s


def dot(x, y):
    n = len(x)
    acc = 0.0
    for i in range(n):
        acc += x[i] * y[i]
    return acc


def l2norm(x):
    ss = 0.0
    for i in range(len(x)):
        ss += x[i] * x[i]
    return math.sqrt(ss)


def vmax(x):
    m = x[0]
    for i in range(1, len(x)):
        if x[i] > m:
            m = x[i]
    return m


def row_sums(A):
    n, m = A.shape
    r = np.zeros(n)
    for i in range(n):
        s = 0.0
        for j in range(m):
            s += A[i, j]
        r[i] = s
    return r


def col_means(A):
    n, m = A.shape
    mu = np.zeros(m)
    for j in range(m):
        for i in range(n):
            mu[j] += A[i, j]
        mu[j] = mu[j] / n
    return mu


def row_max(A):
    n, m = A.shape
    out = np.zeros(n)
    for i in range(n):
        best = -math.inf
        for j in range(m):
            best = max(best, A[i, j])
        out[i] = best
    return out


def sum_abs_int(v):
    total = 0
    for i in range(len(v)):
        total += abs(v[i])
    return total


# -- matrix-vector and matrix-matrix --------------------------------------------


def matvec(A, x):
    n, m = A.shape
    y = np.zeros(n)
    for i in range(n):
        acc = 0.0
        for j in range(m):
            acc += A[i, j] * x[j]
        y[i] = acc
    return y


def vecmat(x, A):
    n, m = A.shape
    y = np.zeros(m)
    for j in range(m):
        for i in range(n):
            y[j] += x[i] * A[i, j]
    return y


def matmul(A, B):
    n, k = A.shape
    m = B.shape[1]
    C = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            s = 0.0
            for p in range(k):
                s += A[i, p] * B[p, j]
            C[i, j] = s
    return C


def matvec_flat(a, x):
    # a holds an n-by-m matrix row after row
    m = len(x)
    n = len(a) // m
    y = np.zeros(n)
    for i in range(n):
        for j in range(m):
            y[i] += a[i * m + j] * x[j]
    return y


def matmul_flat(a, B):
    # a: n-by-k row-major in a flat buffer; the result is flat too
    k, m = B.shape
    n = len(a) // k
    c = np.zeros(n * m)
    for i in range(n):
        for j in range(m):
            acc = 0.0
            for p in range(k):
                acc += a[i * k + p] * B[p, j]
            c[i * m + j] = acc
    return c


def gemv_update(alpha, A, x, beta, y):
    n, m = A.shape
    for i in range(n):
        t = 0.0
        for j in range(m):
            t += A[i, j] * x[j]
        y[i] = alpha * t + beta * y[i]
