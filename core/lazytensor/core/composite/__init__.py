"""Composite ops written only in core ops, shared by every frontend.

One module per family: promotion (policy tables), elementwise (broadcast,
convert, apply), reduction (sum/mean/var/softmax...), linalg (matmul...).
Functions take and return ``Node``s; static arguments are Python values.
"""
