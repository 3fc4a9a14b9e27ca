"""lazytensor.tf.GradientTape / Variable against tf.GradientTape / tf.Variable:
the same program through both, gradients compared; TensorFlow's semantics
(what is recorded, None for unconnected or integer sources, persistence)."""

from __future__ import annotations

import lazytensor.tf as ltf
import numpy as np
import pytest
from tf_helpers import assert_same, lnp, tf, tnp

X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], np.float32)
W = np.array([[0.1, 0.2], [-0.3, 0.4], [0.5, -0.6]], np.float32)


def both(program):
    """Run ``program(np_module, tf_module)`` with tnp/tf and with lnp/ltf."""
    return program(tnp, tf), program(lnp, ltf)


def assert_grads(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=False):
        if w is None:
            assert g is None
        else:
            assert g is not None
            assert_same(g, w, precision="float32")


def test_variables_are_watched_and_match_tf():
    def program(np_, t):
        w, b = t.Variable(W), t.Variable(np.zeros(2, np.float32))
        x = np_.asarray(X)
        with t.GradientTape() as tape:
            h = np_.tanh(np_.matmul(x, w) + b)
            loss = np_.sum(h * h) / 2.0
        return tape.gradient(loss, [w, b])

    want, got = both(program)
    assert_grads(got, want)


def test_watch_tensor_and_nested_sources():
    def program(np_, t):
        x = np_.asarray(X)
        with t.GradientTape() as tape:
            tape.watch(x)
            y = np_.sum(np_.exp(x) * x)
        return tape.gradient(y, {"a": [x], "b": x})

    want, got = both(program)
    assert set(got) == {"a", "b"}
    assert_grads(got["a"] + [got["b"]], want["a"] + [want["b"]])


def test_values_computed_before_the_tape_are_constants():
    def program(np_, t):
        w = t.Variable(W)
        before = w * 2.0  # not recorded: a constant for the tape
        x = np_.asarray(X)
        with t.GradientTape() as tape:
            loss = np_.sum(np_.matmul(x, w)) * np_.sum(before)
        return tape.gradient(loss, [w])

    want, got = both(program)
    assert_grads(got, want)


def test_unconnected_and_integer_sources_give_none():
    def program(np_, t):
        w, unused = t.Variable(W), t.Variable(np.ones(3, np.float32))
        k = t.Variable(np.arange(3, dtype=np.int32))
        with t.GradientTape() as tape:
            loss = np_.sum(w * 3.0) + np_.sum(k)
        return tape.gradient(loss, [w, unused, k]) + tape_zero(t, np_)

    def tape_zero(t, np_):
        v = t.Variable(np.ones(2, np.float32))
        u = t.Variable(np.ones(2, np.float32))
        with t.GradientTape() as tape:
            loss = np_.sum(v)
        return tape.gradient(loss, [u], unconnected_gradients="zero")

    want, got = both(program)
    assert_grads(got, want)


def test_barrier_inside_the_tape_keeps_the_graph():
    w = ltf.Variable(W)
    x = lnp.asarray(X)
    with ltf.GradientTape() as tape:
        h = lnp.matmul(x, w)
        assert float(lnp.sum(h)) == pytest.approx(float(np.sum(X @ W)), rel=1e-6)  # barrier
        loss = lnp.sum(h * h)
    print(loss)  # and one after the tape
    (g,) = tape.gradient(loss, [w])
    np.testing.assert_allclose(g.numpy(), 2 * X.T @ (X @ W), rtol=1e-5)


def test_persistent_nested_and_second_order():
    def program(np_, t):
        x = t.Variable(np.array([0.5, -1.5, 2.0]))
        with t.GradientTape() as outer:
            with t.GradientTape(persistent=True) as inner:
                y = np_.sum(np_.sin(x) * x)
            (g,) = inner.gradient(y, [x])
            again = inner.gradient(y, x)
            s = np_.sum(g)
        (gg,) = outer.gradient(s, [x])
        return [g, again, gg]

    want, got = both(program)
    assert_grads(got, want)


def test_non_persistent_tape_is_used_once():
    w = ltf.Variable(W)
    with ltf.GradientTape() as tape:
        loss = lnp.sum(w)
    tape.gradient(loss, w)
    with pytest.raises(RuntimeError, match="non-persistent"):
        tape.gradient(loss, w)


def test_output_gradients_and_list_targets():
    def program(np_, t):
        x = np_.asarray(X)
        with t.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y1, y2 = x * x, np_.sum(np_.cos(x))
        a = tape.gradient(y1, x, output_gradients=np_.asarray(X + 1.0))
        b = tape.gradient([y1, y2], x)
        return [a, b]

    want, got = both(program)
    assert_grads(got, want)


def test_stop_recording_and_watch_accessed_variables():
    def program(np_, t):
        w, v = t.Variable(W), t.Variable(W)
        x = np_.asarray(X)
        with t.GradientTape(watch_accessed_variables=False) as tape:
            tape.watch(v)
            with tape.stop_recording():
                c = np_.sum(np_.matmul(x, v))
            loss = np_.sum(np_.matmul(x, w) * 2.0) + np_.sum(np_.matmul(x, v)) * c
        return tape.gradient(loss, [w, v])

    want, got = both(program)
    assert_grads(got, want)


def test_gradient_is_lazy_and_compiles_once(fresh_metrics):
    w = ltf.Variable(W)
    x = lnp.asarray(X)
    for _ in range(3):
        with ltf.GradientTape() as tape:
            loss = lnp.sum(lnp.tanh(lnp.matmul(x, w)))
        (g,) = tape.gradient(loss, [w])
        assert fresh_metrics.as_dict()["counters"]["graphs_executed"] == _ + 0
        w.assign_sub(0.1 * g)
        ltf.sync()
    counters = fresh_metrics.as_dict()["counters"]
    assert counters["cache_misses"] == 1 and counters["graphs_executed"] == 3


def test_variable_api():
    v = ltf.Variable(np.ones((2, 2), np.float32), name="v")
    v.assign(np.full((2, 2), 3.0, np.float32))
    v.assign_add(1.0)
    v.assign_sub(np.ones((2, 2), np.float32))
    np.testing.assert_array_equal(v.numpy(), np.full((2, 2), 3.0))
    assert v.dtype == tf.float32 and v.shape == (2, 2) and v.trainable
    assert (v + 1).numpy().sum() == 16.0
    with pytest.raises(ValueError):
        v.assign(np.ones(3, np.float32))


def test_kept_results_release_their_graph_after_the_gradient():
    w = ltf.Variable(W)
    x = lnp.asarray(X)
    with ltf.GradientTape() as tape:
        loss = lnp.sum(lnp.matmul(x, w))
    assert loss._sym is not None  # the tape may still need it
    tape.gradient(loss, [w])
    assert loss._sym is None and loss._session is None  # nothing can use it now
    with ltf.GradientTape(persistent=True) as keep:
        kept = lnp.sum(lnp.matmul(x, w))
    keep.gradient(kept, [w])
    assert kept._sym is not None  # a persistent tape may be asked again
    del keep
    assert kept._sym is None
