"""placeholder"""
TABLE: dict = {}
