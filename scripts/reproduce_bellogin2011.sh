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
#   TRECRS=trecrs the command to run
#
# Every step is a trecrs command; fold() below writes one fold's pipeline to OUT_DIR/D1/u1/commands.txt
# (and so on), which `trecrs batch` runs; rerun any line by hand to inspect a step.
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 DATA_DIR OUT_DIR" >&2
  exit 2
fi
DATA=$1
OUT=$2
JOBS=${JOBS:-2}
SEED=${SEED:-1}
TRECRS=${TRECRS:-trecrs}
REFERENCE=${REFERENCE:-}

# recommenders, metrics and -l levels as in trecrs/reproductions/bellogin2011/constants.py (which the
# report reads; tests/reproductions/test_reproduce.py checks they agree)
RECOMMENDERS=(SVD50 IB UB50)
# methodology label : trecrs methodology name
METHODOLOGIES=(TR:test-ratings TeI:test-items TrI:training-items AI:all-items OPR:one-plus-random)
read -r -a FOLDS <<< "${FOLDS:-D1:u1 D1:u2 D1:u3 D1:u4 D1:u5 D2:ua D2:ub}"
METRICS=(-m P.50 -m recall.50 -m ndcg_cut.50)
STEPS_PER_FOLD=$((5 + ${#RECOMMENDERS[@]} * (1 + ${#METHODOLOGIES[@]}) + 6 + 2))

if [[ ! -f $DATA/u.data ]]; then
  echo "$0: $DATA/u.data not found (DATA_DIR must hold a MovieLens 100K u.data)" >&2
  exit 2
fi
mkdir -p "$OUT"
SECONDS=0
# folds run as parallel processes: one BLAS thread each, unless the caller says otherwise
if ((JOBS > 1)); then
  export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1} OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} \
    MKL_NUM_THREADS=${MKL_NUM_THREADS:-1}
fi

# One fold's pipeline, written as trecrs command lines to $dir/commands.txt and run by `trecrs batch`
# in one process (the same as running each line as its own command, without the start-up per line).
fold() {
  local split=$1 f=$2
  local dir=$OUT/$split/$f train=$OUT/splits/$f.base test=$OUT/splits/$f.test
  mkdir -p "$dir"
  : > "$dir/progress"
  : > "$dir/log.txt"
  local cmds=$dir/commands.txt
  {
    echo "# Bellogín et al. 2011, fold $f of $split"
    # relevance judgements: TR_3 / TR_4 (ratings >= 3 / >= 4), every test rating graded by its value
    # (TeI, TrI, AI; scored with trec_eval -l), One-Plus-Random (one query per 5-star test rating)
    cmd qrels --test "$test" --threshold 3 -o "$dir/th3.qrels"
    cmd qrels --test "$test" --threshold 4 -o "$dir/th4.qrels"
    cmd qrels --test "$test" --threshold 1 -o "$dir/all.qrels"
    cmd qrels --methodology one-plus-random --test "$test" --relevant-threshold 5 -o "$dir/opr.qrels"
    # AllItems' candidates contain every other methodology's: score them once per recommender
    cmd candidates --methodology all-items --train "$train" --test "$test" -o "$dir/all-items.pairs"
    local rec m runs_tr=() runs_opr=() runs_other=() runs_ai=()
    for rec in "${RECOMMENDERS[@]}"; do
      # --unscored drop: the candidates the model cannot score are left out (as in the authors' runs)
      cmd recommend --algorithm "$rec" --seed "$SEED" --train "$train" --candidates "$dir/all-items.pairs" \
        --unscored drop -o "$dir/$rec.scores.parquet" --predict "$test" --predictions "$dir/$rec.pred"
      for m in "${METHODOLOGIES[@]}"; do
        # a candidate the recommender cannot score is left out (as in the authors' runs); the @50
        # measures need only the first 50 documents
        cmd run --methodology "${m#*:}" --train "$train" --test "$test" --n 1000 --relevant-threshold 5 \
          --seed "$SEED" --scores "$dir/$rec.scores.parquet" --missing drop --depth 50 --tag "$rec" \
          -o "$dir/$rec.${m%%:*}.run"
      done
      runs_tr+=("$dir/$rec.TR.run")
      runs_opr+=("$dir/$rec.OPR.run")
      runs_other+=("$dir/$rec.TeI.run" "$dir/$rec.TrI.run" "$dir/$rec.AI.run")
      runs_ai+=("$dir/$rec.AI.run")
    done
    cmd eval "${METRICS[@]}" --format tsv -o "$dir/eval.TR_3.tsv" "$dir/th3.qrels" "${runs_tr[@]}"
    cmd eval "${METRICS[@]}" --format tsv -o "$dir/eval.TR_4.tsv" "$dir/th4.qrels" "${runs_tr[@]}"
    local level
    for level in 1 3 4; do
      cmd eval "${METRICS[@]}" -l "$level" --format tsv -o "$dir/eval.l$level.tsv" "$dir/all.qrels" "${runs_other[@]}"
    done
    cmd eval "${METRICS[@]}" --format tsv -o "$dir/eval.OPR.tsv" "$dir/opr.qrels" "${runs_opr[@]}"
    # is the evaluation sound? leakage, seen items, dropped users, ties at 50, power, TopPop and Random
    # (docs/audit.md): the TestRatings runs against TR_4's qrels (baselines over each run's own items), the
    # AllItems runs against every test rating at -l 4 (baselines over the AllItems candidates)
    cmd audit --train "$train" --test "$test" --qrels "$dir/th4.qrels" -m P.50 -m ndcg_cut.50 --seed "$SEED" \
      --format json -o "$dir/audit.TR.json" "${runs_tr[@]}"
    cmd audit --train "$train" --test "$test" --qrels "$dir/all.qrels" -l 4 -m P.50 -m ndcg_cut.50 --seed "$SEED" \
      --candidates "$dir/all-items.pairs" --format json -o "$dir/audit.AI.json" "${runs_ai[@]}"
  } > "$cmds"
  "$TRECRS" batch --log "$dir/log.txt" --progress "$dir/progress" "$cmds" &
  local batch=$!
  trap 'kill "$batch" 2>/dev/null; exit 130' INT TERM
  wait "$batch"
  echo ok > "$dir/done"
}
# a command line, shell-quoted, for the batch file
cmd() {
  printf 'trecrs'
  printf ' %q' "$@"
  printf '\n'
}

# Progress bar on stderr, redrawn from the folds' progress files (one line per finished step).
TOTAL=$((${#FOLDS[@]} * STEPS_PER_FOLD))
count_done() {
  DONE=0
  local job lines
  for job in "${FOLDS[@]}"; do
    if [[ -f $OUT/${job%%:*}/${job#*:}/progress ]]; then
      mapfile -t lines < "$OUT/${job%%:*}/${job#*:}/progress"
      DONE=$((DONE + ${#lines[@]}))
    fi
  done
}
draw() {
  local filled=$((DONE * 40 / TOTAL)) bar
  printf -v bar '%*s' "$filled" ''
  printf '\r[%-40s] %3d%%  %d/%d steps  %ds ' "${bar// /#}" $((DONE * 100 / TOTAL)) "$DONE" "$TOTAL" "$SECONDS" >&2
}
ticker() {
  local last=-1
  while :; do
    count_done
    if [[ -t 2 ]]; then
      draw
    elif ((DONE * 10 / TOTAL != last)); then  # not a terminal: one line per 10%
      last=$((DONE * 10 / TOTAL))
      draw
      echo >&2
    fi
    sleep 1
  done
}

echo "Reproducing Bellogín et al. 2011 on $DATA -> $OUT (${#FOLDS[@]} folds, $JOBS at a time)" >&2
"$TRECRS" datasets ml100k-splits "$DATA/u.data" "$OUT/splits" 2> "$OUT/splits.log"

ticker &
TICKER=$!
FOLD_PIDS=()
trap 'kill "$TICKER" 2>/dev/null || true' EXIT
trap 'kill "${FOLD_PIDS[@]}" "$TICKER" 2>/dev/null; echo >&2; echo "$0: interrupted" >&2; exit 130' INT TERM

failed=0
running=0
for job in "${FOLDS[@]}"; do
  if ((running >= JOBS)); then
    wait -n || failed=1
    running=$((running - 1))
  fi
  fold "${job%%:*}" "${job#*:}" &
  FOLD_PIDS+=($!)
  running=$((running + 1))
done
while ((running > 0)); do
  wait -n || failed=1
  running=$((running - 1))
done
kill "$TICKER" 2>/dev/null || true
wait "$TICKER" 2>/dev/null || true
count_done
draw
echo >&2

if ((failed)); then
  for job in "${FOLDS[@]}"; do
    d=$OUT/${job%%:*}/${job#*:}
    if [[ ! -f $d/done ]]; then
      echo "$0: fold ${job#*:} failed; the end of $d/log.txt:" >&2
      mapfile -t log < "$d/log.txt"
      printf '  %s\n' "${log[@]:${#log[@]}>6?${#log[@]}-6:0}" >&2
    fi
  done
  exit 1
fi

# The five-fold table through trecrs study (docs/study.md): per methodology, each recommender's mean over the
# folds of each split with its t interval, the corrected resampled t test against SVD50 (the folds' training
# sets overlap), the average ranks across splits
mkdir -p "$OUT/study"
for m in TR_3:th3:TR TR_4:th4:TR TeI:all:TeI TrI:all:TrI AI:all:AI OPR:opr:OPR; do
  IFS=: read -r label qrels tag <<< "$m"
  level=()
  if [[ $qrels == all ]]; then
    level=(-l 4)
  fi
  {
    # the fold's test and training ratings: the sizes select Nadeau & Bengio's corrected resampled t test
    printf 'dataset\tfold\tsystem\tqrels\trun\ttest_size\ttrain_size\n'
    for job in "${FOLDS[@]}"; do
      n_test=$(wc -l < "$OUT/splits/${job#*:}.test")
      n_train=$(wc -l < "$OUT/splits/${job#*:}.base")
      for rec in "${RECOMMENDERS[@]}"; do
        d="../${job%%:*}/${job#*:}"
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "${job%%:*}" "${job#*:}" "$rec" "$d/$qrels.qrels" "$d/$rec.$tag.run" \
          "$n_test" "$n_train"
      done
    done
  } > "$OUT/study/$label.tsv"
  "$TRECRS" study "$OUT/study/$label.tsv" "${METRICS[@]}" "${level[@]}" --baseline SVD50 --quiet --format json \
    -o "$OUT/study/$label.json"
done

ELAPSED=$SECONDS
ref=()
if [[ -n $REFERENCE ]]; then
  ref=(--reference "$REFERENCE")
fi
"$TRECRS" report bellogin2011 "$OUT" "${ref[@]}" --runtime "$ELAPSED" --jobs "$JOBS" --data "$DATA"
echo "Done in ${SECONDS}s: $OUT/report.md, $OUT/results.tsv, $OUT/bellogin2011_fig2.png" >&2
