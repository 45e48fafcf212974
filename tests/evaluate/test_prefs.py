"""``-R prefs``, ``-R qrels_prefs``, ``-R qrels_jg`` and ``-T``: trec_eval's own quicktests, byte for byte,
values counted by hand from the examples of ``get_prefs.c``, what trec_eval refuses, and the differential
fuzz of the three formats against both binaries (``tests/fuzz/prefs.py``)."""

from __future__ import annotations

import pytest

from tests.fuzz.binaries import Unavailable, binary
from trecrs.errors import EXIT_INPUT, EXIT_SEMANTIC, EXIT_USAGE

# the quicktest target of each release's Makefile: (flags, rel_info file, results file, expected output)
QUICKTESTS = {
    "9": [
        ("-m all_prefs -q -R prefs", "prefs.test", "prefs.results.test", "out.test.prefs"),
        ("-m all_prefs -q -R qrels_prefs", "qrels.test", "results.test", "out.test.qrels_prefs"),
        ("-m qrels_jg -q -R qrels_jg", "qrels.123", "results.test", "out.test.qrels_jg"),
    ],
    "10": [
        ("-m all_prefs -q -R prefs", "prefs.test", "prefs.results.test", "out.test.prefs"),
        ("-m all_prefs -q -R prefs", "prefs.comment.test", "prefs.results.test", "out.test.prefs"),
        ("-m all_prefs -q -R qrels_prefs", "qrels.test", "results.test", "out.test.qrels_prefs"),
        ("-m qrels_jg -q -R qrels_jg", "qrels.123", "results.test", "out.test.qrels_jg"),
        ("-m qrels_jg -q -R qrels_jg", "qrels.comments.123", "results.test", "out.test.qrels_jg"),
    ],
}


def _built(version: str):
    try:
        return binary(version)
    except Unavailable as exc:
        pytest.skip(str(exc))


@pytest.mark.parametrize(("version", "flags", "rel", "results", "expected"),
                         [(v, *t) for v, tests in QUICKTESTS.items() for t in tests])  # fmt: skip
def test_quicktest_bytes(cli, version, flags, rel, results, expected):
    """Each quicktest command of trec_eval 9.0.8 and 10.0 prints the release's expected file."""
    test = _built(version).parent / "test"
    pinned = [] if version == "9" else ["--trec-eval-version", "10"]
    code, out, err = cli("eval", *flags.split(), *pinned, test / rel, test / results)
    assert (code, err) == (0, "")
    assert out == (test / expected).read_text()


# get_prefs.c: "establishes a total of 13 preferences (5 with docno4 preferred, 4 with docno1 ...)"
EC_EXAMPLE = """q ujg1 sub1 docno1 3.0
q ujg1 sub1 docno2 2.0
q ujg1 sub1 docno3 0.0
q ujg1 sub1 docno4 6.0
q ujg1 sub1 docno5 0.0
q ujg1 sub1 docno6 2.0
"""
# "expresses 5 preferences (1>2, 1>3, 2>3, 2>4, 1>4)": 1>4 only through transitivity
PA_EXAMPLE = """q ujg1 sub1 docno1 3.0
q ujg1 sub1 docno2 2.0
q ujg1 sub1 docno3 1.0
q ujg1 sub2 docno2 5.0
q ujg1 sub2 docno4 4.0
"""


def _values(out: str) -> dict[str, str]:
    return {line.split()[0]: line.split()[2] for line in out.splitlines() if line.split()[1] == "all"}


def test_counts_of_the_documented_examples(cli, tmp_path):
    """The preference counts of get_prefs.c's examples; the run orders docno4 > 1 > 2 > 6 > 3 > 5 (all
    fulfilled) in the first, and docno2, 4, 3, 1 (2>3 and 2>4 fulfilled, 1 last) in the second."""
    (tmp_path / "ec").write_text(EC_EXAMPLE)
    run = "".join(f"q Q0 docno{d} {r} {10 - r} t\n" for r, d in enumerate([4, 1, 2, 6, 3, 5], 1))
    (tmp_path / "ec.run").write_text(run)
    code, out, _ = cli("eval", "-R", "prefs", "-m", "all_prefs", tmp_path / "ec", tmp_path / "ec.run")
    v = _values(out)
    assert code == 0 and (v["prefs_num_prefs_poss"], v["prefs_num_prefs_ful"], v["prefs_simp"]) == (
        "13",
        "13",
        "1.0000",
    )
    (tmp_path / "pa").write_text(PA_EXAMPLE)
    (tmp_path / "pa.run").write_text(
        "q Q0 docno2 1 4 t\nq Q0 docno4 2 3 t\nq Q0 docno3 3 2 t\nq Q0 docno1 4 1 t\n"
    )
    code, out, _ = cli("eval", "-R", "prefs", "-m", "all_prefs", tmp_path / "pa", tmp_path / "pa.run")
    v = _values(out)
    assert code == 0 and (v["prefs_num_prefs_poss"], v["prefs_num_prefs_ful"]) == ("5", "2")
    assert (v["prefs_simp"], v["prefs_pair"]) == ("0.4000", "0.4000")


