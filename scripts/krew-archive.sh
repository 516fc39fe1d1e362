#!/usr/bin/env bash
# Builds the archive the krew manifest (plugins/auditstorm.yaml) installs, and writes its sha256
# into the manifest: the npm package (`npm pack`) with its production dependencies, plus a
# `kubectl-auditstorm` launcher that runs it with the Node.js on the PATH (>= 20.19). The native
# line scanner is not built (every line is read in JavaScript: same results, slower).
# Usage: bash scripts/krew-archive.sh [OUT_DIR]   (upload the archive as the release asset the manifest's uri names)
set -euo pipefail
cd "$(dirname "$0")/.."
out="$(realpath "${1:-.}")"
version="$(node -p 'require("./package.json").version')"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
npm run build >/dev/null
tgz="$(npm pack --ignore-scripts --pack-destination "$work" | tail -1)"
tar -xzf "$work/$tgz" -C "$work"
(cd "$work/package" && npm install --omit=dev --ignore-scripts --no-audit --no-fund --no-package-lock >/dev/null)
cat > "$work/kubectl-auditstorm" <<'SH'
#!/bin/sh
# kubectl plugin launcher: needs Node.js >= 20.19 on the PATH.
here="$(dirname "$(readlink -f "$0")")"
exec node "$here/package/bin/auditstorm.js" "$@"
SH
chmod +x "$work/kubectl-auditstorm"
cp LICENSE "$work/LICENSE"
archive="$out/auditstorm-krew-v$version.tar.gz"
tar --sort=name --mtime='2026-01-01 00:00Z' --owner=0 --group=0 --numeric-owner -C "$work" -czf "$archive" kubectl-auditstorm LICENSE package
sha="$(sha256sum "$archive" | cut -d' ' -f1)"
sed -i "s/^\(\s*sha256:\).*/\1 \"$sha\"/; s/^\(\s*version:\).*/\1 \"v$version\"/; s#/download/v[^/]*/auditstorm-krew-v[^\"]*\.tar\.gz#/download/v$version/auditstorm-krew-v$version.tar.gz#" plugins/auditstorm.yaml
echo "$archive $sha"
