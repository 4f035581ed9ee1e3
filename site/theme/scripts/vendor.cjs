// Prepares the two local packages that package.json installs with `file:` specs.
//
// thebe-core 0.5.0 ships a prebuilt browser bundle (dist/lib) that the site loads at run time to draw
// rich notebook outputs (HTML tables).  Its declared dependencies (JupyterLab, jest, ...) are only needed
// to rebuild that bundle and several are missing from the registry here, so we keep the tarball's files
// and replace its package.json with one that has no dependencies and a tiny `main` (the React app only
// imports thebe-core's *types*; the one dynamic require() in thebe-react is never taken, because
// @myst-theme/jupyter loads the bundle with a <script> tag).
// thebe-lite (in-browser Python via Pyodide) is not used by this static book: an empty package stands in.
//
// Usage: node scripts/vendor.cjs <thebe-core tarball>
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const root = path.resolve(__dirname, '..');
const vendor = path.join(root, '.cache', 'vendor');
const tarball = process.argv[2];
if (!tarball) {
  console.error('usage: node scripts/vendor.cjs <thebe-core-0.5.0.tgz>');
  process.exit(2);
}

function writeJson(file, data) {
  fs.writeFileSync(file, JSON.stringify(data, null, 2) + '\n');
}

// thebe-core: unpack, keep dist/lib (bundle + css) and the type declarations.
const core = path.join(vendor, 'thebe-core');
fs.rmSync(core, { recursive: true, force: true });
fs.mkdirSync(core, { recursive: true });
execFileSync('tar', ['xzf', path.resolve(tarball), '-C', core, '--strip-components=1']);
const upstream = JSON.parse(fs.readFileSync(path.join(core, 'package.json'), 'utf8'));
for (const dir of ['src', 'dist/cjs', 'dist/esm']) {
  fs.rmSync(path.join(core, dir), { recursive: true, force: true });
}
for (const f of fs.readdirSync(path.join(core, 'dist', 'lib'))) {
  if (f.endsWith('.map')) fs.rmSync(path.join(core, 'dist', 'lib', f));
}
fs.writeFileSync(
  path.join(core, 'index.cjs'),
  "// Stand-in entry: the site loads thebe-core's browser bundle (dist/lib/thebe-core.min.js) instead.\n" +
    "module.exports = (typeof window !== 'undefined' && window.thebeCore) || {};\n",
);
writeJson(path.join(core, 'package.json'), {
  name: 'thebe-core',
  version: upstream.version,
  description: 'thebe-core prebuilt browser bundle (dependencies dropped for the Rebalance site)',
  license: upstream.license,
  main: 'index.cjs',
  types: 'dist/types/index.d.ts',
  style: 'dist/lib/thebe-core.css',
});

// thebe-lite: empty stand-in.
const lite = path.join(vendor, 'thebe-lite');
fs.rmSync(lite, { recursive: true, force: true });
fs.mkdirSync(lite, { recursive: true });
fs.writeFileSync(path.join(lite, 'index.cjs'), 'module.exports = {};\n');
writeJson(path.join(lite, 'package.json'), {
  name: 'thebe-lite',
  version: '0.5.0',
  description: 'Empty stand-in: the static Rebalance site does not run Python in the browser',
  license: 'BSD-3-Clause',
  main: 'index.cjs',
});
console.log(`vendor packages ready in ${path.relative(process.cwd(), vendor) || vendor}`);
