#!/bin/bash
cd /work/main/.reruns
./runs.sh skill
export DURAK_ENGINE=compiled
for f in balance_prague_3p balance_prague_4p balance_czech_4p balance_czech_3p; do
  echo "== $f $(date -u +%T)"
  /work/main/.venv/bin/durak run experiments/$f.toml --out reports/$f --jobs 2 || echo "FAILED $f rc=$?"
done
echo "strength runs apart (strength.sh)"
echo "== queue done $(date -u +%T)"
