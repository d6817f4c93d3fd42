#!/bin/bash
cd /work/main/.reruns
export DURAK_ENGINE=compiled
echo "== strength $(date -u +%T)"
/work/main/.venv/bin/durak run experiments/strength.toml --out reports/strength --jobs 1 || echo "FAILED strength rc=$?"
echo "== strength done $(date -u +%T)"
