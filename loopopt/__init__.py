"""loopopt: a loop-nest optimizer for MLIR affine programs (the Neuron LoopOptimization pass)."""
__version__ = "0.1.0"
