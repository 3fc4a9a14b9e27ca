"""Which tnp functions are lowered, generated from the frontend's tables
(``LOWERED``, ``random.DRAWN``) against tnp's own public namespace.

    python ci/tf_support.py > docs/tf_support.md
"""

from __future__ import annotations

import inspect

from lazytensor.tf import _tf

# lowered, but the result's shape depends on the data: the lazy part runs, is
# read back, and the rest is built from the host values (a barrier)
DATA_DEPENDENT = {
    "nonzero": "result size = number of nonzeros",
    "compress": "result size = number of True conditions",
    "where": "only the one-argument form (nonzero)",
    "ix_": "only boolean arguments (nonzero)",
}
# no tensor computation: dtype and mode helpers, answered on the host
HOST = {
    "experimental_enable_numpy_behavior": "switches TensorFlow's global mode",
    "finfo": "dtype limits", "iinfo": "dtype limits", "issubdtype": "dtype test",
    "promote_types": "dtype promotion", "result_type": "dtype promotion (TNP policy)",
    "random.seed": "TensorFlow's global seed",
}


def tnp_functions() -> list[str]:
    """tnp's public functions (classes, dtypes and constants excluded),
    ``random.*`` included."""
    tnp = _tf.tnp()
    names = [n for n in dir(tnp) if not n.startswith("_")
             and callable(getattr(tnp, n)) and not inspect.isclass(getattr(tnp, n))]
    names += [f"random.{n}" for n in dir(tnp.random) if not n.startswith("_")
              and callable(getattr(tnp.random, n))]
    return sorted(names)


def status(name: str) -> str:
    from lazytensor.tf import numpy as lnp

    if name in HOST:
        return "host"
    if name.startswith("random."):
        return "tf rng" if name.removeprefix("random.") in lnp.random.DRAWN else "fallback"
    if name not in lnp.LOWERED:
        return "fallback"
    return "lowered (syncs)" if name in DATA_DEPENDENT else "lowered"


def counts() -> tuple[int, int]:
    """(lowered, total) over the tensor functions (host helpers excluded;
    TensorFlow's random draws count as not lowered)."""
    statuses = [status(n) for n in tnp_functions()]
    tensor = [s for s in statuses if s != "host"]
    return sum(s.startswith("lowered") for s in tensor), len(tensor)


# where lazytensor.tf deliberately differs from eager tnp, and why
DEVIATIONS = (
    "`random.uniform` / `random.random` accept an int `size` (TensorFlow 2.21's tnp raises "
    "InvalidArgumentError there).",
    "Without numpy behaviour, tnp's float functions fail on integer input (they call "
    "`.astype`, which tf.Tensor then lacks); lnp computes them (float64).",
    "Results may differ from TensorFlow's kernels in the last bits (XLA's transcendental "
    "functions, summation order); the op tests compare with dtype tolerances.",
    "Eager tnp functions do not accept lazy arrays (their dtype inference asks numpy, which "
    "cannot read a `tf.DType`); TensorFlow's own ops do: those listed at the end record "
    "lazily, any other converts its lazy arguments (`tf.convert_to_tensor`: they "
    "materialize) and returns an eager tf.Tensor.",
    "Where TensorFlow has no kernel for a dtype (matmul of int8/int16/uint8, negative/abs/"
    "power of uint8, abs of bool, an integer array plus a Python bool), tnp raises and lnp "
    "computes numpy's result; real input errors (shapes, axes, indices, unsupported "
    "arguments) raise tnp's types, as the op tests check.",
    "`tnp.experimental_enable_numpy_behavior(dtype_conversion_mode='all'/'safe')` (the new "
    "type promotion) is not modelled: lnp follows the legacy mode's rules.",
    "Errors that depend on the data raise when TensorFlow's kernel sees the values: integer "
    "`//` and `%` by zero raise InvalidArgumentError in eager tnp, while a lazy graph gives "
    "XLA's result (no error at record time, and none at execution).",
    "Strings (and other non-numeric data or dtypes: bytes, objects, dates) have no core dtype: "
    "a tnp function given them runs eagerly in TensorFlow (a counted fallback) and returns "
    "tnp's own result (a `tf.Tensor` of strings) or raises tnp's error.",
    "tnp's private `np_dtypes.set_allow_float64(False)` (float64 made float32 everywhere) is "
    "not modelled; `prefer_float32` (numpy behaviour's public switch) is.",
)

