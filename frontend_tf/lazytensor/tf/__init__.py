"""lazytensor.tf: tf.experimental.numpy programs, run lazily on the shared core.

``lazytensor.tf.numpy`` mirrors ``tf.experimental.numpy``;
``GradientTape`` and ``Variable`` mirror TensorFlow's for training;
``sync()`` is the step marker (materializes everything pending in one graph).
"""

from lazytensor.core import metrics
from lazytensor.core.runtime import sync
from lazytensor.tf import numpy, tf_api
from lazytensor.tf._array import handle_of
from lazytensor.tf._array import ndarray as Tensor
from lazytensor.tf._capture import capture
from lazytensor.tf.sharding import Mesh, shard
from lazytensor.tf.tape import GradientTape, Variable

tf_api.watch()  # TensorFlow's own ops accept lazy arrays once TensorFlow is loaded

__all__ = ["GradientTape", "Mesh", "Tensor", "Variable", "capture", "handle_of", "metrics",
           "numpy", "shard", "sync"]
