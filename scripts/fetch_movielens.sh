#!/usr/bin/env bash
# Download an official MovieLens archive from GroupLens, unpack it and verify it with trecrs.
#
#   scripts/fetch_movielens.sh NAME DIR      NAME: ml-100k ml-1m ml-10m ml-20m ml-25m ml-32m
#
# The archive goes to DIR/NAME.zip and unpacks to DIR/<folder> (ml-100k, ml-1m, ml-10M100K, ml-20m, ...);
# then `trecrs datasets verify --dataset NAME DIR` checks the archive's md5 and the files against the
# checksums trecrs knows, and the script fails (non-zero exit) on any mismatch. Needs network access and
# curl or wget; the MovieLens licence (see the README in the archive) forbids redistributing the files.
# Set TRECRS to the command to run trecrs with (default: trecrs).
set -euo pipefail

usage() {
    sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

[ "$#" -eq 2 ] || usage
name=$1
dir=$2
trecrs=${TRECRS:-trecrs}

case "$name" in
    ml-100k | ml-1m | ml-10m | ml-20m | ml-25m | ml-32m) ;;
    *) echo "fetch_movielens.sh: unknown dataset '$name'" >&2; usage ;;
esac

url="https://files.grouplens.org/datasets/movielens/${name}.zip"
mkdir -p "$dir"
zip="$dir/${name}.zip"
part="$zip.part"

if [ -s "$zip" ]; then
    echo "fetch_movielens.sh: $zip already present, not downloading again" >&2
else
    echo "fetch_movielens.sh: downloading $url" >&2
    if command -v curl >/dev/null 2>&1; then
        curl --fail --location --retry 3 --show-error --output "$part" "$url"
    elif command -v wget >/dev/null 2>&1; then
        wget --tries=3 --output-document="$part" "$url"
    else
        echo "fetch_movielens.sh: needs curl or wget" >&2
        exit 1
    fi
    mv "$part" "$zip"  # only a complete download gets the final name
fi

echo "fetch_movielens.sh: unpacking into $dir" >&2
if command -v unzip >/dev/null 2>&1; then
    unzip -q -o "$zip" -d "$dir"
else
    python3 -m zipfile -e "$zip" "$dir"
fi

$trecrs datasets verify --dataset "$name" "$dir"
