#!/bin/bash
# reruns on the kernel (DURAK_ENGINE=compiled) of the tournament and balance reports, cheapest first; resumable
cd /work/main/.reruns
export DURAK_ENGINE=compiled
for f in "$@"; do
  echo "== $f $(date -u +%T)"
  /work/main/.venv/bin/durak run experiments/$f.toml --out reports/$f --jobs 2 || echo "FAILED $f rc=$?"
done
echo "== done $(date -u +%T)"
