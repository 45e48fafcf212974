"""Popularity bias, novelty, diversity and calibration measures against hand-computed values.

Training ratings (user: items): u1: a b, u2: a c, u3: a b d, u4: e -> n_i: a 3, b 2, c 1, d 1, e 1 (8
ratings); |U| = 4. With head_share 0.5 the short head is {a, b} (a holds 3 < 4 ratings, a + b 5 >= 4); the
catalogue is {a, b, c, d, e, f} (f: a run item no training user rated), so the tail is {c, d, e, f}.
Top 3: u1 -> c d e; u2 -> b d f; u3 -> c e. Relevant (qrels, rel >= 1): u1 {d, a}, u2 {b, f}, u3 {e}
(u3's c is judged 0). Categories: a {x}, b {x, y}, c {y}, d {z}, e {y, z}; f has none.
"""

from __future__ import annotations

import math

import polars as pl
import pytest

from trecrs import evaluate
from trecrs.errors import UsageError
from trecrs.measures.direction import better
from trecrs.measures.recsys import mean_absolute_difference

TRAIN = pl.DataFrame({"user": ["u1", "u1", "u2", "u2", "u3", "u3", "u3", "u4"], "item": list("abacabde"),
                      "rating": [5.0] * 8})  # fmt: skip
RUN = pl.DataFrame({"query": ["u1"] * 4 + ["u2"] * 3 + ["u3"] * 2, "doc": list("cdefbdfce"),
                    "score": [0.9, 0.8, 0.7, 0.6, 0.9, 0.8, 0.7, 0.9, 0.8]})  # fmt: skip
QRELS = pl.DataFrame(
    {"query": ["u1", "u1", "u2", "u2", "u3", "u3"], "doc": list("dabfce"), "rel": [1, 1, 1, 1, 0, 1]}
)
FEATURES = {"a": ["x"], "b": ["x", "y"], "c": ["y"], "d": ["z"], "e": ["y", "z"]}
QUERIES = ("u1", "u2", "u3")


def values(measures, **kw) -> dict[tuple[str, str], float]:
    kw = {"train": TRAIN, "head_share": 0.5, "item_features": FEATURES, **kw}
    return {(q, m): v for q, m, v in evaluate(QRELS, RUN, measures, **kw).tidy().iter_rows()}


def _mean(got, name, want: dict[str, float]) -> None:
    for q, v in want.items():
        assert got[(q, name)] == pytest.approx(v), (q, name)
    assert got[("all", name)] == pytest.approx(sum(want.values()) / len(want))


def test_long_tail_share_and_count():
    got = values(["aplt.3", "aclt.3"])
    _mean(got, "aplt_3", {"u1": 1.0, "u2": 2 / 3, "u3": 1.0})  # u2's b is a head item
    _mean(got, "aclt_3", {"u1": 3.0, "u2": 2.0, "u3": 2.0})


def test_pop_rsp_pop_reo_and_item_mad():
    got = values(["pop_rsp.3", "pop_reo.3", "item_mad.3"])
    # PopRSP: recommended head 1 (b), tail 7; not-trained head items 3*2 - (2 + 1 + 2) = 1, tail 3*4 - (0+1+1) = 10
    p = [1 / 1, 7 / 10]
    assert got[("all", "pop_rsp_3")] == pytest.approx(
        abs(p[0] - p[1]) / (p[0] + p[1])
    )  # std/mean of two = |a-b|/(a+b)
    assert got[("all", "pop_rsp_3")] == pytest.approx(3 / 17)
    # PopREO: relevant head items a, b (2), of them recommended b (1); relevant tail d, f, e (3), all recommended
    assert got[("all", "pop_reo_3")] == pytest.approx(abs(1 / 2 - 3 / 3) / (1 / 2 + 3 / 3))
    # ItemMAD: times recommended b 1, c 2, d 2, e 2, f 1; head {a, b} 1/2 per item, tail {c, d, e, f} 7/4
    assert got[("all", "item_mad_3")] == pytest.approx(abs(1 / 2 - 7 / 4))
    assert not any(q != "all" for q, _ in got)  # summaries only


