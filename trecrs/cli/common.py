"""Helpers shared by the sub-command modules: printing counts, the command line, library errors as one line."""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
import warnings

from ..errors import EXIT_USAGE, TrecrsError, TrecrsWarning, UsageError, warn
from ..files.output import is_stdout
from ..ranges import INT64_MAX, SEED_MAX, c_atol, check_finite, check_int, check_seed

_QUIET = {"on": False}  # --quiet of the command running now (batch runs several in turn)
_PARSED_NOTES: list[str] = []  # warnings found while parsing the options, shown once the command runs


def note(message: str) -> None:
    """A one-line report on stderr (counts of dropped or filled things, where a file was written)."""
    if not _QUIET["on"]:
        print(f"trecrs: {message}", file=sys.stderr)


#: The help of every -o/--output: where the file goes, and '-'.
OUTPUT_HELP = "write to FILE (atomically, with a manifest); - writes to standard output (no manifest)"
STDOUT_HELP = "; - writes to standard output (no manifest)"


def wrote(path: str, what: str = "") -> None:
    """The note ``wrote [WHAT to ]FILE``; none for ``-``, standard output (the command's last note says so)."""
    if not is_stdout(path):
        note(f"wrote {what} to {path}" if what else f"wrote {path}")


@contextlib.contextmanager
def warnings_as_lines(command: str, *, quiet: bool):
    """While a command runs, collect its warnings; if it succeeds, print each as one line ``trecrs CMD:
    warning: ...`` on stderr (a failed command prints its one error line only). ``quiet`` silences
    warnings and notes, never errors; the commands of a quiet ``batch`` are quiet too."""
    quiet = quiet or _QUIET["on"]
    caught: list[str] = []

    def show(message, category, filename, lineno, file=None, line=None):
        kind = "" if issubclass(category, TrecrsWarning) else f"{category.__name__}: "
        caught.append(f"trecrs {command}: warning: {kind}{message}")

    saved = _QUIET["on"]
    with warnings.catch_warnings():
        warnings.simplefilter("always", TrecrsWarning)
        warnings.showwarning = show
        _QUIET["on"] = quiet
        for text in _PARSED_NOTES:
            warn(text)
        _PARSED_NOTES.clear()
        try:
            yield
        finally:
            _QUIET["on"] = saved
    for text in [] if quiet else dict.fromkeys(caught):  # once each, in order
        print(text, file=sys.stderr)


def argv() -> list[str]:
    """The command line as typed, for manifests."""
    return ["trecrs", *sys.argv[1:]]


