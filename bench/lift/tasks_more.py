"""Benchmark tasks, part 2: 8-bit image blends, conditional element-wise,
neural-network kernels, FIR filters, multi-nest kernels and a histogram."""

import math

import numpy as np

# -- 8-bit image blends (uint8 images, integer arithmetic, branches) ---------


def blend_darken(base, top):
    h, w = base.shape
    out = np.zeros((h, w), dtype=np.uint8)
    for y in range(h):
        for x in range(w):
            if base[y, x] < top[y, x]:
                out[y, x] = base[y, x]
            else:
                out[y, x] = top[y, x]
    return out


def blend_lighten(base, top):
    h, w = base.shape
    out = np.zeros((h, w), dtype=np.uint8)
    for y in range(h):
        for x in range(w):
            out[y, x] = max(base[y, x], top[y, x])
    return out


def blend_multiply(base, top):
    n = len(base)
    out = np.zeros(n, dtype=np.uint8)
    for i in range(n):
        out[i] = int(base[i]) * int(top[i]) // 255
    return out


def blend_screen(base, top):
    n = len(base)
    out = np.zeros(n, dtype=np.uint8)
    for i in range(n):
        out[i] = 255 - (255 - int(base[i])) * (255 - int(top[i])) // 255
    return out


def blend_burn(base, top):
    n = len(base)
    out = np.zeros(n, dtype=np.uint8)
    for i in range(n):
        b = int(base[i])
        t = int(top[i])
        if t == 0:
            out[i] = 0
        else:
            out[i] = max(0, 255 - (255 - b) * 255 // t)
    return out


def blend_overlay(base, top):
    n = len(base)
    out = np.zeros(n, dtype=np.uint8)
    for i in range(n):
        b = int(base[i])
        t = int(top[i])
        if b < 128:
            out[i] = 2 * b * t // 255
        else:
            out[i] = 255 - 2 * (255 - b) * (255 - t) // 255
    return out


def blend_average(base, top):
    n = len(base)
    out = np.zeros(n, dtype=np.uint8)
    for i in range(n):
        out[i] = (int(base[i]) + int(top[i])) // 2
    return out


def blend_difference(base, top):
    h, w = base.shape
    out = np.zeros((h, w), dtype=np.uint8)
    for y in range(h):
        for x in range(w):
            out[y, x] = abs(int(base[y, x]) - int(top[y, x]))
    return out


def blend_add_saturate(base, top):
    n = len(base)
    out = np.zeros(n, dtype=np.uint8)
    for i in range(n):
        s = int(base[i]) + int(top[i])
        if s > 255:
            s = 255
        out[i] = s
    return out


def blend_dodge(base, top):
    n = len(base)
    out = np.zeros(n, dtype=np.uint8)
    for i in range(n):
        b = int(base[i])
        t = int(top[i])
        if t == 255:
            out[i] = 255
        else:
            out[i] = min(255, b * 255 // (255 - t))
    return out


# -- conditional element-wise ------------------------------------------------


def leaky_relu(x, slope):
    n = len(x)
    y = np.zeros(n)
    for i in range(n):
        if x[i] > 0:
            y[i] = x[i]
        else:
            y[i] = slope * x[i]
    return y


def threshold(img, t):
    n = len(img)
    out = np.zeros(n, dtype=np.int64)
    for i in range(n):
        out[i] = 1 if img[i] >= t else 0
    return out


def relu2d(A):
    n, m = A.shape
    for i in range(n):
        for j in range(m):
            if A[i, j] < 0:
                A[i, j] = 0.0


# -- neural-network kernels --------------------------------------------------


def softmax(x):
    n = len(x)
    m = -math.inf
    for i in range(n):
        if x[i] > m:
            m = x[i]
    e = np.zeros(n)
    s = 0.0
    for i in range(n):
        e[i] = math.exp(x[i] - m)
        s += e[i]
    y = np.zeros(n)
    for i in range(n):
        y[i] = e[i] / s
    return y


def rmsnorm(x, g, eps):
    n = len(x)
    ss = 0.0
    for i in range(n):
        ss += x[i] * x[i]
    r = math.sqrt(ss / n + eps)
    y = np.zeros(n)
    for i in range(n):
        y[i] = x[i] / r * g[i]
    return y


def attention_scores(Q, K):
    n, d = Q.shape
    m = K.shape[0]
    scale = 1.0 / math.sqrt(d)
    S = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            acc = 0.0
            for k in range(d):
                acc += Q[i, k] * K[j, k]
            S[i, j] = acc * scale
    return S


def attention_mix(P, V):
    n, m = P.shape
    d = V.shape[1]
    out = np.zeros((n, d))
    for i in range(n):
        for k in range(d):
            for j in range(m):
                out[i, k] += P[i, j] * V[j, k]
    return out


def swiglu(g, u):
    n = len(g)
    out = np.zeros(n)
    for i in range(n):
        silu = g[i] / (1.0 + math.exp(-g[i]))
        out[i] = silu * u[i]
    return out


def row_softmax_max(S):
    n, m = S.shape
    mx = np.zeros(n)
    for i in range(n):
        mx[i] = S[i, 0]
        for j in range(1, m):
            if S[i, j] > mx[i]:
                mx[i] = S[i, j]
    return mx


# -- FIR filters, strided windows -----------------------------------------------


def fir(x, h):
    n = len(x) - len(h) + 1
    y = np.zeros(n)
    for i in range(n):
        for k in range(len(h)):
            y[i] += x[i + k] * h[k]
    return y


def moving_average3(x):
    n = len(x) - 2
    y = np.zeros(n)
    for i in range(n):
        y[i] = (x[i] + x[i + 1] + x[i + 2]) / 3.0
    return y


def downsample2(x):
    n = len(x) // 2
    y = np.zeros(n)
    for i in range(n):
        y[i] = 0.5 * (x[2 * i] + x[2 * i + 1])
    return y


def first_difference(x):
    n = len(x) - 1
    d = np.zeros(n)
    for i in range(n):
        d[i] = x[i + 1] - x[i]
    return d


# -- multi-nest kernels ------------------------------------------------------------


def atax(A, x):
    n, m = A.shape
    tmp = np.zeros(n)
    y = np.zeros(m)
    for i in range(n):
        for j in range(m):
            tmp[i] += A[i, j] * x[j]
        for j in range(m):
            y[j] += A[i, j] * tmp[i]
    return y


def dct2d(X):
    n, m = X.shape
    out = np.zeros((n, m))
    for u in range(n):
        for v in range(m):
            s = 0.0
            for i in range(n):
                for j in range(m):
                    cu = math.cos(math.pi * (2 * i + 1) * u / (2 * n))
                    cv = math.cos(math.pi * (2 * j + 1) * v / (2 * m))
                    s += X[i, j] * cu * cv
            out[u, v] = s
    return out


def bicg_q(A, p):
    n, m = A.shape
    q = np.zeros(n)
    for i in range(n):
        for j in range(m):
            q[i] = q[i] + A[i, j] * p[j]
    return q


# -- histogram -------------------------------------------------------------------------


def histogram(values, hist):
    for i in range(len(values)):
        hist[values[i]] += 1


def histogram_coarse(pixels):
    counts = np.zeros(16, dtype=np.int64)
    for i in range(len(pixels)):
        counts[pixels[i] // 16] += 1
    return counts