def test_epc_and_efd_plain_and_rank_relevance_aware():
    got = values(["epc.3", "efd.3", "epc_rel.3", "efd_rel.3", "novelty.3"])
    nov = {i: 1 - n / 4 for i, n in {"b": 2, "c": 1, "d": 1, "e": 1, "f": 0}.items()}
    _mean(got, "epc_3", {"u1": (nov["c"] + nov["d"] + nov["e"]) / 3, "u2": (nov["b"] + nov["d"] + nov["f"]) / 3,
                         "u3": (nov["c"] + nov["e"]) / 2})  # fmt: skip
    # EFD: -log2(n_i/4): b 1, c d e 2; f (no training rating) left out -> the mean self-information, novelty
    _mean(got, "efd_3", {"u1": 2.0, "u2": (1 + 2) / 2, "u3": 2.0})
    assert got[("all", "efd_3")] == pytest.approx(got[("all", "novelty_3")])
    d = [1.0, 0.85, 0.85**2]
    _mean(got, "epc_rel_3", {
        "u1": d[1] * nov["d"] / sum(d),  # only d (rank 2) is relevant
        "u2": (d[0] * nov["b"] + d[2] * nov["f"]) / sum(d),  # b and f relevant
        "u3": d[1] * nov["e"] / (d[0] + d[1]),  # c judged non-relevant
    })  # fmt: skip
    _mean(
        got,
        "efd_rel_3",
        {"u1": d[1] * 2 / sum(d), "u2": d[0] * 1 / (d[0] + d[1]), "u3": d[1] * 2 / (d[0] + d[1])},
    )


def test_intra_list_diversity_subtopic_recall_and_category_coverage():
    got = values(["ild.3", "srecall.3", "category_coverage.1,3"])
    # u1 c{y} d{z} e{y,z}: 1 - J = 1, 1/2, 1/2; u2 b{x,y} d{z} (f has no category): 1; u3 c{y} e{y,z}: 1/2
    _mean(got, "ild_3", {"u1": (1 + 0.5 + 0.5) / 3, "u2": 1.0, "u3": 0.5})
    # u1 relevant d{z}, a{x}: found z; u2 b{x,y}, f: found x y; u3 e{y,z}: found y z
    _mean(got, "srecall_3", {"u1": 1 / 2, "u2": 1.0, "u3": 1.0})
    for q, v in {"u1": 2 / 3, "u2": 1.0, "u3": 2 / 3}.items():
        assert got[(q, "category_coverage_3")] == pytest.approx(v)
    assert got[("all", "category_coverage_3")] == pytest.approx(1.0)  # x y z in the union
    assert got[("all", "category_coverage_1")] == pytest.approx(2 / 3)  # c, b: x y


def _kl(p: dict, q: dict) -> float:
    return sum(pc * math.log(pc / (0.99 * q.get(c, 0.0) + 0.01 * pc)) for c, pc in p.items())


def test_miscalibration_is_steck_kl_with_alpha_001():
    got = values(["miscalibration.3"])
    want = {
        # train a{x} b{x,y}: p x .75 y .25; top c d e: q y (1 + .5)/3, z (1 + .5)/3
        "u1": _kl({"x": 0.75, "y": 0.25}, {"y": 0.5, "z": 0.5}),
        # train a c: x .5 y .5; top b d (f has no category): x .25 y .25 z .5
        "u2": _kl({"x": 0.5, "y": 0.5}, {"x": 0.25, "y": 0.25, "z": 0.5}),
        # train a b d: x 1.5/3, y .5/3, z 1/3; top c e: y .75 z .25
        "u3": _kl({"x": 0.5, "y": 1 / 6, "z": 1 / 3}, {"y": 0.75, "z": 0.25}),
    }
    assert want["u1"] == pytest.approx(0.75 * math.log(100) + 0.25 * math.log(0.25 / 0.4975))
    _mean(got, "miscalibration_3", want)


def test_default_head_share_moves_b_to_the_tail():
    got = values(["aplt.3"], head_share=0.33)  # head {a}: a's 3 ratings reach 0.33 * 8
    assert got[("u2", "aplt_3")] == 1.0


