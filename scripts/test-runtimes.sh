#!/usr/bin/env bash
# Runs the fast tests (vitest.runtimes.config.ts) on Node 22 and 24, then once more on Node 22
# against openai 7. Each Node comes from the npm registry as a package (node@22, node@24), and
# openai 7 is installed into a temporary folder, never into the lock. `npm test` stays on the
# machine's Node.
set -euo pipefail
cd "$(dirname "$0")/.."

vitest=(node node_modules/vitest/vitest.mjs run --config vitest.runtimes.config.ts)

for version in 22 24; do
  echo "== the fast tests on Node ${version}"
  npx --yes --package "node@${version}" -c "node --version && ${vitest[*]}"
done

openai_dir="$(mktemp -d)"
trap 'rm -rf "${openai_dir}"' EXIT
npm install --prefix "${openai_dir}" --no-save --no-audit --no-fund --loglevel=error openai@7 >/dev/null
echo "== the SDK tests on Node 22 against openai $(node -p "require('${openai_dir}/node_modules/openai/package.json').version")"
LOOPKEEPER_OPENAI_DIR="${openai_dir}" npx --yes --package node@22 -c \
  "${vitest[*]} test/model test/compaction/summarizers.test.ts test/runtime/agent-loop.e2e.test.ts test/runtime/overflow-cap.test.ts"
