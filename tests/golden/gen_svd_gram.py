"""Golden fixture for svd_gram (src/math/svd.h), the SVD attnlab uses past K = 64, from numpy.

    /usr/bin/python3 tests/golden/gen_svd_gram.py

The matrix is drawn from attnlab's own generator (attnlab_ref.Rng, seed 2027, 150 x 80 standard
normals, row-major), so the fixture holds only numpy's answer: the singular values and the right
singular vectors of LAPACK's SVD (np.linalg.svd), with attnlab's sign rule (each right singular
vector's largest entry positive). About 140 KB.
"""
import numpy as np

from attnlab_ref import Rng, write_fixture

SEED, ROWS, COLS = 2027, 150, 80

if __name__ == "__main__":
    A = Rng(SEED).randn((ROWS, COLS))
    U, S, Vt = np.linalg.svd(A, full_matrices=False)
    for k in range(len(S)):
        at = int(np.argmax(np.abs(Vt[k])))
        if Vt[k, at] < 0:
            Vt[k] *= -1
            U[:, k] *= -1
    write_fixture("svd_gram", dict(seed=SEED, rows=ROWS, cols=COLS, numpy=np.__version__,
                                   generator_note="np.linalg.svd of Rng(seed).randn((rows, cols)); "
                                                  "sign: each V column's largest entry positive"),
                  {"S": S, "V": Vt.T})
