"""trecrs.report.figures: the same figure gives the same bytes, as PNG and as PDF."""

from __future__ import annotations

import pytest

from trecrs.report.figures import pyplot, save_figure


def _figure():
    fig, ax = pyplot().subplots(figsize=(2, 2))
    ax.plot([0, 1, 2], [1, 0, 2])
    return fig


@pytest.mark.parametrize("suffix,magic", [("png", b"\x89PNG"), ("pdf", b"%PDF")])
def test_same_figure_same_bytes(tmp_path, suffix, magic):
    save_figure(_figure(), tmp_path / f"a.{suffix}")
    save_figure(_figure(), tmp_path / f"b.{suffix}")
    one, two = (tmp_path / f"a.{suffix}").read_bytes(), (tmp_path / f"b.{suffix}").read_bytes()
    assert one[:4] == magic and one == two
    assert b"CreationDate" not in one and b"Matplotlib" not in one  # no time, no version
