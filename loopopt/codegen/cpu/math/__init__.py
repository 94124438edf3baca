"""Math emitters of the cpu code generator (polynomials, libm's exact exp) and the host's libm.
"""
