"""The machine's own FP32 GEMM (numpy's BLAS) on the shapes of the fast path's bench, same cores:
median of 3 timed runs after one warm-up, as `mmaemu bench` times. Prints JSON.
Usage: OPENBLAS_NUM_THREADS=2 /usr/bin/python3 numpy-fp32.py > numpy-fp32.json"""
import json
import time

import numpy as np

rows = []
for m, n, k in [(1024, 1024, 1024), (512, 512, 2048)]:
    rng = np.random.default_rng(1)
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    a @ b
    times = []
    for _ in range(3):
        t = time.perf_counter()
        a @ b
        times.append(time.perf_counter() - t)
    median = sorted(times)[1]
    rows.append({"shape": f"{m}x{n}x{k}", "median_s": median, "mac_per_s": m * n * k / median})
config = np.show_config(mode="dicts") if np.__version__ >= "1.25" else None
blas = config["Build Dependencies"]["blas"]["name"] if config else "see np.show_config()"
print(json.dumps({"numpy": np.__version__, "blas": blas, "results": rows}, indent=1))
