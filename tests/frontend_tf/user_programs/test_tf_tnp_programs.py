"""tf.experimental.numpy programs as tnp users write them (regressions, MLPs,
curve fits, k-means, creation and reshaping). Each program is written once
against a numpy-like module and TensorFlow, runs eagerly
(tensorflow.experimental.numpy, tf.Variable, tf.GradientTape) and lazily
(lazytensor.tf.numpy, lazytensor.tf.Variable, lazytensor.tf.GradientTape),
and must give the same values, dtypes and shapes."""


from __future__ import annotations

import lazytensor.tf as ltf
import numpy as np
import pytest
from tf_helpers import assert_same, lnp, tf, tnp

RNG = np.random.default_rng(11)


POINTS = np.concatenate([RNG.normal(loc=c, scale=0.4, size=(10, 2))
                         for c in ((-2.0, 0.0), (2.0, 1.0), (0.0, -2.5))]).astype(np.float32)


CLASSES = np.repeat(np.arange(3), 10)


def check(program, precision: str | None = None) -> None:
    want, got = program(tnp, tf), program(lnp, ltf)
    assert_same(got, want, program.__name__, precision)


def softmax_regression_steps(np_, t):
    """Multinomial logistic regression, several steps, accuracy by argmax."""
    w = t.Variable(np.zeros((2, 3), np.float32))
    b = t.Variable(np.zeros((3,), np.float32))
    x = np_.asarray(POINTS)
    onehot = np_.eye(3, dtype=np_.float32)[np_.asarray(CLASSES)]
    history = []
    for _ in range(6):
        with t.GradientTape() as tape:
            logits = x @ w + b
            shifted = logits - logits.max(axis=1, keepdims=True)
            log_p = shifted - np_.log(np_.sum(np_.exp(shifted), axis=1, keepdims=True))
            loss = -np_.mean(np_.sum(onehot * log_p, axis=1))
        gw, gb = tape.gradient(loss, [w, b])
        w.assign_sub(0.5 * gw)
        b.assign_sub(0.5 * gb)
        history.append(loss)
    accuracy = np_.mean(np_.argmax(x @ w + b, axis=-1) == np_.asarray(CLASSES))
    return [np_.stack(history), w.read_value(), b.read_value(), accuracy]


def two_layer_mlp_with_relu(np_, t):
    """A hidden layer with tf.nn-free relu, tanh output, gradients of both."""
    w1 = t.Variable(RNG_W1)
    w2 = t.Variable(RNG_W2)
    x = np_.asarray(POINTS)
    y = np_.asarray(CLASSES, dtype=np_.float32)[:, None] - 1.0
    for _ in range(3):
        with t.GradientTape() as tape:
            h = np_.maximum(x @ w1, 0.0)
            out = np_.tanh(h @ w2)
            loss = np_.mean(np_.square(out - y))
        g1, g2 = tape.gradient(loss, [w1, w2])
        w1.assign_sub(0.1 * g1)
        w2.assign_sub(0.1 * g2)
    return [loss, g1, g2, w2.read_value()]


def l1_regularized_relu_layer_from_zeros(np_, t):
    """Zero-initialized weights meet TensorFlow's gradient conventions at 0:
    ``abs``'s gradient is sign(x) = 0 there, ``maximum(h, 0.0)`` passes a tie's
    gradient wholly to h, ``clip`` passes it at its bounds."""
    w = t.Variable(np.zeros((2, 4), np.float32))
    v = t.Variable(np.array([[0.5], [-0.5], [1.0], [0.0]], np.float32))
    x = np_.asarray(POINTS)
    y = np_.asarray(CLASSES, dtype=np_.float32)[:, None]
    for _ in range(3):
        with t.GradientTape() as tape:
            h = np_.maximum(x @ w, 0.0)
            out = np_.clip(h @ v + 1.0, 0.0, 2.0)
            loss = np_.mean((out - y) ** 2) + 0.01 * np_.sum(np_.abs(w)) + 0.01 * np_.sum(abs(v))
        gw, gv = tape.gradient(loss, [w, v])
        w.assign_sub(0.5 * gw)
        v.assign_sub(0.5 * gv)
    return [loss, gw, gv, w.read_value(), v.read_value()]


RNG_W1 = np.random.default_rng(2).normal(size=(2, 8)).astype(np.float32)


RNG_W2 = np.random.default_rng(3).normal(size=(8, 1)).astype(np.float32) * 0.3


