"""``tf.linalg`` and ``tf.signal`` on lazy arrays (tables
``lazytensor.tf.tf_api.linalg`` / ``signal``): every case runs through eager
TensorFlow on tf.Tensors and through the dispatch on lazy arrays made from
the same numpy data; values (at the dtype's tolerance), dtype and shape must
agree, the result must be a lazy array, and nothing may fall back."""

from __future__ import annotations

import lazytensor.tf as ltf
import lazytensor.tf.numpy as lnp
import numpy as np
import pytest
import tensorflow as tf
import tf_helpers  # noqa: F401  (numpy behaviour on, as in every tf test)
from lazytensor.core import metrics
from lazytensor.core.runtime import get_runtime

RTOL = {"float32": 2e-4, "complex64": 2e-4, "float64": 1e-9, "complex128": 1e-9, "int32": 0}


def _rng(seed=0):
    return np.random.default_rng(seed)


def general(shape, dtype, seed=0):
    """A well-conditioned (diagonally dominant) stack of matrices."""
    rng = _rng(seed)
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    if len(shape) > 1 and shape[-1] == shape[-2]:
        x = x + shape[-1] * np.eye(shape[-1])
    return x.astype(dtype)


def spd(shape, dtype, seed=0):
    """A Hermitian positive definite stack."""
    x = general(shape, dtype, seed)
    return (x @ np.conj(np.swapaxes(x, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def lower(shape, dtype, seed=0):
    return np.tril(general(shape, dtype, seed)).astype(dtype)


def cplx(shape, dtype, seed=0):
    rng = _rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


FLOATS = ("float32", "float64")
COMPLEX = ("complex64", "complex128")


def _abs(out):
    return [np.abs(np.asarray(o)) for o in (out if isinstance(out, (tuple, list)) else [out])]


def _usv(out):  # (s, u, v) -> s and the reconstruction u diag(s) v^H
    s, u, v = (np.asarray(o) for o in out)
    return [s, (u * s[..., None, :]) @ np.conj(np.swapaxes(v, -1, -2))]


def _eig(out):  # (e, v) -> e and the reconstruction v diag(e) v^H
    e, v = (np.asarray(o) for o in out)
    return [e, (v * e[..., None, :]) @ np.conj(np.swapaxes(v, -1, -2))]


# id -> (function of the tensors, input makers (shape, dtype) -> array, dtypes, post)
# ``post`` maps both results to what must agree (factors unique up to signs)
L = tf.linalg
CASES = {
    "matmul": (L.matmul, [(general, (2, 3, 4)), (general, (2, 4, 5))], FLOATS + COMPLEX, None),
    "matmul_batch_broadcast": (L.matmul, [(general, (3, 1, 2, 4)), (general, (5, 4, 3))],
                               FLOATS, None),
    "matmul_flags": (lambda a, b: L.matmul(a, b, transpose_a=True, adjoint_b=True),
                     [(general, (2, 4, 3)), (general, (2, 5, 4))], FLOATS + COMPLEX, None),
    "matmul_int": (L.matmul, [(lambda s, d: np.arange(np.prod(s)).reshape(s).astype(d), (3, 4)),
                              (lambda s, d: np.arange(np.prod(s)).reshape(s).astype(d) - 5,
                               (4, 2))], ("int32",), None),
    "matvec": (lambda a, b: L.matvec(a, b, adjoint_a=True), [(general, (2, 4, 3)),
                                                             (general, (2, 4))],
               FLOATS + COMPLEX, None),
    "tensordot": (lambda a, b: tf.tensordot(a, b, [[1, 2], [0, 1]]),
                  [(general, (2, 3, 4)), (general, (3, 4, 5))], FLOATS, None),
    "tensordot_int_axes": (lambda a, b: tf.tensordot(a, b, 1),
                           [(general, (2, 3)), (general, (3, 4))], FLOATS, None),
    "cross": (L.cross, [(general, (2, 3)), (general, (2, 3), 1)], FLOATS, None),
    "inv": (L.inv, [(general, (2, 4, 4))], FLOATS + COMPLEX, None),
    "inv_adjoint": (lambda a: L.inv(a, adjoint=True), [(general, (3, 3))], COMPLEX, None),
    "det": (L.det, [(general, (2, 3, 3))], FLOATS + COMPLEX, None),
    "logdet": (L.logdet, [(spd, (2, 4, 4))], FLOATS + COMPLEX, None),
    "cholesky": (L.cholesky, [(spd, (2, 4, 4))], FLOATS + COMPLEX, None),
    "cholesky_solve": (lambda c, b: L.cholesky_solve(L.cholesky(c), b),
                       [(spd, (2, 4, 4)), (general, (2, 4, 3))], FLOATS + COMPLEX, None),
    "solve": (L.solve, [(general, (2, 4, 4)), (general, (2, 4, 3))], FLOATS + COMPLEX, None),
    "solve_adjoint": (lambda a, b: L.solve(a, b, adjoint=True),
                      [(general, (4, 4)), (general, (4, 2))], FLOATS + COMPLEX, None),
    "triangular_solve": (L.triangular_solve, [(lower, (2, 4, 4)), (general, (2, 4, 3))],
                         FLOATS + COMPLEX, None),
    "triangular_solve_upper_adjoint": (
        lambda a, b: L.triangular_solve(a, b, lower=False, adjoint=True),
        [(general, (4, 4)), (general, (3, 4, 2))], FLOATS + COMPLEX, None),
    "lstsq_tall": (L.lstsq, [(general, (2, 6, 3)), (general, (2, 6, 2))], FLOATS, None),
    "lstsq_wide_l2": (lambda a, b: L.lstsq(a, b, l2_regularizer=0.5),
                      [(general, (3, 5)), (general, (3, 2))], FLOATS, None),
    "lstsq_slow": (lambda a, b: L.lstsq(a, b, fast=False),
                   [(general, (6, 3)), (general, (6, 2))], FLOATS, None),
    "pinv": (L.pinv, [(general, (2, 5, 3))], FLOATS, None),
    "lu": (L.lu, [(general, (2, 4, 4))], FLOATS, None),
    "qr": (L.qr, [(general, (2, 5, 3))], FLOATS + COMPLEX, _abs),
    "qr_full": (lambda a: L.qr(a, full_matrices=True), [(general, (4, 3))], FLOATS, _abs),
    "eigh": (L.eigh, [(spd, (2, 4, 4))], FLOATS + COMPLEX, _eig),
    "eigvalsh": (L.eigvalsh, [(spd, (4, 4))], FLOATS, None),
    "svd_values": (lambda a: L.svd(a, compute_uv=False), [(general, (2, 5, 3))],
                   FLOATS + COMPLEX, None),
    "svd": (L.svd, [(general, (2, 3, 5))], FLOATS, _usv),
    "expm": (L.expm, [(lambda s, d: general(s, d) / 4, (2, 3, 3))], FLOATS, None),
    "expm_large": (L.expm, [(lambda s, d: 8 * general(s, d), (3, 3))], ("float64",), None),
    "norm": (tf.norm, [(general, (2, 3, 4))], FLOATS + COMPLEX, None),
    "norm_axis_keepdims": (lambda a: tf.norm(a, ord=1, axis=1, keepdims=True),
                           [(general, (2, 3, 4))], FLOATS, None),
    "norm_p": (lambda a: tf.norm(a, ord=3.5, axis=-1), [(general, (2, 3))], FLOATS, None),
    "norm_inf": (lambda a: tf.norm(a, ord=np.inf, axis=-1), [(general, (2, 3))], FLOATS, None),
    "norm_fro": (lambda a: tf.norm(a, ord="fro", axis=[-2, -1]), [(general, (2, 3, 4))],
                 FLOATS + COMPLEX, None),
    "norm_matrix_1": (lambda a: tf.norm(a, ord=1, axis=[1, 2], keepdims=True),
                      [(general, (2, 3, 4))], FLOATS, None),
    "norm_matrix_2": (lambda a: tf.norm(a, ord=2, axis=[-2, -1]), [(general, (2, 3, 4))],
                      FLOATS, None),
    "norm_matrix_inf": (lambda a: tf.norm(a, ord=np.inf, axis=[0, 1]), [(general, (3, 4))],
                        FLOATS, None),
    "trace": (L.trace, [(general, (2, 3, 4))], FLOATS + ("int32",), None),
    "diag": (L.diag, [(general, (2, 3))], FLOATS, None),
    "diag_k": (lambda v: L.diag(v, k=-1, padding_value=7), [(general, (2, 3))], FLOATS, None),
    "diag_rows_cols": (lambda v: L.diag(v, k=1, num_rows=3, num_cols=6),
                       [(general, (3,))], FLOATS, None),
    "diag_part": (lambda a: L.diag_part(a, k=1), [(general, (2, 3, 4))], FLOATS, None),
    "set_diag": (lambda a, v: L.set_diag(a, v, k=-1), [(general, (2, 4, 3)),
                                                       (general, (2, 3))], FLOATS, None),
    "band_part": (lambda a: L.band_part(a, 1, 2), [(general, (2, 4, 5))], FLOATS, None),
    "band_part_lower": (lambda a: L.band_part(a, tf.constant(-1), 0), [(general, (4, 4))],
                        FLOATS, None),
    "matrix_transpose": (lambda a: L.matrix_transpose(a, conjugate=True),
                         [(general, (2, 3, 4))], FLOATS + COMPLEX, None),
    "adjoint": (L.adjoint, [(general, (3, 4))], COMPLEX, None),
}
S = tf.signal
CASES.update({
    name: (getattr(S, name), [(cplx, shape)], COMPLEX, None)
    for name, shape in (("fft", (3, 8)), ("ifft", (2, 3, 5)), ("fft2d", (2, 4, 6)),
                        ("ifft2d", (4, 6)), ("fft3d", (2, 3, 4, 5)), ("ifft3d", (3, 4, 5)))
})
CASES.update({
    "fftshift": (S.fftshift, [(general, (4, 5))], FLOATS, None),
    "ifftshift_axes": (lambda x: S.ifftshift(x, axes=[0, -1]), [(general, (3, 4, 5))], FLOATS,
                       None),
    "frame": (lambda x: S.frame(x, 5, 3), [(general, (2, 17))], FLOATS, None),
    "frame_pad_end_axis0": (lambda x: S.frame(x, 4, 3, pad_end=True, pad_value=2.5, axis=0),
                            [(general, (11, 2))], FLOATS, None),
    "stft": (lambda x: S.stft(x, 16, 8), [(general, (2, 64))], FLOATS, None),
    "stft_options": (lambda x: S.stft(x, 12, 5, fft_length=10, window_fn=None, pad_end=True),
                     [(general, (50,))], FLOATS, None),
    "inverse_stft": (lambda x: S.inverse_stft(x, 16, 8), [(cplx, (2, 7, 9))], COMPLEX, None),
    "inverse_stft_hamming": (
        lambda x: S.inverse_stft(x, 12, 5, fft_length=16, window_fn=S.hamming_window),
        [(cplx, (6, 9))], COMPLEX, None),
    "overlap_and_add": (lambda x: S.overlap_and_add(x, 3), [(general, (2, 6, 8))], FLOATS,
                        None),
})

PARAMS = [pytest.param(name, dtype, id=f"{name}-{dtype}")
          for name, (_, _, dtypes, _) in CASES.items() for dtype in dtypes]


def _inputs(makers, dtype):
    """Each maker is (function, shape) or (function, shape, seed)."""
    return [m[0](m[1], dtype, *m[2:]) for m in makers]


def _flat(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


@pytest.mark.sweep("dtype", reason="every op in one of its dtypes, dtypes "
                   "in turn; every op x dtype pair is slow")
@pytest.mark.parametrize(("name", "dtype"), PARAMS)
def test_tf_op_on_lazy_arrays_matches_eager(name, dtype):
    fn, makers, _, post = CASES[name]
    data = _inputs(makers, dtype)
    want = fn(*[tf.constant(d) for d in data])
    metrics.reset()
    got = fn(*[lnp.asarray(d) for d in data])
    assert metrics.as_dict()["counters"]["eager_fallbacks"] == 0, metrics.as_dict()["fallbacks"]
    for g in _flat(got):
        assert isinstance(g, ltf.Tensor), f"{name}: {type(g)}"
    for g, w in zip(_flat(got), _flat(want), strict=True):
        assert g.dtype == w.dtype and tuple(g.shape) == tuple(w.shape), (g.dtype, w.dtype)
    if post is not None:
        got, want = post(got), post(want)
    tol = RTOL[dtype] * (30 if name.startswith(("expm", "lstsq", "pinv", "inverse_stft"))
                         else 1)
    for g, w in zip(_flat(got), _flat(want), strict=True):
        g, w = np.asarray(g), np.asarray(w)
        if tol:
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol * max(1.0, np.abs(w).max()),
                                       err_msg=name)
        else:
            np.testing.assert_array_equal(g, w, err_msg=name)


def test_one_graph_for_a_chain_of_tf_ops():
    """A chain of TensorFlow ops on lazy arrays records one graph: nothing
    runs until the result is read."""
    a = spd((3, 3), "float64")
    get_runtime().sync()  # no automatic cut of what earlier tests recorded in this process
    metrics.reset()
    x = lnp.asarray(a)
    y = tf.linalg.matmul(tf.linalg.inv(x), tf.linalg.cholesky(x), transpose_b=True)
    z = tf.norm(tf.signal.fftshift(y), ord="euclidean")
    assert metrics.as_dict()["counters"]["graphs_executed"] == 0
    want = np.linalg.norm(np.fft.fftshift(np.linalg.inv(a) @ np.linalg.cholesky(a).T))
    np.testing.assert_allclose(z.numpy(), want, rtol=1e-10)
    assert metrics.as_dict()["counters"]["graphs_executed"] == 1


ERRORS = {
    "matmul_rank1": (lambda a: L.matmul(a, a), [np.ones(3, np.float32)]),
    "matmul_inner": (L.matmul, [np.ones((3, 3), np.float32), np.ones((4, 3), np.float32)]),
    "matmul_dtypes": (L.matmul, [np.ones((3, 3), np.float32), np.ones((3, 3), np.float64)]),
    "inv_not_square": (L.inv, [np.ones((3, 4), np.float32)]),
    "inv_int": (L.inv, [np.eye(3, dtype=np.int32)]),
    "det_int": (L.det, [np.eye(3, dtype=np.int32)]),
    "cholesky_not_square": (L.cholesky, [np.ones((3, 4), np.float32)]),
    "solve_rhs_rows": (L.solve, [np.eye(3, dtype=np.float32), np.ones((4, 2), np.float32)]),
    "solve_ranks": (L.solve, [np.ones((2, 3, 3), np.float32), np.ones((3, 2), np.float32)]),
    "cross_shapes": (L.cross, [np.ones((2, 3), np.float32), np.ones(3, np.float32)]),
    "norm_vector_fro": (lambda a: tf.norm(a, ord="fro"), [np.ones((2, 3), np.float32)]),
    "norm_matrix_nuc": (lambda a: tf.norm(a, ord="nuc", axis=[0, 1]),
                        [np.ones((2, 3), np.float32)]),
    "matrix_transpose_rank1": (L.matrix_transpose, [np.ones(3, np.float32)]),
    "fft_real": (S.fft, [np.ones(4, np.float32)]),
    "fft2d_rank1": (S.fft2d, [np.ones(4, np.complex64)]),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_bad_input_raises_what_eager_tf_raises(name):
    fn, data = ERRORS[name]
    with pytest.raises((tf.errors.InvalidArgumentError, ValueError, TypeError)) as eager:
        fn(*[tf.constant(d) for d in data])
    with pytest.raises(type(eager.value)):
        fn(*[lnp.asarray(d) for d in data])


@pytest.mark.parametrize("name", ["einsum", "slogdet", "rfft", "irfft2d"])
def test_apis_without_tf_dispatch_record_lazily_and_agree(name):
    """TensorFlow offers no dispatch hook for these: their public names are
    wrapped (``_dispatch._wrap_undispatched``), so lazy inputs record them
    and the answer is TensorFlow's."""
    a = general((2, 4, 4), "float32")
    fns = {"einsum": lambda x: tf.einsum("bij,bjk->bik", x, x), "slogdet": L.slogdet,
           "rfft": lambda x: S.rfft(x, fft_length=[6]),
           "irfft2d": lambda x: S.irfft2d(tf.cast(x, tf.complex64), fft_length=[4, 6])}
    want, got = fns[name](tf.constant(a)), fns[name](lnp.asarray(a))
    for g, w in zip(_flat(got), _flat(want), strict=True):
        assert isinstance(g, ltf.Tensor)
        np.testing.assert_allclose(np.asarray(g), w.numpy(), rtol=1e-5, atol=1e-5)
