"""Item categories and user groups: every layout read to its pairs, and strict errors naming the line."""

from __future__ import annotations

import polars as pl
import pytest

from tests.conftest import ML100K, need
from trecrs.errors import InputError, UsageError
from trecrs.files.features import (
    as_item_features,
    as_user_groups,
    item_features_layout,
    read_item_features,
    read_user_groups,
)

# MovieLens 100K u.item lines typed in its layout: id|title|date|video date|url|19 genre flags; the second
# title is Latin-1 (as in the real file), the third item has no genre
FLAGS_TOY = "0|0|0|1|1|1|0|0|0|0|0|0|0|0|0|0|0|0|0"  # Animation, Children's, Comedy
FLAGS_UNKNOWN_WAR = "1|0|0|0|0|0|0|0|0|0|0|0|0|0|0|0|0|1|0"
FLAGS_NONE = "|".join("0" * 19)
U_ITEM = (
    f"1|Toy Story (1995)|01-Jan-1995||http://x|{FLAGS_TOY}\n".encode()
    + f"2|Les Mis\xe9rables (1995)|01-Jan-1995||http://y|{FLAGS_UNKNOWN_WAR}\n".encode("latin-1")
    + f"3|Nothing|01-Jan-1995||http://z|{FLAGS_NONE}\n".encode()
)


def _write(tmp_path, name: str, data: str | bytes):
    path = tmp_path / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def _pairs(df: pl.DataFrame) -> list[tuple[str, str]]:
    return list(df.iter_rows())


def test_u_item_genre_flags_name_the_genres_of_u_genre(tmp_path):
    path = _write(tmp_path, "u.item", U_ITEM)
    assert item_features_layout(path) == "ml100k"
    assert _pairs(read_item_features(path)) == [("1", "Animation"), ("1", "Children's"), ("1", "Comedy"),
                                                ("2", "unknown"), ("2", "War")]  # fmt: skip


@pytest.mark.parametrize("line,reason", [
    ("4|T|d||u|0|0", r"4: expected 24 fields \(u.item"),
    (f"4|T|d||u|{FLAGS_NONE[:-1]}2", "4: genre flags must be 0 or 1"),
    (f"|T|d||u|{FLAGS_TOY}", "4: empty item id"),
])  # fmt: skip
def test_u_item_errors_name_the_line(tmp_path, line, reason):
    path = _write(tmp_path, "u.item", U_ITEM + line.encode() + b"\n")
    with pytest.raises(InputError, match=reason):
        read_item_features(path)


def test_u_item_id_that_is_not_utf8_is_an_error(tmp_path):
    path = _write(tmp_path, "u.item", U_ITEM + f"\xe9|T|d||u|{FLAGS_TOY}\n".encode("latin-1"))
    with pytest.raises(InputError, match=r"u.item:4:"):
        read_item_features(path)


def test_movies_dat_and_movies_csv(tmp_path):
    dat = _write(
        tmp_path,
        "movies.dat",
        b"1::Toy Story (1995)::Animation|Children's|Comedy\n"
        b"2::Jumanji (1995)::(no genres listed)\n" + "3::Cin\xe9ma::Drama\n".encode("latin-1"),
    )
    assert _pairs(read_item_features(dat)) == [("1", "Animation"), ("1", "Children's"), ("1", "Comedy"),
                                               ("3", "Drama")]  # fmt: skip
    csv = _write(
        tmp_path,
        "movies.csv",
        "movieId,title,genres\n1,Toy Story (1995),Adventure|Animation\n"
        '11,"American President, The (1995)",Comedy|Drama\n',
    )
    assert item_features_layout(csv) == "mlcsv"
    assert _pairs(read_item_features(csv)) == [("1", "Adventure"), ("1", "Animation"), ("11", "Comedy"),
                                               ("11", "Drama")]  # fmt: skip


def test_text_wide_and_long_layouts_give_the_same_pairs(tmp_path):
    wide = _write(tmp_path, "wide.tsv", "item\tgenres\na\tx|y\n# comment\nb\tz\n")
    long = _write(tmp_path, "long.csv", "item,category\na,x\na,y\nb,z\n")
    headerless = _write(tmp_path, "plain.txt", "a\tx|y\nb\tz\n")
    want = [("a", "x"), ("a", "y"), ("b", "z")]
    assert _pairs(read_item_features(wide)) == _pairs(read_item_features(long)) == want
    assert _pairs(read_item_features(headerless)) == want


