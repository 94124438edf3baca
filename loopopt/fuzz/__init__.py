"""Differential fuzzing: random valid affine programs, checked against the reference interpreter."""
from .generator import FEATURES, GeneratedProgram, GeneratorConfig, generate_program, programs

__all__ = ["FEATURES", "GeneratedProgram", "GeneratorConfig", "generate_program", "programs"]
