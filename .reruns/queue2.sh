#!/bin/bash
# balance_czech_3p first (its chunks are too large to keep between sessions), then strength, then skill_curves
cd /work/main/.reruns
export DURAK_ENGINE=compiled
echo "== balance_czech_3p $(date -u +%T)"
/work/main/.venv/bin/durak run experiments/balance_czech_3p.toml --out reports/balance_czech_3p --jobs 2 || echo "FAILED balance_czech_3p rc=$?"
echo "== strength $(date -u +%T)"
/work/main/.venv/bin/durak run experiments/strength.toml --out reports/strength --jobs 2 || echo "FAILED strength rc=$?"
cd sc
echo "== skill_curves $(date -u +%T)"
/work/main/.venv/bin/durak run experiments/skill_curves.toml --out reports/skill_curves --jobs 2 || echo "FAILED skill_curves rc=$?"
echo "== queue2 done $(date -u +%T)"
