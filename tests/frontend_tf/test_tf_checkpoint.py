"""tf.train.Checkpoint / CheckpointManager of lazytensor Variables.

A lazytensor Variable was no TensorFlow Trackable: ``tf.train.Checkpoint(v=v)``
raised, and a checkpoint of a ``tf.Module`` (or a Keras model) holding
lazytensor Variables silently saved none of them. Each test runs the same
program with tf.Variable (eagerly) and with lazytensor.tf.Variable and
compares what the checkpoint holds and what a restore gives back."""

from __future__ import annotations

import lazytensor.tf as ltf
import numpy as np
import pytest
from tf_helpers import assert_same, lnp, tf, tnp

RUNS = [(tnp, tf.Variable), (lnp, ltf.Variable)]


def _contents(path) -> dict:
    """The checkpoint's saved values by key (the object graph left out)."""
    reader = tf.train.load_checkpoint(path)
    return {name: reader.get_tensor(name) for name, _ in tf.train.list_variables(path)
            if name != "_CHECKPOINTABLE_OBJECT_GRAPH"}


def _assert_same_contents(got: dict, want: dict) -> None:
    assert sorted(got) == sorted(want)
    for key, value in want.items():
        assert_same(got[key], value, key)


def _checkpoint_round_trip(np_, variable, folder):
    v = variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="v")
    n = variable(np.array([3, 1], np.int32), trainable=False, name="n")
    ckpt = tf.train.Checkpoint(v=v, n=n)
    path = ckpt.save(str(folder / "ckpt"))
    v.assign(np_.sin(v) * 4.0)
    n.assign_add(np_.asarray(np.array([2, 2], np.int32)))
    changed = [np_.asarray(v) * 1.0, np_.asarray(n) + 0]
    ckpt.restore(path).assert_consumed()
    return _contents(path), changed, [np_.asarray(v) * 1.0, np_.asarray(n) + 0]


def test_checkpoint_saves_and_restores_lazy_variables(tmp_path):
    want = _checkpoint_round_trip(tnp, tf.Variable, tmp_path / "eager")
    got = _checkpoint_round_trip(lnp, ltf.Variable, tmp_path / "lazy")
    _assert_same_contents(got[0], want[0])
    assert_same(got[1], want[1], "modified")
    assert_same(got[2], want[2], "restored")
    assert not np.allclose(got[1][0], got[2][0])  # the restore changed something


class _Affine(tf.Module):
    def __init__(self, variable, seed):
        super().__init__()
        rng = np.random.default_rng(seed)
        self.w = variable(rng.standard_normal((4, 3)).astype(np.float32), name="w")
        self.b = variable(np.zeros(3, np.float32), name="b")

    def __call__(self, np_, x):
        return np_.tanh(x @ self.w + self.b)


def _manager_training(np_, variable, folder):
    """A tf.Module trained by hand with a tape; a CheckpointManager keeps the
    last two of three saves; a fresh module restores the latest (and a
    module made after ``restore``: deferred restoration)."""
    model = _Affine(variable, 7)
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(model=model), str(folder), 2)
    x = np_.asarray(np.linspace(-1, 1, 20, dtype=np.float32).reshape(5, 4))
    tape = ltf.GradientTape if np_ is lnp else tf.GradientTape
    for _ in range(3):
        with tape() as t:
            loss = np_.mean(np_.square(model(np_, x) - 0.5))
        for var, g in zip(model.trainable_variables,
                          t.gradient(loss, model.trainable_variables), strict=True):
            var.assign_sub(0.5 * g)
        manager.save()
    fresh = _Affine(variable, 8)
    before = fresh(np_, x)
    tf.train.Checkpoint(model=fresh).restore(manager.latest_checkpoint).assert_consumed()
    holder = tf.Module()
    status = tf.train.Checkpoint(model=holder).restore(manager.latest_checkpoint)
    holder.w = variable(np.zeros((4, 3), np.float32))  # restored when tracked
    status.assert_existing_objects_matched()
    return (len(manager.checkpoints), _contents(manager.latest_checkpoint), before * 1.0,
            fresh(np_, x), model(np_, x), np_.asarray(holder.w) * 1.0)


def test_checkpoint_manager_of_a_module_restores_into_a_fresh_one(tmp_path):
    want = _manager_training(tnp, tf.Variable, tmp_path / "eager")
    got = _manager_training(lnp, ltf.Variable, tmp_path / "lazy")
    assert got[0] == want[0] == 2
    _assert_same_contents(got[1], want[1])
    assert_same(list(got[2:]), list(want[2:]), "outputs")
    assert_same(got[3], got[4], "restored model = trained model")