def scalar_variables_from_python_numbers(np_, t):
    """``tf.Variable(0.0)`` is float32 and ``tf.Variable(0)`` int32 (TensorFlow's
    conversion of Python numbers), whatever tnp's mode."""
    slope, intercept = t.Variable(0.0), t.Variable([0.0])
    steps = t.Variable(0)
    x = np_.asarray(POINTS[:, 0])
    y = 3.0 * x - 1.0
    for _ in range(4):
        with t.GradientTape() as tape:
            loss = np_.mean((slope * x + intercept - y) ** 2)
        g_slope, g_intercept = tape.gradient(loss, [slope, intercept])
        slope.assign_sub(0.2 * g_slope)
        intercept.assign_sub(0.2 * g_intercept)
        steps.assign_add(1)
    return [slope.read_value(), intercept.read_value(), steps.read_value(), loss,
            steps * 2, slope + 1]


def gauss_newton_curve_fit(np_, t):
    """Fit y = a * exp(b * x) by Gauss-Newton steps; the residuals' Jacobian
    comes from ``tape.jacobian``, the 2x2 normal equations are solved by hand."""
    x = np_.linspace(0.0, 1.0, 8)
    y = 2.0 * np_.exp(-1.5 * x)
    params = t.Variable(np.array([1.0, -1.0]))
    for _ in range(3):
        with t.GradientTape() as tape:
            residual = params[0] * np_.exp(params[1] * x) - y
        jac = tape.jacobian(residual, params)  # (8, 2)
        (a, b), (c, d) = jac.T @ jac
        inverse = np_.asarray([[d, -b], [-c, a]]) / (a * d - b * c)
        params.assign_sub(inverse @ (jac.T @ residual))
    return [params.read_value(), residual, jac]


def kmeans_with_one_hot(np_, t):
    x = np_.asarray(POINTS)
    centers = x[::10]
    for _ in range(3):
        d = np_.sum((x[:, None, :] - centers[None]) ** 2, axis=-1)
        assign = np_.argmin(d, axis=1)
        onehot = np_.eye(3)[assign]  # float64 one-hot
        counts = np_.sum(onehot, axis=0)
        centers = (onehot.T @ x) / np_.maximum(counts, 1)[:, None]
    return [centers, assign, counts, np_.sum(np_.min(d, axis=1))]


def creation_and_reshaping(np_, t):
    grid_x, grid_y = np_.meshgrid(np_.linspace(-1.0, 1.0, 5), np_.arange(3))
    radius = np_.sqrt(grid_x ** 2 + grid_y ** 2)
    tiled = np_.tile(np_.arange(3, dtype=np_.int32), (2, 2))
    repeated = np_.repeat(np_.asarray([1, 2, 3]), 2)
    stacked = np_.stack([grid_x, radius], axis=-1)
    joined = np_.concatenate([tiled, tiled * 10], axis=0)
    left, right = np_.split(np_.arange(10.0), [4])
    parts = np_.split(joined, 2, axis=1)
    return [grid_x, grid_y, radius, tiled, repeated, stacked, joined, left, right, parts,
            np_.arange(2, 11, 3), np_.arange(0, 1, 0.1), np_.full((2, 2), 7)]


def products_and_contractions(np_, t):
    a = np_.asarray(POINTS[:4])
    b = np_.asarray(POINTS[4:7])
    gram = np_.einsum("id,jd->ij", a, b)
    batched = np_.einsum("bi,bj->bij", a, a)
    dotted = np_.tensordot(a, b, axes=([1], [1]))
    outer = np_.outer(np_.arange(3), np_.asarray([1.0, 0.5]))
    kron = np_.kron(np_.eye(2), np_.asarray([[1, 2], [3, 4]]))
    inner = np_.inner(a, b)
    vdot = np_.vdot(a[0], a[1])
    return [gram, batched, dotted, outer, kron, inner, vdot, np_.trace(gram @ gram.T)]


def weak_type_promotion(np_, t):
    """Python scalars are weak: they take the array's dtype where they fit."""
    i32 = np_.arange(6, dtype=np_.int32)
    f32 = np_.asarray([0.5, 1.5, -2.0], dtype=np_.float32)
    u8 = np_.asarray([250, 3, 7], dtype=np_.uint8)
    i8 = np_.asarray([-3, 7, 100], dtype=np_.int8)
    scaled = np_.asarray(POINTS) * [10.0, 0.1]  # a list of Python floats is weak too
    return [scaled, i8 + [1, 2, 3], np_.maximum(i32[:3], [2, 2, 2]), i32 + 1, i32 * 2.5,
            f32 * 2, f32 + 1.0, i32 / 2, i32 // 4, u8 + 10, i8 * 2, i32 + np_.asarray(1.5),
            f32 + np_.asarray(2, np_.int64), i32 ** 2, f32 ** 2,
            2 ** i32, i32 > 2.5, -i32, np_.asarray(3) + True, i8 + u8,
            np_.asarray([f32[0], 1.0, 2]), np_.stack([f32[1], 0.5]),
            np_.asarray([f32, [1.0, 2.0, 3.0]])]


