"""Score files in the layouts recommenders write (LensKit, MS Recommenders, RecBole, TREC, JSON lines,
Parquet, gzip), each turned by ``trecrs run`` into the run the plain ``user item score`` file gives, byte
for byte; top-N lists; bad lines named by file and line; the rank-contradiction and missing warnings."""

from __future__ import annotations

import gzip
import json
import time

import pandas as pd
import polars as pl
import pytest

from trecrs.errors import InputError, TrecrsWarning, UsageError
from trecrs.files.score_formats import FORMATS, detect_format
from trecrs.files.scores import MAX_RANK, as_score_table, as_scores, read_score_table, read_scores

TRAIN = "1\t10\t4\t0\n1\t11\t3\t0\n2\t10\t5\t0\n007\t12\t1\t0\n"
TEST = "1\t12\t5\t0\n2\t13\t4\t0\n007\t13\t2\t0\n"
# all-items candidates: 1 {12,13}, 2 {11,12,13}, 007 {10,11,13}; ties (0.7) and a float32 tie (1.0000000001)
ROWS = [
    ("1", "12", "0.9"),
    ("1", "13", "0.5"),
    ("2", "11", "0.7"),
    ("2", "12", "0.7"),
    ("2", "13", "0.1"),
    ("007", "10", "1.0"),
    ("007", "11", "1.0000000001"),
    ("007", "13", "-2e-3"),
]
# top-N lists, best first, over the same candidates
LISTS = {"1": ["13", "12"], "2": ["12", "11"], "007": ["13", "10", "11"]}


def _lines(sep: str, rows) -> str:
    return "".join(sep.join(r) + "\n" for r in rows)


def _write_layouts(t):
    """Every layout of ROWS, by name: the text or bytes written, and the options `trecrs run` needs."""
    ranked = [(*r, str(k)) for k, r in enumerate(ROWS, start=1)]  # LensKit's rank column: not the score order
    (t / "plain.scores").write_text(_lines(" ", ROWS))
    (t / "lenskit.csv").write_text("user,item,score,rank\n" + _lines(",", ranked))
    (t / "msr.csv").write_text("userID,itemID,prediction\n" + _lines(",", ROWS))
    (t / "recbole.inter").write_text("user_id:token\titem_id:token\tscore:float\n" + _lines("\t", ROWS))
    (t / "header.txt").write_text("user item score\n" + _lines("  ", ROWS))
    (t / "noheader.txt").write_text(_lines("\t ", ROWS))
    (t / "run.trec").write_text("".join(f"{u} Q0 {i} {k} {s} tag\n" for k, (u, i, s) in enumerate(ROWS)))
    (t / "quoted.csv").write_text(
        '"user","item","score"\n' + "".join(f'"{u}","{i}",{s}\n' for u, i, s in ROWS)
    )
    (t / "rows.jsonl").write_text(
        "".join(json.dumps({"user_id": u, "item_id": i, "score": float(s)}) + "\n" for u, i, s in ROWS)
    )
    with gzip.open(t / "gz.csv.gz", "wt") as fh:
        fh.write("user,item,score\n" + _lines(",", ROWS))
    pl.DataFrame(
        {
            "userID": [r[0] for r in ROWS],
            "itemID": [r[1] for r in ROWS],
            "prediction": [float(r[2]) for r in ROWS],
        }
    ).write_parquet(t / "msr.parquet")
    (t / "plain.ranks").write_text(
        "".join(f"{u} {i} {k}\n" for u, items in LISTS.items() for k, i in enumerate(items, start=1))
    )
    (t / "top.jsonl").write_text(
        '{"user": "1", "items": ["13", "12"]}\n{"user_id": 2, "items": [12, 11]}\n'
        '{"user": "007", "items": ["13", 10, "11"]}\n'
    )
    (t / "top.csv").write_text(
        "user,item,rank\n"
        + "".join(f"{u},{i},{k}\n" for u, items in LISTS.items() for k, i in enumerate(items, start=1))
    )


@pytest.fixture
def t(tmp_path):
    (tmp_path / "tr").write_text(TRAIN)
    (tmp_path / "te").write_text(TEST)
    _write_layouts(tmp_path)
    return tmp_path


def run(cli, t, scores, *extra, out="out.run"):
    code, _, err = cli(
        "run",
        "--methodology",
        "all-items",
        "--train",
        t / "tr",
        "--test",
        t / "te",
        "--scores",
        t / scores,
        "--tag",
        "x",
        "-o",
        t / out,
        *extra,
    )
    return code, err, (t / out).read_bytes() if code == 0 else None


