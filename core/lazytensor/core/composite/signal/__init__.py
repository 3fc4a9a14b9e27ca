"""Signal processing.

- ``fft``: discrete Fourier transforms, framing, DCTs.
- ``stft``: short-time Fourier transforms and their inverse.
- ``correlate``: 1-d correlation, convolution and interpolation.

A new transform goes in ``fft``; a windowed one in ``stft``.
"""
