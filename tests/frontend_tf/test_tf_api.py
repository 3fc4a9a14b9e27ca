"""Conversion in and out, the ndarray's tf.Tensor-like surface, bad input
raising tnp's error types, random numbers, fallbacks and the support table.

TensorFlow's API on lazy arrays: dispatch of tf.* functions, lazy sizes
where TensorFlow takes sizes, named results, debugging checks, tf.is_tensor.
Each check runs eagerly (tnp, tf) and lazily (lazytensor.tf.numpy,
lazytensor.tf) and compares values, dtypes and shapes, or the exception
type."""


from __future__ import annotations

import sys
import warnings
from pathlib import Path

import lazytensor.tf as ltf
import numpy as np
import numpy as onp
import pytest
from tf_helpers import assert_same, lnp, normal_f32, same_lazily, tf, tnp


def sizes_from_tf_shape(np_, t):
    """``tf.shape(x)[0]`` is a lazy scalar for a lazy x; TensorFlow APIs that
    take it as a size or inside a shape list must accept it as they accept
    an eager one (tf.eye raised TypeError, tf.random.normal([n, 2]) a
    ValueError from TensorFlow's list converter)."""
    x = np_.ones((3, 4), dtype=np_.float32)
    n, m = tf.shape(x)[0], tf.shape(x)[1]
    tf.random.set_seed(3)
    noise = [tf.random.normal([n, 2], seed=1), tf.random.uniform((n,), seed=2),
             tf.random.uniform([m], maxval=9, dtype=tf.int32, seed=3)]
    return [tf.eye(n), tf.eye(n, m, dtype=tf.int32), tf.eye(2, n, batch_shape=[2]),
            tf.linalg.eye(m, dtype=tf.float64) @ tf.ones((4, 1), tf.float64),
            tf.convert_to_tensor([n, 2]), tf.convert_to_tensor(((n, 1), (m, 2))), *noise]


BAD = [
    ("add", lambda np: np.add(np.ones(3), np.ones(4))),
    ("reshape", lambda np: np.reshape(np.ones(6), (4, 2))),
    ("sum axis", lambda np: np.sum(np.ones(3), axis=2)),
    ("matmul", lambda np: np.matmul(np.ones((2, 3)), np.ones((2, 3)))),
    ("@", lambda np: np.ones((2, 3)) @ np.ones((2, 3))),
    ("concatenate", lambda np: np.concatenate([np.ones((2, 3)), np.ones((2, 2))])),
    ("operator shapes", lambda np: np.ones(3) + np.ones(4)),
    ("negative bool", lambda np: np.negative(np.ones(3, dtype=np.bool_))),
    ("bitwise float", lambda np: np.bitwise_and(np.ones(3), np.ones(3))),
    ("arctan2 int", lambda np: np.arctan2(np.ones(3, dtype=np.int32), 1)),
    ("broadcast_to", lambda np: np.broadcast_to(np.ones(3), (2, 4))),
    ("transpose axes", lambda np: np.transpose(np.ones((2, 3)), (0, 0))),
    ("split uneven", lambda np: np.split(np.ones(5), 2)),
    ("take raise", lambda np: np.take(np.ones(3), [1], mode="raise")),
    ("clip none", lambda np: np.clip(np.ones(3), None, None)),
    ("arange step", lambda np: np.arange(0, 5, 0)),
    ("ones None", lambda np: np.ones(3, dtype=None)),
    ("where one", lambda np: np.where(np.ones(3) > 0, 1)),
    ("sort kind", lambda np: np.sort(np.ones(3), kind="heapsort")),
    ("index range", lambda np: np.ones((3, 4))[5]),
    ("index rank", lambda np: np.ones((3, 4))[0, 0, 0]),
    ("index list range", lambda np: np.ones((3, 4))[[0, 7]]),
    ("index column", lambda np: np.ones((3, 4))[:, 9]),
    ("index float", lambda np: np.ones((3, 4))[1.5]),
    ("index str", lambda np: np.ones((3, 4))["a"]),
    ("index mask shape", lambda np: np.ones((3, 4))[onp.array([True, False])]),
    ("setitem", lambda np: np.ones(3).__setitem__(0, 1.0)),
]


def test_named_results_as_tensorflow():
    x = np.eye(3) + 0.1
    for f in (tf.linalg.qr, tf.linalg.lu,
              lambda a: tf.nn.max_pool_with_argmax(a[None, :, :, None], 2, 1, "VALID")):
        got, want = f(lnp.asarray(x)), f(tf.constant(x))
        assert type(got).__name__ == type(want).__name__ and got._fields == want._fields
        assert_same(list(got), list(want))