LAYOUTS = [
    "lenskit.csv",
    "msr.csv",
    "recbole.inter",
    "header.txt",
    "noheader.txt",
    "run.trec",
    "quoted.csv",
    "rows.jsonl",
    "gz.csv.gz",
    "msr.parquet",
]


@pytest.mark.parametrize("name", LAYOUTS)
def test_each_layout_gives_the_run_of_the_plain_file(cli, t, name):
    code, err, reference = run(cli, t, "plain.scores", out="ref.run")
    assert code == 0, err
    code, err, got = run(cli, t, name)
    assert code == 0, err
    assert got == reference
    assert "warning" not in err


def test_the_plain_run_itself(cli, t):
    code, err, reference = run(cli, t, "plain.scores")
    assert code == 0, err
    # trec_eval's order: 1.0000000001 and 1.0 tie as float32, then doc id descending ("11" > "10")
    assert reference.decode().splitlines() == [  # queries in natural order: 1, 2, 007
        "1 Q0 12 1 0.9 x",
        "1 Q0 13 2 0.5 x",
        "2 Q0 12 1 0.7 x",
        "2 Q0 11 2 0.7 x",
        "2 Q0 13 3 0.1 x",
        "007 Q0 11 1 1.0000000001 x",
        "007 Q0 10 2 1.0 x",
        "007 Q0 13 3 -0.002 x",
    ]


@pytest.mark.parametrize("name", ["top.jsonl", "top.csv"])
def test_top_n_lists_give_the_run_of_the_ranks_file(cli, t, name):
    code, err, reference = run(cli, t, "plain.ranks", "--ranks", "--missing", "drop", out="ref.run")
    assert code == 0, err
    assert reference.decode().splitlines()[-3:] == [
        "007 Q0 13 1 3.0 x",
        "007 Q0 10 2 2.0 x",
        "007 Q0 11 3 1.0 x",
    ]
    code, err, got = run(cli, t, name, "--missing", "drop")
    assert code == 0, err
    assert got == reference
    assert "ranked in the order of the top-N lists" in err
    manifest = json.loads((t / "out.run.manifest.json").read_text())
    assert manifest["parameters"]["order"] == "list"
    run(cli, t, "plain.scores")
    assert json.loads((t / "out.run.manifest.json").read_text())["parameters"]["order"] == "score"


def test_detection_by_extension_then_first_line(tmp_path):
    cases = {
        "a.csv": "u i s\n",
        "a.tsv": "u,i,s\n",
        "a.txt": "1,2,3\n",
        "a.jsonl": "1 2 3\n",
        "a.ndjson.gz": None,
        "a": '{"user": 1}\n',
        "b": "1\t2 3\n",
        "c": "1 2,3\n",
        "d": "1 Q0 2 1 0.5 t\n",
        "e": "1 Q0 2 x 0.5 t\n",
        "f": "# c\n\n1 2 3\n",
    }
    want = {
        "a.csv": "csv",
        "a.tsv": "tsv",
        "a.txt": "whitespace",
        "a.jsonl": "jsonl",
        "a.ndjson.gz": "jsonl",
        "a": "jsonl",
        "b": "tsv",
        "c": "csv",
        "d": "trec",
        "e": "whitespace",
        "f": "whitespace",
    }
    for name, text in cases.items():
        p = tmp_path / name
        if text is None:
            p.write_bytes(gzip.compress(b'{"user": 1, "items": [2]}\n'))
        else:
            p.write_text(text)
        assert detect_format(p).name == want[name], name
    assert detect_format(tmp_path / "x.parquet").name == "parquet"  # by name only
    assert list(FORMATS) == ["whitespace", "csv", "tsv", "jsonl", "trec", "parquet"]


def test_forced_format_and_column_mapping(tmp_path):
    p = tmp_path / "s.out"
    p.write_text("user\titem\tscore\na\tb c\t0.5\n")  # an id with a blank: tsv keeps it, whitespace splits it
    assert read_scores(p).get_column("item").to_list() == ["b c"]
    with pytest.raises(
        InputError, match=r"s.out:2: expected 3 fields \(as the header: user item score\), found 4"
    ):
        read_scores(p, fmt="whitespace")
    p.write_text("id,who,what,p\n9,1,2,0.5\n")
    got = read_scores(p, columns="user=who,item=3,score=p")
    assert got.select("user", "item", "score").rows() == [("1", "2", 0.5)]
    got = read_scores(p, columns=["_", "user", "item", "score"])
    assert got.select("user", "item", "score").rows() == [("1", "2", 0.5)]
    with pytest.raises(UsageError, match="positions count from 1"):
        read_scores(p, columns={"user": 0, "item": 2, "score": 3})
    with pytest.raises(UsageError, match="unknown score file format 'xml'"):
        read_scores(p, fmt="xml")


