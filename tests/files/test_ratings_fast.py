"""The columnar ratings reader against the line-by-line one: the same frames, the same errors, every layout.

``read_ratings`` parses a plain text file with polars (``trecrs.files.ratings_fast``) and falls back to the
line-by-line reader for anything else, and to name an error. The line-by-line reader alone (the columnar
one patched out) is the reference: on random small files of every layout, clean or with the layout
faults the reader tolerates (CRLF, blank and ``#`` lines, blanks around fields, runs of blanks, quotes)
and the value faults it refuses, both give the same frame, or the same error on the same line. Read with
``coded`` ids, the frame is the same once its ids are cast to text.
"""

from __future__ import annotations

import gzip
from contextlib import contextmanager, nullcontext
from unittest import mock

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trecrs.errors import InputError
from trecrs.files import ratings
from trecrs.files.lines import first_repeat
from trecrs.files.ratings import read_ratings, repeated_pair
from trecrs.files.ratings_fast import plain_plan, read_plain
from trecrs.files.ratings_format import ratings_format
from trecrs.files.train_pairs import read_train_pairs
from trecrs.ids import pair_codes

# name, read_ratings options, separators a line may use, header line (None: positional), field order
LAYOUTS = {
    "ml100k": ("u.data", {}, ["\t"], None, ["user", "item", "rating", "timestamp"]),
    "ml100k test": ("u1.test", {}, ["\t"], None, ["user", "item", "rating", "timestamp"]),
    "ml1m": ("ratings.dat", {}, ["::"], None, ["user", "item", "rating", "timestamp"]),
    "csv": ("ratings.csv", {}, [","], "userId,movieId,rating,timestamp", ["user", "item", "rating", "timestamp"]),
    "spaces": ("r.txt", {"separator": " "}, [" "], None, ["user", "item", "rating", "timestamp"]),
    "tabs named": ("r.tsv", {"separator": "tab", "columns": "user=u,item=i,rating=r,timestamp=t"}, ["\t"],
                   "r\tt\tu\ti", ["rating", "timestamp", "user", "item"]),
    "semicolons": ("r.txt", {"separator": ";"}, [";"], None, ["user", "item", "rating", "timestamp"]),
    "bars mapped": ("r.txt", {"separator": "|", "columns": "_,user,item,rating"}, ["|"], None,
                    ["_", "user", "item", "rating"]),
    "colons text": ("r.txt", {"fmt": "text", "separator": "::"}, ["::"], None, ["user", "item", "rating"]),
    "auto header": ("prefs.txt", {}, [","], "item,user,rating", ["item", "user", "rating"]),
}  # fmt: skip

CLEAN = {
    "user": ["1", "2", "3", "007", "7", "10", "u9", "0", "+5", "4294967296"],
    "item": ["1", "10", "11", "12", "i3", "242", "0", "4294967295"],
    "rating": ["4", "3.5", "5", "0.5", "4.0", "1", "2.25"],
    "timestamp": ["881250949", "0", "978300760", "-5", "+7"],
    "_": ["x", "junk"],
}
# values that the reader must refuse, or that only its tolerance of layout reads as it does
ODD = {
    "user": ["", "u:1", "x y", "é", "a\u00a0b", "#3", '"q"', "a::b", "u\u2003"],
    "item": ["", "i:", ":i", '"7"', "\ufeff1", "1 "],
    "rating": ["x", "nan", "inf", "-inf", "1e10", "1e3", ".5", "4.", "", "4,5", " 3", "NaN"],
    "timestamp": ["1.5", "x", "", "99999999999999999999", "1e3"],
    "_": ["", "a b"],
}
# blanks that a blank separator collapses (and that any other separator strips off its fields)
BLANK_SEPS = ["\t", " ", "  ", " \t", "\t\t"]


@st.composite
def values(draw, role: str, noisy: bool) -> str:
    pool = ODD[role] if noisy and draw(st.integers(0, 11)) == 0 else CLEAN[role]
    return draw(st.sampled_from(pool))


def sometimes(draw, noisy: bool, one_in: int) -> bool:
    """Whether a fault happens: one time in ``one_in`` in a noisy file, never in a clean one."""
    return noisy and draw(st.integers(1, one_in)) == 1


