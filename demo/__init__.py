"""The lazytensor demo: one digits classifier per frontend, trained eagerly
with the framework itself and lazily through lazytensor, from the same source.

Run from the repository root: ``python -m demo --frontend numpy|torch|tf``
(``make demo FRONTEND=...``).
"""