# TensorFlow's own tnp tests (not in the pip package), run by ci/tf_conformance.py
CONFORMANCE = (
    "TensorFlow's source tree has tnp's own tests (`tensorflow/python/ops/numpy_ops/"
    "*_test.py`, and `tests/`: a port of JAX's numpy tests). `python ci/tf_conformance.py "
    "--source DIR` (DIR holds `tensorflow/python/ops/numpy_ops/` from TF's sources) copies "
    "them to a scratch folder, imports `lazytensor.tf.numpy` where they import tnp's modules "
    "(`np_array_ops`, `np_math_ops`, `np_arrays`, `np_random`, the tests' `np_wrapper`), "
    "sets TF's global state as their `__main__` blocks do, and runs each module with pytest; "
    "`--reference` runs the same copies on TensorFlow's own tnp, `-k` selects tests, "
    "`--failures` lists them. `tf.Tensor` inputs (`ops.convert_to_tensor`) stay TensorFlow's.",
    "Without `tests/extensions.py` in DIR, test_util's compile check (`tf.function`/XLA "
    "compilation of the test function) runs the function once per argument tuple, and tests "
    "of `extensions.*` helpers (grad, index_update, dynamic_slice, sort_key_val) skip.",
    "Failures left, by design: `tf.function` tracing and `input_signature` inside tests, "
    "virtual CPU devices and `backing_device`, "
    "`np_arrays.ndarray` being `tf.Tensor` (np_arrays_test checks tf.Tensor's monkey-patched "
    "methods; np_interop_test checks that tnp arrays are tf.Tensors and that tf ops, tf.data, "
    "tf.map_fn and tf.vectorized_map give tnp arrays), `np_utils_test` (TensorFlow's "
    "docstring decorators, `np_utils.np_doc`, which are no tnp function), `.shape` as a tuple and "
    "`dtype.type` (TensorFlow 2.21 fails those too), and "
    "tests newer than the installed TensorFlow (TensorFlow 2.21 fails them as well: "
    "`--reference` shows which).",
)

_NOTES = {"lowered": "", "fallback": "eager tnp on materialized inputs, warned once, counted",
          "tf rng": "TensorFlow's own stream, drawn eagerly and uploaded (`host_random_draws`)"}


def markdown() -> str:
    names = tnp_functions()
    lowered, total = counts()
    lines = [
        "# tf.experimental.numpy support in lazytensor.tf",
        "",
        "Generated by `python ci/tf_support.py` from the frontend's tables",
        "(`lazytensor.tf.numpy.LOWERED`, `lazytensor.tf.numpy.random.DRAWN`); a test",
        "checks that this file is current.",
        "",
        f"**{lowered} of {total} tensor functions lowered ({100 * lowered / total:.1f}%)**; "
        f"{len(HOST)} host-side helpers need no lowering.",
        "",
        "- *lowered*: recorded as core ops, compiled with the rest of the graph.",
        "- *lowered (syncs)*: lowered, but the result's shape depends on the data, so the",
        "  lazy part is materialized first (a barrier).",
        "- *host*: no tensor computation (dtypes, modes, seeding).",
        "- *tf rng*: drawn by TensorFlow's own generator (tnp's bit stream, so seeded",
        "  programs get tnp's numbers), then uploaded as device data; not a fallback.",
        "- *fallback*: runs eagerly in TensorFlow on materialized inputs; warned once and",
        "  counted in the metrics (`fallbacks`), the result is a lazy array again.",
        "",
        "Deliberate differences from eager tnp:",
        "",
        *(f"- {d}" for d in DEVIATIONS),
        "",
        "TensorFlow's own tnp tests:",
        "",
        *(f"- {c}" for c in CONFORMANCE),
        "",
        "| function | status | note |",
        "|---|---|---|",
    ]
    for name in names:
        state = status(name)
        note = DATA_DEPENDENT.get(name) or HOST.get(name) or _NOTES.get(state, "")
        lines.append(f"| `{name}` | {state} | {note} |")
    return "\n".join(lines + tf_api_lines()) + "\n"


