#!/bin/bash
# reruns of the cells reports whose line-ups read the history, on the kernel (DURAK_ENGINE=compiled)
cd /work/main/.reruns
export DURAK_ENGINE=compiled
for x in skill_strong:skill/strong skill_jack_rule:skill/jack_rule skill_jack_rule_matches:skill/jack_rule_matches; do
  f=${x%%:*}; o=${x#*:}
  echo "== $f -> $o $(date -u +%T)"
  /work/main/.venv/bin/durak run experiments/$f.toml --out reports/$o --jobs 2 || echo "FAILED $f rc=$?"
done
echo "== done $(date -u +%T)"
