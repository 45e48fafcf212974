"""Every reader, fed any bytes, either parses them or raises a :class:`~trecrs.errors.TrecrsError`: never
an ``IndexError``, a polars exception, a ``UnicodeDecodeError`` or a panic (which the CLI would report as
an internal error, status 70).

The files are mostly structured (lines of tokens that look like ids and numbers, separators, comments,
CR/LF mixes) with bad bytes mixed in (NUL, invalid UTF-8), so that the parsers get past their first
checks; some are raw bytes. Parquet readers get small valid files, damaged (truncated, bytes flipped) or
not. Runs are derandomized: the same examples every time, in CI too. ``TRECRS_FUZZ_EXAMPLES=2000`` searches
longer, and ``TRECRS_FUZZ_RANDOM=1`` draws new examples each run (by hand, to look for new failures).
"""

from __future__ import annotations

import gzip
import io
import json
import os
import warnings

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trecrs.cli.batch import parse_commands
from trecrs.errors import TrecrsError
from trecrs.files.candidates import read_candidates, read_items
from trecrs.files.lines import decode_text
from trecrs.files.manifest import read_manifest
from trecrs.files.parquet import read_parquet
from trecrs.files.ratings import read_ratings
from trecrs.files.scores import read_pairs, read_predictions, read_scores
from trecrs.files.trec import read_qrels, read_run, read_run_for_scoring

FUZZ = settings(
    max_examples=int(os.environ.get("TRECRS_FUZZ_EXAMPLES", "60")),
    deadline=None,
    derandomize=not os.environ.get("TRECRS_FUZZ_RANDOM"),
    database=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)

# ---------------------------------------------------------------------------------------------- text

