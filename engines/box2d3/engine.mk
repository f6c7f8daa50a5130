# box2d3: box2d3.js run under node through the subprocess protocol (engines/node/protocol.js),
# its npm package pinned by package-lock.json; built as a manifest, build/engines/box2d3.solvers.
ENGINE_CMD := node:nodejs npm:npm
ENGINE_NPM := box2d3.js
