"""meldmind's native core: the Cython hand algebra and the numba kernels built on it."""
import os

# GNU OpenMP, numba's usual threading layer, keeps its threads spinning for a while after each
# parallel search by default. On a host whose other processes load the cores, a spinning thread
# takes the core that the thread it waits for needs: a gin master decision on 2 threads ran
# 19.6 ms there instead of 12.2 ms, and a 20 ms budget got as few as 20 determinizations
# instead of 550. Threads that sleep at once cost about 12 % on an idle machine. This is read
# when numba first loads OpenMP, so it holds unless the embedder set it or loaded OpenMP first.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