def tf_api_lines() -> list[str]:
    """The TensorFlow ops that record lazily on lazy arrays, per table."""
    from lazytensor.tf import tf_api

    lines = [
        "",
        "## TensorFlow's own ops on lazy arrays",
        "",
        "`tf.math.sin(x)`, `tf.nn.softmax(x)`, `tf.linalg.inv(x)`... on a lazy array record",
        "core ops through TensorFlow's type-based dispatch (`lazytensor.tf.tf_api`, one",
        "table per module below) with TensorFlow's own dtype rules (Python values become",
        "int32/float32; mixed tensor dtypes are an error). Any other TensorFlow op",
        "materializes its lazy arguments and returns an eager tf.Tensor. `tf.meshgrid`,",
        "`tf.einsum`, `tf.linalg.slogdet` and `tf.signal.rfft`/`irfft` (and their 2-d/3-d",
        "forms) have no dispatch: their public names are wrapped, so lazy arrays record them",
        "(names imported from TensorFlow before `lazytensor.tf` keep the eager function).",
        "Argument combinations",
        "a table does not lower run eagerly in TensorFlow, warned once and counted as",
        "fallbacks (`tf.image.resize` with other methods than bilinear/nearest, antialias or",
        "preserve_aspect_ratio, for one).",
        "",
        "`tf.nn.dropout` draws its mask with the core's RNG: the key folds one draw from",
        "TensorFlow's own generator (`tf.random.set_seed` and `seed=` make the masks",
        "reproducible run to run) into the runtime key as a parameter, so every call gets",
        "a fresh mask and a training step never recompiles for it. The masks are not eager",
        "TensorFlow's (its kernels' random stream cannot be reproduced lazily); the kept",
        "fraction, the 1 / (1 - rate) scaling, `noise_shape` broadcasting and rate 0 are.",
        "Stateless random ops that take data (`tf.nn.experimental.stateless_dropout`,",
        "`tf.random.experimental.stateless_shuffle`, `tf.image.stateless_random_flip_*`",
        "and `stateless_random_crop`) have TensorFlow draw from the seed (a draw never",
        "depends on the data) and record the data's part lazily: eager TensorFlow's",
        "results exactly.",
        "`tf.print`, tf.data's `Dataset.from_tensor_slices`/`from_tensors` and the",
        "`tf.debugging.assert_*` checks observe lazy arrays (a barrier, as `print` or",
        "`np.asarray`), not counted as fallbacks; a random op's lazy shape or seed is read",
        "as tnp.random's are. Keras",
        "metrics keep their state in tf.Variables: `update_state` on lazy values reads",
        "them back (counted as the fallback `BaseResourceVariable.assign`).",
        "`tf.cond`, `tf.while_loop`, `tf.map_fn`, `tf.scan` and `tf.foldl`/`foldr` given",
        "lazy arrays run TensorFlow's eager loops over lazy slices (the predicate read",
        "back, as Python's `if` reads it): the bodies record lazily and the results stay",
        "lazy.",
        "Output sizes that depend on the data (`tf.math.bincount` without a bounding",
        "`minlength`/`maxlength`, `tf.math.confusion_matrix` without `num_classes`,",
        "`tf.sequence_mask` without `maxlen`) are read back first (a barrier); values that",
        "eager TensorFlow rejects but a lazy graph cannot check (a confusion-matrix label",
        "outside `num_classes`, a negative value with a fixed bincount size) are dropped.",
        "",
        "## tf.function, Keras and TensorFlow's tape",
        "",
        "- A `tf.function` called with a lazy array or a lazytensor Variable among its",
        "  arguments runs its Python function on them (as `tf.config.run_functions_eagerly`",
        "  would): its ops record into the caller's graph and lazytensor's GradientTape",
        "  differentiates through it. A `tf.function` called with TensorFlow values only",
        "  traces as usual; if its trace reads a lazytensor Variable it closes over (whose",
        "  value a graph would freeze), it runs its Python code on every call instead.",
        "- `lazytensor.tf.GradientTape` runs a TensorFlow tape beside it while it records.",
        "  Keras layers called on lazy arrays record lazily; their weights (tf.Variables)",
        "  and any tf.Variable used beside lazy arrays get TensorFlow's gradients: the lazy",
        "  graph's gradients with respect to the TensorFlow tensors that entered it are that",
        "  tape's output gradients. Those gradients are TensorFlow's tensors",
        "  (`tf.IndexedSlices` for gathered rows), so Keras optimizers apply them as usual.",
        "  Gradients also flow through eager fallbacks (`tf.nn.ctc_loss`, bicubic resize):",
        "  the lazy arrays converted to TensorFlow are watched by that tape, and the two",
        "  tapes alternate (each crossing reads the gradients back).",
        "- TensorFlow's own `tf.GradientTape` runs a lazytensor tape beside it: `watch` takes",
        "  lazy arrays, and `gradient`, `jacobian` and `batch_jacobian` of lazy targets or",
        "  sources (or after values crossed between the two graphs while it recorded) are",
        "  the lazy tape's, with TensorFlow's tape as its TensorFlow side (a watched",
        "  tf.Tensor that lazy code uses gets TensorFlow's gradient; Jacobians take lazy",
        "  sources only: NotImplementedError otherwise); a program without",
        "  lazy arrays runs TensorFlow's code. TensorFlow's tape object underneath is",
        "  persistent (the tapes may alternate more than once); a non-persistent tape still",
        "  refuses a second `gradient` and drops that object after the first.",
        "- `tf.autodiff.ForwardAccumulator` over lazy primals watches them with a lazytensor",
        "  tape; `jvp` is computed when asked, in reverse mode (the gradient, with respect",
        "  to a cotangent u, of <J^T u, tangents>), so nested tapes give Hessian-vector",
        "  products as in TensorFlow.",
        "- Keras optimizers also update lazytensor Variables (`apply_gradients`); their",
        "  state is TensorFlow's, so the gradients are read back (counted as the fallback",
        "  `ReplicaContextBase.all_reduce`).",
        "- Gradients follow `tf.GradientTape`: None for a source reached only through ops",
        "  TensorFlow does not differentiate (floor, ceil, round, rint, floordiv,",
        "  stop_gradient, integer casts), 0 from the unselected branch of `tf.where` for",
        "  sqrt, rsqrt, reciprocal and the euclidean norm. `tf.math.multiply_no_nan`'s",
        "  gradient with respect to y is 0 where y is 0 and x is inf or NaN (TensorFlow:",
        "  inf or NaN).",
        "",
    ]
    for table, paths in tf_api.paths_by_table().items():
        names = ", ".join(f"`{p}`" for p in sorted(paths))
        lines.append(f"- **tf_api.{table}** ({len(paths)}): {names}")
    return lines


if __name__ == "__main__":
    print(markdown(), end="")
