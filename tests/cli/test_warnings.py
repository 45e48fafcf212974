"""Valid but suspicious input: scored as trec_eval scores it, with one warning line (silenced by --quiet)."""

from __future__ import annotations

import pytest

from tests.conftest import ROOT
from trecrs.errors import TrecrsWarning
from trecrs.files.trec import read_run, read_run_for_scoring

from ..conftest import run_command

QRELS = "q1 0 a 1\nq1 0 b 1\nq2 0 c 1\n"
GOOD = "q1 Q0 a 1 0.9 t\nq1 Q0 b 2 0.5 t\nq1 Q0 c 3 0.1 t\nq2 Q0 c 1 1 t\nq2 Q0 d 2 0.5 t\n"
SWAPPED = "q1 Q0 a 0.9 1 t\nq1 Q0 b 0.5 2 t\nq1 Q0 c 0.1 3 t\nq2 Q0 c 1 1 t\n"  # rank and score exchanged
CONTRA = "q1 Q0 a 1 0.1 t\nq1 Q0 b 2 0.5 t\nq1 Q0 c 3 0.9 t\nq2 Q0 c 1 1 t\n"  # integer ranks, reversed
PARTIAL = "q1 Q0 a 1 0.9 t\n"
TIED = "q1 Q0 x 1 0.5 t\nq1 Q0 a 2 0.5 t\nq1 Q0 b 3 0.1 t\nq2 Q0 c 1 1 t\nq2 Q0 d 2 0.5 t\n"  # x (unjudged) ties a


@pytest.fixture
def t(tmp_path):
    for name, text in [
        ("q", QRELS),
        ("good", GOOD),
        ("swapped", SWAPPED),
        ("contra", CONTRA),
        ("partial", PARTIAL),
        ("partial2", PARTIAL),
        ("tied", TIED),
    ]:
        (tmp_path / name).write_text(text)
    return tmp_path


def test_a_consistent_run_gives_no_warning(cli, t):
    code, out, err = cli("eval", "-m", "P.2", t / "q", t / "good")
    assert code == 0 and err == "" and out.split() == ["P_2", "all", "0.7500"]


@pytest.mark.parametrize("name,lines", [("swapped", 3), ("contra", 2)])
def test_ranks_that_contradict_scores_are_scored_by_score_with_a_warning(cli, t, name, lines):
    code, out, err = cli("eval", "-m", "P.1", t / "q", t / name)
    # trec_eval ignores the rank column: q1 ranks c (0.9 / 3) first, so P_1 = (0 + 1) / 2
    # (P.1, not P.2: q2's one-document ranking would add the short-ranking warning)
    assert code == 0 and out.split() == ["P_1", "all", "0.5000"]
    assert err == (
        f"trecrs eval: warning: {t / name}: the rank column contradicts the scores on {lines} of 4 lines "
        "(1 of 2 queries); ranking by score as trec_eval does (are the rank and score columns swapped?)\n"
    )
    code, out, err = cli("eval", "--quiet", "-m", "P.1", t / "q", t / name)
    assert code == 0 and err == "" and out.split() == ["P_1", "all", "0.5000"]


def test_both_run_readers_find_the_same_contradictions(t):
    for reader in (read_run, read_run_for_scoring):
        with pytest.warns(TrecrsWarning, match=r"on 2 of 4 lines \(1 of 2 queries\)"):
            reader(t / "contra")


def test_a_run_covering_part_of_the_qrels_is_scored_with_a_warning(cli, t):
    code, out, err = cli("eval", "-m", "P.1", "-m", "num_q", t / "q", t / "partial")
    assert code == 0 and out.split() == [
        "num_q",
        "all",
        "1",
        "P_1",
        "all",
        "1.0000",
    ]  # q2 left out, as trec_eval
    assert err == (
        "trecrs eval: warning: 1 of 2 (50.0%) qrels queries have no line in the run: left out of the "
        "averages, as trec_eval does (-c would count them, scoring 0)\n"
    )
    code, out, err = cli(
        "eval", "-c", "-m", "P.1", t / "q", t / "partial"
    )  # -c counts q2: nothing to warn about
    assert code == 0 and err == "" and out.split() == ["P_1", "all", "0.5000"]


@pytest.mark.parametrize("engine", ["vectorized", "pytrec_eval"])
@pytest.mark.parametrize("flags", [[], ["-c"]])
def test_run_queries_without_qrels_are_warned_about(cli, t, engine, flags):
    """q3 is ranked but has no qrels: trec_eval skips it (P_2 over q1 and q2: (2/2 + 1/2) / 2), and every
    evaluation says so, -c or not, whatever the engine; docs/errors.md's table says the same."""
    (t / "extra").write_text(GOOD + "q3 Q0 a 1 1 t\nq3 Q0 c 2 0.5 t\n")
    code, out, err = cli("eval", "--engine", engine, *flags, "-m", "P.2", t / "q", t / "extra")
    assert code == 0 and out.split() == ["P_2", "all", "0.7500"]
    assert (
        err
        == "trecrs eval: warning: 1 of 3 (33.3%) run queries have no qrels: not evaluated, as trec_eval does\n"
    )
    rows = [line for line in (ROOT / "docs" / "errors.md").read_text().splitlines() if line.startswith("| ")]
    row = next(line for line in rows if line.startswith("| run queries missing from the qrels |"))
    assert "every evaluation with a run query that has no qrels line warns, `-c` or not" in row
    assert not any("not warned about" in line for line in rows)


