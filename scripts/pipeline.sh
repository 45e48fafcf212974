#!/usr/bin/env bash
# From a ratings file to trec_eval scores under the five evaluation methodologies.
#
#   scripts/pipeline.sh RATINGS OUT_DIR
#   scripts/pipeline.sh sample_data/synth-100k-like/u.data /tmp/pipeline
#
# RATINGS is any ratings file trecrs reads, under any name: u.data, ratings.dat (::), ratings.csv
# (userId,movieId,rating,timestamp), data.tsv, Parquet. The split keeps its layout and extension.
#
# ratings -> hold-out split -> qrels -> candidates -> a score file (most-popular recommender)
#         -> one TREC run per methodology -> trecrs eval
#
# Methodologies: test-ratings, test-items, training-items, all-items (Bellogín, Castells & Cantador,
# RecSys 2011) and one-plus-random (Cremonesi, Koren & Turrin, RecSys 2010). The first four share one
# qrels file (test ratings >= THRESHOLD, graded by the rating); one-plus-random has its own (one query
# user:item per test rating >= HIGH). The all-items candidates contain every other methodology's
# candidates, so a single score file over them serves all five runs (each run reports how many scores
# it dropped as non-candidates).
#
# Settings (environment variables): SEED (1), TEST_RATIO (0.2), THRESHOLD (4), HIGH (5), N (1000),
# MEASURES ("-m P.10 -m recall.10 -m ndcg_cut.10 -m map"). Only the `trecrs` command is used.
set -euo pipefail

if [ "$#" -ne 2 ]; then
    echo "usage: $0 RATINGS OUT_DIR" >&2
    exit 2
fi
ratings=$1
out=$2
seed=${SEED:-1}
ratio=${TEST_RATIO:-0.2}
threshold=${THRESHOLD:-4}
high=${HIGH:-5}
n=${N:-1000}
read -r -a measures <<< "${MEASURES:--m P.10 -m recall.10 -m ndcg_cut.10 -m map}"
methodologies=(test-ratings test-items training-items all-items one-plus-random)

mkdir -p "$out"/split "$out"/qrels "$out"/candidates "$out"/scores "$out"/runs "$out"/eval

echo "== split: hold-out, test ratio $ratio, seed $seed" >&2
trecrs split --method holdout --ratio "$ratio" --seed "$seed" "$ratings" "$out/split/"
# The split keeps the ratings' layout and extension (u.data -> train, ratings.csv -> train.csv,
# ratings.dat -> train.dat, data.tsv -> train.tsv): find the file it wrote for each role.
split_file() {
    local role=$1 f found=()
    for f in "$out/split/$role" "$out/split/$role".*; do
        [[ -f $f && $f != *.manifest.json ]] && found+=("$f")
    done
    if [ "${#found[@]}" -ne 1 ]; then
        echo "$0: expected one $role file in $out/split, found ${#found[@]}: ${found[*]-} (use an empty OUT_DIR)" >&2
        exit 1
    fi
    echo "${found[0]}"
}
train=$(split_file train)
test=$(split_file test)

echo "== qrels: test ratings >= $threshold; one-plus-random: test ratings >= $high" >&2
trecrs qrels --test "$test" --threshold "$threshold" -o "$out/qrels/th$threshold.qrels"
trecrs qrels --methodology one-plus-random --test "$test" --relevant-threshold "$high" \
    -o "$out/qrels/one-plus-random.qrels"

echo "== candidates" >&2
for m in "${methodologies[@]}"; do
    trecrs candidates --methodology "$m" --train "$train" --test "$test" \
        --n "$n" --relevant-threshold "$high" --seed "$seed" -o "$out/candidates/$m.pairs"
done

echo "== scores: most popular items (toppop) over the all-items candidates" >&2
trecrs recommend --algorithm toppop --train "$train" --candidates "$out/candidates/all-items.pairs" \
    -o "$out/scores/toppop.scores"

echo "== runs" >&2
for m in "${methodologies[@]}"; do
    trecrs run --methodology "$m" --train "$train" --test "$test" \
        --n "$n" --relevant-threshold "$high" --seed "$seed" \
        --scores "$out/scores/toppop.scores" --tag "toppop.$m" -o "$out/runs/$m.run"
done

echo "== trecrs eval" >&2
for m in "${methodologies[@]}"; do
    qrels=$out/qrels/th$threshold.qrels
    [ "$m" = one-plus-random ] && qrels=$out/qrels/one-plus-random.qrels
    trecrs eval "${measures[@]}" -o "$out/eval/$m.txt" "$qrels" "$out/runs/$m.run"
    echo "-- $m"
    cat "$out/eval/$m.txt"
done