def _subparser(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The (sub-)sub-parser that parsed ``args``: options are looked up there."""
    current = parser
    while True:
        subs = [a for a in current._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            return current
        chosen = getattr(args, subs[0].dest, None)
        if chosen not in subs[0].choices:
            return current
        current = subs[0].choices[chosen]


# Library arguments that the commands' options carry under another name (dest): the same in every command.
LIBRARY_NAMES = {
    "relevance_level": "level",
    "num_docs_in_coll": "num_docs",
    "n_users": "users",
    "n_items": "items",
}


def _options(parser: argparse.ArgumentParser, args: argparse.Namespace) -> dict[str, argparse.Action]:
    """The options of the command that parsed ``args``, by the library argument they set: their ``dest``,
    and the library's name for it where it differs (:data:`LIBRARY_NAMES`)."""
    by_dest = {a.dest: a for a in _subparser(parser, args)._actions if a.option_strings}
    by_dest.update({name: by_dest[dest] for name, dest in LIBRARY_NAMES.items() if dest in by_dest})
    return by_dest


def option_names(parser: argparse.ArgumentParser, args: argparse.Namespace, arguments) -> list[str]:
    """The command-line spelling of library arguments: ``seed`` -> ``--seed``, ``depth`` -> ``-M``.

    An argument the command has no option for keeps its library name, followed by ``=``.
    """
    by_dest = _options(parser, args)
    return ["/".join(by_dest[a].option_strings) if a in by_dest else f"{a}=" for a in arguments]


_ABOUT = re.compile(r"([a-z_]+) must ")  # "depth must be ...": a library message about its argument depth


def error_message(parser: argparse.ArgumentParser, args: argparse.Namespace, exc: TrecrsError) -> str:
    """One line for a library error, in the command's terms.

    The library names its own arguments: ``name=value`` in the text becomes the command's option
    (``train=`` -> ``--train``, ``grade=binary`` -> ``--grade binary``), and the arguments an error is
    about lead the line as argparse's own errors do (``argument --seed: ...``). Those are
    ``exc.arguments``; an error that lists none but starts ``NAME must`` with NAME an argument the command
    has an option for is about NAME. A leading ``NAME`` of the one argument is then dropped:
    ``depth must be a positive number ...`` under ``-M 0`` is ``argument -M/--Max_retrieved_per_topic:
    must be a positive number ...``, as argparse words ``argument --jobs: must be an integer ...``.
    """
    by_dest = _options(parser, args)

    def option(m: re.Match) -> str:
        action = by_dest.get(m.group(1))
        if action is None:
            return m.group(0)
        return action.option_strings[0] + (f" {m.group(2)}" if m.group(2) else "")

    text = str(exc)
    arguments = exc.arguments
    about = _ABOUT.match(text)
    if not arguments and about and about.group(1) in by_dest:
        arguments = (about.group(1),)
    if len(arguments) == 1 and about and about.group(1) == arguments[0]:
        text = text[len(arguments[0]) + 1 :]
    text = re.sub(r"(?<![\w-])([a-z_]+)=(['\w.|]+)?", option, text)
    if not arguments:
        return text
    names = option_names(parser, args, arguments)
    return f"argument{'s' if len(names) > 1 else ''} {', '.join(names)}: {text}"


@contextlib.contextmanager
def option_errors(*about: str, **renamed: str):
    """Within: a usage error that lists no arguments is about the options ``about`` (the values the call was
    given; a file's content or a semantic error stays as it is), and an error about argument K is about
    the option whose ``dest`` is ``renamed[K]`` (a call's argument fed by an option of another name where
    the command has an option named K too: ``run --score-columns`` feeds the score reader's ``columns``,
    ``--columns`` the ratings')."""
    try:
        yield
    except TrecrsError as exc:
        exc.arguments = tuple(renamed.get(a, a) for a in exc.arguments)
        if not exc.arguments and exc.exit_code == EXIT_USAGE:
            exc.arguments = about
        raise


def command(sub, name: str, *, help: str, description: str, epilog: str) -> argparse.ArgumentParser:  # noqa: A002
    """A sub-command's parser: a one-line help, a description, examples shown as written, and ``--quiet``."""
    parser = sub.add_parser(
        name,
        help=help,
        description=description,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--quiet",
        action="store_true",
        help="print no notes or warnings on stderr (errors are always printed)",
    )
    return parser


def output_paths(args: argparse.Namespace) -> list[str]:
    """The files a command will write: the arguments it declares with ``set_defaults(outputs=(...))``."""
    return [getattr(args, dest) for dest in getattr(args, "outputs", ()) if getattr(args, dest, None)]


def output_folders(args: argparse.Namespace) -> list[tuple[str, list[str]]]:
    """The folders a command writes into, each with the names of the files it will write there: the
    arguments it declares with ``set_defaults(folder_outputs={dest: names})``, ``names(args)`` giving the
    file names (their manifests are implied)."""
    declared = getattr(args, "folder_outputs", {})
    return [
        (getattr(args, dest), list(names(args)))
        for dest, names in declared.items()
        if getattr(args, dest, None)
    ]


def input_paths(args: argparse.Namespace) -> list[str]:
    """Every other argument naming an existing file: what the command may read."""
    outputs = set(getattr(args, "outputs", ())) | set(getattr(args, "folder_outputs", {}))
    values = [v for dest, v in vars(args).items() if dest not in outputs]
    flat = [x for v in values for x in (v if isinstance(v, list) else [v])]
    return [x for x in flat if isinstance(x, str) and x and os.path.isfile(x)]


# ------------------------------------------------------------------------------- numeric option types
# argparse ``type=`` functions: a value outside its range is ``argument --X: ...`` and exit 2. The ranges
# themselves are trecrs.ranges (the table is in docs/errors.md, section Numbers).


def int64(text: str) -> int:
    """An integer that fits a C long (trec_eval reads its numbers with atol, which saturates beyond)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if not -INT64_MAX - 1 <= value <= INT64_MAX:
        raise argparse.ArgumentTypeError(
            f"must be an integer from {-INT64_MAX - 1} to {INT64_MAX}, got {text}"
        )
    return value


def c_long(text: str) -> int:
    """A trec_eval number option (``-l``, ``-M``, ``-N``) read as trec_eval reads it, with C's ``atol``: the
    leading integer (``2x`` is 2, ``x`` is 0), saturated to a C long. Text that is not a plain integer in
    range gets one warning line saying how it was read."""
    value = c_atol(text)
    try:
        plain = int(text) == value
    except ValueError:
        plain = False
    if not plain:
        _PARSED_NOTES.append(f"{text!r} read as {value}, as trec_eval reads its number options (C's atol)")
    return value


def int_range(low: int, high: int):
    """An argparse type: an integer from ``low`` to ``high`` (the range comes from trecrs.ranges)."""

    def parse(text: str) -> int:
        try:
            return check_int(int(text), low, high, "the value")
        except (ValueError, UsageError):
            raise argparse.ArgumentTypeError(
                f"must be an integer from {low} to {high}, got {text!r}"
            ) from None

    parse.__name__ = "integer"  # argparse names the type in its own messages
    return parse


def seed(text: str) -> int:
    """A random seed: an integer from 0 to ranges.SEED_MAX."""
    try:
        value = int(text)
        check_seed(value)
        return value
    except (ValueError, UsageError):
        raise argparse.ArgumentTypeError(
            f"a seed must be an integer from 0 to {SEED_MAX}, got {text!r}"
        ) from None


def finite_float(text: str) -> float:
    """A finite number: NaN compares false with every rating and infinity selects all or nothing."""
    try:
        return check_finite(float(text), "the value")
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    except UsageError:
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}") from None


def add_measures_from_option(p: argparse.ArgumentParser) -> None:
    """``--measures-from FILE.py`` (repeatable): Python files registering measures of the user's own
    (:func:`trecrs.register_measure`), imported by :func:`load_measure_files` before the measures are parsed."""
    p.add_argument(
        "--measures-from",
        dest="measures_from",
        action="append",
        metavar="FILE.py",
        help="a Python file registering measures of your own with trecrs.register_measure, imported "
        "before -m is read (docs/measures.md, A measure of your own); repeatable",
    )


def load_measure_files(args: argparse.Namespace) -> None:
    """Import the ``--measures-from`` files of ``args``, each once, in the order given."""
    paths = getattr(args, "measures_from", None)
    if not paths:
        return
    from ..measures.recsys.custom import load_measures_file

    with option_errors("measures_from"):
        for path in paths:
            load_measures_file(path)


def measure_file_inputs(args: argparse.Namespace) -> dict[str, str]:
    """The ``--measures-from`` files as manifest inputs (``measures_from0``, ...): a value depends on their code."""
    return {f"measures_from{i}": path for i, path in enumerate(getattr(args, "measures_from", None) or [])}


def add_ties_option(p: argparse.ArgumentParser) -> None:
    """``--ties MODE``: how tied scores are valued (:data:`trecrs.measures.ties.TIE_MODES`), for the commands
    that score runs."""
    from ..measures.ties import DEFAULT, TIE_MODES

    p.add_argument(
        "--ties",
        choices=list(TIE_MODES),
        default=DEFAULT,
        help="how documents with tied scores are valued: "
        + "; ".join(f"{m.name}: {m.help}" for m in TIE_MODES.values()),
    )


def ties_parameters(args: argparse.Namespace) -> dict:
    """``{"ties": mode}`` for a manifest when the mode is not trec_eval's order (whose manifests stay as they were)."""
    from ..measures.ties import DEFAULT

    return {} if args.ties == DEFAULT else {"ties": args.ties}


def add_level_option(p: argparse.ArgumentParser) -> None:
    """trec_eval's ``-l``: the relevance level (dest ``level``)."""
    p.add_argument(
        "-l",
        "--level_for_rel",
        dest="level",
        type=c_long,
        default=1,
        metavar="N",
        help="minimum relevance value that counts as relevant (default 1)",
    )


def add_complete_option(p: argparse.ArgumentParser) -> None:
    """trec_eval's ``-c``: average over every qrels query (dest ``average_all``)."""
    p.add_argument(
        "-c",
        "--complete_rel_info_wanted",
        dest="average_all",
        action="store_true",
        help="average over every qrels query; a query missing from a run scores 0",
    )


def add_depth_option(p: argparse.ArgumentParser) -> None:
    """trec_eval's ``-M``: the first N documents of each query (dest ``depth``)."""
    p.add_argument(
        "-M",
        "--Max_retrieved_per_topic",
        dest="depth",
        type=c_long,
        default=None,
        metavar="N",
        help="use only the first N documents of each query (after trec_eval's ordering)",
    )


def add_judged_option(p: argparse.ArgumentParser) -> None:
    """trec_eval's ``-J``: judged documents only (dest ``judged_only``)."""
    p.add_argument(
        "-J",
        "--Judged_docs_only",
        dest="judged_only",
        action="store_true",
        help="remove documents absent from the qrels before computing anything",
    )


def add_scoring_options(p: argparse.ArgumentParser, *, complete: bool = False) -> None:
    """trec_eval's flags and trecrs's choices for commands that score runs the way ``eval`` does (``compare``,
    ``study``): ``-l``, ``-c`` (when ``complete``), ``-M``, ``-J``, ``--trec-eval-version``, ``--engine``,
    ``--ties``; :func:`scoring_settings` makes them one ``EvalSettings``."""
    from ..engines import ENGINES

    add_level_option(p)
    if complete:
        add_complete_option(p)
    add_depth_option(p)
    add_judged_option(p)
    p.add_argument(
        "--trec-eval-version",
        dest="trec_eval_version",
        default=None,
        metavar="{9,10}",
        help="the trec_eval to reproduce: 9 (9.0.8, the default) or 10 (10.0)",
    )
    p.add_argument("--engine", choices=["auto", *ENGINES], default="auto", help="computation engine")
    add_ties_option(p)


def scoring_settings(args: argparse.Namespace):
    """The ``EvalSettings`` of :func:`add_scoring_options`' options."""
    from ..evaluate.settings import EvalSettings
    from ..trec_eval_versions import get

    return EvalSettings(
        relevance_level=args.level,
        average_all=getattr(args, "average_all", False),
        depth=args.depth,
        judged_only=args.judged_only,
        engine=args.engine,
        ties=args.ties,
        trec_eval_version=get(args.trec_eval_version).number,
    )
