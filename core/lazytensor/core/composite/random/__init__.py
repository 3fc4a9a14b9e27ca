"""Random numbers.

- ``sampling``: uniforms, normals, exponentials, integers, Bernoulli,
  categorical draws, permutations, Gamma, Dirichlet, Poisson from a key.

A new distribution goes in ``sampling``; keys come from the runtime's
``RngState``.
"""