def test_frames_map_their_column_names():
    pdf = pd.DataFrame({"userID": [1, 1], "itemID": [2, 3], "prediction": [0.5, 0.25]})
    assert as_scores(pdf).select("user", "item", "score").rows() == [("1", "2", 0.5), ("1", "3", 0.25)]
    frame = pl.DataFrame({"a": ["u"], "b": ["i"], "c": [3]})
    table = as_score_table(frame, columns={"user": "a", "item": "b", "rank": "c"})
    assert table.order == "list" and table.frame.select("user", "item", "score").rows() == [("u", "i", 1.0)]
    both = pl.DataFrame({"user": ["u", "u"], "item": ["i", "j"], "score": [1.0, 2.0], "rank": [2, 1]})
    assert as_score_table(both).order == "score"
    assert as_score_table(both, kind="rank").frame.get_column("score").to_list() == [1.0, 2.0]
    with pytest.raises(InputError, match=r"lacks column\(s\) \['item'\]"):
        as_scores(pl.DataFrame({"user": ["u"], "thing": ["i"], "score": [1.0]}))


def test_json_ids_are_strings_exactly_as_written(tmp_path):
    p = tmp_path / "t.jsonl"
    p.write_text('{"user": 12345678901234567890, "items": ["0x1", -0, 7]}\n')
    got = read_scores(p)
    assert got.select("user", "item", "score").rows() == [
        ("12345678901234567890", "0x1", 3.0),
        ("12345678901234567890", "-0", 2.0),
        ("12345678901234567890", "7", 1.0),
    ]
    for bad, reason in [
        ('{"user": 1.0, "items": [1]}', "the user id must be a JSON string or integer, found 1.0"),
        ('{"user": "1", "items": [true]}', "the item id must be a JSON string or integer, found true"),
        ('{"user": "1", "items": [null]}', "the item id .* found null"),
        ('["1", "2"]', "expected a JSON object"),
        ('{"user": "1", "items": ["2"]', "not valid JSON"),
        ('{"who": "1", "items": ["2"]}', r"the object lacks column\(s\) \['user'\]"),
    ]:
        p.write_text('{"user": "0", "items": ["1"]}\n' + bad + "\n")
        with pytest.raises(InputError, match=rf"t.jsonl:2: {reason}"):
            read_scores(p)


BAD_LINES = {  # file name, text: line 3 is malformed
    "s.txt": "user item score\n1 2 0.5\n1 3\n",
    "s.csv": "user,item,score\n1,2,0.5\n1,3,x\n",
    "s.tsv": "user\titem\tscore\n1\t2\t0.5\n1\t3\t0.1\t9\n",
    "s.jsonl": '{"user": "1", "item": "2", "score": 0.5}\n{"user": "1", "item": "2", "score": 0.5}\n{"user": "1"}\n',
    "s.run": "1 Q0 2 1 0.5 t\n1 Q0 4 2 0.4 t\n1 Q0 3 3 0.4\n",
    "q.csv": 'user,item,score\n1,2,0.5\n1,"3,4",0.5\n',
}


@pytest.mark.parametrize("name", list(BAD_LINES))
def test_a_bad_line_names_file_and_line(cli, t, name):
    (t / name).write_text(BAD_LINES[name])
    code, err, _ = run(cli, t, name)
    assert code == 3
    assert err.startswith(f"trecrs run: error: {t / name}:3: ") and err.count("\n") == 1


def test_duplicate_rank_names_both_lines(cli, t):
    (t / "dup.csv").write_text("user,item,rank\n1,12,1\n2,11,1\n# note\n1,13,1\n")
    code, err, _ = run(cli, t, "dup.csv", "--missing", "drop")
    assert code == 3
    assert err == (
        f"trecrs run: error: {t / 'dup.csv'}:5: user '1' has two items at rank 1, the second '13'; "
        "a top-N list's order must be total (first seen on line 2)\n"
    )
    (t / "dup.jsonl").write_text('{"user": "1", "items": ["12"]}\n{"user": "1", "items": ["13"]}\n')
    with pytest.raises(InputError, match=r"dup.jsonl:2: user '1' has two items at rank 1.*line 1\)"):
        read_scores(t / "dup.jsonl")


