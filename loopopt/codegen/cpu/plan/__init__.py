"""Plans of the cpu code generator: facts and decisions as data, computed before any IR changes.
"""