@st.composite
def line(draw, seps: list[str], order: list[str], noisy: bool) -> str:
    fields = [draw(values(role, noisy)) for role in order]
    if sometimes(draw, noisy, 10):
        fields = fields[: draw(st.integers(1, len(fields)))]  # too few fields, or no timestamp
    elif sometimes(draw, noisy, 15):
        fields.append(draw(st.sampled_from(["9", "extra", ""])))
    odd_sep = sometimes(draw, noisy, 15)
    text = ""
    for k, value in enumerate(fields):
        if k:
            sep = seps[0]
            if odd_sep and seps[0] in BLANK_SEPS:
                sep = draw(st.sampled_from(BLANK_SEPS))
            elif odd_sep:
                sep = draw(st.sampled_from([f" {seps[0]}", f"{seps[0]} ", f"{seps[0]}\t", seps[0] * 2]))
            text += sep
        text += value
    if sometimes(draw, noisy, 20):
        text = draw(st.sampled_from([" ", "\t", '"'])) + text + draw(st.sampled_from(["", " ", "\t", "\r"]))
    return text


@st.composite
def ratings_files(draw) -> tuple[str, dict, bytes]:
    layout = draw(st.sampled_from(sorted(LAYOUTS)))
    name, options, seps, header, order = LAYOUTS[layout]
    # a clean file is read by columns, or refused for a repeated pair; a noisy one has faults of any kind
    noise = draw(st.sampled_from(["clean", "header", "noisy"]))
    noisy = noise == "noisy"
    lines = [draw(line(seps, order, noisy)) for _ in range(draw(st.integers(0 if noisy else 1, 7)))]
    for _ in range(noisy * draw(st.integers(0, 3))):  # blank and comment lines
        extra = draw(st.sampled_from(["", "# a comment", "  ", "\t", " # indented", "#"]))
        lines.insert(draw(st.integers(0, len(lines))), extra)
    if header is not None:
        if noise == "header" or sometimes(draw, noisy, 3):  # a mapped column missing, quotes, blanks
            header = header.replace("r", "stars", 1) if draw(st.booleans()) else header
            header = f'"{header}"' if draw(st.booleans()) else header
            header += draw(st.sampled_from(["", seps[0], " ", "\t"]))
        lines.insert(0, header)
    eol = draw(st.sampled_from(["\n", "\n", "\n", "\r\n"]))
    text = eol.join(lines) + draw(st.sampled_from([eol, eol, "", "\n\n", "\r"] if noisy else [eol, ""]))
    if sometimes(draw, noisy, 20):
        text = text.replace(eol, "\r\n", 1)  # one CRLF in a file of LF
    data = text.encode()
    if draw(st.integers(0, 5)) == 0:
        name, data = name + ".gz", gzip.compress(data, mtime=0)
    return name, dict(options), data


@contextmanager
def line_by_line():
    """``read_ratings`` with the columnar reader patched out: the reference."""
    with mock.patch.object(ratings, "read_plain", lambda path, spec, **_: None):
        yield


def outcome(read, path, **options):
    """The frame read, or the error raised as (text, path, line); notes of merged duplicates alongside."""
    notes: list[str] = []
    if options.get("dedupe"):
        options["report"] = notes.append
    try:
        return read(path, **options), notes
    except InputError as exc:
        return (str(exc), exc.path, exc.line), notes


DEDUPE = st.sampled_from([None, None, "first", "last", "mean"])
SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@settings(max_examples=40, **SETTINGS)
@given(case=ratings_files(), dedupe=DEDUPE)
def test_columnar_and_line_by_line_readers_agree(tmp_path, case, dedupe):
    agree(tmp_path, case, dedupe)


@pytest.mark.slow
@settings(max_examples=3000, **SETTINGS)
@given(case=ratings_files(), dedupe=DEDUPE)
def test_columnar_and_line_by_line_readers_agree_at_length(tmp_path, case, dedupe):
    agree(tmp_path, case, dedupe)


