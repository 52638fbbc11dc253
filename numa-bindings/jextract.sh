#!/usr/bin/env bash
# Regenerates the libnuma bindings in src/main/java/io/hotkeeper/numa/generated from the system headers.
#
# Generated with:
#   jextract 23, built from https://github.com/openjdk/jextract
#     commit f9866df3a178baa2e4a3746a7a6e458d783ace92 ("7904209: Support variable array parameters")
#   running on JDK 25.0.3+9-LTS, libclang "Debian clang version 16.0.6 (15~deb12u1)"
#   headers from Debian 12 libnuma-dev 2.0.16-1 (/usr/include/numa.h, /usr/include/numaif.h)
#
# This script does not build jextract. It runs the jextract named by $JEXTRACT, or the one on PATH.
# Never edit the generated files by hand: change the options below and run this script again.
#
# Library: "-l :libnuma.so.1" makes the generated numa_h look up the versioned runtime soname, which the
# runtime package libnuma1 provides on its own; "-l numa" would look up libnuma.so, which only libnuma-dev ships.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
JEXTRACT=${JEXTRACT:-$(command -v jextract || true)}
if [[ -z "$JEXTRACT" || ! -x "$JEXTRACT" ]]; then
  echo "jextract.sh: no jextract found: set JEXTRACT=/path/to/bin/jextract or put jextract on PATH" >&2
  exit 1
fi
INCLUDE=${NUMA_INCLUDE_DIR:-/usr/include}
for header in numa.h numaif.h; do
  if [[ ! -f "$INCLUDE/$header" ]]; then
    echo "jextract.sh: $INCLUDE/$header is missing: install libnuma-dev (apt-get install libnuma-dev)" >&2
    exit 1
  fi
done

OUT="$HERE/src/main/java"
PKG=io.hotkeeper.numa.generated
rm -rf "$OUT/${PKG//.//}"

"$JEXTRACT" --version

"$JEXTRACT" \
  --output "$OUT" \
  --target-package "$PKG" \
  --header-class-name numa_h \
  --library :libnuma.so.1 \
  --include-function numa_available \
  --include-function numa_max_node \
  --include-function numa_num_configured_cpus \
  --include-function numa_node_of_cpu \
  --include-function numa_node_size64 \
  --include-function numa_pagesize \
  --include-function numa_alloc_onnode \
  --include-function numa_alloc_interleaved \
  --include-function numa_alloc_local \
  --include-function numa_free \
  --include-function numa_move_pages \
  --include-function mbind \
  --include-constant MPOL_BIND \
  --include-constant MPOL_MF_MOVE \
  "$INCLUDE/numa.h" "$INCLUDE/numaif.h"

echo "jextract.sh: regenerated $OUT/${PKG//.//}"
