#!/usr/bin/env bash
# Regenerates the seed corpora in Fuzz/Corpus/ with the make-seeds program (Fuzz/MakeSeeds/), which
# the package declares with the fuzz harnesses (BLOBSTORE_FUZZ=1, Package.swift) and
# `Fuzz/run.sh --build-seeds-writer` builds. Usage: Fuzz/make-seeds.sh
set -euo pipefail
shopt -s inherit_errexit

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
binary="$(Fuzz/run.sh --build-seeds-writer)"
corpora=(Fuzz/Corpus/JournalReader Fuzz/Corpus/JournalRecord Fuzz/Corpus/ManifestReader Fuzz/Corpus/ManifestTable
    Fuzz/Corpus/TraceReader Fuzz/Corpus/PolicySnapshot Fuzz/Corpus/ChunkRecipe)
mkdir -p "${corpora[@]}"
"$binary" Fuzz/Corpus/JournalReader
ls -l "${corpora[@]}"
