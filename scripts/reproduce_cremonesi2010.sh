#!/usr/bin/env bash
# Reproduce the MovieLens experiments of Cremonesi, Koren & Turrin, "Performance of recommender
# algorithms on top-N recommendation tasks", RecSys 2010: recall(N) and precision(N), N = 1..20, of
# TopPop, MovieAvg, CorNgbr, NNCosNgbr, PureSVD50 and PureSVD150 under One-Plus-Random (each 5-star
# probe rating ranked among 1,000 random unrated items), on all test items and on the long tail.
#
# usage: scripts/reproduce_cremonesi2010.sh DATA_DIR OUT_DIR
#   DATA_DIR  a MovieLens folder: u.data (100K), ratings.dat (1M, 10M) or ratings.csv (20M and later);
#             the first one found is used
#   OUT_DIR   receives results.tsv, report.md, cremonesi2010.png, and every intermediate file
# environment:
#   SEED=1          seed of the probe split and of the random items
#   PYTHON=python3  the Python that has trecrs installed
#
# The pipeline is trecrs.reproductions.cremonesi2010.pipeline.reproduce(): every step is a trecrs
# command, written to OUT_DIR/commands.txt with the paper's constants and run by `trecrs batch` in one
# process (rerun any line by hand to inspect a step); then `trecrs report cremonesi2010`. A progress bar
# on stderr; the findings on stdout.
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 DATA_DIR OUT_DIR" >&2
  exit 2
fi
DATA=$1
OUT=$2
if [[ ! -f $DATA/u.data && ! -f $DATA/ratings.dat && ! -f $DATA/ratings.csv ]]; then
  echo "$0: no u.data, ratings.dat or ratings.csv in $DATA" >&2
  exit 2
fi
exec "${PYTHON:-python3}" -m trecrs.cli.reproduce_runner cremonesi2010 "$OUT" --data "$DATA" --seed "${SEED:-1}"
