# rapier3d: rapier3d.js run under node through the subprocess protocol (engines/node/protocol.js),
# its npm package pinned by package-lock.json; built as a manifest, build/engines/rapier3d.solvers.
ENGINE_CMD := node:nodejs npm:npm
ENGINE_NPM := rapier3d.js
