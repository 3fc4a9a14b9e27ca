"""Stateless random ops on lazy arrays: dropout masks, shuffles, and their
errors, as TensorFlow's. Each check runs eagerly (tnp, tf) and lazily
(lazytensor.tf.numpy, lazytensor.tf) and compares values, dtypes and shapes,
or the exception type."""


from __future__ import annotations

import numpy as np
import pytest
from tf_helpers import lnp, normal_f32, same_lazily, tf


@pytest.mark.parametrize("kind", ["number", "tensor", "noise_shape", "zero"])
def test_stateless_dropout_is_tensorflows_mask(kind):
    """tf.nn.experimental.stateless_dropout ran eagerly; now TensorFlow
    draws the mask from the seed and the data part records lazily: the
    same elements kept, scaled as TensorFlow scales them."""
    x = normal_f32(7, 4, 6)

    def program(const):
        v = const(x)
        if kind == "number":
            return tf.nn.experimental.stateless_dropout(v, 0.4, seed=[3, 9])
        if kind == "tensor":
            return tf.nn.experimental.stateless_dropout(v, tf.constant(0.25), seed=[1, 2])
        if kind == "noise_shape":
            return tf.nn.experimental.stateless_dropout(v, 0.5, seed=(5, 5),
                                                        noise_shape=[4, 1])
        return tf.nn.experimental.stateless_dropout(v, 0.0, seed=[0, 0])

    same_lazily(program, kind)


def test_stateless_dropout_of_integers_raises_tensorflows_error():
    for const in (tf.constant, lnp.asarray):
        with pytest.raises(ValueError, match="floating point"):
            tf.nn.experimental.stateless_dropout(const(np.ones(3, np.int32)), 0.5, seed=[1, 1])


@pytest.mark.parametrize("shape", [(7,), (5, 3)])
def test_stateless_shuffle_is_tensorflows_order(shape):
    x = normal_f32(8, *shape)
    same_lazily(lambda const: tf.random.experimental.stateless_shuffle(const(x), seed=[4, 2]))


@pytest.mark.parametrize("dtype", ["float32", "uint8"])
@pytest.mark.parametrize("rank", [3, 4])
def test_stateless_image_flips_and_crops_are_tensorflows(dtype, rank):
    """tf.image.stateless_random_flip_left_right / up_down and
    stateless_random_crop ran eagerly."""
    shape = (5, 6, 4, 3)[4 - rank:]
    img = (np.random.default_rng(9).random(shape) * 255).astype(dtype)

    def program(const):
        v = const(img)
        out = []
        for seed in ([1, 2], [3, 4], [7, 0]):
            out.append(tf.image.stateless_random_flip_left_right(v, seed=seed))
            out.append(tf.image.stateless_random_flip_up_down(v, seed=seed))
            out.append(tf.image.stateless_random_crop(v, shape[:-3] + (3, 2, 3), seed=seed))
        return out

    same_lazily(program, f"{dtype} rank {rank}")
