"""Code generators: what runs after the seed's pass, per target.
"""
