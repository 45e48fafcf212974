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
#   SEED=1         seed of the probe split and of the random items
#   TRECRS=trecrs  the command to run
#
# Every step is a trecrs command: the script writes them to OUT_DIR/commands.txt and `trecrs batch` runs
# them in one process (the same as running each line by hand, without the start-up per line).
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 DATA_DIR OUT_DIR" >&2
  exit 2
fi
DATA=$1
OUT=$2
SEED=${SEED:-1}
TRECRS=${TRECRS:-trecrs}
RECOMMENDERS=(TopPop MovieAvg CorNgbr NNCosNgbr PureSVD50 PureSVD150)

RATINGS=
EXT=
for name in u.data ratings.dat ratings.csv; do
  if [[ -f $DATA/$name ]]; then
    RATINGS=$DATA/$name
    [[ $name == *.* && $name != u.data ]] && EXT=.${name##*.}
    break
  fi
done
if [[ -z $RATINGS ]]; then
  echo "$0: no u.data, ratings.dat or ratings.csv in $DATA" >&2
  exit 2
fi
mkdir -p "$OUT"
SECONDS=0

cmd() {
  printf 'trecrs'
  printf ' %q' "$@"
  printf '\n'
}

TRAIN=$OUT/split/train$EXT
TEST=$OUT/split/test$EXT
N_LIST=$(printf '%s,' {1..20})
N_LIST=${N_LIST%,}
{
  echo "# Cremonesi et al. 2010 on $RATINGS"
  # the paper's constants (trecrs/reproductions/cremonesi2010/constants.py,
  # checked by tests/reproductions/test_reproduce.py)
  # probe: a random 1.4% of the ratings; test = its 5-star ratings; train = every other rating
  cmd split --method probe --ratio 0.014 --threshold 5 --seed "$SEED" "$RATINGS" "$OUT/split"
  # One-Plus-Random: each test rating's item with 1,000 random items the user has not rated
  cmd candidates --methodology one-plus-random --train "$TRAIN" --test "$TEST" --n 1000 \
    --relevant-threshold 5 --seed "$SEED" -o "$OUT/opr.pairs"
  cmd qrels --methodology one-plus-random --test "$TEST" --relevant-threshold 5 -o "$OUT/full.qrels"
  # long tail: only test items outside the short head (most popular items with 33% of the ratings)
  cmd qrels --methodology one-plus-random --test "$TEST" --train "$TRAIN" --relevant-threshold 5 \
    --long-tail 0.33 -o "$OUT/longtail.qrels"
  runs=()
  for rec in "${RECOMMENDERS[@]}"; do
    # --unscored drop: what the model cannot score is ranked last by `run --missing last` below
    cmd recommend --algorithm "$rec" --seed "$SEED" --train "$TRAIN" --candidates "$OUT/opr.pairs" \
      --unscored drop -o "$OUT/$rec.scores.parquet"
    # every candidate gets a rank: those a model cannot score (MovieAvg: items nobody rated) come last
    cmd run --candidates "$OUT/opr.pairs" --scores "$OUT/$rec.scores.parquet" --missing last --depth 20 \
      --tag "$rec" -o "$OUT/$rec.run"
    runs+=("$OUT/$rec.run")
  done
  # recall(N) = #hits / |T|: trec_eval's recall_N averaged over every test case (-c)
  cmd eval -c -m "recall.$N_LIST" --format tsv -o "$OUT/eval.full.tsv" "$OUT/full.qrels" "${runs[@]}"
  cmd eval -c -m "recall.$N_LIST" --format tsv -o "$OUT/eval.longtail.tsv" "$OUT/longtail.qrels" "${runs[@]}"
} > "$OUT/commands.txt"

mapfile -t lines < "$OUT/commands.txt"
TOTAL=0
for line in "${lines[@]}"; do [[ $line == trecrs* ]] && TOTAL=$((TOTAL + 1)); done
: > "$OUT/progress"
: > "$OUT/log.txt"

draw() {
  local done_lines
  mapfile -t done_lines < "$OUT/progress"
  local n=${#done_lines[@]} bar
  printf -v bar '%*s' $((n * 40 / TOTAL)) ''
  printf '\r[%-40s] %3d%%  %d/%d steps  %ds ' "${bar// /#}" $((n * 100 / TOTAL)) "$n" "$TOTAL" "$SECONDS" >&2
  DONE=$n
}
ticker() {
  local last=-1
  while :; do
    if [[ -t 2 ]]; then
      draw
    else
      draw 2> /dev/null
      if ((DONE != last)); then last=$DONE; draw; echo >&2; fi
    fi
    sleep 1
  done
}

echo "Reproducing Cremonesi et al. 2010 on $RATINGS -> $OUT" >&2
ticker &
TICKER=$!
trap 'kill "$TICKER" 2>/dev/null || true' EXIT
status=0
"$TRECRS" batch --log "$OUT/log.txt" --progress "$OUT/progress" "$OUT/commands.txt" || status=$?
kill "$TICKER" 2>/dev/null || true
wait "$TICKER" 2>/dev/null || true
draw
echo >&2
if ((status)); then
  echo "$0: a step failed; the end of $OUT/log.txt:" >&2
  mapfile -t log < "$OUT/log.txt"
  printf '  %s\n' "${log[@]:${#log[@]}>6?${#log[@]}-6:0}" >&2
  exit "$status"
fi
ELAPSED=$SECONDS
"$TRECRS" report cremonesi2010 "$OUT" --runtime "$ELAPSED" --data "$DATA"
echo "Done in ${SECONDS}s: $OUT/report.md, $OUT/results.tsv, $OUT/cremonesi2010.png" >&2
