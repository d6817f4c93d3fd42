#!/bin/bash
# what is left, in order: strength (resumes its chunks), then skill_curves (from sc/)
cd /work/main/.reruns
echo "== strength $(date -u +%T)"
/work/main/.venv/bin/durak run experiments/strength.toml --out reports/strength --jobs 2 || echo "FAILED strength rc=$?"
cd sc
echo "== skill_curves $(date -u +%T)"
/work/main/.venv/bin/durak run experiments/skill_curves.toml --out reports/skill_curves --jobs 2 || echo "FAILED skill_curves rc=$?"
echo "== queue3 done $(date -u +%T)"
