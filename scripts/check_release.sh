#!/usr/bin/env bash
# Build the sdist and the wheel, check them, install the wheel in a fresh virtual environment outside the
# checkout and run trecrs from an empty folder (one eval, the main job on the sample), as a user who got
# the wheel would.
#
# usage: scripts/check_release.sh [WORK_DIR]   (default: a new temporary folder)
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
mkdir -p "$work"
python -m pip install --quiet build twine
# byte-compiling disabled (PYTHONDONTWRITEBYTECODE) makes setuptools warn; a user's build compiles
env -u PYTHONDONTWRITEBYTECODE python -m build --outdir "$work/dist" . > "$work/build.log" 2>&1 || {
  cat "$work/build.log" >&2
  exit 1
}
if grep -E "[Ww]arning:|[Dd]eprecat" "$work/build.log" >&2; then
  echo "check_release: the build printed the warnings above" >&2
  exit 1
fi
python -m twine check --strict "$work"/dist/*
version=$(python -c "import runpy; print(runpy.run_path('trecrs/_version.py')['__version__'])")
wheel=$work/dist/trecrs-$version-py3-none-any.whl
python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet "$wheel"
mkdir "$work/empty"
cd "$work/empty"
"$work/venv/bin/trecrs" --version
printf '1 0 a 2\n1 0 b 0\n2 0 c 1\n' > t.qrels
printf '1 Q0 a 1 0.9 s\n1 Q0 b 2 0.5 s\n2 Q0 d 1 0.7 s\n2 Q0 c 2 0.3 s\n' > t.run
"$work/venv/bin/trecrs" eval -m map -m P.1 t.qrels t.run > eval.txt
expected=$(printf 'map                   \tall\t0.7500\nP_1                   \tall\t0.5000\n')
if [[ $(cat eval.txt) != "$expected" ]]; then
  echo "check_release: trecrs eval from the wheel printed:" >&2
  cat eval.txt >&2
  exit 1
fi
# the main job, from the installed package alone: the sample generated from its seed, the report and figure
"$work/venv/bin/trecrs" reproduce bellogin2011 out > findings.txt
for f in out/report.md out/results.tsv out/bellogin2011_fig2.png; do
  if [[ ! -s $f ]]; then
    echo "check_release: trecrs reproduce bellogin2011 did not write $f" >&2
    exit 1
  fi
done
echo "check_release: trecrs $version builds, installs and runs from $work/empty" >&2
