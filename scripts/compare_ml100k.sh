#!/usr/bin/env bash
# The worked example of docs/compare.md ("Worked example: MovieLens 100K"): four baseline recommenders
# on MovieLens 100K's predefined folds, compared three ways:
#   (a) `trecrs compare`: paired tests between the systems' AllItems runs (qrels: test rating >= 4),
#       P@10, nDCG@10, R@50, MAP; randomization test and t test, Holm's correction, fixed seed;
#       Markdown, LaTeX and CSV tables and the differences' plot;
#   (b) `trecrs sensitivity`: the same score files under the five methodologies (TR, TeI, TrI, AI, 1R),
#       the random expectation, Kendall's tau between the orders, RMSE from the predicted ratings;
#   (c) `trecrs sampled`: One-Plus-Random's sampled recall/nDCG (N = 100) against the exact all-items
#       values and the corrected estimators, with the recall(N) curves.
#
# usage: scripts/compare_ml100k.sh DATA_DIR OUT_DIR
#   DATA_DIR  a folder with MovieLens 100K's u1..u5 .base/.test (e.g. ../shared/data/ml-100k)
#   OUT_DIR   where everything goes, per fold OUT_DIR/u1/...: compare.{md,tex,csv,png},
#             sensitivity.{md,png}, sampled.{txt,csv,png}, and the inputs they read (qrels, candidate
#             pairs, scores, predictions, runs: MovieLens-derived, not for publishing)
# environment:
#   FOLDS="u1"    the folds, each evaluated on its own (e.g. FOLDS="u1 u2 u3 u4 u5")
#   SEED=1        seed of the recommenders, the randomization test, the bootstrap and the random draws
#   RECOMMENDERS="TopPop IB UB50 PureSVD50"   presets of `trecrs recommend --list`
#   TRECRS=trecrs the command to run
#
# Settings: AllItems runs cut at depth 1000 (trec_eval's usual depth); --resamples 10000 (compare's
# default); One-Plus-Random and sampled: relevant = test rating 5, sensitivity --n 1000, sampled --n 100.
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 DATA_DIR OUT_DIR" >&2
  exit 2
fi
DATA=$1
OUT=$2
SEED=${SEED:-1}
TRECRS=${TRECRS:-trecrs}
read -r -a TRECRS_CMD <<< "$TRECRS"  # a command with arguments, e.g. "python3 -m trecrs"
read -r -a FOLDS <<< "${FOLDS:-u1}"
read -r -a RECOMMENDERS <<< "${RECOMMENDERS:-TopPop IB UB50 PureSVD50}"
MEASURES=(-m P@10 -m nDCG@10 -m R@50 -m MAP)

for f in "${FOLDS[@]}"; do
  for ext in base test; do
    if [[ ! -f $DATA/$f.$ext ]]; then
      echo "$0: $DATA/$f.$ext not found (DATA_DIR must hold MovieLens 100K's $f.base and $f.test)" >&2
      exit 2
    fi
  done
done
mkdir -p "$OUT"
SECONDS=0

fold() {
  local f=$1 dir=$OUT/$1 train=$DATA/$1.base test=$DATA/$1.test
  mkdir -p "$dir"
  "${TRECRS_CMD[@]}" qrels --test "$test" --threshold 4 -o "$dir/th4.qrels"
  "${TRECRS_CMD[@]}" candidates --methodology all-items --train "$train" --test "$test" -o "$dir/all-items.pairs"
  local rec runs=() scores=() preds=() t0
  for rec in "${RECOMMENDERS[@]}"; do
    t0=$SECONDS
    # every all-items candidate scored (the default --unscored fallback): `sampled` needs them all
    "${TRECRS_CMD[@]}" recommend --algorithm "$rec" --seed "$SEED" --train "$train" --candidates "$dir/all-items.pairs" \
      -o "$dir/$rec.scores.parquet" --predict "$test" --predictions "$dir/$rec.pred" --quiet
    "${TRECRS_CMD[@]}" run --candidates "$dir/all-items.pairs" --scores "$dir/$rec.scores.parquet" --depth 1000 \
      --tag "$rec" -o "$dir/$rec.AI.run"
    echo "  $f: $rec fitted, scored and ranked in $((SECONDS - t0))s" >&2
    runs+=("$dir/$rec.AI.run")
    scores+=(--scores "$rec=$dir/$rec.scores.parquet")
    preds+=(--predictions "$rec=$dir/$rec.pred")
  done

  # (a) paired comparison on the AllItems runs, baseline the first recommender
  local test_name fmt
  for test_name in randomization t; do
    for fmt in markdown latex csv; do
      local ext=${fmt/markdown/md}
      ext=${ext/latex/tex}
      local plot=()
      [[ $fmt == csv ]] && plot=(--plot "$dir/compare.$test_name.png")
      "${TRECRS_CMD[@]}" compare "${MEASURES[@]}" --test "$test_name" --correction holm --seed "$SEED" \
        --format "$fmt" -o "$dir/compare.$test_name.$ext" "${plot[@]}" --quiet "$dir/th4.qrels" "${runs[@]}"
    done
  done
  echo "  $f: compare done at ${SECONDS}s" >&2

  # (b) the same score files under every methodology
  "${TRECRS_CMD[@]}" sensitivity --train "$train" --test "$test" "${scores[@]}" "${preds[@]}" "${MEASURES[@]}" \
    --threshold 4 --n 1000 --seed "$SEED" --format markdown -o "$dir/sensitivity.md" \
    --plot "$dir/sensitivity.png" --quiet
  echo "  $f: sensitivity done at ${SECONDS}s" >&2

  # (c) sampled (N = 100) against exact metrics
  "${TRECRS_CMD[@]}" sampled --train "$train" --test "$test" "${scores[@]}" --n 100 --seed "$SEED" -k 10 \
    --format text -o "$dir/sampled.txt" --plot "$dir/sampled.png" --quiet
  "${TRECRS_CMD[@]}" sampled --train "$train" --test "$test" "${scores[@]}" --n 100 --seed "$SEED" -k 10 \
    --format csv -o "$dir/sampled.csv" --quiet
  echo "  $f: sampled done at ${SECONDS}s" >&2
}

echo "Comparing ${RECOMMENDERS[*]} on MovieLens 100K folds ${FOLDS[*]} ($DATA -> $OUT)" >&2
for f in "${FOLDS[@]}"; do
  fold "$f"
done

echo "Done in ${SECONDS}s. Per fold, in $OUT/FOLD/:" >&2
echo "  compare:     compare.{randomization,t}.{md,tex,csv,png}" >&2
echo "  sensitivity: sensitivity.md, sensitivity.png" >&2
echo "  sampled:     sampled.txt, sampled.csv, sampled.png" >&2