def test_parquet_long_layout(tmp_path):
    path = tmp_path / "f.parquet"
    pl.DataFrame({"item_id": [1, 1, 2], "genre": ["x", "y", "x"]}).write_parquet(path)
    assert _pairs(read_item_features(path)) == [("1", "x"), ("1", "y"), ("2", "x")]
    pl.DataFrame({"item": ["1", "1"], "category": ["x", "x"]}).write_parquet(path)
    with pytest.raises(InputError, match=r"row 2: item '1' has category 'x' twice \(first on row 1\)"):
        read_item_features(path)


@pytest.mark.parametrize("text,reason", [
    ("a\tx|y\nb\tx|\n", r"f.tsv:2: empty category"),
    ("a\tx|y\nb\n", r"f.tsv:2: expected 2 fields"),
    ("a\tx|y\nb\tz\na\ty\n", r"f.tsv:3: item 'a' has category 'y' twice \(first on line 1\)"),
    ("a\tx\n\tz\n", r"f.tsv:2: expected 2 fields"),  # blanks around a line are not part of it
    ("a,x\n,z\n", r"f.tsv:2: empty item id"),
])  # fmt: skip
def test_text_errors_name_the_line(tmp_path, text, reason):
    with pytest.raises(InputError, match=reason):
        read_item_features(_write(tmp_path, "f.tsv", text))


def test_user_groups_text_and_movielens(tmp_path):
    text = _write(tmp_path, "g.tsv", "user\tgroup\nu1\tA\nu2\tB\n")
    assert _pairs(read_user_groups(text)) == [("u1", "A"), ("u2", "B")]
    u_user = _write(tmp_path, "u.user", "1|24|M|technician|85711\n2|53|F|other|94043\n")
    assert _pairs(read_user_groups(u_user, "gender")) == [("1", "M"), ("2", "F")]
    assert _pairs(read_user_groups(u_user, "age")) == [("1", "24"), ("2", "53")]
    assert _pairs(read_user_groups(u_user, "occupation")) == [("1", "technician"), ("2", "other")]
    users_dat = _write(tmp_path, "users.dat", "1::F::1::10::48067\n2::M::56::16::70072\n")
    assert _pairs(read_user_groups(users_dat, "age")) == [("1", "1"), ("2", "56")]
    assert _pairs(read_user_groups(users_dat, "gender")) == [("1", "F"), ("2", "M")]


def test_user_groups_errors(tmp_path):
    u_user = _write(tmp_path, "u.user", "1|24|M|technician|85711\n1|53|F|other|94043\n")
    with pytest.raises(InputError, match=r"u.user:2: user '1' listed twice \(first on line 1\)"):
        read_user_groups(u_user, "gender")
    with pytest.raises(UsageError, match="give group_by"):
        read_user_groups(u_user)
    text = _write(tmp_path, "g.tsv", "u1\tA\nu2\n")
    with pytest.raises(UsageError, match="group_by reads MovieLens"):
        read_user_groups(text, "gender")
    with pytest.raises(InputError, match=r"g.tsv:2: expected 2 fields"):
        read_user_groups(text)
    with pytest.raises(InputError, match=r"g.tsv:2: empty group"):
        read_user_groups(_write(tmp_path, "g.tsv", "u1,A\nu2,\n"))


def test_frames_and_dicts():
    assert _pairs(as_item_features({"a": ["x", "y"], 7: "z"})) == [("a", "x"), ("a", "y"), ("7", "z")]
    assert _pairs(as_user_groups(pl.DataFrame({"user": [1, 2], "group": ["A", "B"]}))) == [
        ("1", "A"),
        ("2", "B"),
    ]
    with pytest.raises(InputError, match="more than one group"):
        as_user_groups(pl.DataFrame({"user": ["1", "1"], "group": ["A", "B"]}))


def test_movielens_100k_as_it_is():
    """The real u.item (Latin-1 titles) and u.user: 2,893 genre assignments (the sum of u.item's flags),
    943 users, 670 men and 273 women (the counts of u.user)."""
    items = read_item_features(need(ML100K / "u.item"))
    assert items.height == 2893 and items.get_column("item").n_unique() == 1682
    groups = read_user_groups(need(ML100K / "u.user"), "gender")
    assert groups.height == 943
    assert dict(groups.group_by("group").len().iter_rows()) == {"M": 670, "F": 273}


def test_item_groups(tmp_path):
    from trecrs.files.features import read_item_groups

    path = _write(tmp_path, "groups.csv", "item,group\n1,old\n2,new\n")
    assert _pairs(read_item_groups(path)) == [("1", "old"), ("2", "new")]
    with pytest.raises(InputError, match=r"groups.csv:4: item '1' listed twice \(first on line 2\)"):
        read_item_groups(_write(tmp_path, "groups.csv", "item,group\n1,old\n2,new\n1,new\n"))
