"""Neural-network math.

- ``functional``: convolution, pooling, softmax gradients, dropout,
  embedding, segment reductions, attention.
- ``layers``: per-dimension arguments, convolution entry points, running
  statistics, clipping, space/depth moves, one-hot.
- ``normalization``, ``activations``, ``losses``: as named, with gradients.
- ``ctc``: connectionist temporal classification.
- ``bags``: embedding bags.
- ``fractional_pool``: fractional max pooling.

A new layer op goes in ``functional`` (or the module of its kind), with its
gradient next to it.
"""
