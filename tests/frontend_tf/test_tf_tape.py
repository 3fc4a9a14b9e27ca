"""lazytensor.tf.GradientTape / Variable against tf.GradientTape / tf.Variable:
the same program through both, gradients compared; TensorFlow's semantics
(what is recorded, None for unconnected or integer sources, persistence).

lazytensor.tf.GradientTape: gradients, jacobians and batch jacobians, nested
tapes and what they watch, constants the tape did not record, barriers
between steps. Each check runs eagerly (tnp, tf) and lazily
(lazytensor.tf.numpy, lazytensor.tf) and compares values, dtypes and shapes,
or the exception type."""


from __future__ import annotations

import lazytensor.tf as ltf
import numpy as np
import pytest
from tf_helpers import assert_same, lnp, tf, tnp


def batch_jacobians(np_, t):
    x = np_.asarray(np.linspace(-1, 1, 12).reshape(4, 3).astype(np.float32))
    w = t.Variable(np.arange(6, dtype=np.float32).reshape(3, 2) / 5)
    with t.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = np_.tanh(np_.matmul(x, w))
        q = np_.sum(x * x, axis=1)[:, None] * x
    return [tape.batch_jacobian(y, x), tape.batch_jacobian(q, x), tape.jacobian(y, w)]


def values_the_tape_did_not_record(np_, t):
    """What ``stop_recording`` computes, and what is computed after the tape,
    are constants to it: their own gradients are None, and a recorded value
    made from them differentiates only through the recorded ops."""
    w = t.Variable(2.0)
    with t.GradientTape(persistent=True) as tape:
        y = w * w
        with tape.stop_recording():
            scale = y * 3.0
        r = scale * w
    after = y * 2.0
    grads = [tape.gradient(v, w) for v in (after, scale, r, y)]
    return [np_.asarray([g is None for g in grads]), grads[2], grads[3],
            tape.jacobian(after, w, unconnected_gradients=tf.UnconnectedGradients.ZERO)]


def print_every_step_without_sync(np_, t):
    """``float(loss)`` each step, no ``sync``: the barrier runs the variable's
    pending update; its old buffer was donated although the tape's graph
    still named it, and the third step raised "Array has been deleted"."""
    w = t.Variable(5.0)
    v = t.Variable(np.ones(3, np.float32))
    x = np_.asarray([1.0, 2.0, 3.0], dtype=np_.float32)
    losses = []
    for _ in range(5):
        with t.GradientTape() as tape:
            loss = (w - 1.0) ** 2 + np_.sum((v * x - 1.0) ** 2)
            losses.append(float(loss))  # a barrier inside the tape too
        gw, gv = tape.gradient(loss, [w, v])
        losses.append(float(loss))
        w.assign_sub(0.1 * gw)
        v.assign_sub(0.01 * gv)
    return [np_.asarray(losses, dtype=np_.float32), w.read_value(), v.read_value()]


def variable_read_before_an_inner_tape(np_, t):
    """An outer tape reads w, then an inner tape starts and reads it again:
    what was computed before the inner tape is a constant to it (TF: 4), the
    outer tape differentiates through both reads (8); the inner tape's
    gradient was None lazily (it never watched w)."""
    w = t.Variable(2.0)
    x = t.Variable(3.0)
    with t.GradientTape(persistent=True) as outer:
        h = w * 2.0
        with t.GradientTape(persistent=True) as inner:
            y = h * w
        with t.GradientTape(watch_accessed_variables=False) as late:
            u = w * x
            late.watch(w)
            v = u * w
    return [inner.gradient(y, w), outer.gradient(y, w), late.gradient(v, w),
            outer.gradient(v, [w, x])]


def values_after_an_inner_tape_exits(np_, t):
    """Ops that only the outer tape records (after the inner one exited) are
    not the inner tape's: its gradients of them are None (lazily the inner
    tape differentiated them: 12 and 5)."""
    w = t.Variable(2.0)
    with t.GradientTape(persistent=True) as outer:
        with t.GradientTape(persistent=True) as inner:
            y = w * w
        z = y * 3.0
        q = w * 5.0
    recorded = [inner.gradient(v, w) for v in (z, q)]
    return [np_.asarray([g is None for g in recorded]), inner.gradient(y, w),
            outer.gradient(z, w), outer.gradient(q, w)]


READ_BACK = {  # ops whose result size is read back (a barrier) before the rest is built
    "bincount": (lambda x: tf.math.bincount(x, minlength=3), np.int32),
    "bincount_weights": (lambda x: tf.math.bincount(x, weights=tf.cast(x, tf.float32) * 0.5),
                         np.int32),
    "confusion_matrix": (lambda x: tf.math.confusion_matrix(x, x[::-1]), np.int32),
    "sequence_mask": (lambda x: tf.sequence_mask(x), np.int32),
    "segment_sum": (lambda x: tf.math.segment_sum(tf.cast(x, tf.float32), x), np.int32),
    "boolean_mask": (lambda x: tf.boolean_mask(x, x > 0.5), np.float32),
    "tnp_compress": (lambda x: (lnp if isinstance(x, ltf.Tensor) else tnp).compress(x > 0.5, x),
                     np.float32),
    "crop_and_resize": (lambda x: tf.image.crop_and_resize(
        tf.reshape(x, (1, 2, 2, 1)), [[0.0, 0.0, 1.0, 1.0]], [0], [3, 3]), np.float32),
}


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


def test_batch_jacobian_matches_tf():
    assert_same(batch_jacobians(lnp, ltf), batch_jacobians(tnp, tf))


def test_batch_jacobian_needs_rank_two():
    for np_, t in ((tnp, tf), (lnp, ltf)):
        x = np_.ones((3, 2))
        with t.GradientTape() as tape:
            tape.watch(x)
            y = np_.sum(x, axis=1)
        with pytest.raises(ValueError):
            tape.batch_jacobian(y, x)


def test_unrecorded_values_are_constants_to_the_tape():
    # lazily the gradients flowed through them (8, 12 and 36 where TF has None, None, 12)
    assert_same(values_the_tape_did_not_record(lnp, ltf), values_the_tape_did_not_record(tnp, tf))


def test_barriers_between_steps_keep_the_tapes_buffers():
    assert_same(print_every_step_without_sync(lnp, ltf), print_every_step_without_sync(tnp, tf))


def test_inner_tapes_watch_variables_read_before_they_started():
    assert_same(variable_read_before_an_inner_tape(lnp, ltf),
                variable_read_before_an_inner_tape(tnp, tf))


def test_inner_tape_does_not_see_ops_after_it_exits():
    assert_same(values_after_an_inner_tape_exits(lnp, ltf),
                values_after_an_inner_tape_exits(tnp, tf))


@pytest.mark.parametrize("case", sorted(READ_BACK))
def test_ops_that_read_back_keep_the_buffers_they_use(case):
    """tf.math.bincount of a value computed in a loop whose first input was
    reassigned (k-means: ``cent = unsorted_segment_mean(...)``) raised
    'Array has been deleted': the read-back inside the op (its size) ran a
    graph that donated the input's buffer, and the op then built on the
    node it had taken before. These ops take their inputs' nodes after the
    read-back now."""
    fn, dtype = READ_BACK[case]
    data = np.array([0, 1, 2, 2], dtype) if dtype == np.int32 else \
        np.array([0.25, 0.75, 1.0, 0.5], dtype)
    results = []
    for const in (tf.constant, lnp.asarray):
        x = const(data)
        y = x * 1  # pending on x's buffer
        x = None  # the buffer's only handle is gone: donatable
        results.append(fn(y))
    assert_same(results[1], results[0])


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
