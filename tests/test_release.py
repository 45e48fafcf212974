"""The release metadata agree with each other: one version, one licence, the citation the README shows.

The version is read from ``trecrs/_version.py``; ``CITATION.cff`` (CFF 1.2), ``CHANGELOG.md`` (Keep a
Changelog: the newest release first) and the README's BibTeX must name the same one, so a release bump that
misses a file fails here, not in a citation.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from trecrs._version import __version__

yaml = pytest.importorskip("yaml")
tomllib = pytest.importorskip("tomllib")  # Python 3.11+
ROOT = Path(__file__).resolve().parents[1]


def _citation() -> dict:
    return yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))


def test_citation_names_the_version_licence_and_the_reproduced_papers():
    cff = _citation()
    assert cff["cff-version"] == "1.2.0"
    assert str(cff["version"]) == __version__
    assert cff["license"] == "MIT"
    assert cff["authors"] == [{"name": "trecrs contributors"}]
    dois = {ref["doi"] for ref in cff["references"]}
    assert dois == {"10.1145/2043932.2043996", "10.1145/1864708.1864721"}  # Bellogín 2011, Cremonesi 2010


def test_changelog_newest_release_is_the_version():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    releases = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", text, re.MULTILINE)
    assert releases[0][0] == __version__
    numbers = [tuple(map(int, r[0].split("."))) for r in releases]
    assert numbers == sorted(numbers, reverse=True)
    assert str(_citation()["date-released"]) == releases[0][1]


def test_readme_bibtex_renders_the_citation():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    entry = re.search(r"```bibtex\n(@software\{.*?\n\})\n```", readme, re.DOTALL)
    assert entry is not None
    fields = dict(re.findall(r"^\s+(\w+)\s+= \{(.*)\},$", entry.group(1), re.MULTILINE))
    cff = _citation()
    assert fields["title"] == cff["title"]
    assert fields["version"] == __version__
    assert fields["year"] == str(cff["date-released"])[:4]
    assert fields["author"] == "{trecrs contributors}"


def test_pyproject_declares_the_spdx_licence_and_ships_the_file():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")
