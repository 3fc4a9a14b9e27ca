"""Image math.

- ``transforms``: colour spaces, hue/saturation/contrast, standardization,
  Sobel edges, patches, crop-and-resize.
- ``resize``: resizing with half-pixel centres, antialiased.

A new image op goes in ``transforms`` (per-pixel or per-patch math) or
``resize`` (resampling).
"""