def agree(tmp_path, case, dedupe) -> None:
    """Both readers give the same frame (and notes of merged duplicates), or the same error."""
    name, options, data = case
    path = tmp_path / name
    path.write_bytes(data)
    got, got_notes = outcome(read_ratings, path, dedupe=dedupe, **options)
    with line_by_line():
        want, want_notes = outcome(read_ratings, path, dedupe=dedupe, **options)
        want_pairs, _ = outcome(read_train_pairs, path, **options)
    if isinstance(want, pl.DataFrame):
        assert isinstance(got, pl.DataFrame), got
        assert got.schema == want.schema and got.equals(want)
    else:
        assert got == want
    assert got_notes == want_notes
    coded, coded_notes = outcome(read_ratings, path, dedupe=dedupe, coded=True, **options)
    if isinstance(coded, pl.DataFrame):
        assert coded.schema["user"] in (pl.Utf8, pl.UInt32)
        coded = coded.with_columns(pl.col("user", "item").cast(pl.Utf8))
        assert isinstance(want, pl.DataFrame) and coded.equals(want)
    else:
        assert coded == want
    assert coded_notes == want_notes
    pairs, _ = outcome(read_train_pairs, path, **options)
    assert pairs == want_pairs if not isinstance(pairs, pl.DataFrame) else pairs.equals(want_pairs)


# ------------------------------------------------------------------------- the columnar path is taken


@pytest.mark.parametrize(
    "name,options,text",
    [
        ("u.data", {}, "196\t242\t3\t881250949\n186\t302\t3\t891717742\n22\t377\t1\n"),
        ("u1.base", {}, "1\t1\t5\t874965758\r\n1\t2\t3\t876893171\r\n"),
        ("ratings.dat", {}, "1::1193::5::978300760\n1::661::3::978302109\n2::1193::4.5::"),
        ("ratings.csv", {}, "userId,movieId,rating,timestamp\n1,296,5.0,1147880044\n1,306,3.5,\n"),
        ("r.txt", {"separator": " "}, "1 10 4\n2 10 5 77\n"),
        ("r.txt", {"separator": "|", "columns": "_,user,item,rating"}, "x|u1|i1|4\nx|u2|i1|5|more\n"),
    ],
)
def test_plain_files_of_every_layout_are_read_by_columns(tmp_path, name, options, text):
    path = tmp_path / name
    path.write_bytes(text.encode())
    spec = ratings_format(path, options.pop("fmt", "auto"), **options)
    plain = read_plain(path, spec)
    assert plain is not None
    with line_by_line():
        want = read_ratings(path, fmt=spec)
    assert plain[0].equals(want)


@pytest.mark.parametrize(
    "text,sep",
    [
        ("1\t2\t3\n# c\n", "\t"),  # a comment
        ("1\t2 \t3\n", "\t"),  # a blank besides the separator
        ("1 2\xa03\n", " "),  # a Unicode blank
        ("1\t2\t3\r4\n", "\t"),  # a lone carriage return
        ('1,"2",3\n', ","),  # quotes
        ("1,2, 3\n", ","),  # blanks around a field
        ("1::2:3\n", "::"),  # a ':' that is not part of '::'
        ("1:::2::3\n", "::"),
        ("\n1\t2\t3\n", "\t"),  # a leading blank line
        ("1\t2\t3\n", "¦"),  # a separator polars cannot split on
    ],
)
def test_what_needs_the_line_by_line_reader_is_seen_before_parsing(text, sep):
    assert plain_plan(text.encode(), sep) is None


