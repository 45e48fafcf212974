"""The documentation site (mkdocs.yml) covers every page and every public name; CI builds it with
``mkdocs build --strict`` (.ci/run). The API page (docs/site/hooks.py) renders each name once, with its
signature, a parameters table and the docstrings' Sphinx roles as links."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest

import trecrs

ROOT = Path(__file__).resolve().parent.parent


def _hooks():
    pytest.importorskip("griffe")  # the site's packages (the docs extra)
    spec = importlib.util.spec_from_file_location("site_hooks", ROOT / "docs" / "site" / "hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    return hooks


def test_every_page_is_in_the_navigation():
    nav = set(re.findall(r":\s*(\S+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(), flags=re.M))
    pages = {p.name for p in (ROOT / "docs").glob("*.md")}
    assert pages <= nav, f"add to mkdocs.yml's nav: {sorted(pages - nav)}"
    assert "index.md" in nav and "api.md" in nav


def test_the_api_reference_finds_every_public_name():
    """docs/site/hooks.py writes the API page: each public name with the module that defines it."""
    page = _hooks().api_page()
    listed = re.findall(r'^      heading: "trecrs\.(\w+)"$', page, flags=re.M)
    assert sorted(listed) == sorted(n for n in trecrs.__all__ if n != "__version__")
    assert (
        "::: trecrs.evaluate.api.evaluate\n" in page
        and "::: trecrs.protocol.candidates.METHODOLOGIES\n" in page
    )
    assert "## " not in page  # the headings are mkdocstrings' (with the signature), one per name


def test_the_docstrings_roles_become_links_and_signatures_tables():
    """The griffe extension, on the package as mkdocstrings loads it: roles whose target is on the page
    are autorefs links, others code; parameters and returns come from the signature."""
    griffe = pytest.importorskip("griffe")
    hooks = _hooks()
    loader = griffe.GriffeLoader(
        docstring_parser="google", extensions=griffe.load_extensions(hooks.ApiDocstrings)
    )
    pkg = loader.load("trecrs")
    func = pkg["evaluate.api.evaluate"]
    text = func.docstring.value
    assert not hooks.ROLE.search(text)
    assert (
        "(`EvaluationResult`" not in text
        and "[`EvaluationResult`][trecrs.evaluate.result.EvaluationResult]" in text
    )
    assert "[`build_run`][trecrs.protocol.runs.build_run]" in text  # :func:`~trecrs.protocol.runs.build_run`
    assert "; `trecrs.files.columns`)" in text  # :mod:`trecrs.files.columns`: not on the page
    assert "```pycon\n>>> result = evaluate(" in text
    sections = {s.kind.value: s for s in func.docstring.parsed}
    params = {p.name: p for p in sections["parameters"].value}
    assert list(params)[:4] == ["qrels", "run", "measures", "settings"]
    assert str(params["group_by"].annotation) == "str | None" and params["group_by"].value == "None"
    assert params["qrels"].description.startswith("``qrels`` / ``run``: paths of TREC files;")
    assert str(sections["returns"].value[0].annotation) == "EvaluationResult"
    # relative to the class: EvaluationResult's :attr:`runid` has no docstring, so it is not on the page
    assert "(runid left out: `runid`)" in pkg["evaluate.result.EvaluationResult"].docstring.value


class _Page(HTMLParser):
    """The link labels of the page's table of contents (the secondary sidebar) and its signatures."""

    def __init__(self) -> None:
        super().__init__()
        self.depth, self.link, self.toc = 0, None, []

    def handle_starttag(self, tag, attrs):
        classes = dict(attrs).get("class") or ""
        if tag == "div" and (self.depth or "md-sidebar--secondary" in classes):
            self.depth += 1
        if self.depth and tag == "a":
            self.link = ""

    def handle_endtag(self, tag):
        if tag == "div" and self.depth:
            self.depth -= 1
        if tag == "a" and self.link is not None:
            self.toc.append(" ".join(self.link.split()))
            self.link = None

    def handle_data(self, data):
        if self.link is not None:
            self.link += data


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    pytest.importorskip("mkdocs")
    out = tmp_path_factory.mktemp("site")
    build = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)]
    done = subprocess.run(build, cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return out


@pytest.mark.slow
def test_the_api_page_renders_signatures_parameters_and_links(site):
    html = (site / "api" / "index.html").read_text()
    text = re.sub(r"<[^>]+>", "", html)
    assert not re.search(r":(func|class|mod|data|meth|attr):", text)
    start = html.index('<h2 id="trecrs.evaluate.api.evaluate"')
    section = html[start : html.index("<h2 ", start + 1)]
    signature = re.sub(r"<[^>]+>", "", section[section.index('<div class="doc-signature highlight">') :])
    assert signature.lstrip().startswith(
        "evaluate(\n    qrels: Any,\n    run: Any,\n    measures: object = None,"
    )
    assert "group_by: str | None = None," in signature and ") -&gt; EvaluationResult" in signature
    assert '<span class="doc-section-title">Parameters:</span>' in section
    assert re.search(r"<td>\s*<code>qrels</code>\s*</td>", section)
    assert 'href="#trecrs.protocol.runs.build_run"><code>build_run</code></a>' in section
    assert '<span class="gp">&gt;&gt;&gt; </span>' in section  # the doctest highlighted


@pytest.mark.slow
def test_the_api_page_lists_each_name_once_and_the_hooks_are_not_published(site):
    page = _Page()
    page.feed((site / "api" / "index.html").read_text())
    public = [f"trecrs.{n}" for n in sorted(n for n in trecrs.__all__ if n != "__version__")]
    counts = Counter(page.toc)
    assert [counts[name] for name in public] == [1] * len(public)
    assert not set(counts) & {n.removeprefix("trecrs.") for n in public}  # no second entry by the bare name
    assert counts["plot"] == 1  # a class's documented members under it: EvaluationResult.plot
    assert not [p for p in site.rglob("*") if p.name == "hooks.py" or p.suffix == ".py"]