def test_ranks_beyond_float32_exact_integers_are_refused(tmp_path):
    p = tmp_path / "r.txt"
    p.write_text(f"1 a {MAX_RANK}\n1 b 1\n")
    assert read_scores(p, kind="rank").get_column("score").to_list() == [1.0, float(MAX_RANK)]
    p.write_text(f"1 a {MAX_RANK + 1}\n1 b 1\n")
    with pytest.raises(InputError, match=r"r.txt:1: rank 16777217 is beyond 16,777,216"):
        read_scores(p, kind="rank")


def test_unknown_header_asks_for_a_mapping_and_position_0_is_refused(cli, t):
    (t / "u.csv").write_text(
        "uid,iid,p\n1,12,0.9\n1,13,0.5\n2,11,0.7\n2,12,0.7\n2,13,0.1\n"
        "007,10,1.0\n007,11,1.0000000001\n007,13,-2e-3\n"
    )
    code, err, _ = run(cli, t, "u.csv")
    assert code == 3
    assert err == (
        f"trecrs run: error: {t / 'u.csv'}:1: the header lacks column(s) ['score'] (or 'rank') (it has "
        "['uid', 'iid', 'p']); map the columns with --score-columns (Python: the columns argument) "
        "user=COL,item=COL,score=COL or rank=COL, COL a header name or a position from 1\n"
    )
    code, err, _ = run(cli, t, "u.csv", "--score-columns", "user=0,item=2,score=3")
    assert code == 2
    assert err == (
        "trecrs run: error: argument --score-columns: column user=0: positions count from 1 "
        "(the first column is 1)\n"
    )
    _, _, reference = run(cli, t, "plain.scores", out="ref.run")
    for mapping in ("user=uid,item=iid,score=p", "user=1,item=2,score=3", "user,item,score"):
        code, err, got = run(cli, t, "u.csv", "--score-columns", mapping)
        assert code == 0 and got == reference, (mapping, err)


def test_rank_column_contradicting_the_scores_warns(cli, t):
    # user 2's ranks put 13 (0.1) before 11 (0.7): the columns look swapped; the scores rank
    (t / "c.csv").write_text(
        "user,item,score,rank\n1,12,0.9,1\n1,13,0.5,2\n2,11,0.7,3\n2,12,0.7,1\n"
        "2,13,0.1,2\n007,10,1.0,1\n007,11,1.0000000001,2\n007,13,-2e-3,3\n"
    )
    _, _, reference = run(cli, t, "plain.scores", out="ref.run")
    code, err, got = run(cli, t, "c.csv")
    assert code == 0 and got == reference
    warnings = [x for x in err.splitlines() if "warning" in x]
    assert warnings == [
        f"trecrs run: warning: {t / 'c.csv'}: the rank column contradicts the scores for 1 of 3 "
        "users (33.3%; 1 of 8 lines); ranking by score as trec_eval does (are the rank and score "
        "columns swapped?)"
    ]
    with pytest.warns(TrecrsWarning, match="for 1 of 3 users"):
        assert read_score_table(t / "c.csv").order == "score"
    # the columns swapped: the ranks are not integers, and sorted by them the scores rise
    (t / "s.csv").write_text(
        "user,item,rank,score\n" + "".join(f"{u},{i},{s},{k}\n" for k, (u, i, s) in enumerate(ROWS, start=1))
    )
    code, err, _ = run(cli, t, "s.csv")
    assert (
        code == 0
        and (f"{t / 's.csv'}: the rank column contradicts the scores for 3 of 3 users (100.0%; 7 of 8 lines)")
        in err
    )  # all but the rank 1.0


def test_missing_candidates_warn_with_counts(cli, t):
    (t / "part.txt").write_text(_lines(" ", ROWS[:5]))
    code, err, got = run(cli, t, "part.txt", "--missing", "last")
    assert code == 0
    assert (
        "trecrs run: warning: 3 of 8 candidates (37.5%) have no score: ranked last with score -0.9\n" in err
    )
    assert got.decode().splitlines()[-3:] == [
        "007 Q0 13 1 -0.9 x",
        "007 Q0 11 2 -0.9 x",
        "007 Q0 10 3 -0.9 x",
    ]
    code, err, got = run(cli, t, "part.txt", "--missing", "drop")
    assert code == 0 and "trecrs run: warning: 3 of 8 candidates (37.5%) have no score: left out\n" in err
    code, err, _ = run(cli, t, "part.txt", "--missing", "drop", "--quiet")
    assert code == 0 and err == ""
    code, err, _ = run(cli, t, "part.txt")
    assert code == 3 and "3 of 8 candidates have no score (first: query '007'" in err