def _keras_optimizer_slots(np_, variable, folder):
    """Keras SGD with momentum on Variables: its slots (Keras variables
    shaped like ours) are checkpointed with them and restored."""
    w = variable(np.full((3, 2), 0.25, np.float32), name="w")
    opt = tf.keras.optimizers.SGD(0.1, momentum=0.9)
    tape = ltf.GradientTape if np_ is lnp else tf.GradientTape
    x = np_.asarray(np.arange(12, dtype=np.float32).reshape(4, 3) / 12)

    def step():
        with tape() as t:
            loss = np_.sum(np_.square(x @ w))
        opt.apply_gradients([(t.gradient(loss, w), w)])

    step()
    ckpt = tf.train.Checkpoint(w=w, opt=opt)
    path = ckpt.save(str(folder / "ckpt"))
    saved = [np_.asarray(w) * 1.0] + [np.array(s) for s in opt.variables]
    step()
    step()
    ckpt.restore(path).assert_consumed()
    restored = [np_.asarray(w) * 1.0] + [np.array(s) for s in opt.variables]
    return _contents(path), saved, restored


def test_keras_optimizer_slots_are_checkpointed_with_lazy_variables(tmp_path):
    want = _keras_optimizer_slots(tnp, tf.Variable, tmp_path / "eager")
    got = _keras_optimizer_slots(lnp, ltf.Variable, tmp_path / "lazy")
    _assert_same_contents(got[0], want[0])
    assert any("opt/_variables" in key for key in got[0])  # the momentum slot
    assert_same(got[1], want[1], "saved")
    assert_same(got[2], want[2], "restored")
    assert_same(got[2], got[1], "restored = saved")


def _keras_model(np_, variable, folder):
    """A Keras model holding a Variable next to a Dense layer: a
    tf.train.Checkpoint of the model saves both (Keras' own save_weights
    skips a raw tf.Variable: it does so for ours too)."""
    class Model(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = tf.keras.layers.Dense(2, kernel_initializer="ones")
            self.scale = variable(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32), name="s")

        def call(self, x):
            return self.dense(x) @ self.scale

    model = Model()
    x = np_.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    model(x)
    path = tf.train.Checkpoint(model=model).save(str(folder / "ckpt"))
    model.save_weights(str(folder / "m.weights.h5"))
    model.scale.assign(model.scale * 3.0)
    model.dense.kernel.assign(model.dense.kernel * 2.0)
    model.load_weights(str(folder / "m.weights.h5"))  # the kernel only
    after_h5 = model(x) * 1.0
    tf.train.Checkpoint(model=model).restore(path).assert_consumed()
    return _contents(path), after_h5, model(x) * 1.0


def test_keras_model_checkpoint_holds_lazy_variables(tmp_path):
    want = _keras_model(tnp, tf.Variable, tmp_path / "eager")
    got = _keras_model(lnp, ltf.Variable, tmp_path / "lazy")
    _assert_same_contents(got[0], want[0])
    assert_same(list(got[1:]), list(want[1:]), "outputs")


@pytest.mark.parametrize(("np_", "variable"), RUNS, ids=["tnp", "lazytensor"])
def test_restoring_a_different_shape_raises_valueerror(tmp_path, np_, variable):
    path = tf.train.Checkpoint(v=variable(np.zeros(3, np.float32))).save(str(tmp_path / "c"))
    with pytest.raises(ValueError, match="incompatible tensor with shape"):
        tf.train.Checkpoint(v=variable(np.zeros(4, np.float32))).restore(path)


def test_saved_model_of_lazy_variables_raises_naming_the_checkpoint(tmp_path):
    """A SavedModel's graphs read tf.Variables: exporting ours raises and
    says what to use instead (it is no silent export of nothing)."""
    module = tf.Module()
    module.w = ltf.Variable(np.ones(2, np.float32), name="w")
    with pytest.raises(ValueError, match="tf.train.Checkpoint"):
        tf.saved_model.save(module, str(tmp_path / "model"))
    module.w = tf.Variable(module.w.numpy())  # the remedy it names works
    tf.saved_model.save(module, str(tmp_path / "model"))
    assert_same(tf.saved_model.load(str(tmp_path / "model")).w, tf.ones(2), "exported")
