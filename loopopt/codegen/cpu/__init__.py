"""The cpu code generator (--target cpu): the plans (plan/), one module per step named after
its --passes name, the math emitters (math/), and the host's facts.
"""
