import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The erase check (loopopt.mlir.install_erase_check, docs/reliability.md "Use of erased ops"): an
# erase that would leave its op reachable from the IR raises ErasedOpInUse, naming the step and
# the op, instead of freeing memory a later step reads. Set before loopopt is imported, so the
# CLI runs of the tests (subprocesses, lit) inherit it; LOOPOPT_CHECK_ERASE=0 turns it off.
os.environ.setdefault("LOOPOPT_CHECK_ERASE", "1")

import pytest

# A suite started in the background by a shell without job control inherits SIGINT ignored
# (POSIX), and so would every process it starts: Python then installs no KeyboardInterrupt
# handler, and the interrupt tests (tests/test_interrupts.py, test_interfaces.py) could not pass.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def _portable_vector_width_by_default(monkeypatch, request):
    """In-process tests plan affine input for 256-bit vectors and for the fallback caches
    (options.FALLBACK_CACHE_SIZES) unless they ask otherwise, so their expected IR is the same on
    every machine; the CLI tests (subprocesses) see the real defaults, the host's width and
    caches, and tests marked `host_vector_width` keep them in-process too."""
    if request.node.get_closest_marker("host_vector_width") is not None:
        return
    from loopopt import options
    from loopopt.codegen.cpu import host

    monkeypatch.setattr(host, "default_vector_bits",
                        lambda framework_input: host.host_vector_bits() if framework_input else options.PORTABLE_VECTOR_BITS)
    # the caches the cache tiling plans for: the same figures on every machine (options' fallback)
    monkeypatch.setattr(host, "default_cache_sizes", lambda: options.FALLBACK_CACHE_SIZES)
    # the FMA pipes section 44's gate plans for: likewise (options.FALLBACK_FMA_PIPES)
    monkeypatch.setattr(host, "default_fma_pipes", lambda: options.FALLBACK_FMA_PIPES)
