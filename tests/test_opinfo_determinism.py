"""The op-sample registry gives the same data in every process: a failure seen
once reproduces, and test workers agree (hash() of strings is salted per
process, so seeding from it did not)."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_PROBE = ("import sys; sys.path.insert(0, {root!r}); sys.path.insert(0, {tests!r});"
          "from opinfo.core import make; import hashlib;"
          "print(hashlib.sha256(b''.join(make((3, 4), d, seed=s).tobytes() "
          "for d in ('float32', 'int64', 'bool') for s in (0, 1))).hexdigest())")


def _digest(hash_seed):
    env = dict(os.environ, PYTHONHASHSEED=str(hash_seed))
    code = _PROBE.format(root=ROOT, tests=os.path.join(ROOT, "tests"))
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          check=True).stdout.strip()


def test_sample_data_does_not_depend_on_the_hash_seed():
    digests = {_digest(s) for s in (0, 1, 12345)}
    assert len(digests) == 1, digests


def test_samples_differ_by_key():
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from opinfo.core import make
    a, b = make((3, 4), "float32", seed=0), make((3, 4), "float32", seed=1)
    assert a.shape == (3, 4) and not (a == b).all()