def test_judgment_groups_average(cli, tmp_path):
    """map_avgjg: AP of each group, averaged; group A (a at rank 1, c not retrieved: 1/2), group B (b at
    rank 2: (1/2)/1), so (0.5 + 0.5) / 2; P_avgjg_1: (1 + 0) / 2 (as trec_eval 9.0.8 prints)."""
    (tmp_path / "jg").write_text("q A a 1\nq A c 1\nq B b 1\n")
    (tmp_path / "run").write_text("q Q0 a 1 2 t\nq Q0 b 2 1 t\n")
    code, out, _ = cli(
        "eval", "-R", "qrels_jg", "-m", "map_avgjg", "-m", "P_avgjg.1", tmp_path / "jg", tmp_path / "run"
    )
    assert code == 0 and _values(out) == {"map_avgjg": "0.5000", "P_avgjg_1": "0.5000"}


def test_python_api_and_stdin(cli, tmp_path, monkeypatch):
    """``trecrs.evaluate(..., rel_info_format=)`` gives the CLI's numbers; ``-`` reads the prefs from stdin."""
    import io

    import trecrs

    (tmp_path / "pa").write_text(PA_EXAMPLE)
    (tmp_path / "r").write_text(
        "q Q0 docno2 1 4 t\nq Q0 docno4 2 3 t\nq Q0 docno3 3 2 t\nq Q0 docno1 4 1 t\n"
    )
    res = trecrs.evaluate(
        tmp_path / "pa", tmp_path / "r", ["prefs_simp", "prefs_num_prefs_ful"], rel_info_format="prefs"
    )
    assert res.summary == {"prefs_num_prefs_ful": 2.0, "prefs_simp": 0.4}
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(PA_EXAMPLE.encode())))
    code, out, _ = cli("eval", "-R", "prefs", "-m", "prefs_simp", "-", tmp_path / "r")
    assert (code, out) == (0, "prefs_simp            \tall\t0.4000\n")


def test_measures_need_their_format(cli, tmp_path):
    """trec_eval stops with status 4 (nothing printed) on a measure the format cannot feed; pytrec_eval
    reads qrels only; the format names come from the registry."""
    (tmp_path / "p").write_text(PA_EXAMPLE)
    (tmp_path / "r").write_text("q Q0 docno4 1 4 t\n")
    code, out, err = cli("eval", "-R", "prefs", "-m", "map", tmp_path / "p", tmp_path / "r")
    assert (code, out) == (EXIT_SEMANTIC, "") and "'map'" in err and "qrels" in err
    code, out, err = cli("eval", "-R", "prefs", tmp_path / "p", tmp_path / "r")  # official: map, P ...
    assert (code, out) == (EXIT_SEMANTIC, "")
    (tmp_path / "q").write_text("q 0 docno4 1\n")
    code, out, err = cli("eval", "-m", "prefs_simp", tmp_path / "q", tmp_path / "r")
    assert (code, out) == (EXIT_SEMANTIC, "") and "prefs or qrels_prefs" in err
    code, _, err = cli(
        "eval", "--engine", "pytrec_eval", "-R", "prefs", "-m", "prefs", tmp_path / "p", tmp_path / "r"
    )
    assert code == EXIT_USAGE and "pytrec_eval reads qrels only" in err
    assert cli("eval", "-R", "nope", tmp_path / "p", tmp_path / "r")[0] == EXIT_USAGE
    assert cli("eval", "-T", "trec_results", "--Rel_info_format", "prefs", "-m", "runid", tmp_path / "p",
               tmp_path / "r")[:2] == (0, "runid                 \tall\tt\n")  # fmt: skip


def test_malformed_lines_name_file_and_line(cli, tmp_path):
    (tmp_path / "r").write_text("q Q0 a 1 4 t\n")
    (tmp_path / "p").write_text("q g s a 1\nq g s b\n")
    code, _, err = cli("eval", "-R", "prefs", "-m", "prefs", tmp_path / "p", tmp_path / "r")
    assert code == EXIT_INPUT and f"{tmp_path / 'p'}:2: expected 5 fields" in err
    (tmp_path / "j").write_text("q g a 1\nq g a 2\n")
    code, _, err = cli("eval", "-R", "qrels_jg", "-m", "qrels_jg", tmp_path / "j", tmp_path / "r")
    assert code == EXIT_INPUT and f"{tmp_path / 'j'}:2: duplicate qrels_jg entry" in err
    (tmp_path / "l").write_text("q g a x\n")
    code, _, err = cli("eval", "-R", "qrels_prefs", "-m", "prefs", tmp_path / "l", tmp_path / "r")
    assert code == EXIT_INPUT and f"{tmp_path / 'l'}:1: rel_level must be a number" in err


FUZZ_SEED = 20261123
FUZZ_CASES = 40  # per format and version here; `python3 -m tests.fuzz.prefs --cases 300` runs more


@pytest.mark.parametrize("version", ["9", "10"])
@pytest.mark.parametrize("fmt", ["prefs", "qrels_prefs", "qrels_jg"])
def test_fuzz_against_binaries(version, fmt):
    """Random cases of each format: trecrs prints trec_eval's bytes, or fails where it fails."""
    from tests.fuzz.prefs import check_case
    from tests.fuzz.run import Worker

    _built(version)
    worker = Worker()
    try:
        diffs = [
            (k, d) for k in range(FUZZ_CASES) if (d := check_case(worker, version, FUZZ_SEED, k, fmt)[0])
        ]
    finally:
        worker.close()
    replay = f"python3 -m tests.fuzz.prefs --seed {FUZZ_SEED} --version {version} --format {fmt} --only K"
    assert not diffs, f"{diffs[:5]} ({replay})"