def integer_division_with_negatives(np_, t):
    a = np_.asarray([7, -7, 7, -7, 0, 5], dtype=np_.int32)
    b = np_.asarray([2, 2, -2, -2, 3, -5], dtype=np_.int32)
    fa = a.astype(np_.float32)
    return [a // b, a % b, np_.floor_divide(a, b), np_.mod(a, b), np_.remainder(a, -3),
            a / b, np_.true_divide(a, 2), fa // 2.0, fa % -3.0,
            np_.divmod(a, 3), np_.abs(a), np_.sign(a), a // 3, -a % 4]


def numpy_round_trips(np_, t):
    host = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = np_.asarray(host)
    y = np_.asarray(np.asarray(x * 2.0) + 1.0)  # back to numpy and in again
    total = float(np_.sum(y))
    biggest = int(np_.argmax(y))
    flags = [bool(v > 10.0) for v in y[0]]
    rows = y.tolist()
    column = np_.asarray([row[1] for row in rows])
    count = 0
    while bool(np_.any(y > 5.0)) and count < 10:
        y = y / 2.0
        count += 1
    return [y, np_.asarray(total), np_.asarray(biggest), np_.asarray(flags), column,
            np_.asarray(count), np_.array(host, dtype=np_.float64), np_.asarray(x.numpy() - 1)]


def ndarray_operators(np_, t):
    x = np_.asarray(POINTS[:6])
    y = np_.asarray(POINTS[6:12])
    z = x.reshape(3, 4).T.astype(np_.float64)
    window = (x > -1.0) & (x < 1.0)
    outside = ~window | (x == 0.0)
    return [x @ y.T, x ** 2, abs(x), -x, +x, x[::-1], x[..., None], x[:, ::-1][1:4],
            z, z.reshape((2, 6)), window, outside, x.ravel()[::5], x.flatten()[-3:],
            x.clip(-0.5, 0.5), x.min(axis=0), x.max(), x.mean(axis=1), 1.0 - x,
            2.0 / (1.0 + abs(x)),
            x != y, x >= y, x * [2.0, 0.5], [[1], [2]] - x[:2], x @ [1, -1],
            np_.concatenate([x[0], [9, 9]]), np_.clip(x, [-1, 0], 1)]


def index_lists(np_, t):
    """A list index holding lists, slices or arrays is a tuple index in tnp
    (numpy's legacy rule); a list of scalars is one integer-array index."""
    grid = np_.arange(20).reshape(4, 5)
    rows, cols = [0, 2, 3], [1, 1, 4]
    picks = grid[[rows, cols]]
    block = grid[np_.ix_([0, 3], [1, 2, 4])]  # ix_ returns a list
    return [picks, block, grid[[np_.asarray([1, 2])]], grid[[0, 2]], grid[rows][:, cols],
            grid[[1, slice(None, 3)]], grid[[np_.asarray(0), np_.asarray(3)]]]


def where_clip_maximum(np_, t):
    x = np_.asarray(POINTS[:, 0])
    huber = np_.where(np_.abs(x) < 1.0, 0.5 * x ** 2, np_.abs(x) - 0.5)
    clipped = np_.clip(x, -1.0, 1.0)
    ints = np_.clip(np_.arange(-3, 4), 0, 2)
    leaky = np_.maximum(x, 0.1 * x)
    smallest = np_.minimum(x, np_.zeros_like(x))
    replaced = np_.where(x > 0, x, np.nan)
    return [huber, clipped, ints, leaky, smallest, np_.nanmean(replaced), np_.nansum(replaced),
            np_.isnan(replaced), np_.where(x > 0, 1, -1)]


def unique_like_and_cumulative(np_, t):
    """Run-length style code: sort, diff, cumsum, a mask of first occurrences."""
    values = np_.asarray([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5], dtype=np_.int64)
    s = np_.sort(values)
    first = np_.concatenate([np_.asarray([True]), np_.diff(s) != 0])
    group = np_.cumsum(first.astype(np_.int32)) - 1
    counts = np_.sum(group[None, :] == np_.arange(7)[:, None], axis=1)
    order = np_.argsort(-values, kind="stable")
    ranks = np_.argsort(order)
    return [s, first, group, counts, order, ranks, np_.cumprod(np_.asarray([1, 2, 3, 4])),
            np_.flip(np_.cumsum(np_.flip(values))), np_.diff(values, n=2)]


def seeded_noise_in_computation(np_, t):
    np_.random.seed(42)
    x = np_.asarray(POINTS)
    noise = np_.random.standard_normal(size=x.shape).astype(np_.float32)
    mask = np_.random.uniform(size=(x.shape[0],)) > 0.3
    dropped = np_.where(mask[:, None], x + 0.1 * noise, 0.0)
    picks = np_.random.randint(0, 30, size=(5,))
    return [dropped, x[picks], np_.sum(mask)]


def statistics_by_hand(np_, t):
    x = np_.asarray(POINTS)
    centered = x - x.mean(axis=0)
    cov = centered.T @ centered / (x.shape[0] - 1)
    corr = cov / np_.sqrt(np_.outer(np_.diag(cov), np_.diag(cov)))
    z = centered / np_.std(x, axis=0, keepdims=True)
    spread = np_.ptp(x, axis=0)
    return [cov, corr, z.max(axis=0), spread, np_.average(x, axis=0, weights=np_.arange(30.0)),
            np_.var(x), np_.std(x, axis=0) ** 2, np_.prod(x[:3], axis=0)]


def tensor_refs_as_keys(np_, t):
    """Tensors are unhashable; users key dictionaries by ``x.ref()``."""
    a, b = np_.asarray([1.0, 2.0]), np_.asarray([3.0, 4.0])
    scale = {a.ref(): 2.0, b.ref(): -1.0}
    out = [k.deref() * v for k, v in scale.items()]
    return [*out, np_.asarray(a.ref() in scale), np_.asarray(np_.asarray(1.0).ref() in scale)]


def tf_ops_on_lazy_arrays(np_, t):
    """Real TensorFlow ops take lazy arrays (they materialize), results
    come back into the namespace."""
    x = np_.asarray(POINTS) * 2.0
    logits = tf.matmul(x, tf.ones((2, 3)))
    probs = np_.asarray(tf.nn.softmax(logits))
    loss = -np_.mean(np_.log(np_.max(probs, axis=1)))
    relu_sum = tf.reduce_sum(tf.nn.relu(x), axis=0)
    return [probs, loss, np_.asarray(relu_sum) + 1.0, tf.math.log(np_.abs(x) + 1.0),
            np_.sum(np_.asarray(tf.cast(x > 0, tf.int32)))]


PROGRAMS = [
    softmax_regression_steps, two_layer_mlp_with_relu, scalar_variables_from_python_numbers,
    l1_regularized_relu_layer_from_zeros, gauss_newton_curve_fit, kmeans_with_one_hot,
    creation_and_reshaping, products_and_contractions, weak_type_promotion,
    integer_division_with_negatives, numpy_round_trips, ndarray_operators, index_lists,
    where_clip_maximum, unique_like_and_cumulative, seeded_noise_in_computation,
    statistics_by_hand, tensor_refs_as_keys, tf_ops_on_lazy_arrays,
]


# what TensorFlow refuses when a value is assigned to a variable
BAD_ASSIGNMENTS = {
    "python float into an int counter": (np.zeros((), np.int32), "assign_add", lambda np_: 1.5),
    "float64 tensor into a float32 variable": (
        np.zeros(2, np.float32), "assign", lambda np_: np_.asarray([0.5, 1.5])),
    "int64 tensor into an int32 variable": (
        np.zeros(2, np.int32), "assign_sub", lambda np_: np_.arange(2)),
    "python floats into a bool variable": (
        np.zeros(2, bool), "assign", lambda np_: [1.0, 0.0]),
}


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_user_program_matches_tnp(program):
    check(program)


@pytest.mark.parametrize("case", BAD_ASSIGNMENTS, ids=str)
def test_bad_assignment_raises_as_tensorflow(case):
    initial, method, value = BAD_ASSIGNMENTS[case]
    raised = []
    for np_, t in ((tnp, tf), (lnp, ltf)):
        variable = t.Variable(initial)
        with pytest.raises((TypeError, ValueError)) as info:
            getattr(variable, method)(value(np_))
        raised.append(info.type)
    assert raised[0] is raised[1]


def test_polyval_runs_horner_from_the_first_coefficient_as_tnp():
    # tnp starts at p[0] (exact at x = inf); numpy starts at 0 (0 * inf is NaN)
    for p, x in (([1.0, 2.0], np.inf), ([[1.0, 2.0], [3.0, 4.0]], [2.0])):
        assert_same(lnp.polyval(p, x), tnp.polyval(p, x))
    assert float(lnp.polyval([1.0, 2.0], np.inf)) == np.inf
