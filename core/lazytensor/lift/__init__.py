"""lazytensor.lift: lifting Python loop code over numpy arrays into
programs in index notation that record into the core (Guided Tensor
Lifting, as STAGG: a cost-ordered search over a weighted grammar, guided
here by the loop code's own source, verified on fresh inputs).

>>> import numpy as np
>>> from lazytensor.lift import lift
>>> def scale_add(a, x, y):
...     out = np.zeros(len(x))
...     for i in range(len(x)):
...         out[i] = a * x[i] + y[i]
...     return out
>>> prog = lift(scale_add, [(np.array(2.0), np.arange(4.0), np.ones(4))], time_limit=30)
>>> print(prog.statements[0])
out[i] = a * x[i] + y[i]    # i in range(len(x))
>>> prog(np.array(3.0), np.arange(3.0), np.zeros(3)).tolist()
[0.0, 3.0, 6.0]
"""

from lazytensor.lift.lifter import LiftError, lift
from lazytensor.lift.program import LiftedProgram, Statement, Verification

__all__ = ["LiftError", "LiftedProgram", "Statement", "Verification", "lift"]
