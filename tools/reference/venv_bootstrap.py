"""Create (once) and enter the pinned Python environment of the reference tools.

Both tools/reference/make_reference.py and tools/embedded/make_embedded.py call
`enter_venv()` first thing. Outside the venv it:
  1. creates build/reference-venv with the interpreter running this script
     (`python3 -m venv`), unless it exists;
  2. installs tools/reference/requirements.txt into it with pip (PyPI only),
     unless the venv's stamp already records that exact file's hash;
  3. re-executes the calling script with the venv's python and the same args.
Inside the venv it returns at once. Only the standard library is used here.
"""

import hashlib
import os
import subprocess
import sys
from pathlib import Path

TOOLS_REFERENCE = Path(__file__).resolve().parent
REPO = TOOLS_REFERENCE.parents[1]
VENV = REPO / "build" / "reference-venv"
REQUIREMENTS = TOOLS_REFERENCE / "requirements.txt"
STAMP = VENV / ".linnet-requirements.sha256"


def _inside_venv() -> bool:
    try:
        return Path(sys.prefix).resolve() == VENV.resolve()
    except OSError:
        return False


def enter_venv(script: str) -> None:
    """Make sure we run inside build/reference-venv; re-exec `script` there if not."""
    # Be a good neighbour on a shared machine: lowest CPU priority for us and
    # everything we start (pip, the re-executed script).
    try:
        os.nice(19)
    except OSError:
        pass
    if _inside_venv():
        return
    python = VENV / "bin" / "python"
    if not python.exists():
        print(f"[venv] creating {VENV}", flush=True)
        subprocess.check_call([sys.executable, "-m", "venv", str(VENV)])
    want = hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()
    have = STAMP.read_text().strip() if STAMP.exists() else ""
    if have != want:
        print(f"[venv] installing {REQUIREMENTS.relative_to(REPO)} (first run downloads ~3 GB)",
              flush=True)
        subprocess.check_call([str(python), "-m", "pip", "install", "--disable-pip-version-check",
                               "-r", str(REQUIREMENTS)])
        STAMP.write_text(want + "\n")
    env = dict(os.environ)
    env.setdefault("JAX_PLATFORMS", "cpu")
    env.setdefault("PYTHONHASHSEED", "0")
    env.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("MKL_NUM_THREADS", "1")
    env.setdefault("TOKENIZERS_PARALLELISM", "false")
    env.setdefault("HF_HUB_OFFLINE", "1")
    env.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.execve(str(python), [str(python), str(Path(script).resolve()), *sys.argv[1:]], env)
