"""lit's `loopopt`: the command line with the host's facts pinned, so a golden file's expected IR
is the same on every machine (tests/conftest.py pins them likewise for in-process tests).

A plan's defaults come from the machine it runs on (codegen/cpu/host.py: the widest vector
registers, the cache sizes, the FMA pipes). Here they are the facts the goldens were written for:
512-bit vectors (an AVX-512 core), options.FALLBACK_CACHE_SIZES and options.FALLBACK_FMA_PIPES. A
RUN line that passes --vector-bits, --cache-sizes or --fma-pipes still gets what it asks for.
"""
import sys

from loopopt import options
from loopopt.codegen.cpu import host

GOLDEN_VECTOR_BITS = 512

host.default_vector_bits = lambda framework_input: GOLDEN_VECTOR_BITS
host.default_cache_sizes = lambda: options.FALLBACK_CACHE_SIZES
host.default_fma_pipes = lambda: options.FALLBACK_FMA_PIPES

if __name__ == "__main__":
    from loopopt.cli import main

    sys.exit(main())
