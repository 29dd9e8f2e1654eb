"""Prints what a rank knows about the job: rank, size, thread pool sizes (one line per rank)."""
import os

import runtime as ms
from runtime.communication import get_group_size, get_local_rank, get_rank, init

init()
print(f"rank={get_rank()} size={get_group_size()} local={get_local_rank()} "
      f"threads={ms.get_context('num_threads') or os.environ.get('MSJIT_THREADS')} "
      f"blas={os.environ.get('RUNTIME_BLAS_THREADS', '-')}", flush=True)