@pytest.mark.parametrize(
    "name,text,error",
    [
        ("u.data", "1\t2\t3\t4\n1\t3\t4\t5\n1\t2\t5\t6\n",
         "3: duplicate rating for user '1', item '2': lines 1 and 3 (choose a policy: dedupe='first'|'last'|'mean')"),
        ("ratings.csv", "userId,movieId,rating,timestamp\n1,2,3,4\n1,3,4,5\n1,2,5,6\n",
         "4: duplicate rating for user '1', item '2': lines 2 and 4 (choose a policy: dedupe='first'|'last'|'mean')"),
        ("ratings.dat", "7::2::3::4\n1::3::4::5\n7::2::5::6\n",
         "3: duplicate rating for user '7', item '2': lines 1 and 3 (choose a policy: dedupe='first'|'last'|'mean')"),
        ("u.data", "1\t2\t3\t4\n1\t3\tx\t5\n", "2: rating is not a number: 'x' in '1\\t3\\tx\\t5'"),
        ("u.data", "1\t2\t3\t4\n1\t3\t4\t5\t6\n",
         "2: expected 3 or 4 fields (user item rating [timestamp]) separated by tabs, found 5: '1\\t3\\t4\\t5\\t6'"),
        ("u.data", "1\t2\t3\t4\n1\t3\t4\t5.5\n", "2: timestamp must be an integer, found '5.5' in '1\\t3\\t4\\t5.5'"),
        ("ratings.csv", "userId,movieId,rating,timestamp\n1,2,3,4\n,3,4,5\n", "3: empty user id: ',3,4,5'"),
        ("ratings.csv", "userId,movieId,rating,timestamp\n1,2,3,4\n2,3,1e10,5\n",
         "3: rating 1e10 is outside the supported range [-1000000000, 1000000000]: '2,3,1e10,5'"),
        ("ratings.dat", "1::2::3::4\n1::3::inf::5\n", "2: rating is not a finite number: 'inf' in '1::3::inf::5'"),
        ("ratings.dat", "1::1::4::881250949\r\n2::1::1e3::::9\n",
         "2: expected 3 or 4 fields (user item rating [timestamp]) separated by '::', found 5: '2::1::1e3::::9'"),
        ("ratings.dat", "1::1::4::5\n2::1::3::5::\n",
         "2: expected 3 or 4 fields (user item rating [timestamp]) separated by '::', found 5: '2::1::3::5::'"),
    ],
)  # fmt: skip
def test_errors_found_by_columns_name_the_line_and_reason(tmp_path, name, text, error):
    path = tmp_path / name
    path.write_bytes(text.encode())
    with pytest.raises(InputError) as got:
        read_ratings(path)
    assert str(got.value) == f"{path}:{error}"
    with pytest.raises(InputError) as pairs:
        read_train_pairs(path)
    assert str(pairs.value) == str(got.value)


# ------------------------------------------------------------------------------------------- Parquet

PARQUET_VALUES = {
    "user": [(pl.Utf8, ["1", "007", "u", ""]), (pl.Int64, [1, 7, 10]), (pl.Utf8, ["a", None])],
    "item": [(pl.Utf8, ["1", "10", "i"]), (pl.Int32, [3, 4, 5])],
    "rating": [(pl.Float64, [4.0, 3.5, 0.1 + 0.2, 1e-7, 2.5]), (pl.Float32, [3.7, 4.0, 0.1]),
               (pl.Int64, [1, 5, 3]), (pl.Float64, [4.0, float("nan"), 1e10, None, float("inf")]),
               (pl.Utf8, ["4", "3.5", "x"]), (pl.Decimal(5, 2), [None, 1, 2])],
    "timestamp": [(pl.Int64, [881250949, 0, -5]), (pl.UInt64, [1, 2**63 + 5]), (pl.Datetime("ms"), [0, 10**12]),
                  (pl.Int64, [1, None]), (pl.Float64, [1.0, 1.5]), (pl.Utf8, ["1", "x"])],
}  # fmt: skip


@st.composite
def parquet_frames(draw) -> pl.DataFrame:
    n = draw(st.integers(0, 6))
    columns = {}
    for role, choices in PARQUET_VALUES.items():
        if role == "timestamp" and draw(st.booleans()):
            continue
        dtype, pool = draw(st.sampled_from(choices[:2] if draw(st.integers(0, 3)) else choices))
        values = [draw(st.sampled_from(pool)) for _ in range(n)]
        if dtype == pl.Datetime("ms"):
            values = [None if v is None else v for v in values]
            columns[role] = pl.Series(role, values, dtype=pl.Int64).cast(dtype)
        elif isinstance(dtype, pl.Decimal):
            columns[role] = pl.Series(role, values, dtype=pl.Int64).cast(dtype)
        else:
            columns[role] = pl.Series(role, values, dtype=dtype, strict=False)
    return pl.DataFrame(columns)


@settings(max_examples=25, **SETTINGS)
@given(frame=parquet_frames(), dedupe=DEDUPE)
def test_parquet_read_in_its_types_as_through_text(tmp_path, frame, dedupe):
    parquet_agrees(tmp_path, frame, dedupe)


