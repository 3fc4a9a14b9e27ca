"""One adapter per frontend: how to make its inputs (eager or lazy), which
namespace the rendered source runs in, how to read results back, and how to
reach a lazy value's core handle. Frameworks are imported on first use."""

from __future__ import annotations

import functools
import importlib.util

import numpy as np


class NumpyFrontend:
    name = "numpy"

    def namespace(self, lazy: bool) -> dict:
        if lazy:
            import lazytensor.numpy as lnp

            return {"np": lnp}
        return {"np": np}

    def make_input(self, array: np.ndarray, lazy: bool):
        if lazy:
            import lazytensor.numpy as lnp

            return lnp.asarray(array)
        return array.copy()

    def to_numpy(self, value) -> np.ndarray:
        return np.asarray(value)

    def handle(self, value):
        return value._h

    def sync(self) -> None:
        import lazytensor.numpy as lnp

        lnp.sync()


class TorchFrontend:
    name = "torch"

    def namespace(self, lazy: bool) -> dict:
        import torch

        return {"torch": torch}

    def make_input(self, array: np.ndarray, lazy: bool):
        import torch

        tensor = torch.from_numpy(array.copy())
        if lazy:
            import lazytensor.torch as lt

            return tensor.to(lt.device())
        return tensor

    def to_numpy(self, value) -> np.ndarray:
        return value.detach().cpu().numpy()

    def handle(self, value):
        import lazytensor.torch as lt

        return lt.handle_of(value)

    def sync(self) -> None:
        import lazytensor.torch as lt

        lt.mark_step()


class TnpFrontend:
    name = "tnp"

    def namespace(self, lazy: bool) -> dict:
        tnp = _tnp()  # the mode is on for both runs
        if lazy:
            import lazytensor.tf.numpy as lnp

            return {"tnp": lnp}
        return {"tnp": tnp}

    def make_input(self, array: np.ndarray, lazy: bool):
        return self.namespace(lazy)["tnp"].asarray(array.copy())

    def to_numpy(self, value) -> np.ndarray:
        return np.asarray(value)

    def handle(self, value):
        import lazytensor.tf as ltf

        return ltf.handle_of(value)

    def sync(self) -> None:
        import lazytensor.tf as ltf

        ltf.sync()


@functools.cache
def _tnp():
    """tnp with its numpy behaviour on, as tnp's documentation asks users to
    do (global TensorFlow state: set once, so that results never depend on
    which other test module loaded TensorFlow first)."""
    import tensorflow.experimental.numpy as tnp

    tnp.experimental_enable_numpy_behavior()
    return tnp


@functools.cache
def available(name: str) -> bool:
    """Whether the frontend's package is installed and importable."""
    module = {"numpy": "lazytensor.numpy", "torch": "lazytensor.torch",
              "tnp": "lazytensor.tf.numpy"}[name]
    try:
        if importlib.util.find_spec(module) is None:
            return False
        importlib.import_module(module)
    except ImportError:
        return False
    return True


ALL = {"numpy": NumpyFrontend(), "torch": TorchFrontend(), "tnp": TnpFrontend()}
