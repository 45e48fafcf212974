#!/usr/bin/env bash
# Reproduce Figure 2 of Bellogín, Castells & Cantador, "Precision-oriented evaluation of recommender
# systems: an algorithmic comparison", RecSys 2011: three recommenders (SVD50, IB, UB50) under six
# evaluation methodologies (TR_3, TR_4, TeI, TrI, AI, OPR), P@50 / Recall@50 / nDCG@50, plus RMSE, on
# MovieLens 100K's predefined splits D1 (u1..u5) and D2 (ua, ub).
#
# usage: scripts/reproduce_bellogin2011.sh DATA_DIR OUT_DIR
#   DATA_DIR  a folder with u.data (MovieLens 100K, or any ratings file in its layout, such as
#             sample_data/synth-100k-like)
#   OUT_DIR   where everything goes: OUT_DIR/results.tsv, OUT_DIR/report.md, OUT_DIR/bellogin2011_fig2.png,
#             OUT_DIR/study/ (each methodology's study file and trecrs study's table), and per fold
#             OUT_DIR/D1/u1/... (qrels, scores, runs, evaluations, audits, log.txt)
# environment:
#   JOBS=2        folds run at the same time
#   FOLDS="D1:u1 D1:u2 D1:u3 D1:u4 D1:u5 D2:ua D2:ub"   the folds to run (a subset gives a quick look)
#   SEED=1        seed of the One-Plus-Random draws and of SVD50's initial factors
#   REFERENCE=... the published values (default: the package's copy of Figure 2's D1 bars,
#                 trecrs/reproductions/bellogin2011/published_fig2_D1.tsv); the report compares them only
#                 when DATA_DIR passes `trecrs datasets verify` (MovieLens 100K's checksums) and says why not
#                 otherwise
#   PYTHON=python3  the Python that has trecrs installed
#
# The pipeline is trecrs.reproductions.bellogin2011.pipeline.reproduce(): every step is a trecrs command;
# each fold's steps are written to OUT_DIR/D1/u1/commands.txt (and so on) and run by `trecrs batch`, folds
# in parallel processes (rerun any line by hand to inspect a step); then `trecrs study` per methodology and
# `trecrs report bellogin2011`. A progress bar on stderr; the findings on stdout.
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 DATA_DIR OUT_DIR" >&2
  exit 2
fi
DATA=$1
OUT=$2
if [[ ! -f $DATA/u.data ]]; then
  echo "$0: $DATA/u.data not found (DATA_DIR must hold a MovieLens 100K u.data)" >&2
  exit 2
fi
read -r -a JOB_LIST <<< "${FOLDS:-D1:u1 D1:u2 D1:u3 D1:u4 D1:u5 D2:ua D2:ub}"
FOLD_NAMES=("${JOB_LIST[@]#*:}")  # D1:u1 -> u1
ref=()
if [[ -n ${REFERENCE:-} ]]; then
  ref=(--reference "$REFERENCE")
fi
exec "${PYTHON:-python3}" -m trecrs.cli.reproduce_runner bellogin2011 "$OUT" --data "$DATA" \
  --jobs "${JOBS:-2}" --seed "${SEED:-1}" --folds "${FOLD_NAMES[@]}" "${ref[@]}"