def test_lazy_sizes_are_accepted_where_tensorflow_takes_sizes():
    assert_same(sizes_from_tf_shape(lnp, ltf), sizes_from_tf_shape(tnp, tf))


def test_tf_eye_of_a_bad_lazy_size_raises_as_tensorflow():
    for np_ in (tnp, lnp):
        n = tf.shape(np_.ones((3, 4)))
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.eye(n[0] - 4)
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.eye(n)


def test_tf_is_tensor_of_lazy_arrays_and_variables():
    """``tf.is_tensor`` of a lazy array or Variable was False (TensorFlow:
    True for its tensors, tnp ndarrays and variables), so user code that
    converts what is not a tensor (``if not tf.is_tensor(t): t =
    tf.convert_to_tensor(t)``) materialized lazy arrays."""
    x = lnp.asarray([1.0, 2.0])
    assert tf.is_tensor(x) and tf.is_tensor(tnp.asarray([1.0, 2.0]))
    assert tf.is_tensor(ltf.Variable(np.float32(1.0)))
    assert not tf.is_tensor(np.ones(2)) and not tf.is_tensor([1.0])

    def normalise(t):
        if not tf.is_tensor(t):
            t = tf.convert_to_tensor(t)
        return t / tf.reduce_sum(t)

    data = np.array([1.0, 2.0], np.float32)
    got = normalise(lnp.asarray(data))
    assert isinstance(got, ltf.Tensor)
    assert_same(got, normalise(tf.constant(data)))


def test_debugging_checks_keep_lazy_values_and_assertions_observe():
    """tf.debugging.check_numerics / assert_all_finite and tf.ensure_shape
    returned eager copies of lazy inputs (counted fallbacks; the program and
    a tape's path left the lazy graph); tf.debugging.assert_* counted their
    look at the values as fallbacks. The checks return the lazy input now,
    gradients flow through them, and assertions are observations."""
    x = normal_f32(22, 4, 3)

    def program(const):
        v = const(x)
        tf.debugging.assert_near(v, v * 1.0)
        tf.debugging.assert_less(v, 100.0)
        tf.debugging.assert_rank(v, 2)
        checked = tf.ensure_shape(tf.debugging.check_numerics(v * 2, "bad"), [None, 3])
        return [checked, tf.debugging.assert_all_finite(v, "bad") + 1]

    got = same_lazily(program)
    assert all(isinstance(t, lnp.ndarray) for t in got)
    import lazytensor.tf as ltf

    w = ltf.Variable(x)
    with ltf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.debugging.check_numerics(w * w, "bad"))
    assert_same(tape.gradient(loss, w), lnp.asarray(2 * x))


@pytest.mark.parametrize("check", ["check_numerics", "assert_all_finite", "ensure_shape",
                                   "assert_less"])
def test_failed_debugging_checks_raise_tensorflows_errors(check):
    bad = np.array([1.0, np.nan, np.inf], np.float32)
    for const in (tf.constant, lnp.asarray):
        with pytest.raises(tf.errors.InvalidArgumentError):
            if check == "ensure_shape":
                tf.ensure_shape(const(bad), [2])
            elif check == "assert_less":
                tf.debugging.assert_less(const(bad), 0.5)
            else:
                getattr(tf.debugging, check)(const(bad), "bad values")


def test_conversions_in_and_out():
    host = np.arange(6, dtype=np.float32).reshape(2, 3)
    for source in (host, tf.constant(host), tf.Variable(host), host.tolist()):
        x = lnp.asarray(source)
        assert isinstance(x, lnp.ndarray)
        np.testing.assert_array_equal(x.numpy(), host)
    x = lnp.asarray(host) * 2
    tensor = tf.convert_to_tensor(x)
    assert isinstance(tensor, tf.Tensor) and tensor.dtype == tf.float32
    np.testing.assert_array_equal(tensor.numpy(), host * 2)
    for array in (x, tnp.asarray(host)):  # conversion never casts, as for a tf.Tensor
        with pytest.raises(ValueError, match="requested dtype float64"):
            tf.convert_to_tensor(array, dtype=tf.float64)
    np.testing.assert_array_equal(tf.math.add(x, 1.0).numpy(), host * 2 + 1)
    np.testing.assert_array_equal(tf.matmul(x, tf.ones((3, 1))).numpy(), (host * 2).sum(1,
                                                                                          keepdims=True))
    np.testing.assert_array_equal(np.asarray(x), host * 2)
    assert lnp.asarray([x, x]).shape == (2, 2, 3)