def test_needs_item_features_and_directions():
    with pytest.raises(UsageError, match=r"measure ild_3 needs the item categories \(item_features=\)"):
        evaluate(QRELS, RUN, ["ild.3"], train=TRAIN)
    with pytest.raises(UsageError, match="between 0 and 1") as refused:
        evaluate(QRELS, RUN, ["aplt.3"], train=TRAIN, head_share=1.0)
    assert refused.value.arguments == ("head_share",)
    for name in (
        "aplt_3",
        "aclt_3",
        "epc_3",
        "epc_rel_3",
        "efd_3",
        "efd_rel_3",
        "ild_3",
        "srecall_3",
        "category_coverage_3",
    ):
        assert better(name) == "higher", name
    for name in ("pop_rsp_3", "pop_reo_3", "miscalibration_3", "item_mad_3"):
        assert better(name) == "lower", name


def test_mean_absolute_difference():
    assert mean_absolute_difference([1.0, 4.0, 6.0]) == pytest.approx((3 + 5 + 2) / 3)
    assert math.isnan(mean_absolute_difference([1.0]))


def test_from_the_command_line_with_movielens_shaped_files(cli, tmp_path):
    """``trecrs eval --train --item-features u.item --head-share``: the values of the API, and one-line usage
    errors naming the options."""
    from trecrs.files.features import ML100K_GENRES
    from trecrs.files.trec import write_qrels, write_run

    ids = {c: str(n) for n, c in enumerate("abcdef", start=1)}  # MovieLens ids are numbers
    genre = {"x": "Action", "y": "Comedy", "z": "Drama"}
    lines = []
    for item, n in ids.items():
        cats = {genre[c] for c in FEATURES.get(item, [])}
        flags = "|".join("1" if g in cats else "0" for g in ML100K_GENRES)
        lines.append(f"{n}|Title {n}|01-Jan-1995||http://x|{flags}\n")
    (tmp_path / "u.item").write_text("".join(lines))
    (tmp_path / "u1.base").write_text(
        "".join(f"{u[1:]}\t{ids[i]}\t5\t88000000\n" for u, i in TRAIN.select("user", "item").iter_rows())
    )
    qrels = QRELS.with_columns(pl.col("doc").replace(ids), pl.col("query").str.slice(1))
    run = RUN.with_columns(pl.col("doc").replace(ids), pl.col("query").str.slice(1))
    write_qrels(qrels, tmp_path / "q.txt")
    write_run(run, tmp_path / "r.txt")
    code, out, err = cli("eval", "-m", "ild.3", "-m", "aplt.3", "-m", "miscalibration.3", "--train", tmp_path / "u1.base",
                         "--item-features", tmp_path / "u.item", "--head-share", "0.5", tmp_path / "q.txt", tmp_path / "r.txt")  # fmt: skip
    assert code == 0, err
    got = {line.split()[0]: float(line.split()[2]) for line in out.splitlines()}
    want = values(["ild.3", "aplt.3", "miscalibration.3"])
    assert got == {name: pytest.approx(want[("all", name)], abs=5e-5) for name in got}
    assert set(got) == {"ild_3", "aplt_3", "miscalibration_3"}
    code, out, err = cli("eval", "-m", "ild.3", tmp_path / "q.txt", tmp_path / "r.txt")
    assert (code, out) == (
        2,
        "",
    ) and err == "trecrs eval: error: measure ild_3 needs the item categories (--item-features)\n"
    code, out, err = cli("eval", "-m", "aplt.3", "--train", tmp_path / "u1.base", "--head-share", "0", tmp_path / "q.txt", tmp_path / "r.txt")  # fmt: skip
    assert code == 2 and err.startswith(
        "trecrs eval: error: argument --head-share: the short-head share must be"
    )


