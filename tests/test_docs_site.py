"""The documentation site (mkdocs.yml) covers every page and every public name; CI builds it with
``mkdocs build --strict`` (.ci/run)."""

from __future__ import annotations

import re
from pathlib import Path

import trecrs

ROOT = Path(__file__).resolve().parent.parent


def test_every_page_is_in_the_navigation():
    nav = set(re.findall(r":\s*(\S+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(), flags=re.M))
    pages = {p.name for p in (ROOT / "docs").glob("*.md")}
    assert pages <= nav, f"add to mkdocs.yml's nav: {sorted(pages - nav)}"
    assert "index.md" in nav and "api.md" in nav


def test_the_api_reference_finds_every_public_name():
    """docs/site/hooks.py writes the API page: each public name with the module that defines it."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("site_hooks", ROOT / "docs" / "site" / "hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    page = hooks.api_page()
    listed = re.findall(r"^## `trecrs\.(\w+)`$", page, flags=re.M)
    assert sorted(listed) == sorted(n for n in trecrs.__all__ if n != "__version__")
    assert (
        "::: trecrs.evaluate.api.evaluate\n" in page
        and "::: trecrs.protocol.candidates.METHODOLOGIES\n" in page
    )