def test_large_files_stay_fast(tmp_path):
    n = 100_000
    p = tmp_path / "big.jsonl"
    p.write_text(
        "".join(
            f'{{"user": {u}, "items": [{", ".join(str(u * 10 + k) for k in range(10))}]}}\n'
            for u in range(n // 10)
        )
    )
    start = time.perf_counter()
    got = read_scores(p)
    assert got.height == n and got.row(n - 1)[:3] == (str(n // 10 - 1), str(n - 1), 1.0)
    assert time.perf_counter() - start < 10
    c = tmp_path / "big.csv"
    c.write_text("user,item,score\n" + "".join(f"{k % 997},{k},{k / 7}\n" for k in range(n)))
    start = time.perf_counter()
    assert read_scores(c).height == n
    assert time.perf_counter() - start < 5


def test_predictions_read_the_same_layouts(tmp_path):
    from trecrs.files.scores import read_predictions

    want = [("1", "a", 3.5), ("2", "b", 4.0)]
    files = {
        "p.txt": "1 a 3.5 extra\n2 b 4\n",
        "p.csv": "userID,itemID,prediction\n1,a,3.5\n2,b,4\n",
        "p.tsv": "user_id:token\titem_id:token\tpredicted_rating:float\n1\ta\t3.5\n2\tb\t4\n",
        "p.jsonl": '{"user": 1, "item": "a", "prediction": 3.5}\n{"user": "2", "item": "b", "prediction": 4}\n',
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
        assert read_predictions(tmp_path / name).rows() == want, name
    pl.DataFrame({"userID": ["1", "2"], "itemID": ["a", "b"], "prediction": [3.5, 4.0]}).write_parquet(
        tmp_path / "p.parquet"
    )
    assert read_predictions(tmp_path / "p.parquet").rows() == want
    (tmp_path / "n.csv").write_text("user,item,prediction\n1,a,nan\n1,a,2\n")
    with pytest.raises(
        InputError, match=r"n.csv:3: duplicate prediction for user '1', item 'a' \(first seen on line 2\)"
    ):
        read_predictions(tmp_path / "n.csv")


@pytest.mark.parametrize("name", ["b.csv", "b.tsv", "b.jsonl", "b.txt", "b.trec", "b.csv.gz"])
@pytest.mark.parametrize(
    "bad, reason",
    [(b"\xff", "not valid UTF-8 (byte 0xff at column 3)"), (b"\x00", "NUL byte in the line (column 3)")],
)
def test_every_layout_refuses_bad_bytes(cli, t, name, bad, reason):
    sep = {"b.csv": ",", "b.tsv": "\t", "b.txt": " ", "b.csv.gz": ","}.get(name)
    if name == "b.jsonl":
        rows = [json.dumps({"user": u, "item": i, "score": float(s)}) for u, i, s in ROWS[:2]]
    elif name == "b.trec":
        rows = [f"{u} Q0 {i} {k} {s} x" for k, (u, i, s) in enumerate(ROWS[:2])]
    else:
        rows = [sep.join(r) for r in ROWS[:2]]
    data = ("\n".join(rows) + "\n").encode() + b"# \n" + b"12" + bad + b"3\n"
    (t / name).write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    code, err, _ = run(cli, t, name)
    assert code == 3 and err == f"trecrs run: error: {t / name}:4: {reason}\n"


def test_a_bad_first_score_is_not_taken_for_a_header(tmp_path):
    p = tmp_path / "s.txt"
    p.write_text("1 12 high\n1 13 0.5\n")
    with pytest.raises(InputError, match=r"s.txt:1: score is not a number: 'high'"):
        read_scores(p)
    p.write_text("user item high\n1 13 0.5\n")  # a known name: a header, whose score column is unknown
    with pytest.raises(InputError, match=r"s.txt:1: the header lacks column\(s\) \['score'\]"):
        read_scores(p)
    p.write_text("1,12,0.5\n")
    assert read_scores(p, fmt="csv").select("user", "item", "score").rows() == [("1", "12", 0.5)]
