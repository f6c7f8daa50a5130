# node: planck.js and rapier (npm, pinned by package-lock.json), run under node
# through the subprocess protocol; built as a manifest, build/engines/node.solvers.
ENGINE_CMD := node:nodejs npm:npm
ENGINE_NPM := planck.js rapier.js