def test_item_mad_over_given_item_groups():
    """Times in a top 3: a 0, b 1, c 2, d 2, e 2, f 1; groups G1 {b, c} 3/2, G2 {d, e, f} 5/3, G3 {a} 0."""
    groups = {"b": "G1", "c": "G1", "d": "G2", "e": "G2", "f": "G2", "a": "G3"}
    got = values(["item_mad.3"], item_groups=groups)
    assert got[("all", "item_mad_3")] == pytest.approx((abs(3 / 2 - 5 / 3) + 3 / 2 + 5 / 3) / 3)


def test_recbole_names_gauc_tail_percentage_and_average_popularity():
    """RecBole's names: ``gauc`` weights each user's ROC AUC by |Rel_u|; ``tail_percentage.k`` is ``aplt.k``,
    ``average_popularity.k`` is ``arp.k``. AUC over L_u ∪ Rel_u (unretrieved relevant documents last):
    u1 relevant d (rank 2, non-relevant e and f below) and a (unretrieved), N = 3 (c, e, f): 2/6; u2 b (d below)
    and f, N = 1: 1/2; u3 e above nothing, N = 1 (c): 0."""
    got = values(["gauc", "auc", "tail_percentage.3", "aplt.3", "average_popularity", "average_popularity.3"])
    _mean(got, "auc", {"u1": 1 / 3, "u2": 1 / 2, "u3": 0.0})
    assert {q: got[(q, "gauc")] for q in QUERIES} == pytest.approx({"u1": 1 / 3, "u2": 1 / 2, "u3": 0.0})
    assert got[("all", "gauc")] == pytest.approx(
        (2 * 1 / 3 + 2 * 1 / 2 + 1 * 0.0) / 5
    )  # 1/3, not the mean 5/18
    _mean(got, "tail_percentage_3", {"u1": 1.0, "u2": 2 / 3, "u3": 1.0})
    assert all(got[(q, "tail_percentage_3")] == got[(q, "aplt_3")] for q in (*QUERIES, "all"))
    # n_i: b 2, c d e 1, f 0; u1 c d e f, u2 b d f, u3 c e
    _mean(got, "average_popularity", {"u1": 3 / 4, "u2": 1.0, "u3": 1.0})
    _mean(got, "average_popularity_3", {"u1": 1.0, "u2": 1.0, "u3": 1.0})
    assert [better(n) for n in ("gauc", "tail_percentage_3", "average_popularity_3")] == [
        "higher",
        "higher",
        "neither",
    ]
    assert got[("all", "gauc")] == evaluate(QRELS, RUN, ["auc_weighted"]).summary["auc_weighted"]


def test_item_mad_needs_the_training_ratings_only_for_head_and_tail(cli, tmp_path):
    """Given item groups replace head/tail: no --train needed (the same value as with it); without either,
    a one-line usage error naming --train."""
    from trecrs.files.trec import write_qrels, write_run

    groups = {"b": "G1", "c": "G1", "d": "G2", "e": "G2", "f": "G2", "a": "G3"}
    got = evaluate(QRELS, RUN, ["item_mad.3"], item_groups=groups).summary["item_mad_3"]
    assert got == pytest.approx((abs(3 / 2 - 5 / 3) + 3 / 2 + 5 / 3) / 3)
    assert got == values(["item_mad.3"], item_groups=groups)[("all", "item_mad_3")]
    with pytest.raises(UsageError, match=r"measure item_mad_3 needs the training ratings \(train=\)"):
        evaluate(QRELS, RUN, ["item_mad.3"])
    write_qrels(QRELS, tmp_path / "q.txt")
    write_run(RUN, tmp_path / "r.txt")
    (tmp_path / "groups.tsv").write_text("".join(f"{i}\t{g}\n" for i, g in groups.items()))
    code, out, err = cli("eval", "-m", "item_mad.3", "--item-groups", tmp_path / "groups.tsv", tmp_path / "q.txt",
                         tmp_path / "r.txt")  # fmt: skip
    assert (code, err) == (0, "") and out.split() == ["item_mad_3", "all", f"{got:.4f}"]
    code, out, err = cli("eval", "-m", "item_mad.3", tmp_path / "q.txt", tmp_path / "r.txt")
    assert (code, out) == (
        2,
        "",
    ) and err == "trecrs eval: error: measure item_mad_3 needs the training ratings (--train)\n"