WORDS = [
    "1", "0", "-0", "+3", "-5", "0.5", "1.0", "3e2", "1e309", "-1e309", "1e-400", "nan", "NaN", "-nan", "inf",
    "-inf", "Infinity", "99999999999999999999", "-9223372036854775809", "0x1F", "1_000", "", "Q0", "trecrs",
    "user", "item", "score", "rank", "rating", "timestamp", "userId", "movieId", "query", "doc", "id", "u", "i",
    "trecrs", "eval", "batch", "-m", "P.10", '"', "'", "\\", "::", ",", "|", ";", "#", "é", "日本", "\u2028",
    "\x85", "\u00a0", "\x0b", "\x0c", "\x1f", "\ufeff",
]  # fmt: skip
TEXT_TOKEN = st.one_of(
    st.sampled_from(WORDS),
    st.sampled_from(WORDS),
    st.text(st.characters(exclude_categories=("Cs",)), max_size=5),
    st.integers(-(10**20), 10**20).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
).map(lambda s: s.encode("utf-8"))
BAD_BYTES = st.sampled_from(
    [b"\x00", b"\xff", b"\xfe", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\xc0\xaf", b"\x80"]
)
DIRTY_TOKEN = st.one_of(*[TEXT_TOKEN] * 8, BAD_BYTES, st.binary(max_size=3))  # a bad token now and then
SEP = st.sampled_from([b" ", b" ", b"\t", b"\t", b"  ", b" \t", b"::", b",", b"|", b";", b"\x0b"])
EOL = st.sampled_from([b"\n", b"\n", b"\n", b"\r\n", b"\r", b""])


@st.composite
def line(draw, token, sep: bytes, fields: int) -> bytes:
    """A line of about ``fields`` tokens joined by ``sep`` (now and then another separator), maybe a comment."""
    n = draw(st.sampled_from([fields] * 4 + list(range(8))))
    tokens = draw(st.lists(token, min_size=n, max_size=n))
    if draw(st.integers(0, 9)) == 0:
        sep = draw(SEP)
    lead = draw(st.sampled_from([b"", b"", b"", b"", b" ", b"\t", b"#", b"# "]))
    return lead + sep.join(tokens) + draw(EOL)


@st.composite
def regular(draw, fields: int) -> bytes:
    """Lines of exactly ``fields`` ASCII tokens and one separator: what the fast TREC path parses."""
    word = st.sampled_from(
        [
            "1",
            "2",
            "0",
            "-0",
            "Q0",
            "a",
            "b",
            "d1",
            "1e309",
            "nan",
            "-inf",
            "0.5",
            "7",
            "x",
            "t",
            "99999999999999999999",
            "-1",
        ]
    )
    sep = draw(st.sampled_from([" ", "\t"]))
    rows = draw(st.lists(st.lists(word, min_size=fields - 1, max_size=fields + 1), min_size=1, max_size=8))
    text = "".join(sep.join(r) + draw(st.sampled_from(["\n", "\r\n"])) for r in rows)
    return text.encode()


@st.composite
def text_file(draw, fields: int = 4) -> bytes:
    """Mostly structured lines (clean text, or with a bad token now and then), regular TREC-like lines
    (with a bad byte between them or not), or raw bytes."""
    kind = draw(
        st.sampled_from(["clean", "clean", "clean", "dirty", "dirty", "regular", "regular+bad", "raw"])
    )
    if kind == "raw":
        return draw(st.binary(max_size=60))
    if kind.startswith("regular"):
        bad = draw(BAD_BYTES) if kind == "regular+bad" else b""
        return draw(regular(fields)) + bad + draw(regular(fields))
    token = TEXT_TOKEN if kind == "clean" else DIRTY_TOKEN
    sep = draw(SEP)
    return b"".join(draw(st.lists(line(token, sep, fields), max_size=10)))


# .gz files: whole, cut at some byte, or with a few bytes overwritten
GZIP_DAMAGE = st.one_of(
    st.none(),
    st.none(),
    st.integers(0, 300),
    st.lists(st.tuples(st.integers(0, 300), st.integers(0, 255)), max_size=3),
)


def _gzip(data: bytes, damage) -> bytes:
    out = bytearray(gzip.compress(data, mtime=0))
    if isinstance(damage, int):
        return bytes(out[:damage])
    for at, byte in damage or ():
        out[at % len(out)] = byte
    return bytes(out)


def _must_parse_or_refuse(read, *args, **kwargs):
    """Call the reader: any TrecrsError is a fine answer; any other exception fails the test."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            read(*args, **kwargs)
        except TrecrsError:
            pass


def _ratings(fmt):
    return lambda path: read_ratings(path, fmt=fmt)


TEXT_READERS = {
    "qrels": ("q.txt", read_qrels, 4),
    "qrels.gz": ("q.txt.gz", read_qrels, 4),
    "run": ("r.txt", read_run, 6),
    "run.gz": ("r.txt.gz", read_run, 6),
    "run for scoring": ("r.txt", read_run_for_scoring, 6),
    "run for scoring.gz": ("r.txt.gz", read_run_for_scoring, 6),
    "ratings auto": ("ratings.txt", _ratings("auto"), 4),
    "ratings auto u.data": ("u.data", _ratings("auto"), 4),
    "ratings auto .dat": ("ratings.dat", _ratings("auto"), 4),
    "ratings auto .csv.gz": ("ratings.csv.gz", _ratings("auto"), 4),
    "ratings ml100k": ("r.tsv", _ratings("ml100k"), 4),
    "ratings ml1m": ("r.dat", _ratings("ml1m"), 4),
    "ratings csv": ("r.csv", _ratings("csv"), 4),
    "ratings text": ("r.txt", _ratings("text"), 4),
    "scores": ("s.txt", read_scores, 3),
    "ranks": ("s.txt", lambda p: read_scores(p, kind="rank"), 3),
    "scores detected": ("s", read_scores, 3),
    "scores csv": ("s.csv", read_scores, 4),
    "scores tsv": ("s.tsv", read_scores, 3),
    "scores csv.gz": ("s.csv.gz", read_scores, 3),
    "scores jsonl": ("s.jsonl", read_scores, 3),
    "scores trec": ("s.txt", lambda p: read_scores(p, fmt="trec"), 6),
    "pairs": ("p.txt", read_pairs, 3),
    "predictions": ("p.txt", read_predictions, 3),
    "predictions detected": ("p", read_predictions, 3),
    "items": ("i.txt", read_items, 1),
    "candidates": ("c.txt", read_candidates, 3),
}


@pytest.mark.parametrize("name", list(TEXT_READERS))
def test_a_text_reader_parses_or_refuses_any_bytes(tmp_path, name):
    filename, read, fields = TEXT_READERS[name]
    path = tmp_path / filename

    @FUZZ
    @given(data=text_file(fields), damage=GZIP_DAMAGE)
    def check(data: bytes, damage) -> None:
        path.write_bytes(_gzip(data, damage) if filename.endswith(".gz") else data)
        _must_parse_or_refuse(read, path)

    check()


JSON_VALUE = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**25), 10**25)
    | st.floats()
    | st.text(max_size=4)
    | st.sampled_from(["1", "2", "a", ""]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(["user", "user_id", "item", "items", "score", "rank", "x"]), inner, max_size=4
        )
    ),
    max_leaves=12,
)


@FUZZ
@given(
    values=st.lists(JSON_VALUE, max_size=6), cut=st.integers(0, 400), mode=st.sampled_from(["whole", "cut"])
)
def test_json_score_lines_parse_or_are_refused(tmp_path_factory, values, cut, mode):
    """JSON lines of any values (objects with the score roles' keys, lists, numbers; cut or not)."""
    text = "".join(json.dumps(v) + "\n" for v in values)
    path = tmp_path_factory.mktemp("j") / "s.jsonl"
    path.write_text(text[:cut] if mode == "cut" else text)
    for kind in (None, "score", "rank"):
        _must_parse_or_refuse(read_scores, path, kind=kind)


@FUZZ
@given(data=text_file(3))
def test_the_batch_parser_parses_or_refuses_any_bytes(data):
    _must_parse_or_refuse(lambda: parse_commands(decode_text(data, "steps"), "steps"))


JSON_TOKEN = st.sampled_from(
    [
        b"{",
        b"}",
        b"[",
        b"]",
        b'"k"',
        b":",
        b",",
        b"1",
        b"1e999",
        b"NaN",
        b"null",
        b'"\\ud800"',
        b'"\xff"',
        b"\x00",
        b" ",
        b"\n",
    ]
)


@FUZZ
@given(
    data=st.one_of(
        st.lists(JSON_TOKEN, max_size=30).map(b"".join),
        st.binary(max_size=40),
        st.integers(0, 3000).map(lambda n: b"[" * n),
    )
)
def test_the_manifest_reader_parses_or_refuses_any_bytes(tmp_path_factory, data):
    folder = tmp_path_factory.mktemp("manifest", numbered=True)
    (folder / "out.txt.manifest.json").write_bytes(data)
    _must_parse_or_refuse(read_manifest, folder / "out.txt")


# ---------------------------------------------------------------------------------------------- Parquet

COLUMNS = [
    "query",
    "doc",
    "rel",
    "score",
    "iter",
    "rank",
    "tag",
    "user",
    "item",
    "rating",
    "timestamp",
    "userId",
]
VALUES = {
    "str": st.one_of(st.sampled_from(["1", "a", "", "x\x00y", "nan", "1e309", "é"]), st.text(max_size=4)),
    "int": st.integers(-(2**63), 2**63 - 1),
    "float": st.floats(allow_nan=True, allow_infinity=True),
    "bool": st.booleans(),
}
DTYPES = {"str": pl.Utf8, "int": pl.Int64, "float": pl.Float64, "bool": pl.Boolean}


@st.composite
def parquet_file(draw, wanted: tuple[str, ...]) -> bytes:
    """A small Parquet file with (mostly) the ``wanted`` columns and some others, maybe damaged."""
    names = [c for c in wanted if draw(st.integers(0, 9))]
    names += [c for c in draw(st.lists(st.sampled_from(COLUMNS), max_size=3, unique=True)) if c not in names]
    if not names:
        names = ["x"]
    n = draw(st.integers(0, 5))
    data = {}
    for name in names:
        kind = draw(st.sampled_from(list(VALUES)))
        data[name] = pl.Series(
            name,
            draw(st.lists(st.one_of(st.none(), VALUES[kind]), min_size=n, max_size=n)),
            dtype=DTYPES[kind],
        )
    buf = io.BytesIO()
    pl.DataFrame(data).write_parquet(buf)
    raw = bytearray(buf.getvalue())
    damage = draw(st.sampled_from(["none", "none", "truncate", "flip", "random"]))
    if damage == "truncate":
        raw = raw[: draw(st.integers(0, len(raw)))]
    elif damage == "flip":
        for _ in range(draw(st.integers(1, 4))):
            at = draw(st.integers(0, len(raw) - 1))
            raw[at] = draw(st.integers(0, 255))
    elif damage == "random":
        raw = bytearray(draw(st.binary(max_size=80)))
    return bytes(raw)


PARQUET_READERS = {  # name: (reader, the columns it looks for)
    "qrels": (read_qrels, ("query", "doc", "rel")),
    "run": (read_run, ("query", "doc", "score", "tag")),
    "run for scoring": (read_run_for_scoring, ("query", "doc", "score", "tag")),
    "ratings": (read_ratings, ("user", "item", "rating", "timestamp")),
    "scores": (read_scores, ("user", "item", "score")),
    "ranks": (lambda p: read_scores(p, kind="rank"), ("user", "item", "rank")),
    "scores by other names": (read_scores, ("userID", "itemID", "prediction")),
    "top-N lists": (read_scores, ("user", "item", "rank")),
    "pairs": (read_pairs, ("user", "item")),
    "items": (read_items, ("item",)),
    "table": (
        lambda p: read_parquet(p, {"user": pl.Utf8, "rating": pl.Float64}, what="t", unique=["user"]),
        ("user", "rating"),
    ),
}


@pytest.mark.parametrize("name", list(PARQUET_READERS))
def test_a_parquet_reader_parses_or_refuses_any_bytes(tmp_path, name):
    path = tmp_path / "t.parquet"
    read, wanted = PARQUET_READERS[name]

    @FUZZ
    @given(data=parquet_file(wanted))
    def check(data: bytes) -> None:
        path.write_bytes(data)
        _must_parse_or_refuse(read, path)

    check()
