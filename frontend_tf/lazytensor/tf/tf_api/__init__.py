"""TensorFlow's own API on lazy arrays: ``tf.nn.softmax(x)``,
``tf.linalg.inv(x)``, ``tf.reduce_sum(x)``, ``tf.signal.fft(x)`` record core
nodes and return lazy arrays, so a tnp program that mixes in TensorFlow ops
stays one lazy graph.

TensorFlow has type-based dispatch (``tf.experimental.dispatch_for_api``)
for types registered as dispatchable. ``install()`` registers the lazy
array type and every entry of the tables below once TensorFlow is loaded:
at once when ``lazytensor.tf`` is imported after TensorFlow, else right
after the program imports TensorFlow (an import hook, ``watch``; the
frontend itself never imports TensorFlow before it needs it). A TensorFlow
API that is not
in a table converts its lazy arguments with ``__tf_tensor__`` (they
materialize) and returns an eager ``tf.Tensor``, as before.

Tables (one module per TensorFlow namespace family), each ``APIS``:
TensorFlow API path (``"nn.softmax"``, resolved against the ``tf`` module)
-> implementation taking the API's own arguments (lazy arrays, tf.Tensors,
Python values) and returning core nodes (or tuples/lists of them).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

# table modules, in registration order (later entries may not repeat an API)
TABLES = ("math", "nn", "nn_extra", "linalg", "signal", "image", "image_filters", "counting",
          "distinct", "control", "stateless", "debugging")


def paths_by_table() -> dict[str, list[str]]:
    """Table name -> the TensorFlow API paths it lowers (tables that exist)."""
    found = {}
    for name in TABLES:
        try:
            module = importlib.import_module(f"lazytensor.tf.tf_api.{name}")
        except ModuleNotFoundError as error:
            if error.name != f"lazytensor.tf.tf_api.{name}":
                raise
            continue
        found[name] = list(module.APIS)
    return found


def tables() -> dict[str, object]:
    """API path -> implementation, from every table module that exists."""
    merged: dict[str, object] = {}
    for name in paths_by_table():
        module = importlib.import_module(f"lazytensor.tf.tf_api.{name}")
        for path, impl in module.APIS.items():
            if path in merged:
                raise ValueError(f"TensorFlow API {path} is in two tables")
            merged[path] = impl
    return merged


def install() -> None:
    """Register the tables with TensorFlow's dispatch (once)."""
    from lazytensor.tf.tf_api import _dispatch

    _dispatch.install(tables())


class _AfterTensorFlow(importlib.abc.MetaPathFinder):
    """Finds nothing itself: when ``tensorflow`` is first imported, it wraps
    the real loader so that ``install`` runs once TensorFlow has loaded."""

    def find_spec(self, name, path, target=None):
        if name != "tensorflow":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        exec_module = spec.loader.exec_module

        def exec_then_install(module):
            exec_module(module)
            from lazytensor.tf import _tf

            _tf.tf()  # installs

        spec.loader.exec_module = exec_then_install
        return spec


def watch() -> None:
    """Install now if TensorFlow is loaded, else as soon as it is."""
    if "tensorflow" in sys.modules:
        from lazytensor.tf import _tf

        _tf.tf()
    elif not any(isinstance(f, _AfterTensorFlow) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterTensorFlow())