@pytest.mark.slow
@settings(max_examples=1000, **SETTINGS)
@given(frame=parquet_frames(), dedupe=DEDUPE)
def test_parquet_read_in_its_types_as_through_text_at_length(tmp_path, frame, dedupe):
    parquet_agrees(tmp_path, frame, dedupe)


def parquet_agrees(tmp_path, frame: pl.DataFrame, dedupe: str | None) -> None:
    """The frame (or error) of a Parquet file read in its types is the one read through text."""
    path = tmp_path / "r.parquet"
    frame.write_parquet(path)
    got, got_notes = outcome(read_ratings, path, dedupe=dedupe)
    with mock.patch.object(ratings, "_parquet_typed", lambda path, spec, **_: None):
        want, want_notes = outcome(read_ratings, path, dedupe=dedupe)
    if isinstance(want, pl.DataFrame):
        assert isinstance(got, pl.DataFrame), got
        assert got.schema == want.schema and got.equals(want)
    else:
        assert got == want
    assert got_notes == want_notes


# -------------------------------------------------------------------------------------- repeated pairs


@pytest.mark.parametrize("collide", [False, True], ids=["hashes", "every-hash-equal"])
def test_repeated_pair_is_first_repeats_rule_whatever_the_hashes(collide):
    """The earliest row repeating an earlier (user, item) and that pair's first row; with every hash equal
    (a collision on each pair), the exact codes decide, so no distinct pairs are called repeated."""
    rng = np.random.default_rng(7)
    ids = ["1", "01", "10", "a", "", "x y"]
    equal = mock.patch.object(
        pl.Series, "hash", lambda self, seed=0: pl.Series([0] * self.len(), dtype=pl.UInt64)
    )
    with equal if collide else nullcontext():
        for n in (0, 1, 2, 5, 30):
            users = pl.Series([ids[k] for k in rng.integers(0, len(ids), n)], dtype=pl.Utf8)
            items = pl.Series([ids[k] for k in rng.integers(0, 3, n)], dtype=pl.Utf8)
            want = first_repeat(pair_codes(users, items)) if n else None
            assert repeated_pair(users, items) == want
            distinct = pl.DataFrame({"u": users, "i": items}).unique(maintain_order=True)
            assert repeated_pair(distinct["u"], distinct["i"]) is None


# ------------------------------------------------------------------------- rows written a slice at a time


@pytest.mark.parametrize("slice_rows", [1, 2, 3, 1 << 20])
@pytest.mark.parametrize("layout", ["ml100k", "ml1m", "csv"])
def test_rows_written_in_slices_are_the_formatted_text(tmp_path, monkeypatch, slice_rows, layout):
    """write_rows writes the chosen rows' text as format_ratings formats them, whatever the slice size;
    the layout follows the rows written (no timestamp field when none of them has one)."""
    from trecrs.files import ratings_write
    from trecrs.files.ratings_format import FORMATS

    monkeypatch.setattr(ratings_write, "SLICE_ROWS", slice_rows)
    df = pl.DataFrame(
        {
            "user": pl.Series([1, 2, 3, 4, 5, 6, 7], dtype=pl.UInt32),
            "item": ["10", "11", "12", "13", "14", "15", "16"],
            "rating": [4.0, 3.5, 5.0, 1.0, 2.25, 4.0, 3.0],
            "timestamp": [5, None, 7, None, 9, None, 11],
        }
    )
    fmt = FORMATS[layout]
    for keep in (
        [True, False, True, False, True, False, True],
        [False, True, False, True, False, True, False],
    ):
        path = tmp_path / f"out{sum(keep)}"
        ratings_write.write_rows(df, np.array(keep), path, fmt)
        chosen = df.filter(pl.Series(keep)).with_columns(pl.col("user").cast(pl.Utf8))
        assert path.read_text() == ratings_write.format_ratings(chosen, fmt)
    assert (tmp_path / "out3").read_text().splitlines()[-1] == {
        "ml100k": "6\t15\t4",
        "ml1m": "6::15::4",
        "csv": "6,15,4.0,",
    }[layout]