def test_tensor_surface():
    host = np.arange(6, dtype=np.float32).reshape(2, 3)
    t, x = tnp.asarray(host), lnp.asarray(host)
    assert x.shape == t.shape and isinstance(x.shape, tf.TensorShape)
    assert x.dtype == t.dtype == tnp.float32 and isinstance(x.dtype, tf.DType)
    assert (x.ndim, x.size, len(x)) == (t.ndim, t.size, len(t))
    for fn in (lambda a: a.T, lambda a: a.reshape(3, 2), lambda a: a.reshape((-1,)),
               lambda a: a.astype(tnp.int32), lambda a: a.ravel(), lambda a: a.flatten(),
               lambda a: a.transpose(), lambda a: a.clip(1, 4), lambda a: a.max(axis=0),
               lambda a: a.min(), lambda a: a.mean(axis=1), lambda a: round(a),
               lambda a: a[1], lambda a: a[:, ::2], lambda a: a[..., None],
               lambda a: a[[1, 0]], lambda a: a[a > 2], lambda a: a[tnp.asarray([0, 1]), 2]
               if isinstance(a, tf.Tensor) else a[lnp.asarray([0, 1]), 2],
               lambda a: -a, lambda a: +a, lambda a: abs(a - 3), lambda a: a @ a.T,
               lambda a: 2 ** a, lambda a: a // 2, lambda a: a % 4, lambda a: 1 - a,
               lambda a: a / 2, lambda a: (a > 1) & (a < 4), lambda a: (a > 1) | (a < 4),
               lambda a: a == 3, lambda a: a != 3, lambda a: a <= 2, lambda a: a >= 2):
        assert_same(fn(x), fn(t))
    assert x.tolist() == t.tolist() and float(x[1, 2]) == 5.0 and int(x[0, 1]) == 1
    assert bool(x[0, 1]) and [r.shape for r in x] == [(3,), (3,)]
    with pytest.raises(TypeError):
        hash(x)
    assert "lazytensor.tf.Tensor" in repr(x)


@pytest.mark.parametrize("name,program", BAD, ids=[b[0] for b in BAD])
def test_bad_input_raises_tnps_error_type(name, program):
    with pytest.raises(Exception) as want:
        program(tnp)
    with pytest.raises(Exception) as got:
        program(lnp).numpy()
    assert isinstance(got.value, want.type), f"tnp: {want.value!r}, lnp: {got.value!r}"


def test_random_draws_tensorflows_own_stream(fresh_metrics):
    def draws(xp):
        xp.random.seed(3)
        return [xp.random.randn(2, 3), xp.random.rand(4), xp.random.uniform(-1, 1, (5,)),
                xp.random.standard_normal((2,)), xp.random.random((3,)),
                xp.random.randint(0, 5, (100,))]

    got, want = draws(lnp), draws(tnp)
    for x, w in zip(got, want, strict=True):
        assert isinstance(x, lnp.ndarray) and (x.dtype, x.shape) == (w.dtype, w.shape)
        np.testing.assert_array_equal(x.numpy(), w.numpy())
    counters = fresh_metrics.as_dict()["counters"]
    assert counters["eager_fallbacks"] == 0 and counters["host_random_draws"] == 6
    # an int size works (TensorFlow 2.21's tnp.random.uniform raises on it)
    assert lnp.random.uniform(0, 1, 4).shape == (4,) and lnp.random.random(3).shape == (3,)


def test_fallback_is_counted_warned_once_and_lazy_again(fresh_metrics):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = [lnp.random.poisson(2.0, size=(3,)) for _ in range(2)]
    assert isinstance(out[0], lnp.ndarray) and out[0].shape == (3,)
    assert len([w for w in caught if "not lowered" in str(w.message)]) == 1
    assert fresh_metrics.as_dict()["fallbacks"] == {"tnp.random.poisson": 2}


def test_support_table_is_current_and_covers_85_percent():
    root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root / "ci"))
    import tf_support  # ci/tf_support.py

    table = tf_support.markdown()
    assert (root / "docs" / "tf_support.md").read_text() == table, \
        "regenerate: python ci/tf_support.py > docs/tf_support.md"
    lowered, total = tf_support.counts()
    assert lowered / total >= 0.85


def test_namespace_mirrors_tnp():
    public = {n for n in dir(tnp) if not n.startswith("_")}
    assert public <= set(dir(lnp))
    for name in ("pi", "e", "inf", "newaxis", "float32", "int64", "bool_"):
        assert getattr(lnp, name) is getattr(tnp, name) or getattr(lnp, name) == getattr(tnp,
                                                                                         name)
    assert lnp.result_type(lnp.ones(2, dtype=lnp.int32), 1.5) == tnp.result_type(
        tnp.ones(2, dtype=tnp.int32), 1.5)
    assert lnp.finfo(lnp.float32).eps == tnp.finfo(tnp.float32).eps
    assert ltf.sync is not None and ltf.Tensor is lnp.ndarray
