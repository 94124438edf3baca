"""The seed's LoopOptimization pass: greedy profit-based fusion with its legality battery
and rescues (distribution, GCD tiling, interchange), contraction and LICM.

It asks loopopt.analysis for facts and loopopt.transforms for the loop rewrites; what a
target changes in it comes through a target-hooks object, never a test of the target.
"""
