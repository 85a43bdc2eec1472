"""Self-play training, evaluation and export (needs the [train] extra: torch, stable-baselines3, sb3-contrib)."""

import os

# On a small shared machine a multi-threaded BLAS spins on cores that the envs and torch need: the
# numpy forward of a snapshot opponent ran 4-6x slower with OpenBLAS's default threads. Set before
# numpy is imported (``python -m training.*``); an explicit setting by the user wins.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
