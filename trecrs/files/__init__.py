"""Files in and out: every format trecrs reads or writes, and nothing above it.

* :mod:`~trecrs.files.lines` — text files as content lines (blank and ``#`` lines skipped, line numbers kept);
* :mod:`~trecrs.files.parquet` — the one Parquet reader (named columns, strict types, errors naming the row);
* :mod:`~trecrs.files.trec` — TREC qrels and runs (``read_qrels``, ``read_run``, ``read_run_for_scoring``, writers);
* :mod:`~trecrs.files.ratings` — ratings files (MovieLens layouts, delimited text, Parquet);
* :mod:`~trecrs.files.scores` — score, prediction and pair files of recommenders;
* :mod:`~trecrs.files.candidates` — candidate files and item catalogues;
* :mod:`~trecrs.files.features` — item categories, user and item groups (MovieLens layouts included);
* :mod:`~trecrs.files.output` — atomic writes; :mod:`~trecrs.files.manifest` — sidecar manifests;
* :mod:`~trecrs.files.hashing` — file checksums (sha256, md5).
"""
