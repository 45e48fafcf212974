#!/usr/bin/env bash
# Fingerprint every file the main commands write, to prove a change to the code left the outputs
# byte-identical: run it before and after, and compare the two listings (or compare with the listing
# kept in tests/regression/, which the slow test test_outputs_unchanged does).
#
# usage: scripts/fingerprint_outputs.sh WORK_DIR [sample|ml100k|all]
#   WORK_DIR  a scratch folder (emptied); the listing is WORK_DIR/<set>.sha256, one "sha256  path" line
#             per output file, paths relative to WORK_DIR/<set>
#   sample    (default) the bundled synthetic data: the pipeline script, both reproductions, the
#             tiny qrels/run in every output format, -q/-c/-l/-M/-J variants
#   relist    only recompute the listings of the sets already in WORK_DIR
#   ml100k    MovieLens 100K from ../shared (absolute paths in manifests listed by file name): the Bellogín reproduction on folds u1 and ua, the
#             Cremonesi reproduction, and the authors' released u1 runs scored with -m all_trec
#
# Every command runs from inside its output folder with relative paths, so the manifests (which record
# the command line) do not depend on WORK_DIR. Figures (PNG) and logs are left out of the listing, and
# the wall times a report states (its text and its manifests' runtime) are masked: they are not results.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 WORK_DIR [sample|ml100k|all|relist]" >&2
  exit 2
fi
HERE=$(cd "${BASH_SOURCE[0]%/*}" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
SHARED=${SHARED:-$ROOT/../shared}
WORK=$(mkdir -p "$1" && cd "$1" && pwd)
WHICH=${2:-sample}
export JOBS=${JOBS:-2} SEED=1

listing() {  # listing DIR NAME: sha256 of every output, wall times masked, figures left out
  python3 - "$1" > "$WORK/$2.sha256" <<'PY'
import hashlib, json, re, sys
from pathlib import Path

root = Path(sys.argv[1])
skip = {"progress", "log.txt"}
for path in sorted(p for p in root.rglob("*") if p.is_file()):
    if path.suffix in (".png", ".log") or path.name in skip:
        continue
    data = path.read_bytes()
    if path.name.endswith(".manifest.json"):  # the wall time a report was given is not computed
        record = json.loads(data)
        record.get("parameters", {}).pop("runtime_seconds", None)
        if record.get("file") == "report.md":  # its hash covers the wall time; the text is listed masked
            record.pop("sha256", None), record.pop("bytes", None)
        cmd = record.get("command", [])
        if "--runtime" in cmd:
            del cmd[cmd.index("--runtime") : cmd.index("--runtime") + 2]
        # files outside the work folder (../shared) are named by their file name: where they sit varies
        if "command" in record:
            record["command"] = [Path(a).name if a.startswith("/") else a for a in cmd]
        for entry in record.get("inputs", {}).values():
            if str(entry.get("path", "")).startswith("/"):
                entry["path"] = Path(entry["path"]).name
        data = json.dumps(record, indent=2).encode()
    elif path.name == "report.md":
        data = re.sub(rb"[0-9]+(\.[0-9]+)? ?s\b", b"<time>", data)
    print(f"{hashlib.sha256(data).hexdigest()}  {path.relative_to(root).as_posix()}")
PY
  echo "$WORK/$2.sha256: $(wc -l < "$WORK/$2.sha256") files" >&2
}

sample() {
  local d=$WORK/sample
  rm -rf "$d" && mkdir -p "$d" && cd "$d"
  cp "$ROOT/sample_data/tiny.qrels" "$ROOT/sample_data/tiny.run" .
  cp -r "$ROOT/sample_data/synth-100k-like" data
  bash "$ROOT/scripts/pipeline.sh" data/u.data pipeline > pipeline.stdout 2> /dev/null
  bash "$ROOT/scripts/reproduce_bellogin2011.sh" data bellogin 2> /dev/null
  bash "$ROOT/scripts/reproduce_cremonesi2010.sh" data cremonesi > /dev/null 2>&1
  mkdir -p eval
  local fmt flags
  for fmt in trec tsv csv json parquet; do
    trecrs eval -q -m all_trec --format "$fmt" -o "eval/tiny.$fmt" tiny.qrels tiny.run
  done
  for flags in "-q -c -m official" "-q -l 2 -m all_trec" "-q -M 3 -m all_trec" "-q -J -m all_trec" \
    "-q -m P@10 -m nDCG@5 -m AP -m RR -m auc -m lauc.10"; do
    # shellcheck disable=SC2086
    trecrs eval $flags tiny.qrels tiny.run > "eval/tiny${flags// /_}.txt"
  done
  trecrs split --method kfold --folds 5 --seed 1 data/u.data splits/ 2> /dev/null
  listing "$d" sample
}

ml100k() {
  local d=$WORK/ml100k
  [[ -f $SHARED/data/ml-100k/u.data ]] || { echo "$0: $SHARED/data/ml-100k/u.data absent" >&2; exit 2; }
  rm -rf "$d" && mkdir -p "$d" && cd "$d"
  cp -r "$SHARED/data/ml-100k" data
  cp -r "$SHARED/data/bellogin2011_fold1/runs_test_ratings" golden
  FOLDS="D1:u1 D2:ua" REFERENCE="$SHARED/reference/bellogin2011_fig2_D1.tsv" \
    bash "$ROOT/scripts/reproduce_bellogin2011.sh" data bellogin 2> /dev/null
  bash "$ROOT/scripts/reproduce_cremonesi2010.sh" data cremonesi > /dev/null 2>&1
  mkdir -p eval
  local run
  for run in golden/*; do
    case $run in *urels*) continue ;; esac
    trecrs eval -q -m all_trec golden/urels_th4.txt "$run" > "eval/${run##*/}.all_trec"
    trecrs eval -q -l 3 -m all_trec golden/urels_th3.txt "$run" > "eval/${run##*/}.l3"
  done
  listing "$d" ml100k
}

case $WHICH in
  sample) sample ;;
  ml100k) ml100k ;;
  all) sample; ml100k ;;
  relist) for set in sample ml100k; do [[ -d $WORK/$set ]] && listing "$WORK/$set" "$set"; done ;;
  *) echo "$0: unknown set '$WHICH' (sample, ml100k or all)" >&2; exit 2 ;;
esac
