#!/bin/bash
# what is left: skill_curves (resumes its chunks in sc/)
cd /work/main/.reruns/sc
echo "== skill_curves $(date -u +%T)"
/work/main/.venv/bin/durak run experiments/skill_curves.toml --out reports/skill_curves --jobs 2 || echo "FAILED skill_curves rc=$?"
echo "== queue3 done $(date -u +%T)"