def test_the_frame_path_warns_the_same(cli, t):
    code, _, err = cli("eval", "--engine", "pytrec_eval", "-m", "P.1", t / "q", t / "partial")
    assert (
        code == 0 and err.count("\n") == 1 and "1 of 2 (50.0%) qrels queries have no line in the run" in err
    )


def test_a_failing_command_prints_its_error_only(cli, t):
    code, _, err = cli("eval", "-m", "novelty.10", t / "q", t / "partial")
    assert (
        code == 2 and err == "trecrs eval: error: measure novelty_10 needs the training ratings (--train)\n"
    )


def test_quiet_silences_notes_and_a_quiet_batch_its_commands(cli, t):
    test = t / "te"
    test.write_text("u1\ti1\t5\t0\nu1\ti1\t4\t0\n")
    code, _, err = cli("qrels", "--test", test, "--threshold", "4", "--dedupe", "mean", "-o", t / "x.qrels")
    assert code == 0 and "1 duplicate rating row(s) merged" in err
    code, _, err = cli(
        "qrels", "--quiet", "--test", test, "--threshold", "4", "--dedupe", "mean", "-o", t / "y.qrels"
    )
    assert code == 0 and err == ""
    script = t / "b.txt"
    script.write_text(f"eval -m P.2 {t / 'q'} {t / 'contra'}\n")
    code, _, err = cli("batch", "--quiet", script)
    assert code == 0 and err == ""


UNCOVERED = (
    "1 of 2 (50.0%) qrels queries have no line in the run: left out of the averages, as trec_eval does (-c would "
    "count them, scoring 0)"
)


def test_with_several_runs_each_warning_names_its_run(t):
    """One round trip: the tie warning and the coverage warning each lead with their run's path, as its notes
    do. q1 ranks x (unjudged) before a (relevant), tied: P_1 is 0 or 1 there, q2's is 1, so 0.5 to 1.0; map
    (1/2 + 2/3) / 2 = 0.5833 in trec_eval's order, (1 + 2/3) / 2 = 0.8333 at best, q2's 1: 0.7917 to 0.9167 (partial: q1 finds a of a and b, AP 1/2)."""
    done = run_command("eval", "-m", "P.1", "-m", "map", t / "q", t / "tied", t / "partial")
    assert done.returncode == 0
    assert done.stderr == (
        f"trecrs eval: warning: {t / 'tied'}: tied documents of different relevance straddle cutoff 1 in 1 of 2 "
        "evaluated queries (50.0%); ties anywhere in the lists move the other measures in 1 of 2 evaluated queries (50.0%): P_1 lies between 0.5000 and 1.0000, map lies between 0.7917 and 0.9167 over tie "
        "orders (--ties best/worst)\n"
        f"trecrs eval: warning: {t / 'partial'}: {UNCOVERED}\n"
    )
    assert done.stdout.splitlines()[1:] == [f"{t / 'tied'}\tall\tmap\t0.7916666666666666",
                                            f"{t / 'tied'}\tall\tP_1\t0.5",
                                            f"{t / 'partial'}\tall\tmap\t0.5", f"{t / 'partial'}\tall\tP_1\t1.0"]  # fmt: skip


def test_two_runs_with_the_same_warning_get_a_line_each(cli, t):
    """The same counts for two runs are two lines (one line before, the run unnamed); a warning about the
    measures asked for (-m) is about no run: one line, as it was; the rank column's names its run already."""
    code, _, err = cli("eval", "-m", "P.1x", t / "q", t / "partial", t / "partial2", t / "contra")
    assert code == 0
    assert err.splitlines() == [
        "trecrs eval: warning: cutoff '1x' read as 1, as trec_eval reads it (C atol)",
        f"trecrs eval: warning: {t / 'partial'}: {UNCOVERED}",
        f"trecrs eval: warning: {t / 'partial2'}: {UNCOVERED}",
        f"trecrs eval: warning: {t / 'contra'}: the rank column contradicts the scores on 2 of 4 lines (1 of 2 queries); "
        "ranking by score as trec_eval does (are the rank and score columns swapped?)",
    ]
    code, _, err = cli("eval", "-m", "P.1", t / "q", t / "partial")  # one run: unnamed, as before
    assert code == 0 and err == f"trecrs eval: warning: {UNCOVERED}\n"
